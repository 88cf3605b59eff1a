/* SPDX-License-Identifier: MIT */
/*
 * gpu_busy.c - the union of GPU busy intervals, as records stream by in
 * nearly (not quite) increasing order.  New intervals go into a sorted
 * array of disjoint spans, merged with those they touch; spans that end
 * HORIZON before the latest start are final and retired: their length is
 * added up and, for queries, kept in a capped array (beyond the cap
 * neighbours are merged, which keeps the total exact and makes queries
 * coarser).  An interval starting before what was retired is cut there.
 */
#include <stdlib.h>
#include <string.h>

#include "analyzer/passes/gpu_internal.h"
#include "analyzer/lib/util.h"

#define HORIZON 10000000000ull      /* 10 s of disorder */
#define LIVE_MAX (1u << 16)
#define KEPT_MAX (1u << 20)

static void keep(struct gpu_union *u, struct gpu_span s)
{
	struct gpu_span *last = u->nkept ? &u->kept[u->nkept - 1] : NULL;

	if (last && (s.start <= last->end || u->nkept == KEPT_MAX)) {
		u->coarse |= s.start > last->end;
		last->end = s.end > last->end ? s.end : last->end;
		return;
	}
	if (u->nkept == u->capkept) {
		u->capkept = u->capkept ? u->capkept * 2 : 1024;
		u->kept = xrealloc(u->kept, u->capkept * sizeof(*u->kept));
	}
	u->kept[u->nkept++] = s;
}

/* The oldest live span is final.  Live spans are live[off .. off+n). */
static void retire_first(struct gpu_union *u)
{
	struct gpu_span s = u->live[u->off];

	u->busy = sat_add(u->busy, s.end - s.start);
	u->frontier = s.end;
	if (u->keep)
		keep(u, s);
	u->off++;
	u->n--;
	if (!u->n)
		u->off = 0;
}

/* Move the live spans to the front when the room before them is large. */
static void compact(struct gpu_union *u)
{
	if (u->off < 4096 || u->off < u->n)
		return;
	memmove(u->live, u->live + u->off, u->n * sizeof(*u->live));
	u->off = 0;
}

/* Index of the first live span that ends at or after start. */
static size_t first_touching(const struct gpu_union *u, uint64_t start)
{
	const struct gpu_span *live = u->live + u->off;
	size_t lo = 0, hi = u->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (live[mid].end < start)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void insert(struct gpu_union *u, uint64_t start, uint64_t end)
{
	size_t i, j;
	struct gpu_span *live;

	if (!u->live) {                     /* no pointer arithmetic on NULL */
		u->cap = 256;
		u->live = xmalloc(u->cap * sizeof(*u->live));
	}
	i = j = first_touching(u, start);
	compact(u);
	live = u->live + u->off;
	while (j < u->n && live[j].start <= end) {
		if (live[j].start < start)
			start = live[j].start;
		if (live[j].end > end)
			end = live[j].end;
		j++;
	}
	if (j == i) {                       /* no overlap: make room */
		if (u->off + u->n == u->cap) {
			u->cap *= 2;
			u->live = xrealloc(u->live, u->cap * sizeof(*u->live));
			live = u->live + u->off;
		}
		memmove(live + i + 1, live + i, (u->n - i) * sizeof(*live));
		u->n++;
	} else if (j > i + 1) {             /* several merged into one */
		memmove(live + i + 1, live + j, (u->n - j) * sizeof(*live));
		u->n -= j - i - 1;
	}
	live[i] = (struct gpu_span){ start, end };
}

void gpu_union_add(struct gpu_union *u, uint64_t start, uint64_t end)
{
	if (start < u->frontier) {
		u->late++;
		start = u->frontier;
	}
	if (end <= start)
		return;
	insert(u, start, end);
	if (start > u->max_start)
		u->max_start = start;
	while (u->n && (u->n > LIVE_MAX ||
			u->live[u->off].end + HORIZON < u->max_start))
		retire_first(u);
}

void gpu_union_end(struct gpu_union *u)
{
	uint64_t sum = 0;

	while (u->n)
		retire_first(u);
	if (!u->keep)
		return;
	free(u->cum);
	u->cum = xcalloc(u->nkept + 1, sizeof(*u->cum));
	for (size_t i = 0; i < u->nkept; i++) {
		u->cum[i] = sum;
		sum += u->kept[i].end - u->kept[i].start;
	}
	u->cum[u->nkept] = sum;
}

uint64_t gpu_union_between(const struct gpu_union *u, uint64_t t0, uint64_t t1)
{
	size_t lo = 0, hi = u->nkept, i, j;
	uint64_t busy;

	if (!u->cum || t1 <= t0)
		return 0;
	while (lo < hi) {                   /* first span ending after t0 */
		size_t mid = lo + (hi - lo) / 2;

		if (u->kept[mid].end <= t0)
			lo = mid + 1;
		else
			hi = mid;
	}
	i = lo;
	hi = u->nkept;
	while (lo < hi) {                   /* first span starting at/after t1 */
		size_t mid = lo + (hi - lo) / 2;

		if (u->kept[mid].start < t1)
			lo = mid + 1;
		else
			hi = mid;
	}
	j = lo;
	if (j <= i)
		return 0;
	busy = u->cum[j] - u->cum[i];
	if (u->kept[i].start < t0)
		busy -= t0 - u->kept[i].start;
	if (u->kept[j - 1].end > t1)
		busy -= u->kept[j - 1].end - t1;
	return busy;
}

void gpu_union_release(struct gpu_union *u)
{
	free(u->live);
	free(u->kept);
	free(u->cum);
	memset(u, 0, sizeof(*u));
}
