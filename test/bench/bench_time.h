/* SPDX-License-Identifier: MIT */
/*
 * bench_time.h - what the C benchmarks of test/bench share: the monotonic
 * clock in ns, and the comparison qsort needs for a median.
 */
#ifndef GT_BENCH_TIME_H
#define GT_BENCH_TIME_H

#include <time.h>

static inline double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static inline int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

#endif /* GT_BENCH_TIME_H */
