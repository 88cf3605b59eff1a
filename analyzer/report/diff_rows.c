/* SPDX-License-Identifier: MIT */
/*
 * diff_rows.c - match the rows of two models (kernels by symbol, copy
 * classes by direction, memory and mode, waits by api) and sort them by
 * how much their time changed.
 */
#include <stdlib.h>
#include <string.h>

#include "analyzer/report/diff.h"
#include "analyzer/passes/gpu.h"
#include "analyzer/lib/util.h"

/* GPU time when the row has GPU records, else host time. */
static uint64_t row_time(const struct row *r, int gpu)
{
	return gpu && r->gpu ? r->gpu->total_ns : r->total_ns;
}

static int has_gpu(const struct model *m, enum row_kind kind)
{
	size_t n;
	struct row **rows = model_rows(m, kind, &n);
	int any = 0;

	for (size_t i = 0; i < n && !any; i++)
		any = rows[i]->gpu && rows[i]->gpu->calls;
	free(rows);
	return any;
}

static char *line_name(const struct row *r, enum row_kind kind)
{
	if (kind == ROW_COPYCLASS)
		return xasprintf("%s %s %s", direction_name(r->direction),
				 memory_name(r->memory), r->async ? "async" : "sync");
	return xstrdup(r->name);
}

static struct diff_line *find(struct diff_table *t, struct hmap *by_key,
			      const struct row *r, enum row_kind kind)
{
	struct diff_line *l;
	uintptr_t i = (uintptr_t)hmap_get_str(by_key, r->key);

	if (i)
		return &t->v[i - 1];
	t->v = xrealloc(t->v, (t->n + 1) * sizeof(*t->v));
	l = &t->v[t->n++];
	memset(l, 0, sizeof(*l));
	l->name = line_name(r, kind);
	l->kernel = kind == ROW_KERNEL;
	hmap_put_str(by_key, r->key, (void *)(uintptr_t)t->n);
	return l;
}

static int64_t change(const struct diff_line *l)
{
	return (int64_t)(l->value[1] - l->value[0]);
}

static int by_change(const void *a, const void *b)
{
	int64_t x = change(a), y = change(b);
	uint64_t ax = x < 0 ? 0 - (uint64_t)x : (uint64_t)x;
	uint64_t ay = y < 0 ? 0 - (uint64_t)y : (uint64_t)y;

	if (ax != ay)
		return ax > ay ? -1 : 1;
	return strcmp(((const struct diff_line *)a)->name,
		      ((const struct diff_line *)b)->name);
}

void diff_rows(const struct model *a, const struct model *b,
	       enum row_kind kind, struct diff_table *t)
{
	const struct model *side[2] = { a, b };
	int gpu = kind == ROW_KERNEL && has_gpu(a, kind) && has_gpu(b, kind);
	struct hmap by_key = HMAP_INIT;

	memset(t, 0, sizeof(*t));
	for (int s = 0; s < 2; s++) {
		size_t n;
		struct row **rows = model_rows(side[s], kind, &n);

		for (size_t i = 0; i < n; i++) {
			struct diff_line *l = find(t, &by_key, rows[i], kind);

			l->calls[s] += rows[i]->calls;
			l->value[s] += row_time(rows[i], gpu);
			l->bytes[s] += rows[i]->bytes;
			l->gpu = gpu;
		}
		free(rows);
	}
	hmap_release(&by_key);
	if (t->n)                       /* qsort(NULL, 0) is undefined */
		qsort(t->v, t->n, sizeof(*t->v), by_change);
}

void diff_table_free(struct diff_table *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->v[i].name);
	free(t->v);
	memset(t, 0, sizeof(*t));
}
