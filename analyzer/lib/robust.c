/* SPDX-License-Identifier: MIT */
/*
 * robust.c - medians, quantiles and the clustered bootstrap of the median
 * (robust.h).  The generator is splitmix64 from a constant seed, so that
 * a report says the same thing every time it is made.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/lib/robust.h"
#include "analyzer/lib/util.h"

#define ROBUST_SEED 0x6770757472616365ull

/* A double's bits as a key that orders as the double does (not NaN). */
static uint64_t order_key(double d)
{
	uint64_t b;

	memcpy(&b, &d, sizeof(b));
	return b >> 63 ? ~b : b | 1ull << 63;
}

static double from_key(uint64_t k)
{
	uint64_t b = k >> 63 ? k & ~(1ull << 63) : ~k;
	double d;

	memcpy(&d, &b, sizeof(d));
	return d;
}

/* The k-th smallest of v[0..n), k < n; v reordered as select_u64 leaves
 * its keys (all past k at least v[k]). */
static double select_d(double *v, size_t n, size_t k)
{
	uint64_t *key = xmalloc(n * sizeof(*key));

	for (size_t i = 0; i < n; i++)
		key[i] = order_key(v[i]);
	select_u64(key, n, k);
	for (size_t i = 0; i < n; i++)
		v[i] = from_key(key[i]);
	free(key);
	return v[k];
}

/* The smallest of v[from..n). */
static double min_from(const double *v, size_t from, size_t n)
{
	double m = v[from];

	for (size_t i = from + 1; i < n; i++)
		if (v[i] < m)
			m = v[i];
	return m;
}

double robust_quantile(double *v, size_t n, double q)
{
	double at = q * (double)(n - 1), below;
	size_t k = (size_t)at;

	below = select_d(v, n, k);
	if (k + 1 >= n || at == (double)k)
		return below;
	/* after the select, everything past k is >= v[k]: the next rank is
	 * their smallest */
	return below + (at - (double)k) * (min_from(v, k + 1, n) - below);
}

double robust_median(double *v, size_t n)
{
	return robust_quantile(v, n, 0.5);
}

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* A number below n, n > 0. */
static size_t draw(uint64_t *s, size_t n)
{
	return (size_t)(((unsigned __int128)splitmix(s) * n) >> 64);
}

void robust_median_interval(const double *v, const size_t *start, size_t nclust,
			    size_t ndraw, double level, double *lo, double *hi)
{
	size_t most = 0, npool;
	double *pool, *med = xmalloc(ROBUST_ROUNDS * sizeof(*med));
	uint64_t seed = ROBUST_SEED;

	for (size_t c = 0; c < nclust; c++)
		if (start[c + 1] - start[c] > most)
			most = start[c + 1] - start[c];
	pool = xmalloc(ndraw * most * sizeof(*pool));
	for (size_t r = 0; r < ROBUST_ROUNDS; r++) {
		npool = 0;
		for (size_t c = 0; c < ndraw; c++) {
			size_t pick = draw(&seed, nclust), n = start[pick + 1] - start[pick];

			for (size_t i = 0; i < n; i++)
				pool[npool++] = v[start[pick] + draw(&seed, n)];
		}
		med[r] = robust_median(pool, npool);
	}
	*lo = robust_quantile(med, ROBUST_ROUNDS, (1 - level) / 2);
	*hi = robust_quantile(med, ROBUST_ROUNDS, (1 + level) / 2);
	free(pool);
	free(med);
}
