/* SPDX-License-Identifier: MIT */
/*
 * test_preload_tsc.c - unit tests (cmocka) for the time-stamp counter
 * stamps of ring records (preload/base/tsc.c): turned into nanoseconds the way
 * the writer does each cycle, a stamp lands between the clock reads taken
 * around it; GPUTRACE_TSC=0 (gt_cfg.tsc, read by config.c) keeps plain
 * CLOCK_MONOTONIC.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "preload/base/internal.h"

#define ROUNDS 30
#define SAMPLES 256
#define SLACK_NS 1000               /* a pair's jitter, generously */

struct gt_config gt_cfg;            /* config.c's, not linked here */

static void stamps_become_the_clock(void **state)
{
	uint64_t before[SAMPLES], stamp[SAMPLES], after[SAMPLES];
	uint64_t worst = 0;

	(void)state;
	gt_cfg.tsc = 1;                 /* GPUTRACE_TSC unset */
	gt_tsc_init();
	if (!gt_tsc_on)
		skip();                 /* the kernel does not keep time with it */
	for (int r = 0; r < ROUNDS; r++) {
		for (int i = 0; i < SAMPLES; i++) {
			before[i] = gt_now();
			stamp[i] = gt_stamp();
			after[i] = gt_now();
			for (volatile int k = 0; k < 2000 * (r % 4); k++)
				;       /* cycles of different lengths */
		}
		gt_tsc_pair();          /* as the writer: a pair, then convert */
		for (int i = 0; i < SAMPLES; i++) {
			uint64_t ns = gt_tsc_to_ns(stamp[i]);
			uint64_t off = ns < before[i] ? before[i] - ns
				     : ns > after[i] ? ns - after[i] : 0;

			if (off > worst)
				worst = off;
		}
	}
	print_message("worst distance outside the clock reads: %llu ns\n",
		      (unsigned long long)worst);
	assert_true(worst <= SLACK_NS);
}

static void off_when_asked(void **state)
{
	uint64_t a, s, b;

	(void)state;
	gt_tsc_on = 0;
	gt_cfg.tsc = 0;                 /* GPUTRACE_TSC=0 */
	gt_tsc_init();
	assert_int_equal(gt_tsc_on, 0);
	a = gt_now();
	s = gt_stamp();
	b = gt_now();
	assert_true(a <= s && s <= b);          /* the clock itself */
	assert_true(gt_tsc_to_ns(s) == s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(stamps_become_the_clock),
		cmocka_unit_test(off_when_asked),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
