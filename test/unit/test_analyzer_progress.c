/* SPDX-License-Identifier: MIT */
/*
 * test_analyzer_progress.c - the progress bar on a terminal (stderr made a
 * pseudo-terminal here, on a clock the test sets): nothing drawn while the
 * reading has taken less than a second, drawn once it has, erased at the
 * end; forced on, drawn from the start.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyzer/lib/progress.h"

static uint64_t fake_now;
static int master = -1, saved_stderr = -1;

static uint64_t fake_clock(void)
{
	return fake_now;
}

/* stderr onto a new pseudo-terminal; master reads what it gets. */
static int pty_setup(void **state)
{
	int slave;

	(void)state;
	master = posix_openpt(O_RDWR | O_NOCTTY);
	if (master < 0 || grantpt(master) || unlockpt(master))
		return -1;
	slave = open(ptsname(master), O_RDWR | O_NOCTTY);
	if (slave < 0)
		return -1;
	fflush(stderr);
	saved_stderr = dup(STDERR_FILENO);
	dup2(slave, STDERR_FILENO);
	close(slave);
	fcntl(master, F_SETFL, O_NONBLOCK);
	progress_clock(fake_clock);
	progress_force(-1);
	unsetenv("GPUTRACE_PROGRESS");
	return 0;
}

static int pty_teardown(void **state)
{
	(void)state;
	fflush(stderr);
	dup2(saved_stderr, STDERR_FILENO);
	close(saved_stderr);
	close(master);
	progress_clock(NULL);
	return 0;
}

/* What the terminal got since the last call. */
static size_t drained(char *buf, size_t size)
{
	ssize_t n, got = 0;

	fflush(stderr);
	usleep(10000);
	while ((size_t)got < size - 1 &&
	       (n = read(master, buf + got, size - 1 - (size_t)got)) > 0)
		got += n;
	buf[got] = '\0';
	return (size_t)got;
}

static void quick_work_draws_nothing(void **state)
{
	char buf[4096];

	(void)state;
	fake_now = 5000000000ull;
	progress_begin("reading", 1000);
	for (uint64_t done = 0; done <= 1000; done += 10) {
		fake_now += 9000000;        /* 101 ticks in 0.91 s */
		progress_tick(done);
	}
	assert_false(progress_shown());
	progress_end();
	assert_int_equal(drained(buf, sizeof(buf)), 0);
}

static void slow_work_draws_after_a_second(void **state)
{
	char buf[4096];

	(void)state;
	fake_now = 1000;
	progress_begin("reading", 1000);
	fake_now += 600000000;
	progress_tick(100);
	assert_false(progress_shown());
	assert_int_equal(drained(buf, sizeof(buf)), 0);
	fake_now += 500000000;              /* 1.1 s in */
	progress_tick(200);
	assert_true(progress_shown());
	drained(buf, sizeof(buf));
	assert_non_null(strstr(buf, "reading ["));
	assert_non_null(strstr(buf, " 20%"));
	progress_end();
	assert_false(progress_shown());
	drained(buf, sizeof(buf));
	assert_non_null(strstr(buf, "100%"));
	assert_non_null(strchr(buf, '\r'));         /* erased in place */
}

static void forced_draws_from_the_start(void **state)
{
	char buf[4096];

	(void)state;
	progress_force(1);
	fake_now = 0;
	progress_begin("reading", 1000);
	assert_true(progress_shown());
	drained(buf, sizeof(buf));
	assert_non_null(strstr(buf, "  0%"));
	progress_end();
	progress_force(-1);
	drained(buf, sizeof(buf));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(quick_work_draws_nothing),
		cmocka_unit_test(slow_work_draws_after_a_second),
		cmocka_unit_test(forced_draws_from_the_start),
	};

	return cmocka_run_group_tests(tests, pty_setup, pty_teardown);
}
