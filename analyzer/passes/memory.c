/* SPDX-License-Identifier: MIT */
/*
 * memory.c - what the host memory of copies and pinned allocations says.
 *
 * Copies are counted per class (direction x host memory x sync/async) and
 * per the two costly cases the recorder marks: async copies of pageable
 * memory, which the driver stages through a pinned buffer while the host
 * waits, and synchronous copies of pinned memory, where the host waits for
 * a copy that could have overlapped.  An async copy of pinned memory that
 * the same thread waits for at once (the next thing it does is to
 * synchronize its stream or context) is synchronous in effect: that is
 * what tensor.to(device) without non_blocking=True does.  A copy to the
 * host that is waited for, or a small one (64 KiB at most: a value such
 * as loss.item()'s), is a readback: a sync, which the diagnosis reports,
 * not a copy to pin or make asynchronous.  Pinned
 * allocations are counted per
 * second of the run, so allocations in the steady state (after the first
 * quarter of the traced span) can be told from start-up ones; memory
 * grows with the seconds that had one, not with the events.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/lib/hmap.h"
#include "analyzer/passes/framework.h"
#include "analyzer/passes/memory.h"
#include "analyzer/model/model_internal.h"
#include "analyzer/lib/units.h"
#include "analyzer/lib/util.h"

struct second {
	uint64_t sec;
	uint64_t calls, bytes, ns;
};

#define SMALL_READBACK (64u << 10)  /* a copy to the host this small
				       reads a value back */

/* An async pinned copy, until its thread does something else. */
struct pending_copy {
	uint64_t stream, bytes, ns;
	int live;
};

struct memory_stats {
	struct pinned_allocs allocs;
	struct hmap pending;        /* tid -> struct pending_copy */
	size_t live;                /* pending copies live: none, most of
				       the time, and a launch looks no further */
	struct hmap seconds;        /* second of the run -> struct second:
	                               pinned allocations in it (a map: one
	                               call months later costs one entry) */
	uint64_t first_t0;           /* the span ends at the model's last_t1 */
	uint64_t cost[FIND_KINDS][3];   /* calls, bytes, ns */
	uint64_t upload_async;      /* bytes uploaded from pinned memory by
				       async calls (some maybe waited for) */
	uint64_t upload_pageable;   /* ... from pageable memory */
};

static NOINLINE struct memory_stats *stats(struct model *m)
{
	if (!m->memory) {
		m->memory = xcalloc(1, sizeof(*m->memory));
		hmap_init(&m->memory->pending);
		hmap_init(&m->memory->seconds);
	}
	return m->memory;
}

static void add_cost3(struct memory_stats *s, enum finding_kind k,
		      uint64_t bytes, uint64_t ns)
{
	s->cost[k][0]++;
	s->cost[k][1] = sat_add(s->cost[k][1], bytes);
	s->cost[k][2] = sat_add(s->cost[k][2], ns);
}

static void add_cost(struct memory_stats *s, enum finding_kind k,
		     const struct dump_event *ev)
{
	add_cost3(s, k, ev->arg[GT_ARG_COPY_BYTES], ev->dur);
}

static int is_wait_for(const struct dump_event *ev, uint64_t stream)
{
	if (ev->op->kind != GT_KIND_SYNC)
		return 0;
	if (ev->op->api_is & DUMP_API_CTX_SYNC)
		return 1;
	return (ev->op->api_is & DUMP_API_STREAM_SYNC) && ev->stream == stream;
}

static void end_pending(struct memory_stats *s, struct pending_copy *p)
{
	if (p && p->live) {
		p->live = 0;
		s->live--;
	}
}

/*
 * The event after an async pinned copy in its thread: a wait on the copy's
 * stream makes it a synchronous pinned copy.  Then ev may start another.
 */
static void follow_copy(struct memory_stats *s, const struct dump_event *ev)
{
	struct pending_copy *p = hmap_get_int(&s->pending, ev->tid);
	uint64_t mem;

	if (p && p->live && is_wait_for(ev, p->stream))
		add_cost3(s, FIND_SYNC_PINNED, p->bytes, sat_add(p->ns, ev->dur));
	end_pending(s, p);
	if (ev->op->kind != GT_KIND_COPY || !(ev->op->flags & GT_OPF_ASYNC))
		return;
	mem = ev->arg[GT_ARG_COPY_MEMORY] & GT_MEM_MASK;
	if (mem != GT_MEM_PINNED || ev->op->direction != GT_DIR_HTOD)
		return;                 /* a readback waited for: a sync */
	if (!p) {
		p = xcalloc(1, sizeof(*p));
		hmap_put_int(&s->pending, ev->tid, p);
	}
	*p = (struct pending_copy){ ev->stream, ev->arg[GT_ARG_COPY_BYTES], ev->dur, 1 };
	s->live++;
}

/* The bytes of an upload, by how it was made. */
static void add_upload(struct memory_stats *s, const struct dump_event *ev,
		       uint64_t mem)
{
	uint64_t b = ev->arg[GT_ARG_COPY_BYTES];

	if ((mem & GT_MEM_MASK) == GT_MEM_PINNED && (ev->op->flags & GT_OPF_ASYNC))
		s->upload_async = sat_add(s->upload_async, b);
	else if ((mem & GT_MEM_MASK) == GT_MEM_PAGEABLE)
		s->upload_pageable = sat_add(s->upload_pageable, b);
}

static void add_copy(struct model *m, struct memory_stats *s,
		     const struct dump_event *ev)
{
	uint64_t mem = ev->arg[GT_ARG_COPY_MEMORY];
	struct row *row = copy_class_row(m, ev->op->direction, mem & GT_MEM_MASK,
					 !!(ev->op->flags & GT_OPF_ASYNC));
	int back = ev->op->direction == GT_DIR_DTOH;

	row->calls++;
	row->bytes = sat_add(row->bytes, ev->arg[GT_ARG_COPY_BYTES]);
	row->total_ns = sat_add(row->total_ns, ev->dur);
	if (ev->op->direction == GT_DIR_HTOD)
		add_upload(s, ev, mem);
	if (back && ev->arg[GT_ARG_COPY_BYTES] <= SMALL_READBACK)
		return;                 /* a value read back: a sync */
	if ((mem & GT_MEM_MASK) == GT_MEM_PAGEABLE)
		add_cost(s, FIND_PAGEABLE, ev);
	if (mem & GT_COPYF_STAGED)
		add_cost(s, FIND_STAGED, ev);
	if ((mem & GT_COPYF_SYNC_PINNED) && !back)
		add_cost(s, FIND_SYNC_PINNED, ev);
}

static void add_alloc(struct model *m, struct memory_stats *s,
		      const struct dump_event *ev)
{
	uint64_t sec = ev->t0 > m->start_ns ? (ev->t0 - m->start_ns) / 1000000000u : 0;
	struct second *one;

	s->allocs.calls++;
	s->allocs.bytes = sat_add(s->allocs.bytes, ev->arg[GT_ARG_HOSTALLOC_BYTES]);
	s->allocs.host_ns = sat_add(s->allocs.host_ns, ev->dur);
	one = hmap_get_int(&s->seconds, sec);
	if (!one) {
		one = xcalloc(1, sizeof(*one));
		one->sec = sec;
		hmap_put_int(&s->seconds, sec, one);
	}
	one->calls++;
	one->bytes = sat_add(one->bytes, ev->arg[GT_ARG_HOSTALLOC_BYTES]);
	one->ns = sat_add(one->ns, ev->dur);
}

/* Out of line, as is whatever a launch seldom needs: the launch's own
 * path keeps no registers to save. */
static NOINLINE void add_other(struct model *m, struct memory_stats *s,
			       const struct dump_event *ev)
{
	follow_copy(s, ev);
	if (ev->op->kind == GT_KIND_COPY)
		add_copy(m, s, ev);
	else if (ev->op->kind == GT_KIND_HOSTALLOC && !(ev->op->flags & GT_OPF_RELEASE))
		add_alloc(m, s, ev);
}

static NOINLINE void end_launch_pending(struct memory_stats *s,
					const struct dump_event *ev)
{
	end_pending(s, hmap_get_int(&s->pending, ev->tid));
}

void memory_add_event(struct model *m, const struct dump_event *ev)
{
	struct memory_stats *s = m->memory ? m->memory : stats(m);

	if (!s->first_t0 || ev->t0 < s->first_t0)
		s->first_t0 = ev->t0;
	if (ev->op->kind != GT_KIND_LAUNCH)
		add_other(m, s, ev);
	else if (s->live)       /* a launch ends its thread's pending copy */
		end_launch_pending(s, ev);
}

struct pinned_allocs memory_pinned_allocs(const struct model *m)
{
	struct pinned_allocs none = { 0, 0, 0 };

	return m->memory ? m->memory->allocs : none;
}

/* Pinned allocations from the first whole second after the first quarter
 * of the traced span on. */
static void steady_allocs(const struct model *m, uint64_t *c)
{
	const struct memory_stats *s = m->memory;
	uint64_t from = s->first_t0 + (m->last_t1 - s->first_t0) / 4;
	uint64_t sec = from > m->start_ns ? (from - m->start_ns) / 1000000000u + 1 : 1;
	const struct second *one;
	size_t pos = 0;

	c[0] = c[1] = c[2] = 0;
	while ((one = hmap_next(&s->seconds, &pos))) {
		if (one->sec < sec)
			continue;
		c[0] += one->calls;
		c[1] = sat_add(c[1], one->bytes);
		c[2] = sat_add(c[2], one->ns);
	}
}

static const struct {
	const char *id;
	const char *one, *many;         /* the noun, by count */
	const char *what;               /* what follows it */
	int change;                     /* enum fw_topic, or -1: */
	const char *words;              /* ... these words */
} finding_text[FIND_KINDS] = {
	[FIND_PAGEABLE] = { "pageable_copies",
		"copy", "copies", " of pageable host memory",
		FW_PAGEABLE_FINDING, NULL },
	[FIND_STAGED] = { "staged_async_copies",
		"async copy", "async copies",
		" of pageable memory, staged by the driver while "
		"the host waited", -1,
		"pin the memory; only then do they overlap with compute" },
	[FIND_SYNC_PINNED] = { "sync_pinned_copies",
		"copy", "copies", " of pinned memory to the GPU the host waited "
		"for at once (synchronous calls, or async ones followed by a "
		"wait)", FW_SYNC_PINNED_FINDING, NULL },
	[FIND_STEADY_ALLOC] = { "steady_pinned_allocs",
		"pinned allocation", "pinned allocations",
		" after start-up (pinning is slow and eats "
		"host memory)", FW_ALLOC_FINDING, NULL },
};

static void describe(const struct model *m, struct finding *f,
		     enum finding_kind k, const uint64_t *c)
{
	char bytes[UNITS_BUF], ns[UNITS_BUF];
	const char *change = finding_text[k].change < 0 ? finding_text[k].words :
			     framework_words(framework_of(m), finding_text[k].change);

	f->kind = k;
	f->id = finding_text[k].id;
	f->calls = c[0];
	f->bytes = c[1];
	f->ns = c[2];
	snprintf(f->text, sizeof(f->text), "%" PRIu64 " %s%s: %s, %s of host "
		 "time; %s", c[0], plural(c[0], finding_text[k].one,
					  finding_text[k].many),
		 finding_text[k].what, fmt_bytes(bytes, sizeof(bytes), c[1]),
		 fmt_ns(ns, sizeof(ns), c[2]), change);
}

int memory_findings(const struct model *m, struct finding *out)
{
	const struct memory_stats *s = m->memory;
	uint64_t steady[3];
	int n = 0;

	if (!s)
		return 0;
	for (int k = 0; k < FIND_STEADY_ALLOC; k++)
		if (s->cost[k][0])
			describe(m, &out[n++], (enum finding_kind)k, s->cost[k]);
	steady_allocs(m, steady);
	if (steady[0])
		describe(m, &out[n++], FIND_STEADY_ALLOC, steady);
	return n;
}

int memory_uploads_async(const struct model *m)
{
	const struct memory_stats *s = m->memory;
	uint64_t waited, all;

	if (!s || !s->upload_async)
		return 0;
	waited = s->cost[FIND_SYNC_PINNED][1];
	all = sat_add(s->upload_async, s->upload_pageable);
	return (double)sat_add(waited, s->upload_pageable) <= 0.1 * (double)all;
}

void memory_release(struct model *m)
{
	if (m->memory) {
		hmap_release_values(&m->memory->pending, NULL);
		hmap_release_values(&m->memory->seconds, NULL);
	}
	free(m->memory);
	m->memory = NULL;
}
