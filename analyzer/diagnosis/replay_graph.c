/* SPDX-License-Identifier: MIT */
/*
 * replay_graph.c - the dependency graph of the collected span (replay.h).
 *
 * Per host thread, its calls in order with the CPU segments between
 * them (a call made inside another, as NCCL launches its kernels, splits
 * the outer one).  Each launch, copy and memset queues one operation,
 * timed by the GPU records joined to it; without them the operation is
 * estimated from the host side: it runs from its launch until a wait for
 * it returns.  Waits are linked to what they wait for: a stream's last
 * operation (cuStreamSynchronize), every stream's (cuCtxSynchronize, and
 * event waits: events are not recorded), the copy itself (synchronous
 * and staged copies), the kernel itself under CUDA_LAUNCH_BLOCKING.
 * Going through the calls in the order they were made, each operation
 * gets its residual latency (how much later it started than its launch
 * and its stream allowed) and each wait the time from what it waited for
 * to its return, so that the graph replays to the recorded times.
 */
#include <stdlib.h>
#include <string.h>

#include "analyzer/diagnosis/replay_internal.h"
#include "analyzer/lib/util.h"



/* The earliest and the latest start of the n calls at ev. */
static void t0_range(const struct rp_ev *ev, size_t n, uint64_t *lo,
		     uint64_t *hi)
{
	*lo = UINT64_MAX;
	*hi = 0;
	for (size_t i = 0; i < n; i++) {
		*lo = ev[i].t0 < *lo ? ev[i].t0 : *lo;
		*hi = ev[i].t0 > *hi ? ev[i].t0 : *hi;
	}
}

static int by_tid_t0(const struct rp_ev *ev, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (ev[i].tid < ev[i - 1].tid ||
		    (ev[i].tid == ev[i - 1].tid && ev[i].t0 < ev[i - 1].t0))
			return 0;
	return 1;
}

/* Put ev[o[i].val] at i, in place (a second array of the calls would
 * take as much memory again); o[i].val becomes i. */
static void permute(struct rp_ev *ev, struct sort_kv *o, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct rp_ev x;
		size_t j = i;

		if (o[i].val == i)
			continue;
		x = ev[i];
		while (o[j].val != i) {
			size_t k = o[j].val;

			ev[j] = ev[k];
			o[j].val = j;
			j = k;
		}
		ev[j] = x;
		o[j].val = j;
	}
}

/* The calls by thread, then start, then as they came (a stable sort by
 * thread and start from the first; when the starts span more than 32
 * bits of ns, two passes: by start, then by thread); nothing to do when
 * they come so. */
static void sort_by_tid_t0(struct rp_ev *ev, size_t n)
{
	struct sort_kv *o;
	uint64_t lo, hi;

	if (by_tid_t0(ev, n))
		return;
	o = xmalloc((n + 1) * sizeof(*o));
	t0_range(ev, n, &lo, &hi);
	if (n && hi - lo <= UINT32_MAX) {
		for (size_t i = 0; i < n; i++)
			o[i] = (struct sort_kv){ (uint64_t)ev[i].tid << 32 |
						 (ev[i].t0 - lo), i };
	} else {
		for (size_t i = 0; i < n; i++)
			o[i] = (struct sort_kv){ ev[i].t0, i };
		sort_kv_runs(o, n);
		for (size_t i = 0; i < n; i++)
			o[i].key = ev[o[i].val].tid;
	}
	sort_kv_runs(o, n);
	permute(ev, o, n);
	free(o);
}

#define EST_STREAM (1ull << 40)

/* What a stream is called (replay.h): by its device and CUPTI id, or the
 * dump's id of a stream no GPU record timed. */
static uint64_t stream_name(struct rp_builder *b, uint64_t key)
{
	uintptr_t dev;

	if (key & EST_STREAM)
		return RP_STREAM_HOST | (key & ~EST_STREAM);
	dev = (uintptr_t)hmap_get_int(&b->stream_dev, key);
	return (uint64_t)(dev ? dev - 1 : 0) << 32 | (key & 0xffffffffu);
}

/* A stream's index; past RP_MAX_STREAMS they share the last one. */
static uint32_t stream_index(struct rp_builder *b, uint64_t key)
{
	uintptr_t i = (uintptr_t)hmap_get_int(&b->sidx, key);

	if (i)
		return (uint32_t)(i - 1);
	if (b->g->nstreams == RP_MAX_STREAMS)
		return RP_MAX_STREAMS - 1;
	if (b->g->nstreams == b->capstreams) {
		b->capstreams = b->capstreams ? 2 * b->capstreams : 8;
		b->backlog_abs = xrealloc(b->backlog_abs,
					  b->capstreams * sizeof(*b->backlog_abs));
		b->g->stream_name = xrealloc(b->g->stream_name, b->capstreams *
					     sizeof(*b->g->stream_name));
	}
	b->backlog_abs[b->g->nstreams] = 0;
	b->g->stream_name[b->g->nstreams] = stream_name(b, key);
	hmap_put_int(&b->sidx, key, (void *)(uintptr_t)(b->g->nstreams + 1));
	return (uint32_t)b->g->nstreams++;
}

static void join_gpu(struct rp_builder *b)
{
	struct rp_collect *c = b->c;
	struct hmap ids;

	if (!c->ngr)
		return;         /* no GPU records: no map of the calls */
	hmap_init(&ids);
	for (size_t i = 0; i < c->nev; i++)
		hmap_put_int(&ids, c->ev[i].id, (void *)(uintptr_t)(i + 1));
	for (size_t i = 0; i < c->ngr; i++)
		hmap_put_int(&b->stream_dev, c->gr[i].stream,
			     (void *)(uintptr_t)(c->gr[i].device + 1ull));
	for (size_t i = 0; i < c->ngr; i++) {
		const struct rp_grec *r = &c->gr[i];
		uintptr_t k = (uintptr_t)hmap_get_int(&ids, r->host_id);
		struct rp_ev *e = k ? &c->ev[k - 1] : NULL;
		uint32_t s;

		if (!e) {
			s = stream_index(b, r->stream);
			if (r->s < c->lo && r->e > b->backlog_abs[s])
				b->backlog_abs[s] = r->e;
			continue;
		}
		if (!e->gs || r->s < e->gs)
			e->gs = r->s;
		if (r->e > e->ge)
			e->ge = r->e;
		e->gstream = r->stream;
		e->fill = r->fill > e->fill ? r->fill : e->fill;
		e->shape = r->shape;
		e->opt = r->opt;
		hmap_put_int(&b->hmap_stream, e->hstream, (void *)(uintptr_t)(r->stream + 1ull));
	}
	hmap_release(&ids);
}

/* Items a span of calls makes at most: each call, the CPU time before it
 * or the rest of the call it is made in; each thread's last CPU time. */
#define ITEMS_FIRST(c) (2 * (c)->nev + RP_MAX_THREADS)

static struct rp_item *new_item(struct rp_builder *b, uint8_t kind, uint64_t t0,
				uint64_t t1, uint32_t step)
{
	struct rp_graph *g = b->g;
	struct rp_item *it;

	if (g->nitems == b->capitems) {
		b->capitems = b->capitems ? 2 * b->capitems : ITEMS_FIRST(b->c);
		g->items = xrealloc(g->items, b->capitems * sizeof(*g->items));
		b->mt0 = xrealloc(b->mt0, b->capitems * sizeof(*b->mt0));
		b->mt1 = xrealloc(b->mt1, b->capitems * sizeof(*b->mt1));
	}
	b->mt0[g->nitems] = t0;
	b->mt1[g->nitems] = t1 > t0 ? t1 : t0;
	it = &g->items[g->nitems++];
	memset(it, 0, sizeof(*it));
	it->kind = kind;
	it->step = step;
	it->own = t1 > t0 ? t1 - t0 : 0;
	return it;
}

static uint32_t step_of(const struct rp_collect *c, uint64_t t)
{
	uint32_t lo = 0, hi = c->nsteps;

	while (hi - lo > 1) {
		uint32_t mid = (lo + hi) / 2;

		if (c->bounds[mid] <= t)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* The step of an item that starts at t: most often the last one's. */
static uint32_t item_step(struct rp_builder *b, uint64_t t)
{
	const struct rp_collect *c = b->c;
	uint32_t h = b->step_hint;

	if (h < c->nsteps && (!h || c->bounds[h] <= t) &&
	    (h + 1 >= c->nsteps || t < c->bounds[h + 1]))
		return h;
	return b->step_hint = step_of(c, t);
}

static uint8_t kind_of(const struct rp_ev *e)
{
	switch (e->kind) {
	case GT_KIND_LAUNCH: return RK_LAUNCH;
	case GT_KIND_GRAPH: return RK_GRAPH;
	case GT_KIND_COPY: return RK_COPY;
	case GT_KIND_SET: return RK_SET;
	case GT_KIND_SYNC: return RK_SYNC;
	case GT_KIND_NCCL: return RK_NCCL;
	default: return RK_OTHER;
	}
}

static void new_op(struct rp_builder *b, struct rp_item *it, const struct rp_ev *e)
{
	struct rp_graph *g = b->g;
	struct rp_op *op;
	int joined = e->gs && e->ge >= e->gs;

	if (g->nops == b->capops) {
		b->capops = b->capops ? 2 * b->capops : b->c->nev + 1;
		g->ops = xrealloc(g->ops, b->capops * sizeof(*g->ops));
		b->ms = xrealloc(b->ms, b->capops * sizeof(*b->ms));
		b->me = xrealloc(b->me, b->capops * sizeof(*b->me));
		b->est = xrealloc(b->est, b->capops * sizeof(*b->est));
	}
	op = &g->ops[g->nops];
	memset(op, 0, sizeof(*op));
	op->item = (uint32_t)(it - g->items);
	op->kind = it->kind == RK_COPY ? RO_COPY : it->kind == RK_SET ? RO_SET :
		   it->kind == RK_GRAPH ? RO_GRAPH : RO_KERNEL;
	op->fill = e->fill;
	op->shape = e->shape;
	op->opt = e->opt;
	op->stream = stream_index(b, joined ? e->gstream : EST_STREAM | e->hstream);
	b->ms[g->nops] = joined ? e->gs : 0;
	b->me[g->nops] = joined ? e->ge : 0;
	b->est[g->nops] = !joined;
	it->op = (uint32_t)++g->nops;
}

/* A synchronize call: its stream's last op, or every stream's (events
 * are not recorded, the NULL stream waits for all). */
static void sync_wait(struct rp_builder *b, struct rp_item *it,
		      const struct rp_ev *e, uint8_t prev_dir)
{
	uintptr_t cs = (uintptr_t)hmap_get_int(&b->hmap_stream, e->hstream);

	if (e->flags & RE_QUERY)
		return;
	it->flags |= prev_dir == GT_DIR_HTOD ? RPF_UPLOAD : 0;
	it->wkind = RW_ALL;
	if ((e->flags & (RE_CTX | RE_EVENT)) || !e->hstream)
		return;
	if (cs || hmap_get_int(&b->sidx, EST_STREAM | e->hstream)) {
		it->wkind = RW_STREAM;
		it->wait = stream_index(b, cs ? cs - 1 : EST_STREAM | e->hstream);
	}
}

/* How a call waits: set on the item from what it is. */
static void call_wait(struct rp_builder *b, struct rp_item *it,
		      const struct rp_ev *e, uint8_t prev_dir)
{
	switch (it->kind) {
	case RK_LAUNCH:
	case RK_SET:
		if (b->d->env.launch_blocking) {
			it->wkind = RW_OP;
			it->flags |= RPF_BLOCKING;
		}
		break;
	case RK_COPY:
		if (e->mem == GT_MEM_PAGEABLE)
			it->flags |= RPF_PAGEABLE;
		if ((e->flags & RE_ASYNC) && e->mem != GT_MEM_PAGEABLE) {
			if (!b->d->env.launch_blocking)
				break;
			it->flags |= RPF_BLOCKING;
		}
		it->wkind = RW_OP;
		if (e->dir == GT_DIR_DTOH)
			it->flags |= RPF_READBACK;
		break;
	case RK_SYNC:
		sync_wait(b, it, e, prev_dir);
		break;
	default:
		break;
	}
}

static void add_call(struct rp_builder *b, const struct rp_ev *e, uint8_t prev_dir)
{
	struct rp_item *it = new_item(b, kind_of(e), e->t0, e->t1,
				      item_step(b, e->t0));

	it->bytes = e->bytes;
	it->dir = e->dir;
	if (it->kind == RK_LAUNCH || it->kind == RK_GRAPH || it->kind == RK_COPY ||
	    it->kind == RK_SET)
		new_op(b, it, e);
	call_wait(b, it, e, prev_dir);
	if (it->wkind == RW_OP)
		it->wait = it->op - 1;
}

static void add_cpu(struct rp_builder *b, uint64_t t0, uint64_t t1)
{
	if (t1 > t0)
		new_item(b, RK_CPU, t0, t1, item_step(b, t0));
}

/* A call made inside the one before: the outer call ends where it
 * starts and goes on after it. */
static void nested(struct rp_builder *b, const struct rp_ev *e, uint8_t prev_dir,
		   uint64_t outer_end, uint8_t outer_kind)
{
	struct rp_graph *g = b->g;
	size_t last = g->nitems - 1;

	b->mt1[last] = e->t0 > b->mt0[last] ? e->t0 : b->mt0[last];
	g->items[last].own = b->mt1[last] - b->mt0[last];
	add_call(b, e, prev_dir);
	if (outer_end > e->t1)
		new_item(b, outer_kind, e->t1, outer_end, item_step(b, e->t1));
}

static size_t add_thread(struct rp_builder *b, size_t i, int main_thread)
{
	struct rp_collect *c = b->c;
	struct rp_thread *t = &b->g->th[b->g->nth++];
	uint64_t end = main_thread ? c->lo : c->ev[i].t0;
	uint8_t prev_dir = 0, kind = 0;

	t->tid = c->ev[i].tid;
	t->first = b->g->nitems;
	for (; i < c->nev && c->ev[i].tid == t->tid; i++) {
		const struct rp_ev *e = &c->ev[i];

		if (e->t0 < end && b->g->nitems > t->first &&
		    b->g->items[b->g->nitems - 1].kind != RK_CPU) {
			nested(b, e, prev_dir, end, kind);
			end = end > e->t1 ? end : e->t1;
		} else {
			add_cpu(b, end, e->t0);
			add_call(b, e, prev_dir);
			end = e->t1 > e->t0 ? e->t1 : e->t0;
			kind = kind_of(e);
		}
		prev_dir = e->kind == GT_KIND_COPY ? e->dir : prev_dir;
	}
	if (main_thread)
		add_cpu(b, end, c->hi);
	t->n = b->g->nitems - t->first;
	t->start = t->n ? b->mt0[t->first] - c->lo : 0;
	return i;
}

static int feeds_gpu(const struct rp_ev *e)
{
	return e->kind == GT_KIND_LAUNCH || e->kind == GT_KIND_COPY ||
	       e->kind == GT_KIND_SET || e->kind == GT_KIND_GRAPH ||
	       e->kind == GT_KIND_SYNC;
}

static int at_boundary(const struct rp_collect *c, uint64_t t)
{
	return t >= c->lo && t < c->hi && c->bounds[step_of(c, t)] == t;
}

/* The thread whose calls start the steps, else the one with the most
 * calls that feed or wait for the GPU (events sorted by thread). */
static uint32_t main_tid(const struct rp_collect *c)
{
	uint32_t best = c->ev[0].tid;
	size_t most = 0, n = 0;

	for (int pass = 0; pass < 2 && !most; pass++)
		for (size_t i = 0; i < c->nev; i++) {
			if (i && c->ev[i].tid != c->ev[i - 1].tid)
				n = 0;
			n += pass ? feeds_gpu(&c->ev[i]) : at_boundary(c, c->ev[i].t0);
			if (n > most) {
				most = n;
				best = c->ev[i].tid;
			}
		}
	return best;
}

/*
 * The threads that feed or wait for the GPU hand work to each other (a
 * framework's backward pass runs on its own thread while the caller
 * waits for it): they become one line of calls, the steps' thread.
 */
static void merge_feeders(struct rp_collect *c, uint32_t tid)
{
	struct hmap feeders;
	size_t last = SIZE_MAX;     /* the calls come by thread: put each once */

	hmap_init(&feeders);
	for (size_t i = 0; i < c->nev; i++)
		if (feeds_gpu(&c->ev[i]) &&
		    (last == SIZE_MAX || c->ev[i].tid != c->ev[last].tid))
			hmap_put_int(&feeders, c->ev[last = i].tid, (void *)1);
	for (size_t i = 0; i < c->nev; i++)
		if (hmap_get_int(&feeders, c->ev[i].tid))
			c->ev[i].tid = tid;
	hmap_release(&feeders);
	sort_by_tid_t0(c->ev, c->nev);
}

/* The steps' thread first, then up to RP_MAX_THREADS - 1 others (their
 * calls neither feed nor wait for the GPU: they are drawn, no more). */
static void add_threads(struct rp_builder *b)
{
	struct rp_collect *c = b->c;
	uint32_t tid = main_tid(c);

	merge_feeders(c, tid);
	b->g->th = xcalloc(RP_MAX_THREADS, sizeof(*b->g->th));
	for (size_t i = 0; i < c->nev; i++)
		if (c->ev[i].tid == tid && (!i || c->ev[i - 1].tid != tid)) {
			add_thread(b, i, 1);
			break;
		}
	for (size_t i = 0; i < c->nev;) {
		if (c->ev[i].tid != tid && b->g->nth < RP_MAX_THREADS) {
			i = add_thread(b, i, 0);
			continue;
		}
		for (uint32_t t = c->ev[i].tid; i < c->nev && c->ev[i].tid == t;)
			i++;
	}
}

void replay_build(const struct diagnosis *d, struct rp_collect *c,
		  struct rp_graph *g)
{
	struct rp_builder b = { .d = d, .c = c, .g = g };

	memset(g, 0, sizeof(*g));
	hmap_init(&b.sidx);
	hmap_init(&b.hmap_stream);
	hmap_init(&b.stream_dev);
	sort_by_tid_t0(c->ev, c->nev);
	join_gpu(&b);
	add_threads(&b);
	g->steps = c->nsteps;
	g->host_span = g->measured = c->hi - c->lo;
	replay_timing(&b);
	hmap_release(&b.sidx);
	hmap_release(&b.hmap_stream);
	hmap_release(&b.stream_dev);
	free(b.mt0);
	free(b.mt1);
	free(b.ms);
	free(b.me);
	free(b.est);
	free(b.backlog_abs);
}
