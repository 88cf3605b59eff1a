/* SPDX-License-Identifier: MIT */
/*
 * test_analyzer_robust.c - the median and quantiles of doubles against a
 * sort, and the clustered bootstrap of the median: the same interval on
 * every call, around the median of a tight sample, wide when its clusters
 * disagree, and narrower the more clusters each round draws.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>

#include "analyzer/lib/robust.h"
#include "test/unit/test_rng.h"

/* A double in [0, 1) from the fixed-seed generator. */
static double unit(void)
{
	return (double)(rng() >> 11) / 9007199254740992.0;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void test_median_small(void **state)
{
	double odd[] = { 5, 1, 4, 2, 3 }, even[] = { 10, 1, 7, 2 }, one[] = { 42 };

	(void)state;
	assert_float_equal(robust_median(odd, 5), 3, 0);
	assert_float_equal(robust_median(even, 4), 4.5, 0);   /* (2 + 7) / 2 */
	assert_float_equal(robust_median(one, 1), 42, 0);
}

/* Ties everywhere: the quickselect ends on runs of equal values. */
static void test_median_ties(void **state)
{
	double v[101];

	(void)state;
	for (size_t i = 0; i < 101; i++)
		v[i] = (double)(i % 3);
	assert_float_equal(robust_median(v, 101), 1, 0);
}

static void test_quantile_against_sort(void **state)
{
	enum { N = 1001 };
	double *v = malloc(N * sizeof(*v)), *s = malloc(N * sizeof(*s));

	(void)state;
	for (int round = 0; round < 20; round++) {
		size_t n = 1 + rng() % N;
		double q = unit(), at, want;

		for (size_t i = 0; i < n; i++)
			s[i] = v[i] = unit() * 100 - 50;
		qsort(s, n, sizeof(*s), cmp_d);
		at = q * (double)(n - 1);
		want = s[(size_t)at];
		if ((size_t)at + 1 < n)
			want += (at - (double)(size_t)at) * (s[(size_t)at + 1] - s[(size_t)at]);
		assert_float_equal(robust_quantile(v, n, q), want, 1e-9);
	}
	free(v);
	free(s);
}

/* One cluster of 200 values, 0.10 plus noise within +-0.01: the interval
 * holds the sample's median, is narrow, and is the same on a second call. */
static void test_interval_tight(void **state)
{
	enum { N = 200 };
	double v[N], copy[N], lo, hi, lo2, hi2, med;
	size_t start[] = { 0, N };

	(void)state;
	for (size_t i = 0; i < N; i++)
		copy[i] = v[i] = 0.10 + (unit() - 0.5) * 0.02;
	med = robust_median(copy, N);
	robust_median_interval(v, start, 1, 1, 0.9, &lo, &hi);
	robust_median_interval(v, start, 1, 1, 0.9, &lo2, &hi2);
	assert_true(lo <= med && med <= hi);
	assert_true(hi - lo < 0.005);
	assert_true(lo > 0.09 && hi < 0.11);
	assert_float_equal(lo, lo2, 0);
	assert_float_equal(hi, hi2, 0);
}

/* Two clusters that disagree (+0.10 and +0.60, each tight): the interval
 * spans them both. */
static void test_interval_clusters(void **state)
{
	enum { N = 40 };
	double v[2 * N], lo, hi;
	size_t two[] = { 0, N, 2 * N };

	(void)state;
	for (size_t i = 0; i < N; i++) {
		v[i] = 0.10 + (unit() - 0.5) * 0.01;
		v[N + i] = 0.60 + (unit() - 0.5) * 0.01;
	}
	robust_median_interval(v, two, 2, 2, 0.9, &lo, &hi);
	assert_true(lo < 0.11);
	assert_true(hi > 0.59);
}

/* 100 clusters of noise around 0: the median of all of them is known far
 * better than the median of one cluster drawn at a time (ndraw 1). */
static void test_interval_draws(void **state)
{
	enum { C = 100, K = 10 };
	double v[C * K], lo, hi, lo1, hi1;
	size_t start[C + 1];

	(void)state;
	for (size_t i = 0; i < C * K; i++)
		v[i] = unit() - 0.5;
	for (size_t c = 0; c <= C; c++)
		start[c] = c * K;
	robust_median_interval(v, start, C, C, 0.9, &lo, &hi);
	robust_median_interval(v, start, C, 1, 0.9, &lo1, &hi1);
	assert_true(lo < 0 && hi > 0 && hi - lo < 0.15);
	assert_true(hi1 - lo1 > 2 * (hi - lo));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_median_small),
		cmocka_unit_test(test_median_ties),
		cmocka_unit_test(test_quantile_against_sort),
		cmocka_unit_test(test_interval_tight),
		cmocka_unit_test(test_interval_clusters),
		cmocka_unit_test(test_interval_draws),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
