/* SPDX-License-Identifier: MIT */
/*
 * idle_host.c - what each host thread was doing, as spans: runs of calls
 * that feed the GPU (launches, async copies of pinned memory, memsets,
 * queries; calls less than DIAG_FEED_GAP_NS apart form one run), waits
 * until the GPU is done (synchronize calls, copies back to the host,
 * which wait for the work before them), host-to-device copies the host
 * stages or waits for, NCCL calls and pinned allocations.  At the end the
 * spans of all threads become one line of host states (idle_host_segments),
 * the highest-priority state any thread was in at each moment.
 */
#include <stdlib.h>
#include <string.h>

#include "analyzer/diagnosis/diagnosis_internal.h"
#include "analyzer/lib/util.h"

#define SMALL_READBACK (64u << 10)  /* unknown-direction pageable copies
				       this small are taken as readbacks */

static NOINLINE struct host_thread *
new_thread(struct diagnosis *d, uint32_t tid)
{
	struct host_thread *t = xcalloc(1, sizeof(*t));

	t->tid = tid;
	t->index = d->nthreads < UINT16_MAX ? d->nthreads++ : UINT16_MAX;
	hmap_put_int(&d->threads, tid, t);
	return t;
}

static struct host_thread *thread_of(struct diagnosis *d, uint32_t tid)
{
	struct host_thread *t = hmap_get_int(&d->threads, tid);

	return t ? t : new_thread(d, tid);
}

static void push_span(struct diagnosis *d, const struct host_span *s)
{
	if (d->nspans == DIAG_MAX_HOST_SPANS) {
		if (!d->spans_lost++ || s->t0 < d->cut_t)
			d->cut_t = !d->cut_t || s->t0 < d->cut_t ? s->t0 : d->cut_t;
		return;
	}
	if (d->nspans == d->capspans) {
		d->capspans = d->capspans ? d->capspans * 2 : 4096;
		d->spans = xrealloc(d->spans, d->capspans * sizeof(*d->spans));
	}
	d->spans[d->nspans++] = *s;
}

static void close_run(struct diagnosis *d, struct host_thread *t)
{
	if (t->run.calls)
		push_span(d, &t->run);
	t->run.calls = 0;
}

/* What a copy makes the host do; *flags gets HF_* for waits. */
static int copy_cat(const struct dump_event *ev, uint8_t *flags)
{
	uint64_t mem = ev->arg[GT_ARG_COPY_MEMORY] & GT_MEM_MASK;
	int async = !!(ev->op->flags & GT_OPF_ASYNC);

	switch (ev->op->direction) {
	case GT_DIR_DTOH:
		if (async && mem == GT_MEM_PINNED)
			return HC_FEED;
		*flags = HF_READBACK | HF_DRAIN;  /* the stream's work, then it */
		return HC_WAIT;
	case GT_DIR_HTOD:
		return async && mem == GT_MEM_PINNED ? HC_FEED : HC_STAGE;
	case GT_DIR_HTOH:
		return HC_FEED;
	default:
		if (mem == GT_MEM_PAGEABLE && ev->arg[GT_ARG_COPY_BYTES] < SMALL_READBACK) {
			*flags = HF_READBACK | HF_DRAIN;
			return HC_WAIT;
		}
		if (mem == GT_MEM_PAGEABLE || (!async && mem == GT_MEM_PINNED))
			return HC_STAGE;
		return async ? HC_FEED : HC_WAIT;
	}
}

/* The category of an event, or -1 for events that are not CUDA work. */
static int event_cat(const struct dump_event *ev, const struct host_thread *t,
		     uint8_t *flags, uint32_t *stack)
{
	*flags = 0;
	*stack = 0;
	switch (ev->op->kind) {
	case GT_KIND_LAUNCH:
	case GT_KIND_GRAPH:
	case GT_KIND_SET:
		return HC_FEED;
	case GT_KIND_COPY:
		if (ev->op->nargs > GT_ARG_COPY_STACK)
			*stack = (uint32_t)ev->arg[GT_ARG_COPY_STACK];
		return copy_cat(ev, flags);
	case GT_KIND_SYNC:
		if ((ev->op->flags & GT_OPF_ASYNC) ||
		    (ev->op->api_is & DUMP_API_QUERY))
			return HC_FEED;     /* stream waits, queries */
		if (ev->op->nargs > GT_ARG_SYNC_STACK)
			*stack = (uint32_t)ev->arg[GT_ARG_SYNC_STACK];
		if (t->last_dir == GT_DIR_DTOH)
			*flags = HF_READBACK;
		else if (t->last_dir == GT_DIR_HTOD)
			*flags = HF_UPLOAD;
		if (!(ev->op->api_is & DUMP_API_EVENT))  /* an event: work may follow it */
			*flags |= HF_DRAIN;
		return HC_WAIT;
	case GT_KIND_NCCL:
		if (ev->op->nargs > GT_ARG_NCCL_STACK)
			*stack = (uint32_t)ev->arg[GT_ARG_NCCL_STACK];
		return HC_NCCL;
	case GT_KIND_HOSTALLOC:
		return HC_ALLOC;
	default:
		return -1;
	}
}

static uint32_t sat32(uint64_t v)
{
	return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

/* Whether ev goes on with the open run of its thread (calls 0: none). */
static int in_run(const struct host_span *run, const struct dump_event *ev)
{
	return ev->t0 >= run->t0 && ev->t0 < run->t1 + DIAG_FEED_GAP_NS;
}

/* A run with an async copy of a value back to the host (a readback whose
 * wait the dump does not show: another thread's, or outside CUDA):
 * flagged, with the copy's stack. */
static NOINLINE void run_readback(struct host_span *run, const struct dump_event *ev)
{
	if (ev->arg[GT_ARG_COPY_BYTES] > SMALL_READBACK)
		return;
	run->flags |= HF_READBACK;
	if (ev->op->nargs > GT_ARG_COPY_STACK)
		run->stack = (uint32_t)ev->arg[GT_ARG_COPY_STACK];
}

/* ev in the run of its thread t: it goes on with it, or opens it. */
static void run_add(struct host_thread *t, const struct dump_event *ev)
{
	struct host_span *run = &t->run;

	if (run->calls) {
		run->t1 = ev->t1 > run->t1 ? ev->t1 : run->t1;
		run->cuda_ns = sat32((uint64_t)run->cuda_ns + ev->dur);
		run->calls++;
	} else {
		*run = (struct host_span){ .t0 = ev->t0, .t1 = ev->t1,
					   .cuda_ns = sat32(ev->dur), .thread = t->index,
					   .cat = HC_FEED, .calls = 1 };
	}
	if (ev->op->kind == GT_KIND_COPY && ev->op->direction == GT_DIR_DTOH)
		run_readback(run, ev);
	if (ev->op->kind == GT_KIND_LAUNCH || ev->op->kind == GT_KIND_GRAPH)
		run->flags |= HF_LAUNCH;
}

static void feed(struct diagnosis *d, struct host_thread *t,
		 const struct dump_event *ev)
{
	if (t->run.calls && !in_run(&t->run, ev))
		close_run(d, t);
	run_add(t, ev);
}

static NOINLINE void
host_event(struct diagnosis *d, struct host_thread *t, const struct dump_event *ev)
{
	uint8_t flags;
	uint32_t stack;
	int cat = event_cat(ev, t, &flags, &stack);

	if (cat < 0)
		return;
	if (!d->first_t || ev->t0 < d->first_t)
		d->first_t = ev->t0;
	if (ev->t1 > d->last_t)
		d->last_t = ev->t1;
	t->last_dir = ev->op->kind == GT_KIND_COPY ? ev->op->direction : 0;
	t->last_t1 = ev->t1;
	if (ev->op->kind == GT_KIND_LAUNCH)
		t->launches++;
	if (cat == HC_FEED && ev->dur >= DIAG_BLOCKED_NS)
		cat = HC_WAIT;          /* the queue was full: waiting on the GPU */
	if (cat == HC_FEED) {
		feed(d, t, ev);
		return;
	}
	close_run(d, t);
	push_span(d, &(struct host_span){ .t0 = ev->t0, .t1 = ev->t1,
		  .cuda_ns = sat32(ev->dur), .stack = stack, .thread = t->index,
		  .cat = (uint8_t)cat, .flags = flags, .calls = 1 });
}

/* Whether ev feeds the GPU without a wait's flags: launches, memsets,
 * async copies of pinned memory (only those to or from the device unless
 * all_copies: a test of few registers). */
static int feeds(const struct dump_event *ev, int all_copies)
{
	uint8_t kind = ev->op->kind, dir = ev->op->direction, flags;

	if (kind == GT_KIND_LAUNCH || kind == GT_KIND_GRAPH || kind == GT_KIND_SET)
		return 1;
	if (kind != GT_KIND_COPY)
		return 0;
	if (all_copies)
		return copy_cat(ev, &flags) == HC_FEED;
	return (dir == GT_DIR_HTOD || dir == GT_DIR_DTOH) &&
	       (ev->op->flags & GT_OPF_ASYNC) &&
	       (ev->arg[GT_ARG_COPY_MEMORY] & GT_MEM_MASK) == GT_MEM_PINNED;
}

/* Most events: a call of thread t that feeds the GPU and goes on with its
 * run or opens one (what host_event does with it, in short); 0 with
 * nothing done for other events (feeds). */
static inline int short_event(struct diagnosis *d, struct host_thread *t,
			      const struct dump_event *ev, int all_copies)
{
	uint8_t kind = ev->op->kind;

	if (ev->dur >= DIAG_BLOCKED_NS || (t->run.calls && !in_run(&t->run, ev)) ||
	    !d->first_t || ev->t0 < d->first_t || !feeds(ev, all_copies))
		return 0;
	if (ev->t1 > d->last_t)
		d->last_t = ev->t1;
	t->last_dir = kind == GT_KIND_COPY ? ev->op->direction : 0;
	t->last_t1 = ev->t1;
	t->launches += kind == GT_KIND_LAUNCH;
	run_add(t, ev);
	return 1;
}

/* The thread looked up last if it is tid, else NULL. */
static struct host_thread *known_thread(const struct diagnosis *d, uint32_t tid)
{
	struct host_thread *t = d->last_thread;

	return t && t->tid == tid ? t : NULL;
}

/* short_event for a call of the thread looked up last (no lookup). */
int idle_host_short(struct diagnosis *d, const struct dump_event *ev)
{
	struct host_thread *t = known_thread(d, ev->tid);

	return t && short_event(d, t, ev, 0);
}

void idle_host_event(struct model *m, struct diagnosis *d,
		     const struct dump_event *ev)
{
	struct host_thread *t = known_thread(d, ev->tid);

	(void)m;
	if (!t)
		d->last_thread = t = thread_of(d, ev->tid);
	if (!short_event(d, t, ev, 1))
		host_event(d, t, ev);
}

void idle_host_flush(struct diagnosis *d)
{
	struct host_thread *t;
	size_t pos = 0;

	while ((t = hmap_next(&d->threads, &pos)))
		close_run(d, t);
}

/* ---- one line of host states ------------------------------------------- */

/*
 * The spans' ends and starts by time, ends first at one time, each kind
 * in span order: val is the span << 1 | 1 for an end.
 */
static struct sort_kv *edges(const struct diagnosis *d)
{
	struct sort_kv *e = xmalloc((2 * d->nspans + 1) * sizeof(*e));

	for (size_t i = 0; i < d->nspans; i++) {
		e[i] = (struct sort_kv){ d->spans[i].t1, (uint64_t)i << 1 | 1 };
		e[d->nspans + i] = (struct sort_kv){ d->spans[i].t0, (uint64_t)i << 1 };
	}
	sort_kv(e, 2 * d->nspans);
	return e;
}

/* The state now: the highest category with an open span (a bit each in
 * mask). */
static int state_now(unsigned mask)
{
	return mask ? 31 - __builtin_clz(mask) : HC_OUTSIDE;
}

static void emit(struct diagnosis *d, size_t *cap, uint64_t t0, uint64_t t1,
		 int state, uint32_t span)
{
	struct host_seg *last = d->nsegs ? &d->segs[d->nsegs - 1] : NULL;

	if (t1 <= t0)
		return;
	if (last && last->state == state && last->t1 == t0 &&
	    (state != HC_WAIT || last->span == span)) {
		last->t1 = t1;
		return;
	}
	if (d->nsegs == *cap) {
		*cap = *cap ? *cap * 2 : 1024;
		d->segs = xrealloc(d->segs, *cap * sizeof(*d->segs));
	}
	d->segs[d->nsegs++] = (struct host_seg){ t0, t1, span, (uint8_t)state };
}

void idle_host_segments(struct diagnosis *d)
{
	struct sort_kv *e = edges(d);
	uint32_t open[HC_KINDS] = { 0 }, last[HC_KINDS] = { 0 };
	size_t n = 2 * d->nspans, cap = 0;
	uint64_t prev = 0;
	unsigned mask = 0;

	for (size_t i = 0; i < n; i++) {
		uint32_t span = (uint32_t)(e[i].val >> 1);
		int c = d->spans[span].cat, st = state_now(mask);

		if (i && e[i].key > prev)
			emit(d, &cap, prev, e[i].key, st,
			     st == HC_OUTSIDE ? 0 : last[st]);
		prev = e[i].key;
		if (e[i].val & 1) {
			if (open[c] && !--open[c])
				mask &= ~(1u << c);
		} else {
			open[c]++;
			mask |= 1u << c;
			last[c] = span;
		}
	}
	free(e);
}

const struct host_seg *idle_seg_at(const struct diagnosis *d, uint64_t t,
				   size_t *idx)
{
	size_t lo = 0, hi = d->nsegs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (d->segs[mid].t1 <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	*idx = lo;
	if (lo < d->nsegs && d->segs[lo].t0 <= t)
		return &d->segs[lo];
	return NULL;
}
