/* SPDX-License-Identifier: MIT */
/*
 * period.h - the period of a repeating call sequence, shared by the
 * library (which finds a running program's training steps to place GPU
 * windows on them) and the analyzer (which finds them again in a dump).
 *
 * A training loop makes the same GPU calls in the same order every step.
 * Given the newest calls first, the prefix function (Knuth-Morris-Pratt)
 * gives in O(n) the smallest period of every prefix; the answer is the
 * period of the longest prefix (the newest calls) that covers at least
 * half of them and repeats three times or more.  Tokens that differ every
 * other step (a kernel chosen by the batch's shape, a call made on every
 * second batch) make that period a multiple of the step; gt_sub_period
 * finds the step in it.
 */
#ifndef GPUTRACE_PERIOD_H
#define GPUTRACE_PERIOD_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/*
 * Smallest period of the longest prefix of tok[0..n) that is at least
 * n / 2 long and holds the period three times or more; 0 if none.  pi
 * is scratch space for n values.
 */
static inline uint32_t gt_suffix_period(const uint32_t *tok, size_t n, int32_t *pi)
{
	size_t k = 0;

	if (!n)
		return 0;
	pi[0] = 0;
	for (size_t i = 1; i < n; i++) {
		while (k && tok[i] != tok[k])
			k = (size_t)pi[k - 1];
		if (tok[i] == tok[k])
			k++;
		pi[i] = (int32_t)k;
	}
	for (size_t len = n; len >= 3 && 2 * len >= n; len--) {
		size_t p = len - (size_t)pi[len - 1];

		if (len >= 3 * p)
			return (uint32_t)p;
	}
	return 0;
}

/*
 * A period made of near copies of a shorter one: the smallest d that
 * divides period such that, over one period of tok (whose first
 * 2 * period tokens repeat with period), the token d calls later is the
 * same for all but a tenth of the calls; period if none.
 */
static inline uint32_t gt_sub_period(const uint32_t *tok, uint32_t period)
{
	for (uint32_t d = 1; d <= period / 2; d++) {
		uint32_t differ = 0;

		if (period % d)
			continue;
		for (uint32_t i = 0; i < period && 10 * differ <= period; i++)
			differ += tok[i] != tok[i + d];
		if (10 * differ <= period)
			return d;
	}
	return period;
}

/*
 * Whether the period / sub steps of a period take alike times: t[] holds
 * the times of blocks (at most GT_EVEN_BLOCKS) whole periods of calls in a
 * row, each beginning with a step's first call.  The span from each step's
 * first call to its last, the median over the blocks (a block that the
 * scheduler stopped in the middle of a step does not count), is within
 * half of every other (and 20 us): a period of two kinds of step (a GAN's
 * generator and discriminator) stays whole.
 */
#define GT_EVEN_BLOCKS 8

static inline uint64_t gt_median_small(uint64_t *v, size_t n)
{
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j && v[j - 1] > v[j]; j--) {
			uint64_t x = v[j];

			v[j] = v[j - 1];
			v[j - 1] = x;
		}
	return v[(n - 1) / 2];
}

static inline int gt_even_steps(const uint64_t *t, size_t period, size_t sub,
				size_t blocks)
{
	uint64_t lo = UINT64_MAX, hi = 0, span[GT_EVEN_BLOCKS], m;

	blocks = blocks < GT_EVEN_BLOCKS ? blocks : GT_EVEN_BLOCKS;
	for (size_t k = 0; k < period / sub; k++) {
		for (size_t j = 0; j < blocks; j++) {
			const uint64_t *s = t + j * period + k * sub;

			span[j] = s[sub - 1] - s[0];
		}
		m = blocks ? gt_median_small(span, blocks) : 0;
		lo = m < lo ? m : lo;
		hi = m > hi ? m : hi;
	}
	return blocks && 2 * hi <= 3 * lo + 20000;
}

/* FNV-1a step over one token: the hash of a few calls in a row. */
static inline uint64_t gt_gram_step(uint64_t h, uint32_t tok)
{
	return (h ^ tok) * 1099511628211ull;
}

#define GT_GRAM_SEED 1469598103934665603ull

static inline int gt_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* How many times h occurs in the sorted v[0..n). */
static inline size_t gt_count(const uint64_t *v, size_t n, uint64_t h)
{
	size_t lo = 0, hi = n, k = 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid] < h)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo + k < n && v[lo + k] == h)
		k++;
	return k;
}

/*
 * The call that starts a step, among the last period calls, when a step
 * is sub calls (sub divides period: gt_sub_period): h[i] is the hash of
 * the few calls up to call i (gt_gram_step), gap[i] the pause before it.
 * Of the calls i < sub whose hash comes once per step, at the same place
 * in each of the period / sub steps, the one after the longest pauses;
 * its index, or -1 if none.  sorted is scratch space for period values.
 */
static inline long gt_anchor_pick_sub(const uint64_t *h, const uint64_t *gap,
				      size_t period, size_t sub, uint64_t *sorted)
{
	size_t m = period / sub;
	uint64_t best_gap = 0;
	long best = -1;

	memcpy(sorted, h, period * sizeof(*h));
	qsort(sorted, period, sizeof(*sorted), gt_cmp_u64);
	for (size_t i = 0; i < sub; i++) {
		uint64_t g = 0;
		size_t k;

		for (k = 0; k < m && h[i + k * sub] == h[i]; k++)
			g += gap[i + k * sub];
		if (k == m && gt_count(sorted, period, h[i]) == m &&
		    (best < 0 || g > best_gap))
			best = (long)i, best_gap = g;
	}
	return best;
}

/* The same when a step is the whole period. */
static inline long gt_anchor_pick(const uint64_t *h, const uint64_t *gap,
				  size_t period, uint64_t *sorted)
{
	return gt_anchor_pick_sub(h, gap, period, period, sorted);
}

#endif /* GPUTRACE_PERIOD_H */
