/* SPDX-License-Identifier: MIT */
/*
 * cost_measure.c - what the GPU windows cost the run, compared like with
 * like (cost.h).
 *
 * The steps are cut into runs: steps in a row with no gap between them
 * (a new step pattern), all inside measured windows or all outside any
 * window.  Windows opened before the steps were steady (when others are
 * there) and windows across a change of pattern are left out:
 * their steps belong to no run.  At each edge between a run inside and a
 * run outside, the K steps just inside are paired with the K steps just
 * outside, each with the one K steps away: K is a multiple of the steps'
 * period (a loop whose steps alternate between two kinds pairs each step
 * with one of its kind), at most NEAR_MAX, and at most half of each run,
 * so that a run between two edges gives each its nearer half.  The figure
 * is the median of the pairs' differences (a step inside over its pair,
 * minus 1), with an interval by a bootstrap over the edges and the pairs
 * in each (robust.h).  The same comparison made at places with no edge
 * (two blocks of K steps in a row within one run) says how far the steps
 * move by themselves: a figure within that, or an interval across zero,
 * is not measurable in this run.  What CUPTI leaves once detached is the
 * same, with the steps just after each window paired with those just
 * before it.
 */
#include <stdlib.h>
#include <string.h>

#include "analyzer/passes/cost.h"
#include "analyzer/passes/cost_internal.h"
#include "analyzer/model/model.h"
#include "analyzer/lib/robust.h"
#include "analyzer/lib/util.h"

#define NEAR_MAX 50             /* steps paired on each side of an edge */
#define MAX_PERIOD 8            /* the longest pattern of steps looked for */
#define PERIOD_PICKS 65536      /* steps the period is judged on, at most */
#define MAX_GROUPS 128          /* edges (windows) measured, at most */
#define PLACES_MAX 512          /* places without an edge compared */
#define PLACES_MIN 5            /* ... that a spread needs */
#define GROUPS_FOR_DRIFT 3      /* edges or windows whose spread tells the
				   run's drift when no place does */

/* ---- the windows' spans ----------------------------------------------- */

struct span {
	uint64_t lo, hi;
	int clock;              /* by the clock or at the start: before
				   steady steps */
	int steps, mixed;       /* steps in it; one after a gap among them */
};

/* A window's whole cost span; [0, 0) when it never opened. */
static void span_of(const struct cost_window *w, uint64_t run_end,
		    uint64_t *lo, uint64_t *hi)
{
	*lo = w->have_switch && w->attach && w->attach < w->start ? w->attach : w->start;
	*hi = w->end ? w->end : run_end;
	if (w->have_switch && w->off > *hi)
		*hi = w->off;
	if (w->on_at_end)
		*hi = run_end;
	if (!*lo)
		*hi = 0;
}

static int cmp_span(const void *a, const void *b)
{
	uint64_t x = ((const struct span *)a)->lo, y = ((const struct span *)b)->lo;

	return (x > y) - (x < y);
}

/* The windows' spans, sorted and merged; their number. */
static size_t spans(const struct cost_stats *s, uint64_t run_end, struct span *sp)
{
	size_t n = 0, out = 0;

	for (size_t i = 0; s && i < s->nwin; i++) {
		sp[n] = (struct span){ 0 };
		span_of(&s->win[i], run_end, &sp[n].lo, &sp[n].hi);
		sp[n].clock = s->win[i].reason == GT_WINDOW_CLOCK ||
			      s->win[i].reason == GT_WINDOW_START;
		n += sp[n].hi > sp[n].lo;
	}
	qsort(sp, n, sizeof(*sp), cmp_span);
	for (size_t i = 0; i < n; i++) {
		if (out && sp[i].lo <= sp[out - 1].hi) {
			if (sp[i].hi > sp[out - 1].hi)
				sp[out - 1].hi = sp[i].hi;
			sp[out - 1].clock &= sp[i].clock;
			continue;
		}
		sp[out++] = sp[i];
	}
	return out;
}

/* ---- the steps and their runs ----------------------------------------- */

enum { OUT, IN, SKIP };

struct cstep {
	uint64_t t0, d;
	long span;              /* the span it overlaps, -1: none */
	uint8_t st;             /* OUT, IN, SKIP */
	uint8_t gap;            /* a step was left out just before it */
};

struct run {
	size_t first, len;
	uint8_t st;
	uint8_t adj;            /* follows the run before, with no gap */
	uint8_t left, right;    /* an edge on that side */
	size_t for_left, for_right;     /* steps each edge may use */
};

struct ctx {
	struct cstep *s;
	size_t n;
	struct run *r;
	size_t nr;
	size_t p;               /* the period */
};

/* The counted steps: those after the warm-up and not across a gap. */
static size_t steps_of(const struct cost_steps *st, struct cstep *s)
{
	size_t n = 0;
	int gap = 0;

	for (size_t i = st->skip + 1; i < st->nt; i++) {
		uint64_t t0 = st->t[i - 1], t1 = st->t[i];

		if ((st->cont && !st->cont[i]) || t1 <= t0) {
			gap = 1;
			continue;
		}
		s[n++] = (struct cstep){ t0, t1 - t0, -1, OUT, (uint8_t)gap };
		gap = 0;
	}
	return n;
}

/* Each step's span and status; the windows left out counted in f. */
static void place(struct ctx *c, struct span *sp, size_t ns, struct cost_figures *f)
{
	size_t k = 0;
	int steady = 0;

	for (size_t i = 0; i < ns; i++)
		steady |= !sp[i].clock;
	for (size_t i = 0; i < c->n; i++) {
		struct cstep *s = &c->s[i];

		while (k < ns && sp[k].hi <= s->t0)
			k++;
		if (k == ns || sp[k].lo >= s->t0 + s->d)
			continue;
		s->span = (long)k;
		sp[k].mixed |= sp[k].steps && s->gap;
		sp[k].steps++;
		f->in++;
	}
	for (size_t i = 0; i < ns; i++)
		if (sp[i].steps && (sp[i].mixed || (steady && sp[i].clock)))
			f->left_out++, f->mixed += sp[i].mixed;
	for (size_t i = 0; i < c->n; i++) {
		const struct span *w = c->s[i].span < 0 ? NULL : &sp[c->s[i].span];

		c->s[i].st = !w ? OUT : w->mixed || (steady && w->clock) ? SKIP : IN;
	}
}

static int pairable(const struct run *a, const struct run *b)
{
	return b->adj && ((a->st == IN && b->st == OUT) || (a->st == OUT && b->st == IN));
}

/* The runs, their edges, and the steps each edge may use: a run between
 * two edges gives each its nearer half. */
static void runs_of(struct ctx *c)
{
	c->nr = 0;
	for (size_t i = 0; i < c->n; i++) {
		if (c->nr && !c->s[i].gap && c->s[i].st == c->r[c->nr - 1].st) {
			c->r[c->nr - 1].len++;
			continue;
		}
		c->r[c->nr++] = (struct run){ .first = i, .len = 1, .st = c->s[i].st,
					      .adj = i && !c->s[i].gap };
	}
	for (size_t i = 0; i < c->nr; i++) {
		struct run *r = &c->r[i];

		r->left = i && pairable(&c->r[i - 1], r);
		r->right = i + 1 < c->nr && pairable(r, &c->r[i + 1]);
		r->for_left = r->right ? r->len / 2 : r->len;
		r->for_right = r->left ? r->len - r->len / 2 : r->len;
	}
}

/* ---- the period: the lag at which a step is most like the one before ---- */

/* The median of |d[i] - d[i - lag]| over the smaller, steps in a row. */
static double unlike(const struct ctx *c, size_t lag, double *v)
{
	size_t n = 0, stride = c->n / PERIOD_PICKS + 1;

	for (size_t i = lag; i < c->n; i += stride) {
		uint64_t a = c->s[i].d, b = c->s[i - lag].d;
		int gap = 0;

		for (size_t k = i - lag + 1; k <= i && !gap; k++)
			gap = c->s[k].gap;
		if (!gap)
			v[n++] = (double)(a > b ? a - b : b - a) / (double)(a < b ? a : b);
	}
	return n ? robust_median(v, n) : -1;
}

/* 1, unless steps some lag apart are much more alike than steps in a row
 * (a loop whose steps alternate): then the shortest such lag. */
static size_t period_of(const struct ctx *c)
{
	double r[MAX_PERIOD + 1], best = -1, *v = xmalloc((c->n + 1) * sizeof(*v));
	size_t p = 1;

	for (size_t lag = 1; lag <= MAX_PERIOD; lag++) {
		r[lag] = unlike(c, lag, v);
		if (r[lag] >= 0 && (best < 0 || r[lag] < best))
			best = r[lag];
	}
	free(v);
	if (best < 0 || r[1] < 0 || best >= 0.5 * r[1])
		return 1;
	while (r[p] < 0 || r[p] > 1.25 * best)
		p++;
	return p;
}

/* ---- pairs ------------------------------------------------------------- */

/* Steps [a, a + k) paired with steps [b, b + k): one edge (or window). */
struct group {
	size_t a, b, k;
};

/* Pairs of steps, a over b, by group. */
struct pairs {
	double *diff;
	uint64_t *a, *b;        /* their durations */
	size_t n;
	size_t *start;          /* group g's: [start[g], start[g + 1]) */
	struct group *g;
	size_t ng;
};

static void pairs_init(struct pairs *pp, size_t cap)
{
	pp->diff = xmalloc((cap + 1) * sizeof(*pp->diff));
	pp->a = xmalloc((cap + 1) * sizeof(*pp->a));
	pp->b = xmalloc((cap + 1) * sizeof(*pp->b));
	pp->start = xmalloc((MAX_GROUPS + 1) * sizeof(*pp->start));
	pp->g = xmalloc(MAX_GROUPS * sizeof(*pp->g));
	pp->n = pp->ng = 0;
	pp->start[0] = 0;
}

static void pairs_release(struct pairs *pp)
{
	free(pp->diff);
	free(pp->a);
	free(pp->b);
	free(pp->start);
	free(pp->g);
}

static size_t dist_of(const struct group *g)
{
	return g->a > g->b ? g->a - g->b : g->b - g->a;
}

static void add_group(struct pairs *pp, const struct ctx *c, size_t a, size_t b, size_t k)
{
	if (!k || pp->ng == MAX_GROUPS)
		return;
	for (size_t i = 0; i < k; i++) {
		pp->a[pp->n] = c->s[a + i].d;
		pp->b[pp->n] = c->s[b + i].d;
		pp->diff[pp->n++] = (double)c->s[a + i].d / (double)c->s[b + i].d - 1;
	}
	pp->g[pp->ng] = (struct group){ a, b, k };
	pp->start[++pp->ng] = pp->n;
}

/* n, at most NEAR_MAX, rounded down to a multiple of the period. */
static size_t whole(const struct ctx *c, size_t n)
{
	if (n > NEAR_MAX)
		n = NEAR_MAX;
	return n - n % c->p;
}

/* At each edge, the steps just inside over the steps just outside. */
static void edges(const struct ctx *c, struct pairs *pp)
{
	for (size_t i = 1; i < c->nr; i++) {
		const struct run *l = &c->r[i - 1], *r = &c->r[i];
		size_t e = r->first, k;

		if (!r->left)
			continue;
		k = whole(c, l->for_right < r->for_left ? l->for_right : r->for_left);
		if (r->st == IN)
			add_group(pp, c, e, e - k, k);
		else
			add_group(pp, c, e - k, e, k);
	}
}

/* For each run inside with runs outside on both sides, the steps just
 * after it over like steps just before it. */
static void after_windows(const struct ctx *c, struct pairs *pp)
{
	for (size_t i = 1; i + 1 < c->nr; i++) {
		const struct run *w = &c->r[i];
		size_t shift, k;

		if (w->st != IN || !w->left || !w->right)
			continue;
		shift = (c->p - w->len % c->p) % c->p;      /* like steps */
		k = c->r[i - 1].for_right;
		k = k > shift ? k - shift : 0;
		if (c->r[i + 1].for_left < k)
			k = c->r[i + 1].for_left;
		k = whole(c, k);
		add_group(pp, c, w->first + w->len, w->first - k - shift, k);
	}
}

/* ---- how far the steps move by themselves -------------------------------- */

/* Places in run r (of status st) with both blocks inside it. */
static size_t places_in(const struct run *r, int st, size_t k, size_t dist)
{
	return r->st == st && r->len >= dist + k ? r->len - dist - k + 1 : 0;
}

/* The same comparison at places with no edge, in runs of status st: steps
 * [i, i + k) over steps [i - dist, i - dist + k), at most PLACES_MAX
 * places spread over the runs, into v (k values a place); their number. */
static size_t places(const struct ctx *c, int st, size_t k, size_t dist, double *v)
{
	size_t total = 0, stride, got = 0, at = 0;

	for (size_t i = 0; i < c->nr; i++)
		total += places_in(&c->r[i], st, k, dist);
	if (!total)
		return 0;
	stride = (total + PLACES_MAX - 1) / PLACES_MAX;
	for (size_t i = 0; i < c->nr; i++) {
		size_t np = places_in(&c->r[i], st, k, dist);

		for (size_t j = 0; j < np; j++, at++) {
			const struct cstep *s = &c->s[c->r[i].first + dist + j];

			if (at % stride)
				continue;
			for (size_t m = 0; m < k; m++)
				v[got * k + m] = (double)s[m].d / (double)(s - dist)[m].d - 1;
			got++;
		}
	}
	return got;
}

/* How far the figure of ng groups (blocks of k steps dist apart) moves
 * when made at ng places with no edge, in runs of status st: COST_LEVEL
 * of such figures within +-it, by the bootstrap of the groups' interval
 * (whose draws here are places); smaller blocks where the runs are too
 * short for them (noisier: the spread only grows); < 0 when fewer than
 * PLACES_MIN places are there even so. */
static double spread_at(const struct ctx *c, int st, size_t k, size_t dist, size_t ng)
{
	size_t gap = dist - k, n, *start = xmalloc((PLACES_MAX + 1) * sizeof(*start));
	double *v = xmalloc(PLACES_MAX * k * sizeof(*v)), lo, hi, x = -1;

	while ((n = places(c, st, k, k + gap, v)) < PLACES_MIN && k > c->p)
		k = k / 2 > c->p ? k / 2 - (k / 2) % c->p : c->p;
	if (n >= PLACES_MIN) {
		for (size_t i = 0; i <= n; i++)
			start[i] = i * k;
		robust_median_interval(v, start, n, ng, COST_LEVEL, &lo, &hi);
		x = -lo > hi ? -lo : hi;
	}
	free(start);
	free(v);
	return x;
}

/* The drift of steps [at, at + k) per step, over their median: the
 * median slope between like steps (Theil and Sen's). */
static double drift_of(const struct ctx *c, size_t at, size_t k, double *v)
{
	size_t n = 0;

	for (size_t i = 0; i < k; i++)
		v[i] = (double)c->s[at + i].d;
	for (size_t i = 0; i < k; i++)
		for (size_t j = i + c->p; j < k; j += c->p)
			v[k + n++] = ((double)c->s[at + j].d - (double)c->s[at + i].d) /
				     (double)(j - i);
	if (!n)
		return 0;
	return robust_median(v + k, n) / robust_median(v, k);
}

/* What a drift within the groups' own blocks makes of their figure:
 * each group's steeper block's drift over the distance of its pairs
 * (signed: a steady drift of the run moves the edges into a window and
 * out of it the opposite ways, and cancels), the median over the groups.
 * Steps just inside a window may hold a drift or a change of phase that
 * no other place shows. */
static double spread_local(const struct ctx *c, const struct pairs *pp)
{
	double x, *v = xmalloc((NEAR_MAX + NEAR_MAX * NEAR_MAX) * sizeof(*v));
	double *bias = xmalloc(pp->ng * sizeof(*bias));

	for (size_t i = 0; i < pp->ng; i++) {
		const struct group *g = &pp->g[i];
		double da = drift_of(c, g->a, g->k, v), db = drift_of(c, g->b, g->k, v);
		double d = (da < 0 ? -da : da) > (db < 0 ? -db : db) ? da : db;

		bias[i] = d * ((double)g->a - (double)g->b);
	}
	x = robust_median(bias, pp->ng);
	free(v);
	free(bias);
	return x < 0 ? -x : x;
}

static double max_d(double a, double b)
{
	return a > b ? a : b;
}

/* The spread for the groups (their median block and distance, as many
 * places as groups), in the runs outside windows and in those inside,
 * and at least what a drift within their own blocks makes.  With no
 * place for them, only enough groups tell the run's drift (the interval
 * grows with the spread between them). */
static double spread_for(const struct ctx *c, const struct pairs *pp)
{
	uint64_t *k = xmalloc(pp->ng * sizeof(*k)), *d = xmalloc(pp->ng * sizeof(*d));
	size_t kk, dist;
	double x, local = spread_local(c, pp);

	for (size_t i = 0; i < pp->ng; i++)
		k[i] = pp->g[i].k, d[i] = dist_of(&pp->g[i]);
	kk = (size_t)select_u64(k, pp->ng, pp->ng / 2);
	dist = (size_t)select_u64(d, pp->ng, pp->ng / 2);
	free(k);
	free(d);
	x = max_d(spread_at(c, OUT, kk, dist, pp->ng), spread_at(c, IN, kk, dist, pp->ng));
	if (x < 0)              /* the spread between the groups tells */
		return pp->ng >= GROUPS_FOR_DRIFT ? local : -1;
	return max_d(x, local);
}

/* ---- the estimates ----------------------------------------------------- */

static uint64_t median_u64(uint64_t *v, size_t n)
{
	return n ? select_u64(v, n, n / 2) : 0;
}

static void estimate(const struct ctx *c, struct pairs *pp, struct cost_estimate *e)
{
	double *v;

	*e = (struct cost_estimate){ .pairs = pp->n, .groups = pp->ng, .spread = -1 };
	e->a_p50 = median_u64(pp->a, pp->n);
	e->b_p50 = median_u64(pp->b, pp->n);
	if (pp->n < COST_MIN_PAIRS)
		return;
	e->known = 1;
	robust_median_interval(pp->diff, pp->start, pp->ng, pp->ng, COST_LEVEL, &e->lo, &e->hi);
	v = xmalloc(pp->n * sizeof(*v));
	memcpy(v, pp->diff, pp->n * sizeof(*v));
	e->median = robust_median(v, pp->n);
	free(v);
	e->spread = spread_for(c, pp);
	e->measurable = e->spread >= 0 && (e->lo > e->spread || e->hi < -e->spread);
}

/* The time the windows added over the steps' time, for a cost per step
 * inside of x. */
static double overall_of(double in_ns, double all_ns, double x)
{
	return in_ns / all_ns * x / (1 + x);
}

static void figures(const struct ctx *c, struct cost_figures *f)
{
	struct pairs pp;
	double in_ns = 0, all_ns = 0;

	pairs_init(&pp, c->n);
	edges(c, &pp);
	estimate(c, &pp, &f->inside);
	pp.n = pp.ng = 0;
	after_windows(c, &pp);
	estimate(c, &pp, &f->after);
	f->after_windows = pp.ng;
	pairs_release(&pp);
	for (size_t i = 0; i < c->n; i++) {
		all_ns += (double)c->s[i].d;
		in_ns += c->s[i].span >= 0 ? (double)c->s[i].d : 0;
	}
	f->covered = (double)f->in / (double)f->steps;
	if (!f->inside.measurable)
		return;
	f->overall = overall_of(in_ns, all_ns, f->inside.median);
	f->overall_lo = overall_of(in_ns, all_ns, f->inside.lo);
	f->overall_hi = overall_of(in_ns, all_ns, f->inside.hi);
}

void cost_measure(const struct model *m, const struct cost_steps *st,
		  struct cost_figures *f)
{
	const struct cost_stats *s = m->cost;
	struct span *sp = xmalloc(((s ? s->nwin : 0) + 1) * sizeof(*sp));
	struct ctx c = { 0 };
	size_t ns;

	*f = (struct cost_figures){ .from = st->from, .capped = st->capped, .period = 1 };
	c.s = xmalloc((st->nt + 1) * sizeof(*c.s));
	c.r = xmalloc((st->nt + 1) * sizeof(*c.r));
	c.n = st->nt > st->skip ? steps_of(st, c.s) : 0;
	c.p = 1;
	f->steps = c.n;
	ns = spans(s, m->start_ns + m->wall_ns, sp);
	place(&c, sp, ns, f);
	if (!c.n) {
		f->why = "fewer than 2 steps were found";
	} else {
		runs_of(&c);
		c.p = period_of(&c);
		f->period = (uint32_t)c.p;
		figures(&c, f);
		if (!f->in)
			f->why = "no step ran inside a GPU window";
		else if (!f->inside.known)
			f->why = "too few steps inside GPU windows with like steps just "
				 "outside them";
	}
	free(sp);
	free(c.s);
	free(c.r);
}
