/* SPDX-License-Identifier: MIT */
/*
 * span.c - lists of time spans: appended in nearly increasing order
 * (merged with the last one when they touch, which keeps runs of busy
 * kernels small), then sorted and merged once into disjoint spans that
 * can be searched.  A shared budget caps how many spans all lists of a
 * kind keep together.
 */
#include <stdlib.h>
#include <string.h>

#include "analyzer/diagnosis/diagnosis_internal.h"
#include "analyzer/lib/util.h"

int span_add(struct span_list *l, uint64_t t0, uint64_t t1, size_t *budget)
{
	struct span *last = l->n ? &l->v[l->n - 1] : NULL;

	if (t1 <= t0)
		return 0;
	if (last && t0 <= last->t1 && t1 >= last->t0) {
		if (t0 < last->t0)
			last->t0 = t0;
		if (t1 > last->t1)
			last->t1 = t1;
		return 0;
	}
	if (budget && !*budget)
		return -1;
	if (budget)
		(*budget)--;
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 64;
		l->v = xrealloc(l->v, l->cap * sizeof(*l->v));
	}
	l->sorted = 0;
	l->v[l->n++] = (struct span){ t0, t1 };
	return 0;
}

static int by_start(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	if (x->t0 != y->t0)
		return x->t0 < y->t0 ? -1 : 1;
	return (x->t1 > y->t1) - (x->t1 < y->t1);
}

void span_normalize(struct span_list *l)
{
	size_t out = 0;

	if (l->sorted || !l->n) {
		l->sorted = 1;
		return;
	}
	qsort(l->v, l->n, sizeof(*l->v), by_start);
	for (size_t i = 0; i < l->n; i++) {
		if (out && l->v[i].t0 <= l->v[out - 1].t1) {
			if (l->v[i].t1 > l->v[out - 1].t1)
				l->v[out - 1].t1 = l->v[i].t1;
			continue;
		}
		l->v[out++] = l->v[i];
	}
	l->n = out;
	l->sorted = 1;
}

size_t span_find(const struct span_list *l, uint64_t t)
{
	size_t lo = 0, hi = l->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (l->v[mid].t1 <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int span_at(const struct span_list *l, size_t *hint, uint64_t t,
	    uint64_t *until)
{
	size_t i = *hint;

	if (i > l->n || (i < l->n && l->v[i].t0 > t) || (i && l->v[i - 1].t1 > t))
		i = span_find(l, t);
	while (i < l->n && l->v[i].t1 <= t)
		i++;
	*hint = i;
	if (i == l->n) {
		*until = UINT64_MAX;
		return 0;
	}
	if (l->v[i].t0 <= t) {
		*until = l->v[i].t1;
		return 1;
	}
	*until = l->v[i].t0;
	return 0;
}

uint64_t span_cover(const struct span_list *l, uint64_t t0, uint64_t t1)
{
	uint64_t sum = 0;

	for (size_t i = span_find(l, t0); i < l->n && l->v[i].t0 < t1; i++) {
		uint64_t a = l->v[i].t0 > t0 ? l->v[i].t0 : t0;
		uint64_t b = l->v[i].t1 < t1 ? l->v[i].t1 : t1;

		if (b > a)
			sum += b - a;
	}
	return sum;
}

void span_release(struct span_list *l)
{
	free(l->v);
	memset(l, 0, sizeof(*l));
}
