/* SPDX-License-Identifier: MIT */
/*
 * steps_nvtx.c - training steps the program marks with NVTX: pushed
 * ranges at the top level of their thread (or one level down), by name,
 * with the time of each.  Framework ranges (emit_nvtx's "aten::mm",
 * NCCL's own) are not steps.  The step range is the repeated name that
 * covers the most time among those whose ranges spread over the run's
 * loop (at least half the widest spread); when that name repeats only a
 * few times and a name nested in it repeats far more (epochs around
 * steps), the nested one is taken.  A step gives the GPU work: a name whose ranges hold
 * fewer GPU calls (made by any thread while one is open) than there are
 * ranges is not a step (JAX's XlaCompileGpuAsm:..., a data-loading or
 * logging range).  Started/ended ranges (nvtxRangeStart) are not used.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "analyzer/diagnosis/diagnosis_internal.h"
#include "analyzer/lib/util.h"

enum { A_MSG = 0, A_DOMAIN = 1 };  /* GT_KIND_NVTX arguments (format.h) */

#define MIN_STEPS 3
#define CAND_SPANS (1u << 18)       /* range instances kept, all names */

static struct nvtx_cand *cand_of(struct diagnosis *d, const struct dump_reader *r,
				 const struct dump_event *ev, uint32_t depth)
{
	uint64_t msg = ev->arg[A_MSG];
	const char *name = msg && msg <= UINT32_MAX ? dump_string(r, (uint32_t)msg)
						    : NULL;
	struct nvtx_cand *c;
	char *key;

	if (!name || !*name || strstr(name, "::") || !strncasecmp(name, "nccl", 4))
		return NULL;
	key = xasprintf("%llu\037%s", (unsigned long long)ev->arg[A_DOMAIN], name);
	c = hmap_get_str(&d->cands, key);
	if (c) {
		free(key);
		if (depth < c->depth)
			c->depth = depth;
		return c;
	}
	c = xcalloc(1, sizeof(*c));
	c->key = key;
	c->name = xstrdup(name);
	c->depth = depth;
	hmap_put_str(&d->cands, key, c);
	return c;
}

static struct nvtx_thread *nvtx_thread_of(struct diagnosis *d,
					  const struct dump_event *ev)
{
	uint64_t key = (uint64_t)ev->tid << 32 | (ev->arg[A_DOMAIN] & 0xffffffffu);
	struct nvtx_thread *t = hmap_get_int(&d->nvtx_threads, key);

	if (!t) {
		t = xcalloc(1, sizeof(*t));
		hmap_put_int(&d->nvtx_threads, key, t);
	}
	return t;
}

static void close_range(struct diagnosis *d, const struct nvtx_open_range *o,
			uint64_t t1)
{
	struct nvtx_cand *c = o->cand;
	struct span_list *l = &c->spans;
	uint64_t t0 = o->t0;

	c->count++;
	c->gpu_calls += d->gpu_calls - o->gpu_calls;
	c->total_ns += t1 > t0 ? t1 - t0 : 0;
	if (!c->first_t0 || t0 < c->first_t0)
		c->first_t0 = t0;
	if (t1 > c->last_t1)
		c->last_t1 = t1;
	if (d->cand_budget >= CAND_SPANS || t1 <= t0)
		return;
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 2;   /* most names: a range or two */
		l->v = xrealloc(l->v, l->cap * sizeof(*l->v));
	}
	l->v[l->n++] = (struct span){ t0, t1 };
	d->cand_budget++;
}

void steps_nvtx_event(struct diagnosis *d, const struct dump_reader *r,
		      const struct dump_event *ev)
{
	struct nvtx_thread *t;

	if (ev->op->direction != GT_NVTX_PUSH && ev->op->direction != GT_NVTX_POP)
		return;
	t = nvtx_thread_of(d, ev);
	if (ev->op->direction == GT_NVTX_PUSH) {
		if (t->depth < ARRAY_SIZE(t->v))
			t->v[t->depth] = (struct nvtx_open_range){
				t->depth <= 1 ? cand_of(d, r, ev, t->depth) : NULL,
				ev->t0, d->gpu_calls };
		t->depth++;
		return;
	}
	if (!t->depth)
		return;
	t->depth--;
	if (t->depth < ARRAY_SIZE(t->v) && t->v[t->depth].cand)
		close_range(d, &t->v[t->depth], ev->t0);
}

/*
 * Whether a name's ranges go on to the end of the program's GPU work (its
 * last within the last LATE_SHARE of it): the loop's steps do; ranges of
 * the warm-up (XLA's autotuning runs its candidate modules, each an
 * XlaModule range with GPU work) stop early.
 */
#define LATE_SHARE 4
static int goes_on(const struct diagnosis *d, const struct nvtx_cand *c)
{
	uint64_t last = c->last_t1;

	return d->last_t <= d->first_t || last >= d->last_t ||
	       LATE_SHARE * (d->last_t - last) <= d->last_t - d->first_t;
}

/* From a name's first range's start to its last range's end. */
static uint64_t spread(const struct nvtx_cand *c)
{
	return c->last_t1 > c->first_t0 ? c->last_t1 - c->first_t0 : 0;
}

static int eligible(const struct diagnosis *d, const struct nvtx_cand *c,
		    uint32_t depth)
{
	return c->depth == depth && c->spans.n >= MIN_STEPS &&
	       c->gpu_calls >= c->count && goes_on(d, c);
}

/*
 * The best candidate at a depth: repeated until the end, over at least
 * half the longest stretch any name's ranges spread over (the loop's;
 * XLA autotunes a module in a burst of ranges near the end of its
 * compile, which hold more time than the step's short ones), then the
 * most time.
 */
static struct nvtx_cand *best_at(const struct diagnosis *d, uint32_t depth)
{
	struct nvtx_cand *c, *best = NULL;
	uint64_t widest = 0;
	size_t pos = 0;

	while ((c = hmap_next(&d->cands, &pos)))
		if (eligible(d, c, depth) && spread(c) > widest)
			widest = spread(c);
	pos = 0;
	while ((c = hmap_next(&d->cands, &pos))) {
		if (!eligible(d, c, depth) || 2 * spread(c) < widest)
			continue;
		if (!best || c->total_ns > best->total_ns ||
		    (c->total_ns == best->total_ns && strcmp(c->key, best->key) < 0))
			best = c;
	}
	return best;
}

static int by_t0(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	return (x->t0 > y->t0) - (x->t0 < y->t0);
}

#define SAME_COUNT 0.10        /* step counts this close: the same steps */

static int near_count(uint64_t a, uint64_t b)
{
	double x = (double)a, y = (double)b;

	return x >= (1.0 - SAME_COUNT) * y && x <= (1.0 + SAME_COUNT) * y;
}

/*
 * A name repeated k >= 2 times a step of the launch pattern (`pattern`
 * steps; JAX runs a small jitted add twice an iteration after its step)
 * may cover more time than the step's own: when another name at its
 * depth repeats once a step of the pattern, and c's count is a multiple
 * of it, and its ranges spread over at least half of c's stretch, that
 * name is the step.  c, or that name.
 */
static struct nvtx_cand *once_a_step(const struct diagnosis *d,
				     struct nvtx_cand *c, uint64_t pattern)
{
	struct nvtx_cand *o, *best = NULL;
	size_t pos = 0;

	if (!pattern || near_count(c->spans.n, pattern))
		return c;
	while ((o = hmap_next(&d->cands, &pos))) {
		uint64_t k;

		if (o == c || !eligible(d, o, c->depth) ||
		    2 * spread(o) < spread(c) || !near_count(o->spans.n, pattern))
			continue;
		k = (c->spans.n + o->spans.n / 2) / o->spans.n;
		if (k >= 2 && near_count(c->spans.n, k * o->spans.n) &&
		    (!best || o->total_ns > best->total_ns))
			best = o;
	}
	return best ? best : c;
}

int steps_nvtx_pick(struct diagnosis *d, struct step_stats *s, uint64_t pattern)
{
	struct nvtx_cand *c = best_at(d, 0), *inner = best_at(d, 1);

	if (!c || (inner && c->count < 10 && inner->count >= 3 * c->count &&
		   2 * inner->total_ns >= c->total_ns))
		c = inner;
	if (!c)
		return 0;
	c = once_a_step(d, c, pattern);
	qsort(c->spans.v, c->spans.n, sizeof(*c->spans.v), by_t0);
	s->t = xmalloc((c->spans.n + 1) * sizeof(*s->t));
	for (size_t i = 0; i < c->spans.n; i++)
		s->t[i] = c->spans.v[i].t0;
	s->t[c->spans.n] = c->spans.v[c->spans.n - 1].t1;
	s->nt = c->spans.n + 1;
	s->source = STEPS_NVTX;
	s->name = xasprintf("NVTX range \"%s\"", c->name);
	return 1;
}

void steps_nvtx_release(struct diagnosis *d)
{
	struct nvtx_cand *c;
	size_t pos = 0;
	void *t;

	while ((c = hmap_next(&d->cands, &pos))) {
		free(c->key);
		free(c->name);
		span_release(&c->spans);
		free(c);
	}
	hmap_release(&d->cands);
	pos = 0;
	while ((t = hmap_next(&d->nvtx_threads, &pos)))
		free(t);
	hmap_release(&d->nvtx_threads);
}
