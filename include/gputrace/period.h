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

#endif /* GPUTRACE_PERIOD_H */
