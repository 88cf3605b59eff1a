/* SPDX-License-Identifier: MIT */
/*
 * test_preload_dl_guard.c - a fork while another thread walks the loaded
 * objects (dl_iterate_phdr, through gt_dl_iterate) waits for the walk to
 * end, so the child's own walk does not find the dynamic linker's lock
 * held for good; a walk does not wait when no fork is under way; and a
 * child made without fork() (_Fork: no handler ran) while a walk was
 * inside is told so and walks nothing, while one made when none was
 * inside walks as before; and a _Fork with the handlers run around it (as
 * the library's _Fork and syscall() do) waits like fork().
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "preload/base/dl.h"

static atomic_int walking;

/* A slow walk: 300 ms inside its first callback. */
static int slow(struct dl_phdr_info *info, size_t size, void *data)
{
	struct timespec ts = { 0, 300000000 };

	(void)info, (void)size, (void)data;
	atomic_store(&walking, 1);
	nanosleep(&ts, NULL);
	return 1;
}

static void *walker(void *arg)
{
	(void)arg;
	gt_dl_iterate(slow, NULL);
	return NULL;
}

static int count(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)info, (void)size;
	++*(int *)data;
	return 0;
}

static void fork_waits_for_the_walk(void **state)
{
	pthread_t t;
	pid_t pid;
	int status = 0, waited;

	(void)state;
	assert_int_equal(gt_dl_guard_init(), 0);
	assert_int_equal(pthread_create(&t, NULL, walker, NULL), 0);
	while (!atomic_load(&walking))
		sched_yield();
	pid = fork();                       /* while the walker is inside */
	if (pid == 0) {
		int n = 0;

		alarm(5);                   /* a child stuck on the lock dies */
		dl_iterate_phdr(count, &n);
		_exit(n > 0 ? 0 : 1);
	}
	assert_true(pid > 0);
	for (waited = 0; waited < 1000 && waitpid(pid, &status, WNOHANG) == 0; waited++)
		usleep(10000);
	if (waited == 1000) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
	}
	pthread_join(t, NULL);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

static void walks_go_on_between_forks(void **state)
{
	int n = 0;

	(void)state;
	assert_int_equal(gt_dl_enter(), 0);
	gt_dl_leave();
	assert_int_equal(gt_dl_iterate(count, &n), 0);
	assert_true(n > 0);
}

/* A child made by _Fork: what the library does when it notices one
 * (gt_dl_after_fork), then a walk; the child's exit status says: 0 the
 * walk went on and found objects, 2 it was told a walk was inside and
 * walked nothing, 1 anything else. */
static int unforked_child(int handlers)
{
	pid_t pid;
	int status = 0;

	if (handlers)
		gt_dl_fork_begin();
	pid = _Fork();
	if (handlers)
		gt_dl_fork_end(pid);

	if (pid == 0) {
		int n = 0, rc, stuck;

		alarm(5);
		stuck = gt_dl_after_fork();
		if (gt_dl_after_fork() != stuck)
			_exit(1);           /* a second notice says the same */
		rc = gt_dl_iterate(count, &n);
		if (!stuck && rc == 0 && n > 0)
			_exit(0);
		_exit(stuck && rc == 0 && n == 0 && gt_dl_enter() == -1 ? 2 : 1);
	}
	assert_true(pid > 0);
	waitpid(pid, &status, 0);
	assert_true(WIFEXITED(status));
	return WEXITSTATUS(status);
}

static void unforked_child_walks_when_none_was_inside(void **state)
{
	(void)state;
	assert_int_equal(unforked_child(0), 0);
}

/* A _Fork while the walker is inside: the child's exit status. */
static int unforked_child_while_inside(int handlers)
{
	pthread_t t;
	int rc;

	atomic_store(&walking, 0);
	assert_int_equal(pthread_create(&t, NULL, walker, NULL), 0);
	while (!atomic_load(&walking))
		sched_yield();
	rc = unforked_child(handlers);
	pthread_join(t, NULL);
	assert_int_equal(gt_dl_enter(), 0);     /* the parent walks on */
	gt_dl_leave();
	return rc;
}

static void unforked_child_while_inside_walks_nothing(void **state)
{
	(void)state;
	assert_int_equal(unforked_child_while_inside(0), 2);
}

static void handlers_around_fork_wait_for_the_walk(void **state)
{
	(void)state;
	assert_int_equal(unforked_child_while_inside(1), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fork_waits_for_the_walk),
		cmocka_unit_test(walks_go_on_between_forks),
		cmocka_unit_test(unforked_child_walks_when_none_was_inside),
		cmocka_unit_test(unforked_child_while_inside_walks_nothing),
		cmocka_unit_test(handlers_around_fork_wait_for_the_walk),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
