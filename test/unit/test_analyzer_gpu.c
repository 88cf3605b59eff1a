/* SPDX-License-Identifier: MIT */
/*
 * test_analyzer_gpu.c - the GPU timeline's data structures against brute
 * force: the busy-time union (overlaps, disorder, the frontier, queries),
 * the bounded waiting table (deletion by backward shift, eviction of the
 * oldest), and the clock fit (offset and drift).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "analyzer/passes/gpu_internal.h"

static uint64_t rng_state = 0x243f6a8885a308d3ull;

static uint64_t rng(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dull;
}

#define SPAN_MAX 1000000u            /* brute force: a bitmap of ns */

/* Random intervals in [0, SPAN_MAX), nearly sorted: the union and a few
 * ranges, against a bitmap. */
static void union_random(void **state)
{
	static uint8_t busy[SPAN_MAX];
	struct gpu_union u = { .keep = 1 };
	uint64_t want = 0, t = 0;

	(void)state;
	memset(busy, 0, sizeof(busy));
	for (int i = 0; i < 5000; i++) {
		uint64_t start = t + rng() % 300, len = 1 + rng() % 400;

		if (rng() % 4 == 0 && start > 2000)
			start -= rng() % 2000;          /* out of order */
		if (start + len > SPAN_MAX)
			break;
		gpu_union_add(&u, start, start + len);
		memset(busy + start, 1, len);
		t += 150;
	}
	gpu_union_end(&u);
	for (size_t i = 0; i < SPAN_MAX; i++)
		want += busy[i];
	assert_int_equal(u.busy, want);
	assert_int_equal(u.late, 0);
	for (int q = 0; q < 200; q++) {
		uint64_t a = rng() % SPAN_MAX, b = rng() % SPAN_MAX, n = 0;

		if (a > b) {
			uint64_t x = a;
			a = b;
			b = x;
		}
		for (uint64_t i = a; i < b; i++)
			n += busy[i];
		assert_int_equal(gpu_union_between(&u, a, b), n);
	}
	gpu_union_release(&u);
}

/* Intervals before what was retired are cut at the frontier. */
static void union_frontier(void **state)
{
	struct gpu_union u = { 0 };
	const uint64_t s = 1000000000ull * 100;     /* 100 s */

	(void)state;
	gpu_union_add(&u, 0, 1000);
	gpu_union_add(&u, s, s + 10);               /* retires [0, 1000) */
	gpu_union_add(&u, 500, 1500);               /* late: [1000, 1500) */
	gpu_union_end(&u);
	assert_int_equal(u.late, 1);
	assert_int_equal(u.busy, 1000 + 10 + 500);
	gpu_union_release(&u);
}

/* The waiting table against an array of what should be in it. */
static void pending_random(void **state)
{
	struct gpu_pending p;
	static uint8_t present[1 << 14];
	struct gpu_item it = { 0 }, out;
	uint64_t fifo[1 << 14];
	size_t head = 0, len = 0, ring = 512;

	(void)state;
	gpu_pending_init(&p, 2 * ring);
	memset(present, 0, sizeof(present));
	for (int i = 0; i < 100000; i++) {
		uint64_t id = 1 + rng() % ((1 << 14) - 1);

		if (rng() % 3 == 0) {
			gpu_pending_del(&p, id);
			present[id] = 0;
		} else if (!gpu_pending_get(&p, id)) {
			it.id = id;
			it.t1 = id * 3;
			if (len == ring) {          /* the reference evicts too */
				uint64_t old = fifo[head];

				head = (head + 1) % ring;
				len--;
				if (present[old]) {
					assert_int_equal(gpu_pending_put(&p, &it, &out), 1);
					assert_int_equal(out.id, old);
					present[old] = 0;
					goto added;
				}
			}
			assert_int_equal(gpu_pending_put(&p, &it, &out), 0);
added:
			present[id] = 1;
			fifo[(head + len++) % ring] = id;
		}
		if (i % 997 == 0)
			for (uint64_t k = 1; k < (1 << 14); k++) {
				struct gpu_item *g = gpu_pending_get(&p, k);

				assert_int_equal(g != NULL, present[k]);
				if (g)
					assert_int_equal(g->t1, k * 3);
			}
	}
	gpu_pending_release(&p);
}

/* Offset from the last pair, slope from first to last. */
static void clock_fit(void **state)
{
	struct gpu_clock c = { 0 };
	const uint64_t off = 1700000000000000000ull;
	struct gt_clock_pair p1 = { off + 1000000000ull, 1000000000ull, 10, 0 };
	/* 2 s later on the host, 200 ppm more on CUPTI's clock */
	struct gt_clock_pair p2 = { off + 3000400000ull, 3000000000ull, 10, 0 };

	(void)state;
	assert_int_equal(gpu_clock_map(&c, 5), 0);
	gpu_clock_add(&c, &p1);
	assert_int_equal(gpu_clock_map(&c, off + 1000000500ull), 1000000500ull);
	gpu_clock_add(&c, &p2);
	/* 1 s of CUPTI time after p2 is 1/(1+2e-4) s of host time */
	assert_in_range(gpu_clock_map(&c, off + 4000400000ull),
			3999800039ull, 3999800041ull);
	assert_in_range((uint64_t)(gpu_clock_drift_ppm(&c) * 1000), 199999, 200001);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(union_random),
		cmocka_unit_test(union_frontier),
		cmocka_unit_test(pending_random),
		cmocka_unit_test(clock_fit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
