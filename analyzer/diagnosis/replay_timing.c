/* SPDX-License-Identifier: MIT */
/*
 * replay_timing.c - the graph's numbers from the recorded times: going
 * through the items in the order they started, each operation's
 * latencies (after its launch, after its stream's previous operation:
 * latencies()) and length, each wait's time from
 * what it waited for to its return, and the host-side estimate of
 * operations no GPU record times (an operation runs until a wait for it
 * returns).  The result replays to the recorded times; where the span
 * lies in a GPU window, the host's own times then come from like steps
 * outside it (replay_host.c).
 */
#include <stdlib.h>
#include <string.h>

#include "analyzer/diagnosis/replay_internal.h"
#include "analyzer/lib/util.h"

#define RET_DEFAULT_NS 2000     /* a wait returns after the GPU is done */
#define WAIT_SLACK_NS 5000      /* GPU records this far after a wait's
				   return still count as waited for */
#define DATA_SHARE 0.10         /* the host's own work that may be a batch
				   fetch: this share of its step... */
#define DATA_MIN_NS 500000      /* ...and at least this long */
#define GAP_DEFAULT_NS 1000     /* between kernels when the span has no
				   kernel queued behind another */
#define UNSEEN_NS 1000000       /* a stream's first op this late after its
				   launch: work queued before, unrecorded */

struct timing {
	struct rp_builder *b;
	uint64_t *end;          /* per stream: its last op ends */
	long *last;             /* per stream: its last op, -1 none */
	uint64_t *rl, *rp;      /* per op: start after its launch, after the
				   stream's previous op (0 if before) */
	uint8_t *bound;         /* per op: 1 its launch, 2 the previous op
				   decided when it started */
};

static uint64_t max64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

static void time_op(struct timing *tm, uint32_t o, uint64_t t0)
{
	struct rp_builder *b = tm->b;
	struct rp_op *op = &b->g->ops[o];
	uint64_t base = max64(t0, tm->end[op->stream]), rs;

	if (b->est[o])
		b->ms[o] = b->me[o] = base;
	rs = b->ms[o] > base ? b->ms[o] : base;
	tm->rl[o] = rs - t0;
	tm->rp[o] = rs - tm->end[op->stream];
	tm->bound[o] = t0 >= tm->end[op->stream] ? 1 : 2;
	op->dur = b->me[o] > rs ? b->me[o] - rs : 0;
	b->me[o] = rs + op->dur;
	tm->end[op->stream] = b->me[o];
	tm->last[op->stream] = o;
}

static uint64_t median(uint64_t *v, size_t n, uint64_t dflt)
{
	return n ? select_u64(v, n, n / 2) : dflt;
}

/*
 * An operation starts at the later of its launch plus lat and its
 * stream's previous op plus gap.  What decided its start gets the
 * measured residual; the other gets the median of those measured where it
 * decided (bounded by the residual, so the start stays as recorded): what
 * a kernel waits after a launch once the GPU is free, or after the
 * previous kernel once the host is ahead.
 */
static void latencies(struct timing *tm)
{
	struct rp_graph *g = tm->b->g;
	uint64_t *v = xmalloc((g->nops + 1) * sizeof(*v)), lat, gap;
	size_t n = 0, k = 0;

	for (size_t o = 0; o < g->nops; o++)
		if (tm->bound[o] == 1 && !tm->b->est[o])
			v[n++] = tm->rl[o];
	lat = median(v, n, 0);
	for (size_t o = 0; o < g->nops; o++)
		if (tm->bound[o] == 2 && !tm->b->est[o])
			v[k++] = tm->rp[o];
	gap = median(v, k, GAP_DEFAULT_NS);
	for (size_t o = 0; o < g->nops; o++) {
		struct rp_op *op = &g->ops[o];

		op->lat = tm->bound[o] == 1 ? tm->rl[o] :
			  tm->rl[o] < lat ? tm->rl[o] : lat;
		op->gap = tm->bound[o] == 2 ? tm->rp[o] :
			  tm->rp[o] < gap ? tm->rp[o] : gap;
	}
	free(v);
}

/* The op an item waits for (-1: none queued), and when it ends. */
static long target(const struct timing *tm, const struct rp_item *it,
		   uint64_t *te)
{
	const struct rp_graph *g = tm->b->g;
	long op = -1;

	*te = 0;
	switch (it->wkind) {
	case RW_OP:
		*te = tm->b->me[it->wait];
		return it->wait;
	case RW_STREAM:
		*te = tm->end[it->wait];
		return tm->last[it->wait];
	default:
		for (size_t s = 0; s < g->nstreams; s++)
			if (tm->end[s] >= *te) {
				*te = tm->end[s];
				op = tm->last[s];
			}
		return op;
	}
}

/* Without a GPU record, what was waited for ran until the wait returned. */
static void extend(struct timing *tm, long op, uint64_t *te, uint64_t t0,
		   uint64_t t1)
{
	struct rp_builder *b = tm->b;
	uint64_t ret = t1 - t0 < RET_DEFAULT_NS ? t1 - t0 : RET_DEFAULT_NS;
	uint32_t s;

	if (op < 0 || !b->est[op] || *te + ret >= t1)
		return;
	s = b->g->ops[op].stream;
	b->g->ops[op].dur += t1 - ret - *te;
	b->me[op] = t1 - ret;
	if (tm->last[s] == op)
		tm->end[s] = b->me[op];
	*te = b->me[op];
}

static void time_wait(struct timing *tm, size_t i)
{
	struct rp_builder *b = tm->b;
	struct rp_item *it = &b->g->items[i];
	uint64_t t0 = b->mt0[i], t1 = b->mt1[i], te;
	long op = target(tm, it, &te);

	extend(tm, op, &te, t0, t1);
	if (te <= t0) {
		it->own = it->ret = t1 - t0;
	} else if (te <= t1) {
		it->own = it->ret = t1 - te;
	} else if (te <= t1 + WAIT_SLACK_NS) {
		it->own = it->ret = 0;
	} else {
		it->wkind = RW_NONE;
		it->own = t1 - t0;
	}
}

#define NEAR_MOVES 4        /* moves an item, on average, before sort_kv */

/*
 * sort_kv for keys nearly in order (the items of a thread, but for calls
 * that overlap): an insertion sort, until it has moved NEAR_MOVES times
 * as many as there are; then sort_kv does the rest (both are stable: what
 * the first did changes nothing of what the second gives).
 */
static void sort_near(struct sort_kv *v, size_t n)
{
	size_t moves = 0;

	for (size_t i = 1; i < n; i++) {
		struct sort_kv x = v[i];
		size_t at = i;

		while (at && v[at - 1].key > x.key)
			at--;
		if (at == i)
			continue;       /* in order, most often */
		memmove(&v[at + 1], &v[at], (i - at) * sizeof(*v));
		v[at] = x;
		moves += i - at;
		if (moves > NEAR_MOVES * n) {
			sort_kv(v, n);
			return;
		}
	}
}

static void walk(struct timing *tm)
{
	struct rp_builder *b = tm->b;
	struct rp_graph *g = b->g;
	struct sort_kv *o = xmalloc((g->nitems + 1) * sizeof(*o));

	for (size_t i = 0; i < g->nitems; i++)       /* by time, then index */
		o[i] = (struct sort_kv){ b->mt0[i], i };
	sort_near(o, g->nitems);
	for (size_t k = 0; k < g->nitems; k++) {
		struct rp_item *it = &g->items[o[k].val];

		if (it->op)
			time_op(tm, it->op - 1, o[k].key);
		if (it->wkind != RW_NONE)
			time_wait(tm, o[k].val);
	}
	free(o);
}

/* Whether an item ends a stretch of the host's own work: it feeds or
 * waits for the GPU (queries and pinned allocations do not). */
static int feeds_or_waits(const struct rp_item *it)
{
	return (it->kind != RK_CPU && it->kind != RK_OTHER &&
		(it->kind != RK_SYNC || it->wkind != RW_NONE)) ||
	       (it->flags & RPF_IMPLICIT);
}

/* Flag the CPU segments of items [a, b) as data loading if they add up to
 * DATA_MIN_NS and DATA_SHARE of the step. */
static void flag_run(struct rp_builder *b, size_t a, size_t e)
{
	struct rp_graph *g = b->g;
	uint64_t cpu = 0, len;

	if (a >= e)
		return;
	for (size_t i = a; i < e; i++)
		cpu += g->items[i].kind == RK_CPU ? g->items[i].own : 0;
	len = b->c->bounds[g->items[a].step + 1] - b->c->bounds[g->items[a].step];
	if (cpu < DATA_MIN_NS || (double)cpu < DATA_SHARE * (double)len)
		return;
	for (size_t i = a; i < e; i++)
		if (g->items[i].kind == RK_CPU)
			g->items[i].flags |= RPF_DATA;
}

/* Outside-CUDA time waiting on data: the samples' share of workers and
 * I/O; without workers, what may be the batch fetch in the steps'
 * thread: stretches of its own work (CPU, queries, pinned allocations)
 * of at least DATA_MIN_NS and DATA_SHARE of the step. */
static void data_time(struct rp_builder *b)
{
	struct rp_graph *g = b->g;
	const struct rp_thread *t = &g->th[0];
	size_t run = t->first;

	for (size_t i = 0; i < g->nitems; i++) {
		const struct outside_split *sp;

		if (g->items[i].kind != RK_CPU || (g->items[i].flags & RPF_IMPLICIT))
			continue;
		sp = idle_outside_at(b->d, (b->mt0[i] + b->mt1[i]) / 2);
		if (sp)
			g->items[i].loader = sat_from_double((double)g->items[i].own *
							     (sp->loader + sp->io));
	}
	for (size_t i = t->first; i < t->first + t->n; i++)
		if (feeds_or_waits(&g->items[i])) {
			flag_run(b, run, i);
			run = i + 1;
		}
	flag_run(b, run, t->first + t->n);
}

/*
 * Work queued before the span that no GPU record shows (the window
 * opened while the host was ahead): a stream whose first operation of
 * the span started UNSEEN_NS or more after its launch, no record of the
 * stream's before it, was busy until then: its backlog.
 */
static void unseen_backlog(struct rp_builder *b)
{
	struct rp_graph *g = b->g;
	uint8_t *seen = xcalloc(g->nstreams + 1, 1);

	for (size_t o = 0; o < g->nops; o++) {
		uint32_t s = g->ops[o].stream;

		if (b->est[o] || seen[s])
			continue;
		seen[s] = 1;
		if (!b->backlog_abs[s] && b->ms[o] > b->c->lo &&
		    b->ms[o] > b->mt0[g->ops[o].item] + UNSEEN_NS)
			b->backlog_abs[s] = b->ms[o];
	}
	free(seen);
}

void replay_timing(struct rp_builder *b)
{
	struct rp_graph *g = b->g;
	struct timing tm = { .b = b };
	size_t joined = 0;
	uint64_t backlog = 0;

	tm.end = xcalloc(g->nstreams + 1, sizeof(*tm.end));
	tm.rl = xcalloc(g->nops + 1, sizeof(*tm.rl));
	tm.rp = xcalloc(g->nops + 1, sizeof(*tm.rp));
	tm.bound = xcalloc(g->nops + 1, sizeof(*tm.bound));
	tm.last = xcalloc(g->nstreams + 1, sizeof(*tm.last));
	g->backlog = xcalloc(g->nstreams + 1, sizeof(*g->backlog));
	unseen_backlog(b);
	for (size_t s = 0; s < g->nstreams; s++) {
		tm.end[s] = b->backlog_abs[s];
		tm.last[s] = -1;
		g->backlog[s] = b->backlog_abs[s] > b->c->lo ?
				b->backlog_abs[s] - b->c->lo : 0;
		backlog = g->backlog[s] > backlog ? g->backlog[s] : backlog;
	}
	walk(&tm);
	latencies(&tm);
	if (g->nth) {
		replay_hidden_waits(b);
		data_time(b);
	}
	for (size_t o = 0; o < g->nops; o++) {
		joined += !b->est[o];
		if (b->me[o] > b->c->lo + backlog &&
		    b->me[o] - b->c->lo - backlog > g->measured)
			g->measured = b->me[o] - b->c->lo - backlog;
	}
	g->gpu = g->nops && joined >= 0.9 * (double)g->nops;
	replay_host_outside(b);
	free(tm.end);
	free(tm.last);
	free(tm.rl);
	free(tm.rp);
	free(tm.bound);
}
