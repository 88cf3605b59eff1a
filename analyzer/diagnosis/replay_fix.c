/* SPDX-License-Identifier: MIT */
/*
 * replay_fix.c - one graph transformation per fix, each replayed:
 *
 *   syncs     waits (synchronize calls, small copies back to the host)
 *             no longer wait, except in one step in RP_SYNC_KEEP; waits
 *             right after an upload are the copies' fix
 *   pinned    copies of pageable memory run at the pinned bandwidth (the
 *             dump's own pinned host-to-device copies, else RP_PINNED_GBPS
 *             scaled to the PCIe link); uploads and the syncs right after them no
 *             longer wait; the call costs what a launch does
 *   graphs    a run of launches on a thread (no wait in it, CPU gaps
 *             under RP_FEED_GAP_NS) becomes one graph launch costing what
 *             the dump's graph launches cost (else RP_GRAPH_LAUNCH_NS);
 *             its CPU gaps go, its kernels follow each other
 *             RP_GRAPH_GAP_NS apart, the first once the launch returns
 *   workers   time waiting on data (the samples' share of DataLoader
 *             workers and I/O; without workers, each step's batch fetch
 *             in the main thread) divided by k workers, k up to the cores
 *             the process may use less one, at most RP_MAX_WORKERS; when
 *             the CPU is saturated it is CPU preprocessing: halved
 *   batch     where the rules see a small batch (kernels filling few
 *             SMs, or the optimizer's large share: verdict_batch), batch
 *             x k, compared per sample: each kernel takes max(1, k x fill)
 *             times as long (fill: the share of the GPU's thread slots
 *             its grid asks for), copies k times; host time stays; k the
 *             power of two with the shortest time per sample, at most
 *             RP_MAX_BATCH and what the GPU memory allows
 *   env       CUDA_LAUNCH_BLOCKING unset: launches return at once; another
 *             process on the GPU gone: latencies capped at their median
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/diagnosis/diagnosis_internal.h"
#include "analyzer/diagnosis/replay.h"
#include "analyzer/lib/util.h"

#define LAUNCH_COST_NS 5000     /* when the span has no plain launch */
#define READBACK_MAX (1u << 20) /* copies back this small: a sync */

static const char *const fix_names[FIX_KINDS] = {
	"no_sync", "pinned_async", "cuda_graphs", "loader_workers",
	"larger_batch", "environment",
};

static const char *const fix_texts[FIX_KINDS] = {
	"no per-step syncs", "pinned memory, async copies",
	"CUDA graphs", "more DataLoader workers", "a larger batch (per sample)",
	"the environment fixed",
};

const char *replay_fix_name(enum rp_fix fix)
{
	return fix < FIX_KINDS ? fix_names[fix] : "?";
}

const char *replay_fix_text(const struct rp_fix_result *r)
{
	if (r->fix == FIX_WORKERS && r->cls == VC_CPU)
		return "half the CPU preprocessing";
	return r->fix < FIX_KINDS ? fix_texts[r->fix] : "?";
}

/* The median host cost of a launch that does not wait. */
static uint64_t launch_cost(const struct rp_graph *g)
{
	uint64_t *v = xmalloc((g->nitems + 1) * sizeof(*v)), r;
	size_t n = 0;

	for (size_t i = 0; i < g->nitems; i++)
		if (g->items[i].kind == RK_LAUNCH && g->items[i].wkind == RW_NONE)
			v[n++] = g->items[i].own;
	r = n ? select_u64(v, n, n / 2) : LAUNCH_COST_NS;
	free(v);
	return r;
}

/*
 * The graph a fix reads and changes: the one given until the fix first
 * changes something, then a copy of it (a fix that changes nothing costs
 * no copy).
 */
struct edit {
	const struct rp_graph *g;
	struct rp_graph copy;
	int copied;
};

static struct rp_graph *writable(struct edit *ed)
{
	if (!ed->copied) {
		replay_copy(&ed->copy, ed->g);
		ed->g = &ed->copy;
		ed->copied = 1;
	}
	return &ed->copy;
}

static struct rp_item *edit_item(struct edit *ed, size_t i)
{
	return &writable(ed)->items[i];
}

static int fix_sync(struct edit *ed, double *k)
{
	int changed = 0;

	*k = RP_SYNC_KEEP;
	for (size_t i = 0; i < ed->g->nitems; i++) {
		const struct rp_item *it = &ed->g->items[i];
		int wait = (it->kind == RK_SYNC && !(it->flags & RPF_UPLOAD)) ||
			   ((it->flags & RPF_READBACK) && it->bytes <= READBACK_MAX);

		if (!wait || it->wkind == RW_NONE || it->step % RP_SYNC_KEEP == 0)
			continue;
		edit_item(ed, i)->wkind = RW_NONE;
		changed = 1;
	}
	return changed;
}

/* A call's host cost down to a launch's (found when first needed). */
static void cap_own(struct edit *ed, size_t i, uint64_t *cost)
{
	struct rp_item *it;

	if (*cost == UINT64_MAX)
		*cost = launch_cost(ed->g);
	it = edit_item(ed, i);
	it->own = it->own < *cost ? it->own : *cost;
}

static int fix_pinned(struct edit *ed, const struct rp_env *e, double *k)
{
	double bw = e->pinned_gbps > 0 ? e->pinned_gbps : RP_PINNED_GBPS;
	uint64_t cost = UINT64_MAX;
	int changed = 0;

	*k = bw;
	for (size_t i = 0; i < ed->g->nitems; i++) {
		const struct rp_item *it = &ed->g->items[i];
		int upload = it->kind == RK_COPY && it->dir == GT_DIR_HTOD;

		if (it->kind == RK_COPY && (it->flags & RPF_PAGEABLE) && it->op) {
			writable(ed)->ops[it->op - 1].dur =
				sat_from_double((double)it->bytes / bw);
			cap_own(ed, i, &cost);
			changed = 1;
		}
		it = &ed->g->items[i];
		if ((upload && it->wkind != RW_NONE) ||
		    (it->kind == RK_SYNC && (it->flags & RPF_UPLOAD) &&
		     it->wkind != RW_NONE)) {
			edit_item(ed, i)->wkind = RW_NONE;
			cap_own(ed, i, &cost);
			changed = 1;
		}
	}
	return changed;
}

static int feeds(const struct rp_item *it)
{
	return (it->kind == RK_LAUNCH || it->kind == RK_SET ||
		(it->kind == RK_COPY && !(it->flags & RPF_PAGEABLE))) &&
	       it->wkind == RW_NONE && it->op;
}

static void graph_node(struct rp_graph *g, struct rp_item *it, uint64_t own,
		       uint64_t lat)
{
	struct rp_op *op = &g->ops[it->op - 1];

	it->own = own;
	op->lat = lat;
	op->gap = RP_GRAPH_GAP_NS;
}

/* Items [a, b] become one graph launch if that costs the host less. */
static int make_graph(struct edit *ed, size_t a, size_t b, uint64_t cost)
{
	uint64_t host = 0;
	size_t launches = 0;
	struct rp_graph *g;

	for (size_t i = a; i <= b; i++) {
		host += ed->g->items[i].own;
		launches += ed->g->items[i].kind != RK_CPU;
	}
	if (launches < 2 || host <= cost)
		return 0;
	g = writable(ed);
	for (size_t i = a; i <= b; i++) {
		if (g->items[i].kind == RK_CPU)
			g->items[i].own = 0;
		else
			graph_node(g, &g->items[i], i == a ? cost : 0, cost);
	}
	return 1;
}

/* Items [first, first + n) of one thread: runs of launches (no waits,
 * short CPU gaps) become graphs. */
static int graph_thread(struct edit *ed, size_t first, size_t n, uint64_t cost)
{
	size_t run = SIZE_MAX, last = SIZE_MAX;
	int changed = 0;

	for (size_t i = first; i <= first + n; i++) {
		const struct rp_item *it = i < first + n ? &ed->g->items[i] : NULL;

		if (it && it->kind == RK_CPU && it->own < RP_FEED_GAP_NS)
			continue;
		if (it && feeds(it)) {
			run = run == SIZE_MAX ? i : run;
			last = i;
			continue;
		}
		if (run != SIZE_MAX)
			changed |= make_graph(ed, run, last, cost);
		run = SIZE_MAX;
	}
	return changed;
}

static int fix_graph(struct edit *ed, const struct rp_env *e, double *k)
{
	uint64_t cost = e->graph_launch_ns ? e->graph_launch_ns : RP_GRAPH_LAUNCH_NS;
	int changed = 0;

	*k = (double)cost;
	for (size_t t = 0; t < ed->g->nth; t++)
		changed |= graph_thread(ed, ed->g->th[t].first, ed->g->th[t].n,
					cost);
	return changed;
}

static int fix_workers(struct edit *ed, const struct rp_env *e, double *k,
		       int *cls)
{
	int changed = 0;

	*cls = e->saturated ? VC_CPU : VC_DATA;
	*k = e->saturated ? 2 : e->cores - 1;
	*k = *k > RP_MAX_WORKERS ? RP_MAX_WORKERS : *k < 1 ? 1 : (int)*k;
	if (*k < 2)
		return 0;
	for (size_t i = 0; i < ed->g->nitems; i++) {
		const struct rp_item *it = &ed->g->items[i];
		uint64_t part = e->workers ? it->loader :
				(it->flags & RPF_DATA) ? it->own : 0;

		if (it->kind != RK_CPU || !part || part > it->own)
			continue;
		edit_item(ed, i)->own -= part - sat_from_double((double)part / *k);
		changed = 1;
	}
	return changed;
}

/* Batch x k: kernels take max(1, k x fill) times as long (all of k when
 * their fill is unknown), copies k times, memsets and host time stay. */
static void scale_batch(struct rp_graph *g, double k)
{
	for (size_t i = 0; i < g->nops; i++) {
		struct rp_op *op = &g->ops[i];
		double f = op->kind == RO_KERNEL && op->fill > 0 ? k * op->fill :
			   op->kind == RO_SET ? 1 : k;

		op->dur = sat_from_double((double)op->dur * (f > 1 ? f : 1));
	}
}

/* Where the rules see a small batch: the power of two that replays to
 * the shortest time per sample (the first within 2% of it). */
static int fix_batch(struct edit *ed, const struct rp_env *e, double *k)
{
	double cap = RP_MAX_BATCH, best = 0, per[16];
	int n = 0;

	*k = 1;
	if (e->small_batch < RP_SMALL_BATCH)
		return 0;
	if (e->mem_headroom > 0 && e->mem_headroom < cap)
		cap = e->mem_headroom;
	for (double x = 2; x <= cap && n < 16; x *= 2, n++) {
		struct rp_graph h;

		replay_copy(&h, ed->g);
		scale_batch(&h, x);
		per[n] = (double)replay_run(&h, NULL) / x;
		replay_release(&h);
		best = !n || per[n] < best ? per[n] : best;
	}
	for (int i = 0; i < n && *k == 1; i++)
		if (per[i] <= 1.02 * best)
			*k = ldexp(1.0, i + 1);
	if (*k < 2)
		return 0;
	scale_batch(writable(ed), *k);
	return 1;
}

static int fix_env(struct edit *ed, const struct rp_env *e, double *k)
{
	int changed = 0;

	*k = 1;
	for (size_t i = 0; e->launch_blocking && i < ed->g->nitems; i++) {
		const struct rp_item *it = &ed->g->items[i];
		uint64_t lat = it->op ? ed->g->ops[it->op - 1].lat : 0;

		struct rp_item *w;

		if (!(it->flags & RPF_BLOCKING) || it->wkind == RW_NONE)
			continue;
		w = edit_item(ed, i);
		w->wkind = RW_NONE;
		w->own = w->ret + lat;
		changed = 1;
	}
	if (e->other_share > 0.05 && ed->g->nops) {
		struct rp_graph *g = writable(ed);
		uint64_t *v = xmalloc(g->nops * sizeof(*v)), med;

		for (size_t i = 0; i < g->nops; i++)
			v[i] = g->ops[i].lat;
		med = select_u64(v, g->nops, (g->nops - 1) / 2);
		for (size_t i = 0; i < g->nops; i++) {
			g->ops[i].lat = g->ops[i].lat < med ? g->ops[i].lat : med;
			g->ops[i].gap = g->ops[i].gap < med ? g->ops[i].gap : med;
		}
		free(v);
		changed = 1;
	}
	return changed;
}

static int apply(struct edit *ed, const struct rp_env *e,
		 struct rp_fix_result *r)
{
	switch (r->fix) {
	case FIX_SYNC:
		r->cls = VC_COMM;
		return fix_sync(ed, &r->k);
	case FIX_PINNED:
		r->cls = VC_MEMORY;
		return fix_pinned(ed, e, &r->k);
	case FIX_GRAPH:
		r->cls = VC_KERNEL;
		return fix_graph(ed, e, &r->k);
	case FIX_WORKERS:
		return fix_workers(ed, e, &r->k, &r->cls);
	case FIX_BATCH:
		r->cls = VC_MEMORY;
		return fix_batch(ed, e, &r->k);
	case FIX_ENV:
		r->cls = VC_ENV;
		return fix_env(ed, e, &r->k);
	default:
		return 0;
	}
}

void replay_fix(const struct rp_graph *g, const struct rp_env *e,
		enum rp_fix fix, uint64_t base, struct rp_fix_result *r,
		struct rp_graph *out, struct rp_times *t)
{
	struct edit ed = { .g = g };
	double per = 1;

	memset(r, 0, sizeof(*r));
	r->fix = fix;
	r->applies = apply(&ed, e, r);
	if (fix == FIX_BATCH && r->applies)
		per = r->k;
	if (t)
		replay_times_alloc(ed.g, t);
	r->span = r->applies || t ? replay_run(ed.g, t) : base;
	if (r->applies && base)
		r->gain = 1 - (double)r->span / per / (double)base;
	if (out)
		*out = *writable(&ed);
	else if (ed.copied)
		replay_release(&ed.copy);
}
