/* SPDX-License-Identifier: MIT */
/*
 * replay_fix.c - one graph transformation per fix, each replayed:
 *
 *   syncs     waits on results (synchronize calls, small copies back to
 *             the host, waits outside CUDA) no longer wait, except in one
 *             step in RP_SYNC_KEEP and where a scalar's copy goes back up
 *             before the next wait (the launches after it read the
 *             value); waits right after an upload are the copies' fix
 *   pinned    copies of pageable memory run at the pinned bandwidth (the
 *             dump's own pinned host-to-device copies, else RP_PINNED_GBPS
 *             scaled to the PCIe link); uploads and the syncs right after them no
 *             longer wait; the call costs what a launch does
 *   graphs    a run of launches on a thread (no wait in it, CPU gaps
 *             under RP_FEED_GAP_NS) becomes one graph launch costing what
 *             the dump's graph launches cost (else RP_GRAPH_LAUNCH_NS);
 *             its CPU gaps go, its kernels follow each other
 *             RP_GRAPH_GAP_NS apart, the first once the launch returns
 *   workers   DataLoader workers (replay_supply.c)
 *   batch     a larger batch, or gradient accumulation merged
 *             (replay_batch.c)
 *   env       CUDA_LAUNCH_BLOCKING unset: a launch costs its host time
 *             without the wait (what the run's launches took less the
 *             kernel they waited for, at most RP_LAUNCH_NS, the low end
 *             all of it); another process on the GPU gone: kernels at
 *             their uncontended durations (replay_shared.c), latencies
 *             capped at their median
 *   precision bf16 autocast and channels_last: kernels as long as the
 *             dump's split of their time by precision gives
 *             (replay_precision.c)
 *
 * Each fix is replayed for its point and, where a quantity the dump does
 * not tell matters, for both ends of it: the band.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/diagnosis/diagnosis_internal.h"
#include "analyzer/diagnosis/replay_fix.h"
#include "analyzer/lib/util.h"

#define LAUNCH_COST_NS 5000     /* when the span has no plain launch */
#define READBACK_MAX (1u << 20) /* copies back this small: a sync */
#define DATA_READBACK 1024      /* copies back larger: data, not scalars */
#define SCALAR_BYTES 16         /* a copy up this small: a value read back
				   going back */

static const char *const fix_names[FIX_KINDS] = {
	"no_sync", "pinned_async", "cuda_graphs", "loader_workers",
	"larger_batch", "environment", "mixed_precision",
};

static const char *const fix_texts[FIX_KINDS] = {
	"no per-step syncs", "pinned memory, async copies",
	"CUDA graphs", "more DataLoader workers", "a larger batch (per sample)",
	"the environment fixed", "bf16 autocast + channels_last",
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

struct rp_graph *fix_writable(struct edit *ed)
{
	if (!ed->copied) {
		replay_copy(&ed->copy, ed->g);
		ed->g = &ed->copy;
		ed->copied = 1;
	}
	return &ed->copy;
}

struct rp_item *fix_item(struct edit *ed, size_t i)
{
	return &fix_writable(ed)->items[i];
}

void fix_assume(struct rp_fix_result *r, const char *fmt, ...)
{
	size_t n = strlen(r->assume);
	va_list ap;

	if (n && n + 2 < sizeof(r->assume))
		n += (size_t)snprintf(r->assume + n, sizeof(r->assume) - n, "; ");
	if (n >= sizeof(r->assume))
		return;
	va_start(ap, fmt);
	vsnprintf(r->assume + n, sizeof(r->assume) - n, fmt, ap);
	va_end(ap);
}

uint64_t *fix_data_per_step(const struct rp_graph *g)
{
	uint64_t *v = xcalloc(g->steps + 1, sizeof(*v));

	if (!g->nth)
		return v;
	for (size_t i = g->th[0].first; i < g->th[0].first + g->th[0].n; i++)
		if ((g->items[i].flags & RPF_DATA) && g->items[i].step < g->steps)
			v[g->items[i].step] += g->items[i].own;
	return v;
}

/* A wait the host makes on a result: a synchronize call (not the one
 * right after an upload: the copies' fix), a small copy back, or a wait
 * outside CUDA for the GPU's work (another thread's, or a poll). */
static int result_wait(const struct rp_item *it)
{
	return (it->kind == RK_SYNC && !(it->flags & RPF_UPLOAD)) ||
	       ((it->flags & RPF_READBACK) && it->bytes <= READBACK_MAX) ||
	       (it->flags & RPF_IMPLICIT);
}

/* Whether what the wait at item i read back may go back to the GPU
 * before the host's next wait: a copy up of a scalar's size.  Then the
 * launches after it depend on the value, and the wait stays. */
static int value_goes_back(const struct rp_graph *g, size_t i, size_t end)
{
	for (size_t j = i + 1; j < end && g->items[j].wkind == RW_NONE; j++)
		if (g->items[j].kind == RK_COPY && g->items[j].dir == GT_DIR_HTOD &&
		    g->items[j].bytes <= SCALAR_BYTES)
			return 1;
	return 0;
}

/* The end of the items of the thread item i belongs to. */
static size_t thread_end(const struct rp_graph *g, size_t i)
{
	for (size_t t = 0; t < g->nth; t++)
		if (i >= g->th[t].first && i < g->th[t].first + g->th[t].n)
			return g->th[t].first + g->th[t].n;
	return g->nitems;
}

/* A call that gives the GPU work: the end of the host's work on what
 * it read back. */
static int feeds_gpu(const struct rp_item *it)
{
	return it->kind == RK_LAUNCH || it->kind == RK_GRAPH || it->kind == RK_SET ||
	       it->kind == RK_NCCL || (it->kind == RK_COPY && it->dir != GT_DIR_DTOH);
}

/*
 * The host's work right after a readback of data (more than a few
 * scalars: predictions, a tensor to convert), up to its next call that
 * gives the GPU work (other readbacks between): it works on what was
 * read, and goes to the GPU with it (metrics kept on the GPU, read every
 * N steps).  How long it took in all.
 */
static uint64_t drop_consumer(struct edit *ed, size_t i, size_t end)
{
	uint64_t dropped = 0;

	if (!(ed->g->items[i].flags & RPF_READBACK) ||
	    ed->g->items[i].bytes <= DATA_READBACK)
		return 0;
	for (size_t j = i + 1; j < end && !feeds_gpu(&ed->g->items[j]); j++) {
		if (ed->g->items[j].kind != RK_CPU)
			continue;
		dropped += ed->g->items[j].own;
		fix_item(ed, j)->own = 0;
	}
	return dropped;
}

/* Waits on results no longer wait, but in one step of RP_SYNC_KEEP and
 * where the value goes back to the GPU: the host's work after them
 * overlaps the GPU work queued before.  After a readback of data, that
 * work goes with it (drop_consumer), but at the band's low end. */
static int fix_sync(struct edit *ed, enum rp_end band, struct rp_fix_result *r)
{
	int changed = 0, implicit = 0;
	uint64_t dropped = 0;
	size_t end = 0;

	r->k = RP_SYNC_KEEP;
	for (size_t i = 0; i < ed->g->nitems; i++) {
		const struct rp_item *it = &ed->g->items[i];

		end = i < end ? end : thread_end(ed->g, i);
		if (!result_wait(it) || it->wkind == RW_NONE ||
		    it->step % RP_SYNC_KEEP == 0 || value_goes_back(ed->g, i, end))
			continue;
		implicit |= it->flags & RPF_IMPLICIT;
		fix_item(ed, i)->wkind = RW_NONE;
		if (band != RP_LOW)
			dropped += drop_consumer(ed, i, end);
		changed = 1;
	}
	if (changed)
		fix_assume(r, "nothing launched before the next wait reads the "
			   "value read back (no copy of a scalar back up to the GPU "
			   "is seen)");
	if (dropped)
		fix_assume(r, "the host's work right after each readback of more "
			   "than %u bytes works on what it read and goes to the GPU "
			   "with it (the band's low end keeps it)", DATA_READBACK);
	if (implicit)
		fix_assume(r, "the host's time outside CUDA that ends as the GPU's "
			   "work does is a wait for it (another thread's, or a poll)");
	return changed;
}

/* A call's host cost down to a launch's (found when first needed). */
static void cap_own(struct edit *ed, size_t i, uint64_t *cost)
{
	struct rp_item *it;

	if (*cost == UINT64_MAX)
		*cost = launch_cost(ed->g);
	it = fix_item(ed, i);
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
			fix_writable(ed)->ops[it->op - 1].dur =
				sat_from_double((double)it->bytes / bw);
			cap_own(ed, i, &cost);
			changed = 1;
		}
		it = &ed->g->items[i];
		if ((upload && it->wkind != RW_NONE) ||
		    (it->kind == RK_SYNC && (it->flags & RPF_UPLOAD) &&
		     it->wkind != RW_NONE)) {
			fix_item(ed, i)->wkind = RW_NONE;
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
	g = fix_writable(ed);
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

/* CUDA_LAUNCH_BLOCKING unset: a launch that waited for its kernel costs
 * what it took less that kernel (its latency to the kernel's start and
 * its return after the end), at most a launch's calibrated host time
 * (RP_LAUNCH_NS): the rest was the GPU's latency, which a queue hides;
 * the low end keeps all of it. */
static int unblock(struct edit *ed, enum rp_end end, struct rp_fix_result *r)
{
	int changed = 0;

	for (size_t i = 0; i < ed->g->nitems; i++) {
		const struct rp_item *it = &ed->g->items[i];
		uint64_t lat = it->op ? ed->g->ops[it->op - 1].lat : 0, cost;
		struct rp_item *w;

		if (!(it->flags & RPF_BLOCKING) || it->wkind == RW_NONE)
			continue;
		cost = it->ret + lat;
		if (end != RP_LOW && cost > RP_LAUNCH_NS)
			cost = RP_LAUNCH_NS;
		w = fix_item(ed, i);
		w->wkind = RW_NONE;
		w->own = cost;
		changed = 1;
	}
	if (changed)
		fix_assume(r, "a launch then costs the host what it took less the "
			   "kernel it waited for, at most %.1f us (a launch's host "
			   "time on an H200); the low end all of it", RP_LAUNCH_NS / 1e3);
	return changed;
}

/* Latencies and gaps capped at their median: the other process's work
 * no longer delays the starts. */
static void cap_latencies(struct rp_graph *g)
{
	uint64_t *v = xmalloc(g->nops * sizeof(*v)), med;

	for (size_t i = 0; i < g->nops; i++)
		v[i] = g->ops[i].lat;
	med = select_u64(v, g->nops, (g->nops - 1) / 2);
	for (size_t i = 0; i < g->nops; i++) {
		g->ops[i].lat = g->ops[i].lat < med ? g->ops[i].lat : med;
		g->ops[i].gap = g->ops[i].gap < med ? g->ops[i].gap : med;
	}
	free(v);
}

static int fix_env(struct edit *ed, const struct rp_env *e, enum rp_end end,
		   struct rp_fix_result *r)
{
	int changed = 0;

	r->k = 1;
	if (e->launch_blocking)
		changed |= unblock(ed, end, r);
	if (e->other_share > 0.05 && ed->g->nops) {
		changed |= fix_unshared(ed, end, r);
		cap_latencies(fix_writable(ed));
		changed = 1;
	}
	return changed;
}

static int apply(struct edit *ed, const struct rp_env *e, enum rp_end end,
		 struct rp_fix_result *r)
{
	switch (r->fix) {
	case FIX_SYNC:
		r->cls = VC_COMM;
		return fix_sync(ed, end, r);
	case FIX_PINNED:
		r->cls = VC_MEMORY;
		return fix_pinned(ed, e, &r->k);
	case FIX_GRAPH:
		r->cls = VC_KERNEL;
		return fix_graph(ed, e, &r->k);
	case FIX_WORKERS:
		return fix_workers(ed, e, end, r);
	case FIX_BATCH:
		r->cls = VC_MEMORY;
		return fix_batch(ed, e, end, r);
	case FIX_ENV:
		r->cls = VC_ENV;
		return fix_env(ed, e, end, r);
	case FIX_PRECISION:
		r->cls = VC_KERNEL;
		return fix_precision(ed, e, end, r);
	default:
		return 0;
	}
}

/* The gain of one figure: the time per unit of work saved. */
static double gain_of(const struct rp_fix_result *r, uint64_t span,
		      uint64_t base)
{
	double per = r->per_sample && !r->accum && r->k > 0 ? r->k : 1;

	return base ? 1 - (double)span / per / (double)base : 0;
}

/* The band's end `end`: the fix again, with the point's choices (its
 * factor) kept; the gain it gives. */
static double band_end(const struct rp_graph *g, const struct rp_env *e,
		       const struct rp_fix_result *point, enum rp_end end,
		       uint64_t base)
{
	struct rp_fix_result r = { .fix = point->fix, .k = point->k,
				   .accum = point->accum };
	struct edit ed = { .g = g };
	double gain;

	if (!apply(&ed, e, end, &r))
		return point->gain;
	r.per_sample = point->per_sample;
	gain = gain_of(&r, replay_run(ed.g, NULL), base);
	if (ed.copied)
		replay_release(&ed.copy);
	return gain;
}

/* What each fix's band rests on, when a fix says nothing more. */
static const char *const unknowns[FIX_KINDS] = {
	[FIX_SYNC] = "whether the host's work after a readback of data works "
		     "on what it read (it goes to the GPU with the readback) or "
		     "not (it stays, and overlaps the GPU's work)",
	[FIX_BATCH] = "whether the host's work outside CUDA grows with the "
		      "batch, and the workers' pace, are not known",
	[FIX_ENV] = "a launch's host cost without the wait lies between a "
		    "launch's usual cost and all it took less its kernel; "
		    "kernels' time alone is estimated",
	[FIX_WORKERS] = "how the workers' pace scales is not known",
	[FIX_PRECISION] = "how near the tensor cores' peak the kernels run, and "
			  "what autocast's casts add, are not known",
};

static void band(const struct rp_graph *g, const struct rp_env *e,
		 struct rp_fix_result *r, uint64_t base)
{
	double lo = band_end(g, e, r, RP_LOW, base);
	double hi = band_end(g, e, r, RP_HIGH, base);

	r->gain_lo = fmin(r->gain, fmin(lo, hi));
	r->gain_hi = fmax(r->gain, fmax(lo, hi));
	if (r->gain_hi - r->gain_lo <= RP_WIDE_BAND)
		r->wide[0] = 0;
	else if (!r->wide[0])
		snprintf(r->wide, sizeof(r->wide), "%s", unknowns[r->fix] ?
			 unknowns[r->fix] : "what the fix changes is not known");
}

void replay_fix(const struct rp_graph *g, const struct rp_env *e,
		enum rp_fix fix, uint64_t base, struct rp_fix_result *r,
		struct rp_graph *out, struct rp_times *t)
{
	struct edit ed = { .g = g };

	memset(r, 0, sizeof(*r));
	r->fix = fix;
	r->applies = apply(&ed, e, RP_POINT, r);
	if (t)
		replay_times_alloc(ed.g, t);
	r->span = r->applies || t ? replay_run(ed.g, t) : base;
	if (r->applies && base) {
		r->gain = gain_of(r, r->span, base);
		band(g, e, r, base);
	}
	r->speedup = r->gain < 1 ? 1 / (1 - r->gain) : 0;
	if (out)
		*out = *fix_writable(&ed);
	else if (ed.copied)
		replay_release(&ed.copy);
}
