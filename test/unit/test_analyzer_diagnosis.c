/* SPDX-License-Identifier: MIT */
/*
 * test_analyzer_diagnosis.c - the diagnosis's building blocks: the period
 * of the launch sequence (prefix function of the reversed window: the
 * longest periodic suffix repeated three times, covering half the window
 * or more), the step inside a period made of near copies of it, a
 * period that gives way to another, span lists (merge, search, cover),
 * and the step of several blocks that the library and the analyzer share
 * (period.h: the arguments' cycle, the loop's turn, the pauses).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

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

static void test_select(void **state)
{
	uint64_t v[] = { 9, 3, 7, 3, 1, 8 };

	(void)state;
	assert_int_equal(gt_select_u64(v, 6, 0), 1);
	assert_int_equal(gt_select_u64(v, 6, 5), 9);
	assert_int_equal(gt_median_half(v, 6), 7);      /* at n / 2 of 1 3 3 7 8 9 */
	assert_int_equal(gt_median_half(v, 1), v[0]);
}

static void test_arg_sig(void **state)
{
	uint8_t ah[8] = { 0 };

	(void)state;
	ah[0] = 5, ah[1] = 0, ah[2] = 6, ah[3] = 7, ah[4] = 8, ah[5] = 9;
	/* the last four known hashes up to position 5, the newest highest */
	assert_int_equal(gt_arg_sig(ah, 8, 6, 5), 9u << 21 | 8u << 14 | 7u << 7 | 6u);
	assert_int_equal(gt_arg_sig(ah, 8, 6, 2), 6u << 7 | 5u);   /* one unknown skipped */
	assert_int_equal(gt_arg_sig(ah, 8, 6, 1), 5u);
	/* a full ring: position 0 is the oldest kept, at seen % size */
	ah[3] = 0x11;               /* call 11 of 12 seen: ring slot 11 % 8 */
	assert_int_equal(gt_arg_sig(ah, 8, 12, 7) >> 21, 0x11);
	memset(ah, 0, sizeof(ah));
	assert_int_equal(gt_arg_sig(ah, 8, 8, 7), 0);
}

/* Boundaries of steps of k blocks, n of them: block j's arguments are
 * 1 + j % k (a cycle of k), a pause of `turn` ns before every `every`-th
 * block (1000 ns before the others), blocks 10 us long. */
static void blocks(uint64_t *b, uint64_t *e, uint32_t *sig, size_t n, size_t k,
		   size_t every, uint64_t turn)
{
	uint64_t t = 1000000;

	for (size_t j = 0; j < n; j++) {
		uint64_t gap = j % every ? 1000 : turn;

		e[j] = t;
		t += gap;
		b[j] = t;
		t += 10000;
		sig[j] = k ? (uint32_t)(1 + j % k) : 0;
	}
}

static void test_args_cycle(void **state)
{
	static uint64_t b[900], e[900], scratch[2 * GT_ARGS_MAX_COPIES];
	static uint32_t sig[900];
	size_t k = 0;

	(void)state;
	blocks(b, e, sig, 40, 1, 1, 1000);      /* the same each block */
	assert_int_equal(gt_args_cycle(sig, 0, 40, &k), GT_ARGS_SAME);
	assert_int_equal(gt_args_copies(sig, b, e, 0, 40, scratch), 1);
	blocks(b, e, sig, 64, 16, 16, 500000);  /* 16 identical layers a step */
	assert_int_equal(gt_args_cycle(sig, 0, 64, &k), GT_ARGS_CYCLE);
	assert_int_equal(k, 16);
	assert_int_equal(gt_args_copies(sig, b, e, 0, 64, scratch), 16);
	assert_int_equal(gt_args_cycle(sig, 0, 40, &k), GT_ARGS_MORE);  /* 2.5 cycles */
	assert_int_equal(gt_args_copies(sig, b, e, 0, 40, scratch), 1);
	blocks(b, e, sig, 7, 16, 16, 500000);   /* too few known */
	assert_int_equal(gt_args_cycle(sig, 0, 7, &k), GT_ARGS_UNKNOWN);
	blocks(b, e, sig, 40, 0, 1, 1000);      /* none known */
	assert_int_equal(gt_args_cycle(sig, 0, 40, &k), GT_ARGS_UNKNOWN);
	blocks(b, e, sig, 900, 300, 300, 500000); /* a cycle past the most */
	assert_int_equal(gt_args_cycle(sig, 0, 900, &k), GT_ARGS_NONE);
	/* the arguments come back every 8 blocks, the loop turns every 4 (a
	 * buffer alive across turns): a step is the turn */
	blocks(b, e, sig, 96, 8, 4, 500000);
	assert_int_equal(gt_args_cycle(sig, 0, 96, &k), GT_ARGS_CYCLE);
	assert_int_equal(k, 8);
	assert_int_equal(gt_args_copies(sig, b, e, 0, 96, scratch), 4);
	/* from: the blocks of an earlier pattern do not count */
	blocks(b, e, sig, 64, 4, 4, 500000);
	for (size_t j = 0; j < 10; j++)
		sig[j] = 99;
	assert_int_equal(gt_args_copies(sig, b, e, 10, 64, scratch), 4);
}

/* Calls A B repeated (a block of two launches), 4 blocks a step: a
 * pause of 2 ms before each step's first A, 1 us before the others. */
static void ab_blocks(uint32_t *tok, uint64_t *t, size_t n)
{
	uint64_t now = 1000000;

	for (size_t i = 0; i < n; i++) {
		now += i % 8 ? 1000 : 2000000;
		tok[i] = i % 2 ? 0xb : 0xa;
		t[i] = now;
	}
}

/* The anchor of a period of two calls (A B) whose step is 4 periods: the
 * pauses summed over the periods, not the newest one's alone, on a
 * machine that stopped the thread for 5 ms before the newest B. */
static void test_period_gaps(void **state)
{
	static uint32_t tok[128];
	static uint64_t t[128], h[2], gap[2], one[2], sorted[2];

	(void)state;
	ab_blocks(tok, t, 128);
	t[127] += 5000000;                      /* the newest B */
	h[0] = 0xa, h[1] = 0xb;
	one[0] = t[126] - t[125], one[1] = t[127] - t[126];
	assert_int_equal(gt_anchor_pick(h, one, 2, sorted), 1);        /* B */
	gt_period_gaps(tok, t, 126, 2, gap);
	/* 63 As after a call (15 of them a step's first), 64 Bs */
	assert_int_equal(gap[0], 15 * 2000000 + 48 * 1000);
	assert_int_equal(gap[1], 5000000 + 64 * 1000);
	assert_int_equal(gt_anchor_pick(h, gap, 2, sorted), 0);        /* A */
	/* the periods of other calls before do not count; a pause is capped */
	tok[99] = 0xc;
	for (size_t i = 100; i < 128; i++)
		t[i] += 2 * GT_PAUSE_CAP;
	gt_period_gaps(tok, t, 126, 2, gap);     /* the periods from call 100 */
	assert_int_equal(gap[0], 3 * 2000000 + 10 * 1000 + GT_PAUSE_CAP);
	assert_int_equal(gap[1], 5000000 + 14 * 1000);
}

static void test_every_kth(void **state)
{
	static uint64_t b[64], e[64];
	static uint32_t sig[64];

	(void)state;
	blocks(b, e, sig, 64, 4, 4, 500000);
	e[1] -= 9000000;                        /* before from: not counted */
	/* from block 2, the pauses come before blocks 4, 8...: those start
	 * the steps, the place 2 after from */
	assert_int_equal(gt_kth_phase(b, e, 2, 64, 4), 2);
	assert_int_equal(gt_every_kth(b, e, 2, 64, 4), 2 + 15);
	assert_int_equal(b[1] - e[1], 9001000); /* those before from kept */
	for (size_t i = 2; i < 17; i++)
		assert_int_equal(b[i] - e[i], 500000);
}

static void test_pauses(void **state)
{
	static uint64_t b[100], e[100], scratch[200];
	static uint32_t sig[100];
	uint64_t med = 0;
	uint32_t q = 1;
	size_t n;

	(void)state;
	/* one kernel launched 5 times in a row, then a 2 ms pause */
	blocks(b, e, sig, 100, 1, 5, 2000000);
	for (size_t j = 1; j < 100; j++)
		e[j] = b[j - 1];                /* nothing between the launches */
	assert_int_equal(gt_pause_cycle(b, e, 100, &med, scratch), 5);
	assert_int_equal(med, 11000);
	assert_true(gt_is_pause(b[4], b[5], med));
	assert_false(gt_is_pause(b[5], b[6], med));
	n = gt_merge_pauses(b, e, 100, &q, scratch);
	assert_int_equal(n, 19);                /* after each of 19 pauses */
	assert_int_equal(q, 5);
	/* steps of their own between the pauses (a DataLoader's pairs) */
	blocks(b, e, sig, 100, 1, 2, 2000000);
	for (size_t j = 0; j + 1 < 100; j++)
		e[j + 1] = b[j + 1] - 10;       /* each step's calls last to the next */
	assert_int_equal(gt_pause_cycle(b, e, 100, &med, scratch), 1);
	q = 1;
	assert_int_equal(gt_merge_pauses(b, e, 100, &q, scratch), 100);
	assert_int_equal(q, 1);
	/* no pauses at all */
	blocks(b, e, sig, 100, 1, 1000, 1000);
	assert_int_equal(gt_pause_cycle(b, e, 100, &med, scratch), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_period),
		cmocka_unit_test(test_sub_period),
		cmocka_unit_test(test_even_steps),
		cmocka_unit_test(test_spans),
		cmocka_unit_test(test_period_gives_way),
		cmocka_unit_test(test_select),
		cmocka_unit_test(test_arg_sig),
		cmocka_unit_test(test_args_cycle),
		cmocka_unit_test(test_period_gaps),
		cmocka_unit_test(test_every_kth),
		cmocka_unit_test(test_pauses),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
