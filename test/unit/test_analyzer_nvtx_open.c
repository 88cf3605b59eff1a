/* SPDX-License-Identifier: MIT */
/*
 * test_analyzer_nvtx_open.c - the table of started NVTX ranges (deletion
 * by backward shift) against a plain array: random puts and takes, with
 * ids that collide in the table, must always find exactly what is open.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "analyzer/passes/nvtx_open.h"

#define N 4096

static uint64_t rng_state = 0x2545f4914f6cdd1dull;

static uint64_t rng(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dull;
}

static void test_random(void **state)
{
	static uint64_t open[N];        /* reference: t0 of id i, 0 closed */
	struct nvtx_open o = { 0 };
	struct nvtx_start s;
	size_t n_open = 0;

	(void)state;
	for (int step = 0; step < 200000; step++) {
		uint64_t id = rng() % N + 1;

		if (!open[id - 1] && rng() % 3) {
			s = (struct nvtx_start){ .id = id, .t0 = step + 1 };
			assert_int_equal(nvtx_open_put(&o, &s, SIZE_MAX), 0);
			open[id - 1] = step + 1;
			n_open++;
		} else if (open[id - 1]) {
			assert_int_equal(nvtx_open_take(&o, id, &s), 1);
			assert_int_equal(s.id, id);
			assert_int_equal(s.t0, open[id - 1]);
			open[id - 1] = 0;
			n_open--;
		} else {
			assert_int_equal(nvtx_open_take(&o, id, &s), 0);
		}
		assert_int_equal(o.len, n_open);
	}
	size_t pos = 0, seen = 0;
	const struct nvtx_start *p;

	while ((p = nvtx_open_next(&o, &pos))) {
		assert_int_equal(open[p->id - 1], p->t0);
		seen++;
	}
	assert_int_equal(seen, n_open);
	nvtx_open_release(&o);
}

static void test_limit(void **state)
{
	struct nvtx_open o = { 0 };
	struct nvtx_start s = { .id = 1 };

	(void)state;
	assert_int_equal(nvtx_open_put(&o, &s, 1), 0);
	s.id = 2;
	assert_int_equal(nvtx_open_put(&o, &s, 1), -1);
	assert_int_equal(nvtx_open_take(&o, 2, &s), 0);
	assert_int_equal(nvtx_open_take(&o, 1, &s), 1);
	assert_int_equal(nvtx_open_take(&o, 1, &s), 0);
	nvtx_open_release(&o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random),
		cmocka_unit_test(test_limit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
