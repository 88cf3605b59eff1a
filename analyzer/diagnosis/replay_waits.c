/* SPDX-License-Identifier: MIT */
/*
 * replay_waits.c - waits of the host that no call says it made, found
 * from the recorded times, so that a fix that shortens the GPU's work
 * shortens them too:
 *
 *   outside CUDA  time outside CUDA in the steps' thread that ends as
 *                 the GPU's queued work does (another thread waited for
 *                 it and woke this one, or a query polled: JAX reading a
 *                 result), in most steps, the process off the CPU
 *                 meanwhile: a wait for that work (RPF_IMPLICIT)
 *   full queue    a launch, memset or async copy that took
 *                 DIAG_BLOCKED_NS or more and returned just after an
 *                 operation queued before it ended: it waited for room in
 *                 the full queue (RPF_QUEUE); it costs what the others
 *                 take, and waits for that operation
 */
#include <stdlib.h>

#include "analyzer/diagnosis/replay_internal.h"
#include "analyzer/lib/util.h"

#define IMPLICIT_SLACK_NS 2000000 /* host time outside CUDA that ends this
				   soon after the GPU's queued work (a
				   thread woken)... */
#define IMPLICIT_MIN_NS 100000  /* ...which it spent this long waiting
				   for (and 4 times the slack) */
#define IMPLICIT_STEPS 0.5      /* ...in this share of the steps... */
#define IMPLICIT_CPU 0.25       /* ...with the process on the CPU for at
				   most this share of the wait: a wait */
#define QUEUE_SLACK_NS 100000   /* a blocked call returned this soon after
				   an operation ended: room in the queue */

/* Whether CPU item i, in the steps' thread, waited for op: it began
 * while op ran and ended just after it did. */
static int waited_for(const struct rp_builder *b, size_t i, uint64_t end)
{
	uint64_t t0 = b->mt0[i], t1 = b->mt1[i];

	return end > t0 && end <= t1 && t1 - end <= IMPLICIT_SLACK_NS &&
	       end - t0 >= IMPLICIT_MIN_NS && end - t0 >= 4 * (t1 - end);
}

/* Per CPU item of the steps' thread, the op it may have waited for + 1
 * (the last to end of those queued before it), 0 none. */
static uint32_t *implicit_candidates(struct rp_builder *b, size_t *steps)
{
	struct rp_graph *g = b->g;
	const struct rp_thread *t = &g->th[0];
	uint32_t *w = xcalloc(t->n + 1, sizeof(*w)), last_step = UINT32_MAX;
	long q = -1;            /* the queued op that ends last */

	*steps = 0;
	for (size_t k = 0; k < t->n; k++) {
		size_t i = t->first + k;
		const struct rp_item *it = &g->items[i];

		if (it->kind == RK_CPU && q >= 0 && waited_for(b, i, b->me[q])) {
			w[k] = (uint32_t)q + 1;
			*steps += it->step != last_step;
			last_step = it->step;
		}
		if (it->op && !b->est[it->op - 1] &&
		    (q < 0 || b->me[it->op - 1] > b->me[q]))
			q = it->op - 1;
	}
	return w;
}

/*
 * Whether the samples say the host was off the CPU while the candidates
 * waited: of the steps' thread's time outside CUDA in the steps that have
 * one, the process's CPU time (the samples' share) leaves the candidates'
 * waits at most IMPLICIT_CPU on the CPU.  No samples: not known, no.
 */
static int off_cpu(const struct rp_builder *b, const uint32_t *w)
{
	const struct rp_graph *g = b->g;
	const struct rp_thread *t = &g->th[0];
	double outside = 0, cpu = 0, wait = 0;

	for (size_t k = 0; k < t->n; k++) {
		size_t i = t->first + k;
		const struct outside_split *sp;

		if (g->items[i].kind != RK_CPU)
			continue;
		sp = idle_outside_at(b->d, (b->mt0[i] + b->mt1[i]) / 2);
		if (!sp)
			return 0;
		outside += (double)(b->mt1[i] - b->mt0[i]);
		cpu += sp->cpu * (double)(b->mt1[i] - b->mt0[i]);
		if (w[k])
			wait += (double)(b->me[w[k] - 1] - b->mt0[i]);
	}
	return cpu <= outside - wait + IMPLICIT_CPU * wait;
}

/*
 * Waits the host made outside CUDA: time outside CUDA in the steps'
 * thread that ends as the GPU's queued work does (another thread waited
 * for it and woke this one, or a query polled), in most steps, the
 * process off the CPU meanwhile: a wait for that work (RPF_IMPLICIT),
 * which returned so long after it.
 */
static void implicit_waits(struct rp_builder *b)
{
	struct rp_graph *g = b->g;
	size_t steps;
	uint32_t *w = implicit_candidates(b, &steps);

	if (g->steps && steps >= IMPLICIT_STEPS * g->steps && off_cpu(b, w))
		for (size_t k = 0; k < g->th[0].n; k++) {
			struct rp_item *it = &g->items[g->th[0].first + k];

			if (!w[k])
				continue;
			it->flags |= RPF_IMPLICIT;
			it->wkind = RW_OP;
			it->wait = w[k] - 1;
			it->own = it->ret = b->mt1[g->th[0].first + k] - b->me[w[k] - 1];
		}
	free(w);
}

/* Ops timed by GPU records, by when they end. */
static struct sort_kv *ops_by_end(const struct rp_builder *b, size_t *n)
{
	struct sort_kv *v = xmalloc((b->g->nops + 1) * sizeof(*v));

	*n = 0;
	for (size_t o = 0; o < b->g->nops; o++)
		if (!b->est[o])
			v[(*n)++] = (struct sort_kv){ b->me[o], o };
	sort_kv(v, *n);
	return v;
}

static int queues(const struct rp_item *it)
{
	return (it->kind == RK_LAUNCH || it->kind == RK_SET ||
		it->kind == RK_GRAPH || it->kind == RK_COPY) &&
	       it->wkind == RW_NONE && it->op;
}

/* The median host time of the calls that queue work without blocking. */
static uint64_t usual_cost(const struct rp_graph *g)
{
	uint64_t *v = xmalloc((g->nitems + 1) * sizeof(*v)), r;
	size_t n = 0;

	for (size_t i = 0; i < g->nitems; i++)
		if (queues(&g->items[i]) && g->items[i].own < DIAG_BLOCKED_NS)
			v[n++] = g->items[i].own;
	r = n ? select_u64(v, n, n / 2) : 0;
	free(v);
	return r;
}

/* The op queued before item i that ended last before it returned, if
 * just before: -1 none. */
static long freed_by(const struct rp_builder *b, const struct sort_kv *v,
		     size_t n, size_t i)
{
	size_t lo = 0, hi = n;
	uint32_t own_op = b->g->items[i].op - 1;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (v[mid].key <= b->mt1[i])
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t k = lo; k-- > 0 && v[k].key >= b->mt0[i] &&
	     b->mt1[i] - v[k].key <= QUEUE_SLACK_NS;)
		if (v[k].val < own_op)
			return (long)v[k].val;
	return -1;
}

static void queue_waits(struct rp_builder *b)
{
	struct rp_graph *g = b->g;
	size_t n;
	struct sort_kv *v = ops_by_end(b, &n);
	uint64_t cost = usual_cost(g);

	for (size_t i = 0; i < g->nitems; i++) {
		struct rp_item *it = &g->items[i];
		long o;

		if (!queues(it) || it->own < DIAG_BLOCKED_NS ||
		    (o = freed_by(b, v, n, i)) < 0)
			continue;
		it->flags |= RPF_QUEUE;
		it->wkind = RW_OP;
		it->wait = (uint32_t)o;
		it->ret = b->mt1[i] - b->me[o];
		it->own = cost < it->own ? cost : it->own;
	}
	free(v);
}

void replay_hidden_waits(struct rp_builder *b)
{
	implicit_waits(b);
	queue_waits(b);
}
