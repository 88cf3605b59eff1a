/* SPDX-License-Identifier: MIT */
/*
 * nvtx.c - pair NVTX pushes with pops and starts with ends as the dump
 * streams by, and add each closed range to the row of its name.
 *
 * Pushes wait on a stack per (thread, domain); starts in a table by range
 * id (nvtx_open.c).  Kernels inside a range are the launches its thread
 * made between its open and its close (per-thread launch counters).  The
 * closed ranges are also kept (up to NVTX_MAX_SPANS) to ask the GPU
 * timeline, at the end, how busy the GPU was inside each.
 */
#include <stdlib.h>
#include <string.h>

#include "analyzer/passes/nvtx.h"
#include "analyzer/passes/nvtx_internal.h"
#include "analyzer/lib/util.h"

static struct nvtx_stats *stats(struct model *m)
{
	if (!m->nvtx)
		m->nvtx = xcalloc(1, sizeof(*m->nvtx));
	return m->nvtx;
}

/* The row of (domain, message), found by text, cached by ids. */
static struct nvtx_row *row_of(struct nvtx_stats *s, const struct dump_reader *r,
			       uint32_t domain, uint64_t msg, int mark)
{
	uint64_t ikey = (uint64_t)domain << 33 | (msg & 0xffffffffu) << 1 | !!mark;
	struct nvtx_row *row = hmap_get_int(&s->by_id, ikey);
	const char *name, *dom;
	char *key;

	if (row)
		return row;
	name = msg && msg <= UINT32_MAX ? dump_string(r, (uint32_t)msg) : NULL;
	dom = domain ? hmap_get_int(&s->domains, domain) : "";
	key = xasprintf("%d\037%s\037%u\037%s", mark, dom ? dom : "?",
			domain, name ? name : "");
	row = hmap_get_str(&s->rows, key);
	if (!row) {
		row = xcalloc(1, sizeof(*row));
		row->key = key;
		row->name = xstrdup(name ? name : "<unnamed>");
		row->domain = dom ? xstrdup(dom) : xasprintf("<domain %u>", domain);
		row->mark = mark;
		hmap_put_str(&s->rows, row->key, row);
	} else {
		free(key);
	}
	hmap_put_int(&s->by_id, ikey, row);
	return row;
}

static uint64_t *launch_counter(struct nvtx_stats *s, uint32_t tid)
{
	uint64_t *c = hmap_get_int(&s->launches, tid);

	if (!c) {
		c = xcalloc(1, sizeof(*c));
		hmap_put_int(&s->launches, tid, c);
	}
	return c;
}

static struct nvtx_stack *stack_of(struct nvtx_stats *s, uint32_t tid,
				   uint32_t domain)
{
	uint64_t key = (uint64_t)tid << 32 | domain;
	struct nvtx_stack *st = hmap_get_int(&s->stacks, key);

	if (!st) {
		st = xcalloc(1, sizeof(*st));
		hmap_put_int(&s->stacks, key, st);
	}
	return st;
}

/* A range closed: its row, and its span for the GPU time later. */
static void close_range(struct nvtx_stats *s, struct nvtx_row *row,
			uint64_t t0, uint64_t t1, uint64_t kernels)
{
	uint64_t ns = t1 > t0 ? t1 - t0 : 0;

	row->calls++;
	row->total_ns = sat_add(row->total_ns, ns);
	if (ns > row->max_ns)
		row->max_ns = ns;
	row->kernels += kernels;
	if (s->nspans == NVTX_MAX_SPANS) {
		s->spans_lost++;
		return;
	}
	if (s->nspans == s->spans_cap) {
		s->spans_cap = s->spans_cap ? s->spans_cap * 2 : 256;
		s->spans = xrealloc(s->spans, s->spans_cap * sizeof(*s->spans));
	}
	s->spans[s->nspans++] = (struct nvtx_span){ t0, t1, row };
}

static void push(struct nvtx_stats *s, const struct dump_reader *r,
		 const struct dump_event *ev)
{
	struct nvtx_stack *st = stack_of(s, ev->tid, (uint32_t)ev->arg[GT_ARG_NVTX_DOMAIN]);
	struct nvtx_row *row = row_of(s, r, (uint32_t)ev->arg[GT_ARG_NVTX_DOMAIN],
				      ev->arg[GT_ARG_NVTX_MSG], 0);

	if (!row->calls && !row->unclosed)
		row->category = (uint32_t)ev->arg[GT_ARG_NVTX_CATEGORY];
	if (st->n == NVTX_MAX_DEPTH) {
		s->depth_lost++;
		return;
	}
	if (st->n == st->cap) {
		st->cap = st->cap ? st->cap * 2 : 16;
		st->v = xrealloc(st->v, st->cap * sizeof(*st->v));
	}
	st->v[st->n++] = (struct nvtx_push){ row, ev->t0,
					     *launch_counter(s, ev->tid) };
}

static void pop(struct nvtx_stats *s, const struct dump_event *ev)
{
	struct nvtx_stack *st = stack_of(s, ev->tid, (uint32_t)ev->arg[GT_ARG_NVTX_DOMAIN]);
	struct nvtx_push p;

	if (!st->n) {
		s->unmatched++;
		return;
	}
	p = st->v[--st->n];
	close_range(s, p.row, p.t0, ev->t0,
		    *launch_counter(s, ev->tid) - p.launches);
}

static void start(struct nvtx_stats *s, const struct dump_reader *r,
		  const struct dump_event *ev)
{
	struct nvtx_start o = {
		.id = ev->arg[GT_ARG_NVTX_RANGE], .t0 = ev->t0, .tid = ev->tid,
		.row = row_of(s, r, (uint32_t)ev->arg[GT_ARG_NVTX_DOMAIN],
			      ev->arg[GT_ARG_NVTX_MSG], 0),
		.launches = *launch_counter(s, ev->tid),
	};

	struct nvtx_start e;

	if (!o.row->calls && !o.row->unclosed)
		o.row->category = (uint32_t)ev->arg[GT_ARG_NVTX_CATEGORY];
	if (nvtx_open_take(&s->ended, o.id, &e))       /* ended already */
		close_range(s, o.row, o.t0, e.t0, 0);
	else if (!o.id || nvtx_open_put(&s->open, &o, NVTX_MAX_OPEN) < 0)
		s->open_lost++;
}

/*
 * Events reach the dump thread by thread, so an end made on one thread
 * may come before the start another made: it then waits for the start.
 */
static void end(struct nvtx_stats *s, const struct dump_event *ev)
{
	struct nvtx_start o = { .id = ev->arg[GT_ARG_NVTX_RANGE], .t0 = ev->t0,
				.tid = ev->tid };

	if (nvtx_open_take(&s->open, o.id, &o))
		close_range(s, o.row, o.t0, ev->t0,
			    *launch_counter(s, o.tid) - o.launches);
	else if (!o.id || nvtx_open_put(&s->ended, &o, NVTX_MAX_OPEN) < 0)
		s->unmatched++;
}

static void mark(struct nvtx_stats *s, const struct dump_reader *r,
		 const struct dump_event *ev)
{
	struct nvtx_row *row = row_of(s, r, (uint32_t)ev->arg[GT_ARG_NVTX_DOMAIN],
				      ev->arg[GT_ARG_NVTX_MSG], 1);

	row->calls++;
}

static void nvtx_event(struct nvtx_stats *s, const struct dump_reader *r,
		       const struct dump_event *ev)
{
	switch (ev->op->direction) {
	case GT_NVTX_PUSH:
		push(s, r, ev);
		break;
	case GT_NVTX_POP:
		pop(s, ev);
		break;
	case GT_NVTX_START:
		start(s, r, ev);
		break;
	case GT_NVTX_END:
		end(s, ev);
		break;
	case GT_NVTX_MARK:
		mark(s, r, ev);
		break;
	default:
		nvtx_name_event(s, r, ev);
		break;
	}
}

/* Not inlined into the pipeline's test of whether a launch comes here. */
NOINLINE void nvtx_add(struct model *m, const struct dump_reader *r,
	      const struct dump_record *rec)
{
	const struct dump_event *ev = &rec->event;

	if (rec->type == DUMP_NVTX && rec->nvtx.what == GT_NVTX_DEF_DOMAIN) {
		const char *name = dump_string(r, rec->nvtx.name_str);

		free(hmap_get_int(&stats(m)->domains, rec->nvtx.id));
		hmap_put_int(&m->nvtx->domains, rec->nvtx.id,
			     xstrdup(name ? name : ""));
	} else if (rec->type == DUMP_EVENT && ev->op->kind == GT_KIND_NVTX) {
		nvtx_event(stats(m), r, ev);
	} else if (rec->type == DUMP_EVENT && ev->op->kind == GT_KIND_LAUNCH &&
		   m->nvtx) {
		(*launch_counter(m->nvtx, ev->tid))++;
	}
}
