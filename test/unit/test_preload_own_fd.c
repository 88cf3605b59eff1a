/* SPDX-License-Identifier: MIT */
/*
 * test_preload_own_fd.c - unit tests (cmocka) for the library's own
 * descriptors (own_fd.c): when the program closes one of ours and opens a
 * file of its own under the same number, neither closing ours nor moving
 * it out of the way takes the program's file away.
 */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <cmocka.h>

#include "preload/base/own_fd.h"

/* A file of the program's (another one), opened at number fd. */
static void program_file_at(int fd)
{
	int nf = open("/proc/self/cmdline", O_RDONLY);

	assert_true(nf >= 0);
	if (nf != fd) {
		assert_int_equal(dup2(nf, fd), fd);
		close(nf);
	}
}

static int is_open(int fd)
{
	return fcntl(fd, F_GETFD) >= 0;
}

static void close_while_ours(void **state)
{
	struct gt_own_fd o;
	int fd = gt_own_open(&o, "/proc/self/stat");

	assert_true(fd >= 0);
	assert_true(gt_own_still(&o));
	gt_own_close(&o);
	assert_int_equal(o.fd, -1);
	assert_false(is_open(fd));
}

static void close_leaves_the_programs_file(void **state)
{
	struct gt_own_fd o;
	int fd = gt_own_open(&o, "/proc/self/stat");

	assert_true(fd >= 0);
	close(fd);                      /* the program: close_range ... */
	program_file_at(fd);            /* ... and a file of its own there */
	assert_false(gt_own_still(&o));
	gt_own_close(&o);
	assert_int_equal(o.fd, -1);
	assert_true(is_open(fd));
	close(fd);
}

static void move_goes_high_and_closes_the_low_number(void **state)
{
	struct gt_own_fd o;
	int fd = gt_own_open(&o, "/proc/self/stat");

	assert_true(fd >= 0 && fd < 200);
	assert_int_equal(gt_own_move(&o, 200), 0);
	assert_true(o.fd >= 200);
	assert_true(gt_own_still(&o));
	assert_true(fcntl(o.fd, F_GETFD) & FD_CLOEXEC);
	assert_false(is_open(fd));
	gt_own_close(&o);
}

static void move_leaves_the_programs_file(void **state)
{
	struct gt_own_fd o;
	int fd = gt_own_open(&o, "/proc/self/stat");

	assert_true(fd >= 0);
	close(fd);
	program_file_at(fd);            /* replaced before the move: the dup
					   copies the program's file ... */
	assert_int_equal(gt_own_move(&o, 200), -1);
	assert_int_equal(o.fd, fd);     /* ... which is not kept ... */
	assert_false(is_open(200));
	assert_true(is_open(fd));       /* ... nor closed */
	assert_false(gt_own_still(&o));
	gt_own_close(&o);
	assert_true(is_open(fd));
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(close_while_ours),
		cmocka_unit_test(close_leaves_the_programs_file),
		cmocka_unit_test(move_goes_high_and_closes_the_low_number),
		cmocka_unit_test(move_leaves_the_programs_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
