/* SPDX-License-Identifier: MIT */
/*
 * test_analyzer_diagnosis.c - the diagnosis's building blocks: the period
 * of the launch sequence (prefix function of the reversed window: the
 * longest periodic suffix repeated three times, covering half the window
 * or more), the step inside a period made of near copies of it, a
 * period that gives way to another, and span lists (merge, search,
 * cover).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>

#include "analyzer/diagnosis/diagnosis_internal.h"
#include "gputrace/period.h"

static int32_t work[1 << 16];

/* A sequence: `pre` warm-up tokens, then reps of a period `p` (newest
 * first, as steps_period.c hands them over). */
static size_t make(uint32_t *tok, size_t pre, uint32_t p, size_t reps)
{
	size_t n = 0;

	for (size_t r = 0; r < reps; r++)
		for (uint32_t i = 0; i < p; i++)
			tok[n++] = 100 + i % 7 + (i == p - 1 ? 50 : 0) + (i % 3) * 10;
	for (size_t i = 0; i < pre; i++)
		tok[n++] = 1000 + (uint32_t)i;
	return n;
}

static void test_period(void **state)
{
	static uint32_t tok[1 << 16];
	size_t n;

	(void)state;
	n = make(tok, 0, 17, 40);
	assert_int_equal(steps_suffix_period(tok, n, work), 17);
	n = make(tok, 100, 17, 40);             /* warm-up at the old end */
	assert_int_equal(steps_suffix_period(tok, n, work), 17);
	n = make(tok, 0, 1, 500);               /* one kernel, over and over */
	assert_int_equal(steps_suffix_period(tok, n, work), 1);
	n = make(tok, 0, 300, 2);               /* two steps are not enough */
	assert_int_equal(steps_suffix_period(tok, n, work), 0);
	n = make(tok, 5000, 17, 40);            /* periodic part under half */
	assert_int_equal(steps_suffix_period(tok, n, work), 0);
	for (size_t i = 0; i < 1000; i++)
		tok[i] = (uint32_t)(i * 2654435761u);
	assert_int_equal(steps_suffix_period(tok, 1000, work), 0);
	assert_int_equal(steps_suffix_period(tok, 0, work), 0);
}

/* Two steps of 40 calls, the second with its first `differ` calls other
 * than the first's, repeated. */
static void two_steps(uint32_t *tok, size_t n, uint32_t differ)
{
	for (size_t i = 0; i < n; i++)
		tok[i] = i % 80 >= 40 && i % 40 < differ ? 999 : 100 + i % 40;
}

static void test_sub_period(void **state)
{
	static uint32_t tok[400];

	(void)state;
	two_steps(tok, 400, 0);
	assert_int_equal(gt_sub_period(tok, 80), 40);
	two_steps(tok, 400, 1);                 /* a kernel every other step */
	assert_int_equal(gt_sub_period(tok, 80), 40);
	two_steps(tok, 400, 4);                 /* a tenth of the calls */
	assert_int_equal(gt_sub_period(tok, 80), 40);
	two_steps(tok, 400, 5);                 /* more: two kinds of step */
	assert_int_equal(gt_sub_period(tok, 80), 80);
	for (uint32_t i = 0; i < 400; i++)
		tok[i] = 100 + i % 7;           /* 7 does not divide 40 */
	assert_int_equal(gt_sub_period(tok, 40), 40);
	assert_int_equal(gt_sub_period(tok, 1), 1);
}

/* Times of 8 periods of 2 steps of 10 calls, 1 us apart; step k of
 * period j takes extra[j][k] more between its first and last calls. */
static void even_times(uint64_t *t, const uint64_t extra[8][2])
{
	uint64_t now = 0;

	for (size_t j = 0; j < 8; j++)
		for (size_t k = 0; k < 2; k++)
			for (size_t i = 0; i < 10; i++) {
				now += 1000 + (i == 5 ? extra[j][k] : 0);
				t[j * 20 + k * 10 + i] = now;
			}
}

static void test_even_steps(void **state)
{
	static uint64_t t[160];
	uint64_t extra[8][2] = { { 0 } };

	(void)state;
	even_times(t, extra);
	assert_true(gt_even_steps(t, 20, 10, 8));
	extra[3][1] = 10000000;         /* stopped 10 ms in one step */
	even_times(t, extra);
	assert_true(gt_even_steps(t, 20, 10, 8));
	for (size_t j = 0; j < 8; j++)
		extra[j][1] = 50000;    /* a longer second step every period */
	even_times(t, extra);
	assert_false(gt_even_steps(t, 20, 10, 8));
	assert_false(gt_even_steps(t, 20, 10, 0));
}

static void test_spans(void **state)
{
	struct span_list l = { 0 };
	size_t budget = 3, hint = 0;
	uint64_t until;

	(void)state;
	assert_int_equal(span_add(&l, 10, 20, &budget), 0);
	assert_int_equal(span_add(&l, 15, 30, &budget), 0);    /* merged */
	assert_int_equal(span_add(&l, 50, 60, &budget), 0);
	assert_int_equal(span_add(&l, 40, 45, &budget), 0);
	assert_int_equal(span_add(&l, 100, 110, &budget), -1); /* over budget */
	assert_int_equal(l.n, 3);
	span_normalize(&l);
	assert_int_equal(l.v[0].t0, 10);
	assert_int_equal(l.v[0].t1, 30);
	assert_int_equal(l.v[1].t0, 40);
	assert_int_equal(span_cover(&l, 0, 1000), 20 + 5 + 10);
	assert_int_equal(span_cover(&l, 25, 55), 5 + 5 + 5);
	assert_true(span_at(&l, &hint, 12, &until));
	assert_int_equal(until, 30);
	assert_false(span_at(&l, &hint, 35, &until));
	assert_int_equal(until, 40);
	assert_false(span_at(&l, &hint, 70, &until));
	assert_int_equal(until, UINT64_MAX);
	assert_true(span_at(&l, &hint, 10, &until));   /* hint going back */
	span_release(&l);
}

/* The calls of thread 7: `n` of a step of `p` distinct tokens from
 * `first`, a pause before each step's first call. */
static void feed(struct diagnosis *d, uint64_t *t, uint32_t first, uint32_t p,
		 uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		*t += i % p ? 1000 : 50000;
		steps_period_token(d, 7, first + i % p, 0, *t);
	}
}

/*
 * A pattern of a few long steps that gives way to another: the checks
 * that kept the first period while the whole window repeated it see the
 * calls change, and find the new one.
 */
static void test_period_gives_way(void **state)
{
	struct diagnosis *d = calloc(1, sizeof(*d));
	struct step_stats s = { 0 };
	uint64_t t = 1000000;

	(void)state;
	feed(d, &t, 1, 1000, 4500);
	feed(d, &t, 5000, 5, 20000);
	assert_int_equal(steps_period_pick(d, &s), 1);
	assert_int_equal(s.period, 5);
	steps_release(&s);
	steps_period_release(d);
	free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_period),
		cmocka_unit_test(test_sub_period),
		cmocka_unit_test(test_even_steps),
		cmocka_unit_test(test_spans),
		cmocka_unit_test(test_period_gives_way),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
