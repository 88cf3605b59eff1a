/* SPDX-License-Identifier: MIT */
/*
 * test_analyzer_hist.c - the log-linear histogram against exact answers:
 * percentiles of random data within 1/128, exact counts and totals.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>

#include "analyzer/lib/hist.h"
#include "test/unit/test_rng.h"

#define ARRAY_N(a) (sizeof(a) / sizeof((a)[0]))

/* The value of rank ceil(q * n), as hist.h defines the quantile. */
static uint64_t exact_quantile(const uint64_t *sorted, size_t n,
			       unsigned per_mille)
{
	size_t rank = ((size_t)per_mille * n + 999) / 1000;

	return sorted[rank ? rank - 1 : 0];
}

static void assert_close(uint64_t got, uint64_t want)
{
	double err = fabs((double)got - (double)want);

	if (err > (double)want / 128 + 0.5)
		fail_msg("got %llu, want %llu (error %.3f%%)",
			 (unsigned long long)got, (unsigned long long)want,
			 100 * err / (double)want);
}

static void test_empty(void **state)
{
	struct hist h;

	(void)state;
	hist_init(&h);
	assert_int_equal(hist_quantile(&h, 0.5), 0);
	assert_int_equal(h.count, 0);
	hist_release(&h);
}

static void test_small_values_exact(void **state)
{
	struct hist h;
	uint64_t v;

	(void)state;
	hist_init(&h);
	for (v = 1; v <= 100; v++)
		hist_add(&h, v);
	assert_int_equal(hist_quantile(&h, 0.50), 50);
	assert_int_equal(hist_quantile(&h, 0.10), 10);
	assert_int_equal(hist_quantile(&h, 0.99), 99);
	assert_int_equal(hist_quantile(&h, 1.0), 100);
	assert_int_equal(hist_quantile(&h, 0.0), 1);
	assert_int_equal(h.total, 5050);
	hist_release(&h);
}

/* Log-uniform values from 10 ns to about 10 s, like launch and wait times. */
static void fill_random(struct hist *h, uint64_t *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		double e = 1 + 8.0 * (double)(rng() >> 11) / 9007199254740992.0;

		v[i] = (uint64_t)pow(10, e);
		hist_add(h, v[i]);
	}
}

static void test_random_vs_exact(void **state)
{
	static const unsigned qs[] = { 10, 250, 500, 750, 900, 990, 999 };
	size_t n = 200000, i;
	uint64_t *v = malloc(n * sizeof(*v)), total = 0;
	struct hist h;

	(void)state;
	assert_non_null(v);
	hist_init(&h);
	fill_random(&h, v, n);
	for (i = 0; i < n; i++)
		total += v[i];
	qsort(v, n, sizeof(*v), cmp_u64);
	for (i = 0; i < sizeof(qs) / sizeof(qs[0]); i++)
		assert_close(hist_quantile(&h, qs[i] / 1000.0),
			     exact_quantile(v, n, qs[i]));
	assert_int_equal(h.count, n);
	assert_int_equal(h.total, total);
	assert_int_equal(h.min, v[0]);
	assert_int_equal(h.max, v[n - 1]);
	hist_release(&h);
	free(v);
}

static void test_merge(void **state)
{
	struct hist a, b, all;
	uint64_t v[3000];
	size_t i;

	(void)state;
	hist_init(&a);
	hist_init(&b);
	hist_init(&all);
	fill_random(&a, v, 1000);
	fill_random(&b, v + 1000, 2000);
	for (i = 0; i < 3000; i++)
		hist_add(&all, v[i]);
	hist_merge(&a, &b);
	assert_int_equal(a.count, all.count);
	assert_int_equal(a.total, all.total);
	assert_int_equal(a.min, all.min);
	assert_int_equal(a.max, all.max);
	assert_int_equal(hist_quantile(&a, 0.5), hist_quantile(&all, 0.5));
	assert_int_equal(hist_quantile(&a, 0.99), hist_quantile(&all, 0.99));
	hist_release(&a);
	hist_release(&b);
	hist_release(&all);
}

static void test_extremes(void **state)
{
	struct hist h;

	(void)state;
	hist_init(&h);
	hist_add(&h, UINT64_MAX);
	hist_add(&h, UINT64_MAX);
	hist_add(&h, 0);
	assert_int_equal(h.total, UINT64_MAX);  /* stuck, not wrapped */
	assert_int_equal(hist_quantile(&h, 0.99), UINT64_MAX);
	assert_int_equal(hist_quantile(&h, 0.01), 0);
	assert_close(hist_quantile(&h, 0.5), UINT64_MAX);
	hist_release(&h);
}

/* A constant value is reported exactly: min and max clamp the bucket. */
static void test_constant(void **state)
{
	struct hist h;
	int i;

	(void)state;
	hist_init(&h);
	for (i = 0; i < 1000; i++)
		hist_add(&h, 123457);
	assert_int_equal(hist_quantile(&h, 0.5), 123457);
	assert_int_equal(hist_quantile(&h, 0.99), 123457);
	hist_release(&h);
}

/*
 * The first HIST_FEW values are kept without buckets: every quantile of a
 * few values, and of merges across the switch to buckets, is what the
 * buckets give, and a histogram of a few values holds no block.
 */
static void test_few_as_buckets(void **state)
{
	static const unsigned q[] = { 1, 100, 250, 500, 750, 900, 990, 999 };
	uint64_t v[3 * HIST_FEW];
	(void)state;

	for (size_t i = 0; i < ARRAY_N(v); i++)
		v[i] = 1000 + rng() % 100000;
	for (size_t n = 1; n <= ARRAY_N(v); n++) {
		struct hist one, few, many;

		hist_init(&one);
		hist_init(&few);
		hist_init(&many);
		for (size_t i = 0; i < n; i++) {
			hist_add(&one, v[i]);
			hist_add(i % 2 ? &few : &many, v[i]);
		}
		assert_true(n > HIST_FEW || one.block == NULL);
		hist_merge(&many, &few);
		hist_merge(&few, &many);      /* few now has n + n/2 values */
		for (size_t k = 0; k < ARRAY_N(q); k++)
			assert_int_equal(hist_quantile(&many, q[k] / 1000.0),
					 hist_quantile(&one, q[k] / 1000.0));
		assert_int_equal(many.count, n);
		assert_int_equal(few.count, n + n / 2);
		hist_release(&one);
		hist_release(&few);
		hist_release(&many);
	}
}

/* The one-index bucket is hist_locate()'s, at both ends of every block. */
static void test_index_is_locate(void **state)
{
	unsigned b, sub, e;

	(void)state;
	for (e = 0; e < 64; e++) {
		uint64_t lo = 1ull << e, v[4] = { lo, lo + 1, lo | (lo - 1),
						  lo | (lo >> 1) };

		for (unsigned i = 0; i < ARRAY_N(v); i++) {
			hist_locate(v[i], &b, &sub);
			assert_int_equal(hist_index(v[i]), b * HIST_SUB + sub);
		}
	}
	hist_locate(0, &b, &sub);
	assert_int_equal(hist_index(0), b * HIST_SUB + sub);
}

/* A histogram of 1000s whose bucket's low word is at low, then 3 more
 * 1000s (the low word wraps when low is within 3 of UINT32_MAX) and 10
 * of 5000 (a block not made at once). */
static void near_full(struct hist *h, uint32_t low)
{
	unsigned b, sub;

	hist_init(h);
	for (int i = 0; i < HIST_FEW + 1; i++)
		hist_add(h, 1000);
	hist_locate(1000, &b, &sub);
	h->block[b][sub] = low;
	h->count = low;
	h->total = (uint64_t)low * 1000;
	for (int i = 0; i < 3; i++)
		hist_add(h, 1000);
	for (int i = 0; i < 10; i++)
		hist_add(h, 5000);
}

/* The median of a histogram with 2^32 and more 1000s before ten 5000s:
 * the bucket of 1000 (1000 to 1007, its middle 1003). */
static void assert_median_1000(const struct hist *h)
{
	assert_int_equal(hist_quantile(h, 0.5), 1003);
	assert_int_equal(hist_quantile(h, 0), 1000);
	assert_int_equal(hist_quantile(h, 1), 5000);
}

/* A bucket counting past UINT32_MAX carries into its high word: the
 * count stays exact, by adds and by merges (whose low words' sum wraps
 * too). */
static void test_bucket_past_32_bits(void **state)
{
	struct hist h, g, sum;

	(void)state;
	near_full(&h, UINT32_MAX - 1);          /* 2^32 + 1 in the bucket */
	assert_int_equal(h.count, (1ull << 32) + 11);
	assert_non_null(h.high);
	assert_median_1000(&h);
	near_full(&g, UINT32_MAX - 3);          /* no carry: 2^32 - 1 */
	assert_null(g.high);
	hist_init(&sum);
	hist_merge(&sum, &g);
	hist_merge(&sum, &h);                   /* low words wrap: 2^33 */
	hist_merge(&sum, &h);                   /* 3 * 2^32 + 1 */
	assert_int_equal(sum.count, 3 * (1ull << 32) + 31);
	assert_median_1000(&sum);
	/* the last 1000 and the first 5000 */
	assert_int_equal(hist_quantile(&sum, (3.0 * 4294967296.0 + 0.5) /
					     (double)sum.count), 1003);
	assert_int_equal(hist_quantile(&sum, (3.0 * 4294967296.0 + 1.5) /
					     (double)sum.count), 5000);
	hist_release(&h);
	hist_release(&g);
	hist_release(&sum);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_small_values_exact),
		cmocka_unit_test(test_random_vs_exact),
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_extremes),
		cmocka_unit_test(test_constant),
		cmocka_unit_test(test_few_as_buckets),
		cmocka_unit_test(test_index_is_locate),
		cmocka_unit_test(test_bucket_past_32_bits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
