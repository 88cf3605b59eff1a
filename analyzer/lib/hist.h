/* SPDX-License-Identifier: MIT */
/*
 * hist.h - a log-linear histogram of uint64_t values (nanoseconds) for
 * percentiles in bounded memory.
 *
 * Values below 64 are counted exactly; above, every power of two is split
 * into 64 buckets, so a reported percentile is within 1/128 (0.8%) of a
 * value of the right rank.  count, total, min and max are exact.  The
 * buckets of a power of two are allocated the first time a value falls in
 * it: a histogram of launch times usually needs a few KiB, never more than
 * about 15 KiB (HIST_NEAR blocks around the first values are made at once,
 * in one piece).  A bucket counts in 32 bits: the high words of counts past
 * that go to a table made for the first (15 KiB more), counts stay exact.
 * The first HIST_FEW values are kept as they are, with no
 * buckets at all: most rows of a dump with many distinct kernels or names
 * have a call or two, and under 100 bytes each, not a kilobyte.
 */
#ifndef GPUTRACE_ANALYZER_HIST_H
#define GPUTRACE_ANALYZER_HIST_H

#include <stdint.h>

#include "analyzer/lib/util.h"

#define HIST_SUB_BITS 6
#define HIST_SUB (1u << HIST_SUB_BITS)           /* buckets per block */
#define HIST_BLOCKS (64 - HIST_SUB_BITS + 1)     /* [0,64), then 2^6..2^63 */
#define HIST_FEW 4                               /* values kept before buckets */
#define HIST_NEAR 4                              /* blocks made at once */

/* What a value touches (count to near_lo) comes first: one cache line
 * where the histogram starts one (a model row's does). */
struct hist {
	uint64_t count;
	uint64_t total;             /* stuck at UINT64_MAX on overflow */
	uint64_t min;
	uint64_t max;
	uint32_t *near;             /* HIST_NEAR blocks in one piece, from
				       block near_b: those of the values
				       first seen, block[] points into it */
	unsigned near_lo;           /* hist_index() of near[0]; with no
				       blocks, one no index reaches */
	unsigned near_b;
	uint64_t few[HIST_FEW];     /* the values, while block is NULL */
	uint32_t **block;           /* HIST_BLOCKS blocks, once past HIST_FEW:
				       a bucket's count less its high word */
	uint32_t *high;             /* by hist_index(): the high words of the
				       counts past UINT32_MAX, NULL: none */
};

void hist_init(struct hist *h);
void hist_release(struct hist *h);

/* v's bucket: block 0 holds [0, 64) exactly; block b >= 1 holds
 * [2^(b+5), 2^(b+6)). */
static inline void hist_locate(uint64_t v, unsigned *b, unsigned *sub)
{
	unsigned e;

	if (v < HIST_SUB) {
		*b = 0;
		*sub = (unsigned)v;
		return;
	}
	e = 63 - (unsigned)__builtin_clzll(v);
	*b = e - HIST_SUB_BITS + 1;
	*sub = (unsigned)(v >> (e - HIST_SUB_BITS)) & (HIST_SUB - 1);
}

/* count, total, min and max, with v. */
static inline void hist_count(struct hist *h, uint64_t v)
{
	h->count++;
	h->total = sat_add(h->total, v);
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
}

/* v's bucket as one index: block b's bucket sub is b * HIST_SUB + sub
 * (hist_locate()'s, in fewer steps). */
static inline unsigned hist_index(uint64_t v)
{
	unsigned s;

	if (v < HIST_SUB)
		return (unsigned)v;
	s = 63 - HIST_SUB_BITS - (unsigned)__builtin_clzll(v);
	return s * HIST_SUB + (unsigned)(v >> s);
}

/* hist_add() of a value outside the blocks made at once. */
void hist_add_far(struct hist *h, uint64_t v);
/* The count of v's bucket went past UINT32_MAX (hist_add_near()). */
void hist_carry(struct hist *h, uint64_t v);

/* Count v when its bucket is in the blocks made at once (almost every
 * value of a row): 1 if it did; 0 if not (nothing counted); -1 if it did
 * but the bucket's low word wrapped: hist_carry(h, v) must follow (out
 * of line, as the caller sees fit). */
static inline int hist_add_near(struct hist *h, uint64_t v)
{
	unsigned i = hist_index(v) - h->near_lo;

	if (i >= HIST_NEAR * HIST_SUB)
		return 0;
	hist_count(h, v);
	return ++h->near[i] ? 1 : -1;
}

/* Inline: once per event of most rows. */
static inline void hist_add(struct hist *h, uint64_t v)
{
	int near = hist_add_near(h, v);

	if (!near)
		hist_add_far(h, v);
	else if (near < 0)
		hist_carry(h, v);
}
/* Add the values of src to dst. */
void hist_merge(struct hist *dst, const struct hist *src);
/*
 * The q-quantile (0 <= q <= 1): a value within 0.8% of the smallest value
 * v such that at least ceil(q * count) values are <= v.  0 when empty.
 */
uint64_t hist_quantile(const struct hist *h, double q);

#endif /* GPUTRACE_ANALYZER_HIST_H */
