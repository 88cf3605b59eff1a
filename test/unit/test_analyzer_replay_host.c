/* SPDX-License-Identifier: MIT */
/*
 * test_analyzer_replay_host.c - the replay's host times from like steps
 * outside the GPU windows (replay_host_pair): which steps pair (the same
 * items in the same order, the nearest first, each lent once while
 * others are left), what an item takes from its pair (CPU time and calls
 * that do not wait; a call longer outside, a wait, a hidden wait keep
 * the window's), nothing lent where the steps outside were no faster,
 * the pairing without lending (where a DataLoader is seen), and the host
 * time of the span that results.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "analyzer/diagnosis/replay_internal.h"
#include "analyzer/lib/util.h"

#define MAXN 32

/* A graph of one thread, its items given step by step. */
struct fx {
	struct rp_item items[MAXN];
	struct rp_thread th[1];
	uint64_t bounds[MAXN];
	struct rp_graph g;
};

/* An item of a step: kind, own, wait kind. */
struct spec {
	uint8_t kind;
	uint64_t own;
	uint8_t wkind;
};

/* Steps of n items each, pattern s, starting at t0, len apart. */
static void build(struct fx *f, const struct spec *s, size_t n, uint32_t steps,
		  uint64_t t0, uint64_t len)
{
	memset(f, 0, sizeof(*f));
	f->g.items = f->items;
	f->g.th = f->th;
	f->g.nth = 1;
	f->g.steps = steps;
	for (uint32_t k = 0; k < steps; k++)
		for (size_t i = 0; i < n; i++) {
			struct rp_item *it = &f->items[f->g.nitems++];

			it->kind = s[i].kind;
			it->own = s[i].own;
			it->wkind = s[i].wkind;
			it->step = k;
			it->op = s[i].kind == RK_LAUNCH ? 1 : 0;
		}
	f->th[0].n = f->g.nitems;
	for (uint32_t k = 0; k <= steps; k++)
		f->bounds[k] = t0 + k * len;
}

static const struct spec window_step[] = {
	{ RK_CPU, 100, RW_NONE }, { RK_LAUNCH, 20, RW_NONE },
	{ RK_SYNC, 5, RW_ALL }, { RK_CPU, 50, RW_NONE },
};

/* The same calls outside: CPU and launch faster, the sync waited longer. */
static const struct spec outside_step[] = {
	{ RK_CPU, 80, RW_NONE }, { RK_LAUNCH, 10, RW_NONE },
	{ RK_SYNC, 300, RW_ALL }, { RK_CPU, 60, RW_NONE },
};

/* Other calls: not like the window's. */
static const struct spec other_step[] = {
	{ RK_CPU, 10, RW_NONE }, { RK_LAUNCH, 10, RW_NONE }, { RK_CPU, 10, RW_NONE },
};

/* Pair the steps of w with those of o (one side). */
static uint32_t pair(struct fx *w, struct fx *o, int lend, uint64_t *host)
{
	struct rp_steps side = { &o->g, o->bounds };

	return replay_host_pair(&w->g, w->bounds, &side, 1, lend, host);
}

/* Without lending (a DataLoader seen) the steps pair and the paired time is
 * given, the items keep the window's times; with it they take the
 * outside's. */
static void test_pair_lends_host_times(void **state)
{
	static struct fx w, o;
	uint64_t host;

	(void)state;
	build(&w, window_step, 4, 2, 1000000, 1000);
	build(&o, outside_step, 4, 2, 1002000, 900);
	assert_int_equal(pair(&w, &o, 0, &host), 2);
	assert_int_equal(w.items[0].own, 100);
	assert_int_equal(w.items[1].own, 20);
	assert_int_equal(w.items[7].own, 50);
	assert_int_equal(host, 2 * 900);
	assert_int_equal(pair(&w, &o, 1, &host), 2);
	for (uint32_t k = 0; k < 2; k++) {
		const struct rp_item *it = &w.items[4 * k];

		assert_int_equal(it[0].own, 80);    /* CPU: the outside's */
		assert_int_equal(it[1].own, 10);    /* launch: the outside's */
		assert_int_equal(it[2].own, 5);     /* a wait: the window's */
		assert_int_equal(it[3].own, 60);    /* CPU longer outside: lent */
	}
	assert_int_equal(host, 2 * 900);            /* the paired steps' time */
}

/* A call that took longer outside waited there: the window's stays; a
 * CPU stretch the window's graph found a hidden wait in stays too. */
static void test_pair_keeps_waits(void **state)
{
	static struct fx w, o;
	static const struct spec slow[] = {
		{ RK_CPU, 80, RW_NONE }, { RK_LAUNCH, 400, RW_NONE },
		{ RK_SYNC, 3, RW_ALL }, { RK_CPU, 40, RW_NONE },
	};
	uint64_t host;

	(void)state;
	build(&w, window_step, 4, 1, 5000, 1000);
	build(&o, slow, 4, 1, 1000, 950);
	w.items[3].flags |= RPF_IMPLICIT;
	assert_int_equal(pair(&w, &o, 1, &host), 1);
	assert_int_equal(w.items[0].own, 80);
	assert_int_equal(w.items[1].own, 20);
	assert_int_equal(w.items[2].own, 5);
	assert_int_equal(w.items[3].own, 50);
	assert_int_equal(host, 950);
}

/* Each window step takes the nearest like step not lent yet. */
static void test_pair_nearest_once(void **state)
{
	static struct fx w, before, after;
	struct rp_steps side[2];
	uint64_t host;

	(void)state;
	build(&w, window_step, 4, 2, 10000, 1000);
	build(&before, outside_step, 4, 1, 8000, 700);
	build(&after, outside_step, 4, 1, 14000, 800);
	after.items[0].own = 90;
	side[0] = (struct rp_steps){ &after.g, after.bounds };
	side[1] = (struct rp_steps){ &before.g, before.bounds };
	assert_int_equal(replay_host_pair(&w.g, w.bounds, side, 2, 1, &host), 2);
	assert_int_equal(w.items[0].own, 80);       /* step 0: the one before */
	assert_int_equal(w.items[4].own, 90);       /* step 1: then the one after */
	assert_int_equal(host, 700 + 800);
}

/* Steps outside that pair with none, or only some, of the window's (2
 * steps of 1000 each); what pairs, the first item's time after, the
 * span's host time. */
struct partial_case {
	const char *what;
	const struct spec *outside;
	size_t n;
	uint64_t len;               /* an outside step's time */
	int copy_in_step1;          /* the window's step 1 has a copy */
	uint32_t paired;
	uint64_t first_own, host;
};

static const struct partial_case partial_cases[] = {
	{ "no like step: nothing changes", other_step, 3, 500, 0, 0, 100, 2000 },
	{ "step 1 has another call: step 0 alone paired", outside_step, 4, 600,
	  1, 1, 80, 600 + 1000 },
	{ "slower outside: no cost of CUPTI's, nothing lent", outside_step, 4,
	  1100, 0, 0, 100, 2000 },
};

static void test_pair_partial(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(partial_cases); i++) {
		const struct partial_case *c = &partial_cases[i];
		static struct fx w, o;
		uint64_t host;

		build(&w, window_step, 4, 2, 1000000, 1000);
		if (c->copy_in_step1)
			w.items[5].kind = RK_COPY;
		build(&o, c->outside, c->n, 3, 0, c->len);
		print_message("%s\n", c->what);
		assert_int_equal(pair(&w, &o, 1, &host), c->paired);
		assert_int_equal(w.items[0].own, c->first_own);
		assert_int_equal(w.items[4].own, 100);      /* step 1: its own */
		assert_int_equal(host, c->host);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pair_lends_host_times),
		cmocka_unit_test(test_pair_keeps_waits),
		cmocka_unit_test(test_pair_nearest_once),
		cmocka_unit_test(test_pair_partial),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
