/* SPDX-License-Identifier: MIT */
/*
 * steps_period.c - training steps from the launch sequence alone.
 *
 * A training loop launches the same kernels, copies and memsets in the
 * same order every step.  Each launching thread (up to PERIOD_THREADS)
 * keeps its last PERIOD_WINDOW tokens (the kernel's function, or the
 * op of a copy, memset or graph launch) in a ring.  Every CHECK_EVERY
 * tokens, the prefix function of the reversed window gives, in O(window),
 * the smallest period of every suffix; the period of the longest suffix
 * that covers at least half the window and repeats three times or more is
 * the step length.  The first time one is found, the step's anchor is
 * chosen: a call that, with the few calls before it, occurs once per
 * period, the one after the longest pause (usually the first launch of a
 * step).  A period made of near copies of a shorter one that take alike
 * times (a kernel that differs every other step) is that many steps, and
 * the anchor comes once per step.  Its occurrences in the ring, and
 * every later one, are the step boundaries.  Memory: the rings, and one
 * time per step.
 */
#include <stdlib.h>
#include <string.h>

#include "analyzer/diagnosis_internal.h"
#include "gputrace/period.h"
#include "analyzer/util.h"

#define CHECK_EVERY 1024

/* The token at chronological position i (0 = oldest kept). */
static size_t ring_pos(const struct period_det *p, size_t i)
{
	uint64_t first = p->seen > PERIOD_WINDOW ? p->seen - PERIOD_WINDOW : 0;

	return (size_t)((first + i) % PERIOD_WINDOW);
}

static size_t ring_len(const struct period_det *p)
{
	return p->seen < PERIOD_WINDOW ? (size_t)p->seen : PERIOD_WINDOW;
}

uint32_t steps_suffix_period(const uint32_t *tok, size_t n, int32_t *pi)
{
	return gt_suffix_period(tok, n, pi);
}

static void add_bound(struct period_det *p, uint64_t t, uint64_t prev)
{
	if (p->nb == DIAG_MAX_STEPS) {
		p->capped = 1;
		return;
	}
	if (p->nb == p->capb) {
		p->capb = p->capb ? p->capb * 2 : 256;
		p->bounds = xrealloc(p->bounds, p->capb * sizeof(*p->bounds));
		p->ends = xrealloc(p->ends, p->capb * sizeof(*p->ends));
	}
	p->ends[p->nb] = prev;
	p->bounds[p->nb++] = t;
}

/* The time of the call before chronological position i (i's own if none). */
static uint64_t call_before(const struct period_det *p, size_t i)
{
	return p->t[ring_pos(p, i ? i - 1 : i)];
}

#define MAX_GRAM 8

/* Hash of the w tokens ending at chronological position end. */
static uint64_t gram(const struct period_det *p, size_t end, uint32_t w)
{
	uint64_t h = GT_GRAM_SEED;

	for (uint32_t k = 0; k < w; k++)
		h = gt_gram_step(h, p->tok[ring_pos(p, end - k)]);
	return h;
}

/*
 * The call that starts a step: among the last `period` calls, one whose
 * w calls up to it (w = 1, 2, ... MAX_GRAM: a kernel may run several times
 * a step, the calls before it tell which time) occur once per step of sub
 * calls, at the same place in each; of those, the one after the longest
 * pauses (gt_anchor_pick_sub).  Its position in the ring, or -1.
 */
static long choose_anchor(struct period_det *p, uint32_t period, uint32_t sub,
			  size_t skip)
{
	size_t len = ring_len(p) - skip, first = len - period;
	uint64_t *h = xmalloc(3 * period * sizeof(*h)), *gap = h + period;
	long at = -1;

	for (uint32_t w = 1; w <= MAX_GRAM && w <= first + 1 && at < 0; w++) {
		for (size_t i = 0; i < period; i++) {
			size_t c = first + i;

			h[i] = gram(p, c, w);
			gap[i] = c ? p->t[ring_pos(p, c)] - p->t[ring_pos(p, c - 1)] : 0;
		}
		at = gt_anchor_pick_sub(h, gap, period, sub, gap + period);
		if (at >= 0) {
			p->anchor = h[at];
			p->anchor_w = w;
		}
	}
	free(h);
	return at >= 0 ? (long)first + at : -1;
}

#define EVEN_OF 8               /* periods whose steps are compared */

/* gt_even_steps over the last EVEN_OF periods before ring position c. */
static int even_steps(const struct period_det *p, uint32_t period,
		      uint32_t sub, size_t c)
{
	size_t blocks = c / period < EVEN_OF ? c / period : EVEN_OF;
	size_t from = c - blocks * period;
	uint64_t *t = xmalloc((blocks * period + 1) * sizeof(*t));
	int even;

	for (size_t i = 0; i < blocks * period; i++)
		t[i] = p->t[ring_pos(p, from + i)];
	even = gt_even_steps(t, period, sub, blocks);
	free(t);
	return even;
}

/*
 * The steps, once a period is found: a step of sub calls when the period
 * is made of such steps (gt_sub_period) that take alike times, else the
 * whole period.
 */
static void establish(struct period_det *p, uint32_t period, uint32_t sub,
		      size_t skip)
{
	size_t len = ring_len(p);
	long c = sub < period ? choose_anchor(p, period, sub, skip) : -1;

	if (c >= 0 && even_steps(p, period, sub, (size_t)c))
		period = sub;
	else if (choose_anchor(p, period, period, skip) < 0)
		return;
	p->period = period;
	for (size_t i = p->anchor_w - 1; i < len; i++)
		if (gram(p, i, p->anchor_w) == p->anchor)
			add_bound(p, p->t[ring_pos(p, i)], call_before(p, i));
}

static void check(struct period_det *p)
{
	size_t len = ring_len(p);
	static const size_t skips[] = { 0, 1, 2, 4, 8, 16 };
	uint32_t *rev = xmalloc(len * sizeof(*rev));
	int32_t *pi = xmalloc(len * sizeof(*pi));
	uint32_t period = 0, sub;
	size_t skip = 0;

	for (size_t i = 0; i < len; i++)      /* the newest first */
		rev[i] = p->tok[ring_pos(p, len - 1 - i)];
	/* the newest calls may not be a whole step yet (or the program's
	 * last words): look past a few of them */
	for (size_t k = 0; k < ARRAY_SIZE(skips) && skips[k] < len && !period; k++) {
		skip = skips[k];
		period = steps_suffix_period(rev + skip, len - skip, pi);
	}
	sub = period ? gt_sub_period(rev + skip, period) : 0;
	free(rev);
	free(pi);
	p->checks++;
	if (!period)
		return;
	if (!p->period)
		establish(p, period, sub, skip);
	else if (period == p->period || sub == p->period)
		p->agree++;
}

static struct period_det *det_of(struct diagnosis *d, uint32_t tid)
{
	for (size_t i = 0; i < d->ndet; i++)
		if (d->det[i].tid == tid)
			return &d->det[i];
	if (d->ndet == PERIOD_THREADS)
		return NULL;
	d->det[d->ndet] = (struct period_det){ .tid = tid };
	d->det[d->ndet].tok = xmalloc(PERIOD_WINDOW * sizeof(uint32_t));
	d->det[d->ndet].t = xmalloc(PERIOD_WINDOW * sizeof(uint64_t));
	return &d->det[d->ndet++];
}

void steps_period_token(struct diagnosis *d, uint32_t tid, uint32_t tok,
			uint64_t t)
{
	struct period_det *p = det_of(d, tid);
	size_t at;

	if (!p)
		return;
	at = (size_t)(p->seen % PERIOD_WINDOW);
	p->tok[at] = tok;
	p->t[at] = t;
	p->seen++;
	if (p->period && ring_len(p) >= p->anchor_w &&
	    gram(p, ring_len(p) - 1, p->anchor_w) == p->anchor)
		add_bound(p, t, call_before(p, ring_len(p) - 1));
	if (p->seen % CHECK_EVERY == 0)
		check(p);
}

static uint64_t median_of(uint64_t *v, size_t n)
{
	qsort(v, n, sizeof(*v), gt_cmp_u64);
	return v[n / 2];
}

static int is_pause(const uint64_t *b, size_t i, uint64_t med)
{
	return b[i + 1] - b[i] > 4 * med && b[i + 1] - b[i] >= 100000;
}

/*
 * Whether the steps between the pauses are steps of their own: their
 * calls (from the anchor to the last call before the next one) take
 * longer than the gap to the next step.  A DataLoader whose workers,
 * started together, deliver batches in pairs makes every other step
 * wait, but each step still runs a whole batch; a kernel launched k
 * times in a row has no calls of its own between the launches.
 */
static int own_steps(const uint64_t *b, const uint64_t *e, size_t nd,
		     uint64_t med)
{
	uint64_t *busy = xmalloc(2 * nd * sizeof(*busy)), *gap = busy + nd;
	size_t k = 0;
	int own;

	for (size_t i = 0; i < nd; i++) {
		if (is_pause(b, i, med))
			continue;
		busy[k] = e[i + 1] > b[i] ? e[i + 1] - b[i] : 0;
		gap[k++] = b[i + 1] > e[i + 1] ? b[i + 1] - e[i + 1] : 0;
	}
	own = k && median_of(busy, k) > median_of(gap, k);
	free(busy);
	return own;
}

/*
 * A loop that launches the same kernel k times and then pauses (loads
 * data, sleeps) repeats every launch by tokens, but its step is the k
 * launches and the pause.  When pauses far longer than the median come
 * regularly every q > 1 anchors, and the anchors between them are not
 * steps of their own (own_steps), the steps start after each pause.
 * e[i] is the call before anchor i.  Returns the new number of
 * boundaries (written over b), or n.
 */
static size_t merge_pauses(uint64_t *b, const uint64_t *e, size_t n,
			   uint32_t *q_out)
{
	size_t nd = n - 1, nlong = 0, last = SIZE_MAX, same = 0, gaps = 0, out = 0;
	uint64_t *d = xmalloc(nd * sizeof(*d)), med, q = 0;

	for (size_t i = 0; i < nd; i++)
		d[i] = b[i + 1] - b[i];
	med = median_of(d, nd);
	free(d);
	for (size_t i = 0; i < nd; i++) {
		if (!is_pause(b, i, med))
			continue;
		nlong++;
		if (last != SIZE_MAX) {
			gaps++;
			if (!q)
				q = i - last;
			same += i - last == q;
		}
		last = i;
	}
	if (nlong < 3 || q < 2 || 10 * same < 7 * gaps || own_steps(b, e, nd, med))
		return n;
	for (size_t i = 0; i < nd; i++)
		if (is_pause(b, i, med))
			b[out++] = b[i + 1];
	*q_out = (uint32_t)q;
	return out;
}

/* The median step of p's boundaries once pauses are merged (in b). */
static uint64_t median_step(const struct period_det *p, uint64_t *b, size_t *n,
			    uint32_t *q)
{
	uint64_t *v, med;

	memcpy(b, p->bounds, p->nb * sizeof(*b));
	*q = 1;
	*n = merge_pauses(b, p->ends, p->nb, q);
	if (*n < 3)
		return 0;
	v = xmalloc((*n - 1) * sizeof(*v));
	for (size_t i = 0; i + 1 < *n; i++)
		v[i] = b[i + 1] - b[i];
	med = median_of(v, *n - 1);
	free(v);
	return med;
}

/*
 * The thread whose steps are the outer loop: among those that made a
 * tenth of the calls or more, the one with the longest median step (the
 * autograd thread repeats every backward pass, the main thread every
 * batch).
 */
int steps_period_pick(struct diagnosis *d, struct step_stats *s)
{
	struct period_det *best = NULL;
	uint64_t most = 0, best_med = 0;
	uint32_t q = 1;

	for (size_t i = 0; i < d->ndet; i++) {
		if (!d->det[i].period && d->det[i].seen % CHECK_EVERY)
			check(&d->det[i]);  /* the tokens since the last check */
		if (d->det[i].seen > most)
			most = d->det[i].seen;
	}
	for (size_t i = 0; i < d->ndet; i++) {
		struct period_det *p = &d->det[i];
		uint64_t *b, med;
		size_t n;
		uint32_t pq;

		if (p->nb < 3 || 10 * p->seen < most)
			continue;
		b = xmalloc(p->nb * sizeof(*b));
		med = median_step(p, b, &n, &pq);
		if (med > best_med) {
			free(s->t);
			s->t = b;
			s->nt = n;
			best = p, best_med = med, q = pq;
		} else {
			free(b);
		}
	}
	if (!best)
		return 0;
	s->period = best->period * q;
	s->capped = best->capped;
	s->source = STEPS_PATTERN;
	s->name = xasprintf("launch pattern: %u GPU calls per step on thread %u",
			    s->period, best->tid);
	return 1;
}

void steps_period_release(struct diagnosis *d)
{
	for (size_t i = 0; i < d->ndet; i++) {
		free(d->det[i].tok);
		free(d->det[i].t);
		free(d->det[i].bounds);
		free(d->det[i].ends);
	}
	d->ndet = 0;
}
