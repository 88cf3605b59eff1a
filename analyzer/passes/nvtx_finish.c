/* SPDX-License-Identifier: MIT */
/*
 * nvtx_finish.c - the end of the NVTX books: ranges still open are
 * counted as unclosed, each closed range asks the GPU timeline how busy
 * the GPU was inside it, and the rows come out sorted.
 */
#include <stdlib.h>
#include <string.h>

#include "analyzer/passes/nvtx_internal.h"
#include "analyzer/lib/util.h"

void nvtx_finish(struct model *m, nvtx_busy_fn fn)
{
	struct nvtx_stats *s = m->nvtx;
	const struct nvtx_start *o;
	struct nvtx_stack *st;
	size_t pos = 0;

	if (!s)
		return;
	while ((st = hmap_next(&s->stacks, &pos)))
		for (size_t i = 0; i < st->n; i++)
			st->v[i].row->unclosed++;
	pos = 0;
	while ((o = nvtx_open_next(&s->open, &pos)))
		o->row->unclosed++;
	s->unmatched += s->ended.len;   /* ends whose start never came */
	s->gpu_known = fn != NULL;
	for (size_t i = 0; fn && i < s->nspans; i++)
		s->spans[i].row->gpu_ns = sat_add(s->spans[i].row->gpu_ns,
			fn(m, s->spans[i].t0, s->spans[i].t1));
}

int nvtx_gpu_known(const struct model *m)
{
	return m->nvtx && m->nvtx->gpu_known;
}

static int by_cost(const void *a, const void *b)
{
	const struct nvtx_row *x = *(const struct nvtx_row *const *)a;
	const struct nvtx_row *y = *(const struct nvtx_row *const *)b;

	if (x->total_ns != y->total_ns)
		return x->total_ns < y->total_ns ? 1 : -1;
	if (x->calls != y->calls)
		return x->calls < y->calls ? 1 : -1;
	return strcmp(x->key, y->key);
}

struct nvtx_row **nvtx_rows(const struct model *m, int marks, size_t *n)
{
	const struct nvtx_stats *s = m->nvtx;
	struct nvtx_row **v = xcalloc(s ? s->rows.len + 1 : 1, sizeof(*v));
	struct nvtx_row *row;
	size_t pos = 0;

	*n = 0;
	while (s && (row = hmap_next(&s->rows, &pos)))
		if (row->mark == marks)
			v[(*n)++] = row;
	qsort(v, *n, sizeof(*v), by_cost);
	return v;
}

static void free_all(struct hmap *h, void (*fn)(void *))
{
	size_t pos = 0;
	void *v;

	while ((v = hmap_next(h, &pos)))
		fn(v);
	hmap_release(h);
}

static void free_row(void *p)
{
	struct nvtx_row *row = p;

	free(row->key);
	free(row->name);
	free(row->domain);
	free(row);
}

static void free_stack(void *p)
{
	free(((struct nvtx_stack *)p)->v);
	free(p);
}

static void free_name(void *p)
{
	free(((struct nvtx_name *)p)->domain);
	free(((struct nvtx_name *)p)->name);
	free(p);
}

void nvtx_release(struct model *m)
{
	struct nvtx_stats *s = m->nvtx;

	if (!s)
		return;
	free_all(&s->rows, free_row);
	hmap_release(&s->by_id);
	free_all(&s->domains, free);
	free_all(&s->stacks, free_stack);
	free_all(&s->launches, free);
	free_all(&s->names, free_name);
	nvtx_open_release(&s->open);
	nvtx_open_release(&s->ended);
	free(s->spans);
	free(s);
	m->nvtx = NULL;
}
