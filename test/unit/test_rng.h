/* SPDX-License-Identifier: MIT */
/*
 * test_rng.h - what the unit tests that check against random data share:
 * a generator with a fixed seed (the same data on every run), and the
 * plain comparison qsort sorts it with.
 */
#ifndef GPUTRACE_TEST_RNG_H
#define GPUTRACE_TEST_RNG_H

#include <stdint.h>

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

/* xorshift64* */
static inline uint64_t rng(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dull;
}

static inline int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

#endif /* GPUTRACE_TEST_RNG_H */
