/* SPDX-License-Identifier: MIT */
/*
 * hist.c - log-linear histogram (see hist.h for the bucket layout).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/lib/hist.h"
#include "analyzer/lib/util.h"

/* near_lo with no blocks: any index less it is past HIST_NEAR blocks. */
#define HIST_NO_NEAR (1u << 31)

void hist_init(struct hist *h)
{
	h->count = 0;
	h->total = 0;
	h->min = UINT64_MAX;
	h->max = 0;
	h->block = NULL;
	h->near = NULL;
	h->near_b = 0;
	h->near_lo = HIST_NO_NEAR;
	h->high = NULL;
}

void hist_release(struct hist *h)
{
	unsigned i;

	for (i = 0; h->block && i < HIST_BLOCKS; i++)
		if (i - h->near_b >= HIST_NEAR)
			free(h->block[i]);
	free(h->near);
	free(h->block);
	free(h->high);
	hist_init(h);
}

/* The smallest value of a bucket, and its width. */
static uint64_t bucket_low(unsigned b, unsigned sub, uint64_t *width)
{
	unsigned shift;

	if (b == 0) {
		*width = 1;
		return sub;
	}
	shift = b - 1;
	*width = 1ull << shift;
	return ((uint64_t)HIST_SUB + sub) << shift;
}

static uint32_t *block_of(struct hist *h, unsigned b)
{
	if (!h->block[b])
		h->block[b] = xcalloc(HIST_SUB, sizeof(uint32_t));
	return h->block[b];
}

/* The high words of the counts, made the first time one is needed. */
static uint32_t *high_words(struct hist *h)
{
	if (!h->high)
		h->high = xcalloc(HIST_BLOCKS * HIST_SUB, sizeof(*h->high));
	return h->high;
}

void hist_carry(struct hist *h, uint64_t v)
{
	high_words(h)[hist_index(v)]++;
}

/* Add n to a bucket's count, in its two words. */
static void bucket_add_n(struct hist *h, unsigned b, unsigned sub, uint64_t n)
{
	uint32_t *low = &block_of(h, b)[sub];
	uint64_t sum = *low + (n & UINT32_MAX);
	uint64_t hi = (n >> 32) + (sum >> 32);

	*low = (uint32_t)sum;
	if (hi)
		high_words(h)[b * HIST_SUB + sub] += (uint32_t)hi;
}

static uint64_t bucket_count(const struct hist *h, unsigned b, unsigned sub)
{
	uint64_t n = h->block[b][sub];

	return h->high ? n | (uint64_t)h->high[b * HIST_SUB + sub] << 32 : n;
}

/* Inline: once per event of most rows. */
static inline void bucket_add(struct hist *h, uint64_t v)
{
	unsigned b, sub;

	hist_locate(v, &b, &sub);
	if (!++block_of(h, b)[sub])
		hist_carry(h, v);
}

/* From the few values kept to buckets; v, about to be added, and the
 * block below it come first in the blocks made in one piece. */
static void make_blocks(struct hist *h, uint64_t v)
{
	unsigned b, sub;

	if (h->block)
		return;
	h->block = xcalloc(HIST_BLOCKS, sizeof(*h->block));
	hist_locate(v, &b, &sub);
	h->near_b = b ? b - 1 : 0;
	if (h->near_b > HIST_BLOCKS - HIST_NEAR)
		h->near_b = HIST_BLOCKS - HIST_NEAR;
	h->near_lo = h->near_b * HIST_SUB;
	h->near = xcalloc(HIST_NEAR * HIST_SUB, sizeof(*h->near));
	for (unsigned i = 0; i < HIST_NEAR; i++)
		h->block[h->near_b + i] = h->near + i * HIST_SUB;
	for (uint64_t i = 0; i < h->count; i++)
		bucket_add(h, h->few[i]);
}

/* Count v, h->count not yet counting it. */
static void place(struct hist *h, uint64_t v)
{
	if (!h->block && h->count < HIST_FEW) {
		h->few[h->count] = v;
		return;
	}
	make_blocks(h, v);
	bucket_add(h, v);
}

/* hist_add() when v's bucket is not made yet (or the few values not
 * yet turned into buckets). */
static void hist_add_new(struct hist *h, uint64_t v)
{
	place(h, v);
	hist_count(h, v);
}

void hist_add_far(struct hist *h, uint64_t v)
{
	unsigned b, sub;

	hist_locate(v, &b, &sub);
	if (!h->block || !h->block[b]) {
		hist_add_new(h, v);
		return;
	}
	if (!++h->block[b][sub])
		hist_carry(h, v);
	hist_count(h, v);
}

void hist_merge(struct hist *dst, const struct hist *src)
{
	unsigned b, sub;

	for (uint64_t i = 0; !src->block && i < src->count; i++) {
		place(dst, src->few[i]);
		dst->count++;
	}
	if (src->block) {
		make_blocks(dst, src->min);
		dst->count += src->count;
	}
	for (b = 0; src->block && b < HIST_BLOCKS; b++) {
		if (!src->block[b])
			continue;
		for (sub = 0; sub < HIST_SUB; sub++)
			bucket_add_n(dst, b, sub, bucket_count(src, b, sub));
	}
	dst->total = sat_add(dst->total, src->total);
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
}

/* The middle of a bucket, kept inside the exact [min, max]. */
static uint64_t representative(const struct hist *h, unsigned b, unsigned sub)
{
	uint64_t width, v = bucket_low(b, sub, &width);

	v += (width - 1) / 2;
	if (v < h->min)
		v = h->min;
	if (v > h->max)
		v = h->max;
	return v;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The value of rank (from 1) among the few kept, as its bucket says it:
 * the same answer as when they are in buckets. */
static uint64_t few_quantile(const struct hist *h, uint64_t rank)
{
	uint64_t v[HIST_FEW];
	unsigned b, sub;

	memcpy(v, h->few, h->count * sizeof(v[0]));
	qsort(v, h->count, sizeof(v[0]), cmp_u64);
	hist_locate(v[rank - 1], &b, &sub);
	return representative(h, b, sub);
}

uint64_t hist_quantile(const struct hist *h, double q)
{
	uint64_t rank, seen = 0;
	unsigned b, sub;

	if (!h->count)
		return 0;
	if (q <= 0)
		return h->min;
	if (q >= 1)
		return h->max;
	/* shave a rounding error off: 0.99 * 100 must give rank 99 */
	rank = (uint64_t)ceil(q * (double)h->count * (1 - 1e-12));
	if (rank <= 1)
		return h->min;          /* the extremes are known exactly */
	if (rank >= h->count)
		return h->max;
	if (!h->block)
		return few_quantile(h, rank);
	for (b = 0; b < HIST_BLOCKS; b++) {
		if (!h->block[b])
			continue;
		for (sub = 0; sub < HIST_SUB; sub++) {
			seen += bucket_count(h, b, sub);
			if (seen >= rank)
				return representative(h, b, sub);
		}
	}
	return h->max;
}
