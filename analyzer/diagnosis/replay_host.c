/* SPDX-License-Identifier: MIT */
/*
 * replay_host.c - the host's times of the replayed steps from like
 * steps outside the GPU windows.
 *
 * Inside a GPU window CUPTI makes the host's CUDA calls slower (the
 * tracing cost line measures it per step), so a replay of window steps
 * sees a slower host than the run had, and a fix that overlaps host work
 * with the GPU gains less in it than it would.  Every call is
 * timestamped on every step, window or not: the steps just outside the
 * window (replay_collect.c reads their host calls) are built into items
 * the same way, and each step of the span is paired with the nearest
 * step outside whose items on the steps' thread are alike (the same
 * kinds in the same order: the same calls).  The paired step lends its
 * times item by item: the CPU time between calls, and the calls that do
 * not wait (a call that took longer outside than in the window waited
 * for something there: the window's is kept).  Where the paired steps
 * took no less time outside than in the window, CUPTI's cost is not seen
 * in them, and nothing is lent.  Waits and every GPU
 * operation keep the window's times: the GPU's are known only there.
 * The span's recorded time, which the unmodified replay is checked
 * against, becomes the paired steps' (span_with()).
 *
 * The paired steps lend their times only where no DataLoader is seen
 * (rp_collect.lend); elsewhere the pairing is reported, and the replay
 * keeps the window's host times.  Why: CUPTI's cost is then not the only
 * way a fix's run differs from the steps outside the window.  A
 * DataLoader's process also runs the pin-memory thread and the workers'
 * queue threads, which share its interpreter lock: in the suite's
 * loader-workers8 twin the training thread's short CPU stretches between
 * launches took 1.4 times those of loader-workers0's steps outside the
 * windows, about 4 ms a step the workers0 dump cannot show.  With the
 * window's times the replay of loader-workers0 comes within 0.10 of the
 * twin; with the outside times it predicts 0.63 against 0.48 measured
 * (test/t/908-h200-twins.t).  Until what the main process pays with
 * workers is measured, lending there would trade one known bias for a
 * larger one.
 */
#include <stdlib.h>
#include <string.h>

#include "analyzer/diagnosis/replay_internal.h"
#include "analyzer/lib/util.h"

/* A step's items on the steps' thread: [a, b), and what they are. */
struct hstep {
	size_t a, b;
	uint64_t t0, len;       /* recorded: start, time on the host */
	uint32_t key;           /* its items' kinds, hashed */
	uint32_t uses;          /* times lent */
	const struct rp_graph *g;
};

/* What an item is, as far as two like steps have the same. */
static uint32_t item_key(const struct rp_item *it)
{
	return (uint32_t)it->kind | (uint32_t)it->dir << 8 |
	       (uint32_t)(it->op != 0) << 16 |
	       (uint32_t)(it->flags & (RPF_PAGEABLE | RPF_READBACK)) << 17;
}

static uint32_t step_key(const struct rp_graph *g, size_t a, size_t b)
{
	uint32_t h = 2166136261u;

	for (size_t i = a; i < b; i++)
		h = (h ^ item_key(&g->items[i])) * 16777619u;
	return h;
}

/* g's steps (its steps' thread) into v; 0 when its items are not in
 * step order there. */
static int steps_of(const struct rp_graph *g, const uint64_t *bounds,
		    struct hstep *v)
{
	const struct rp_thread *t = g->nth ? &g->th[0] : NULL;
	size_t i = t ? t->first : 0, end = t ? t->first + t->n : 0;

	for (uint32_t k = 0; k < g->steps; k++) {
		v[k] = (struct hstep){ .a = i, .t0 = bounds[k], .g = g,
				       .len = bounds[k + 1] - bounds[k] };
		while (i < end && g->items[i].step == k)
			i++;
		v[k].b = i;
		v[k].key = step_key(g, v[k].a, i);
	}
	return i == end;
}

static int alike(const struct hstep *x, const struct hstep *y)
{
	if (x->key != y->key || x->b - x->a != y->b - y->a || x->a == x->b)
		return 0;
	for (size_t i = 0; i < x->b - x->a; i++)
		if (item_key(&x->g->items[x->a + i]) != item_key(&y->g->items[y->a + i]))
			return 0;
	return 1;
}

static uint64_t dist(uint64_t a, uint64_t b)
{
	return a > b ? a - b : b - a;
}

/* The nearest like step of o[0..n) used the fewest times; NULL none. */
static struct hstep *nearest(const struct hstep *s, struct hstep *o, size_t n)
{
	struct hstep *best = NULL;

	for (size_t i = 0; i < n; i++)
		if (alike(s, &o[i]) &&
		    (!best || o[i].uses < best->uses ||
		     (o[i].uses == best->uses &&
		      dist(o[i].t0, s->t0) < dist(best->t0, s->t0))))
			best = &o[i];
	return best;
}

/* Whether an item's own time is the host's alone: no wait in it. */
static int host_only(const struct rp_item *it)
{
	return it->wkind == RW_NONE && !(it->flags & (RPF_IMPLICIT | RPF_QUEUE));
}

/* Step s of w takes the host times of step o, item by item. */
static void lend_step(struct rp_graph *w, const struct hstep *s,
		      const struct hstep *o)
{
	for (size_t i = 0; i < s->b - s->a; i++) {
		struct rp_item *it = &w->items[s->a + i];
		const struct rp_item *from = &o->g->items[o->a + i];

		if (!host_only(it) || !host_only(from) ||
		    (it->kind != RK_CPU && from->own > it->own))
			continue;
		if (it->kind == RK_CPU)
			it->loader = it->own ? sat_from_double((double)it->loader *
							       (double)from->own /
							       (double)it->own) : 0;
		it->own = from->own;
	}
}

/* Each step of s[0..n) its nearest like step of o[0..no), into like[]
 * (NULL none); the paired steps' time: *in in the window, *out outside. */
static uint32_t pair_all(struct hstep *s, uint32_t n, struct hstep *o,
			 size_t no, struct hstep **like, uint64_t *in,
			 uint64_t *out)
{
	uint32_t paired = 0;

	*in = *out = 0;
	for (uint32_t i = 0; i < n; i++) {
		like[i] = nearest(&s[i], o, no);
		if (!like[i])
			continue;
		like[i]->uses++;
		*in += s[i].len;
		*out += like[i]->len;
		paired++;
	}
	return paired;
}

uint32_t replay_host_pair(struct rp_graph *w, const uint64_t *bounds,
			  const struct rp_steps *side, size_t n, int lend,
			  uint64_t *host_ns)
{
	struct hstep *s = xcalloc(w->steps + 1, sizeof(*s)), *o;
	struct hstep **like = xcalloc(w->steps + 1, sizeof(*like));
	size_t no = 0, total = 0;
	uint32_t paired = 0;
	uint64_t in, out;

	for (size_t k = 0; k < n; k++)
		total += side[k].g->steps;
	o = xcalloc(total + 1, sizeof(*o));
	*host_ns = bounds[w->steps] - bounds[0];
	for (size_t k = 0; k < n; k++)
		if (steps_of(side[k].g, side[k].bounds, &o[no]))
			no += side[k].g->steps;
	if (no && steps_of(w, bounds, s))
		paired = pair_all(s, w->steps, o, no, like, &in, &out);
	if (paired && out >= in)
		paired = 0;     /* no slower inside: no cost of CUPTI's to take
				   out */
	for (uint32_t i = 0; lend && paired && i < w->steps; i++)
		if (like[i])
			lend_step(w, &s[i], like[i]);
	if (paired)
		*host_ns = *host_ns - in + out;
	free(s);
	free(o);
	free(like);
	return paired;
}

/* The GPU's busy time in the span as recorded: its operations' union
 * (0 when none is timed by a GPU record). */
static uint64_t gpu_busy(const struct rp_builder *b)
{
	const struct rp_graph *g = b->g;
	struct sort_kv *v = xmalloc((g->nops + 1) * sizeof(*v));
	uint64_t busy = 0, end = 0;
	size_t n = 0;

	for (size_t o = 0; o < g->nops; o++)
		if (!b->est[o] && b->me[o] > b->ms[o])
			v[n++] = (struct sort_kv){ b->ms[o], o };
	sort_kv(v, n);
	for (size_t i = 0; i < n; i++) {
		uint64_t s = v[i].key > end ? v[i].key : end, e = b->me[v[i].val];

		busy += e > s ? e - s : 0;
		end = e > end ? e : end;
	}
	free(v);
	return busy;
}

/*
 * The span with the host's times of the paired steps.  Where the GPU ran
 * past the host's end by more than PACED_SHARE of the span, the host was
 * ahead and the GPU's end decided the span: it stays as recorded.  Else
 * its steps on the host are the paired steps' recorded time, and the
 * span that plus what the GPU ran past the host's end, at least the
 * GPU's busy time (the steps outside may be ones where the host ran
 * ahead of the GPU for a while).
 */
#define PACED_SHARE 0.05

static void span_with(struct rp_builder *b, uint64_t host_ns)
{
	struct rp_graph *g = b->g;
	uint64_t tail = g->measured - g->host_span, busy;

	g->host_window = g->host_span;
	g->host_outside = host_ns;
	if ((double)tail > PACED_SHARE * (double)g->host_span)
		return;
	busy = gpu_busy(b);
	g->measured = host_ns + tail > busy ? host_ns + tail : busy;
	g->host_span = host_ns;
}

void replay_host_outside(struct rp_builder *b)
{
	struct rp_collect *c = b->c;
	struct rp_graph og[2], *g = b->g;
	struct rp_steps side[2];
	size_t n = 0;
	uint64_t host_ns;

	g->window = c->gpu_window || span_cover(&b->d->windows, c->lo, c->hi) > 0;
	for (int i = 0; i < 2; i++) {
		if (!c->out[i])
			continue;
		replay_build(b->d, c->out[i], &og[n]);
		if (og[n].nth && g->nth && og[n].th[0].tid == g->th[0].tid)
			side[n] = (struct rp_steps){ &og[n], c->out[i]->bounds }, n++;
		else
			replay_release(&og[n]);
	}
	g->host_paired = n ? replay_host_pair(g, c->bounds, side, n,
					      c->lend, &host_ns) : 0;
	g->host_lent = g->host_paired && c->lend;
	if (g->host_lent)
		span_with(b, host_ns);
	else if (g->host_paired) {
		g->host_window = g->host_span;
		g->host_outside = host_ns;
	}
	for (size_t i = 0; i < n; i++)
		replay_release(&og[i]);
}
