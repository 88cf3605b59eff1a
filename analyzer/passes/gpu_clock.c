/* SPDX-License-Identifier: MIT */
/*
 * gpu_clock.c - CUPTI's timestamps (CLOCK_REALTIME-based on Linux) onto
 * the dump's clock (CLOCK_MONOTONIC): a line through the clock pairs the
 * library wrote, offset from the latest pair and slope (drift) from the
 * first to the latest once they are 100 ms apart.  GPU records come
 * shortly after the pair before them, so the latest offset is the one
 * that counts, and the slope only corrects the little time in between.
 */
#include "analyzer/passes/gpu_internal.h"

#define SLOPE_MIN_SPAN 100000000ull     /* 100 ms between pairs for a slope */

void gpu_clock_add(struct gpu_clock *c, const struct gt_clock_pair *p)
{
	if (!c->pairs++) {
		c->first = *p;
		c->slope = 1.0;
	}
	c->last = *p;
	if (c->last.host_ns > c->first.host_ns + SLOPE_MIN_SPAN &&
	    c->last.gpu_ns > c->first.gpu_ns)
		c->slope = (double)(c->last.host_ns - c->first.host_ns) /
			   (double)(c->last.gpu_ns - c->first.gpu_ns);
	if (c->slope < 0.99 || c->slope > 1.01)
		c->slope = 1.0;         /* not a clock we understand */
}

uint64_t gpu_clock_map(const struct gpu_clock *c, uint64_t gpu_ns)
{
	int64_t d, corr;

	if (!c->pairs)
		return 0;
	d = (int64_t)(gpu_ns - c->last.gpu_ns);
	corr = (int64_t)((double)d * (c->slope - 1.0));    /* drift, small */
	return c->last.host_ns + (uint64_t)d + (uint64_t)corr;  /* mod 2^64 */
}

double gpu_clock_offset(const struct gpu_clock *c)
{
	return c->pairs ? (double)c->last.host_ns - (double)c->last.gpu_ns : 0;
}

double gpu_clock_drift_ppm(const struct gpu_clock *c)
{
	return c->pairs ? (1.0 / c->slope - 1.0) * 1e6 : 0;
}
