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
 * half of them and repeats three times or more.
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

/* Whether h occurs exactly once in the sorted v[0..n). */
static inline int gt_once(const uint64_t *v, size_t n, uint64_t h)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid] < h)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && v[lo] == h && (lo + 1 == n || v[lo + 1] != h);
}

/*
 * The call that starts a step, among the last period calls: h[i] is the
 * hash of the few calls up to call i (gt_gram_step), gap[i] the pause
 * before it.  Of the calls whose hash comes once per period, the one
 * after the longest pause; its index, or -1 if none.  sorted is scratch
 * space for period values.
 */
static inline long gt_anchor_pick(const uint64_t *h, const uint64_t *gap,
				  size_t period, uint64_t *sorted)
{
	long best = -1;

	memcpy(sorted, h, period * sizeof(*h));
	qsort(sorted, period, sizeof(*sorted), gt_cmp_u64);
	for (size_t i = 0; i < period; i++)
		if (gt_once(sorted, period, h[i]) && (best < 0 || gap[i] > gap[best]))
			best = (long)i;
	return best;
}

#endif /* GPUTRACE_PERIOD_H */
