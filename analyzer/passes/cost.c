/* SPDX-License-Identifier: MIT */
/*
 * cost.c - the run's own measure of what GPU windows cost it (cost.h).
 *
 * Keeps every step boundary the library wrote (at most COST_MAX_STEPS)
 * and every window's switching span (from switching CUPTI on to switching
 * it off again).  Each window's steps are compared with the steps just
 * around it, outside any window (as many, at least NEAR_MIN, at most
 * NEAR_MAX): a program's step time drifts (warm-up, phases, a data set
 * that changes), and neighbours in time share the drift.  What CUPTI
 * leaves once detached is, likewise, the steps just after each window
 * over those just before it, the median over the windows.  Windows placed
 * by the clock before the steps were steady are left out when others are
 * there.  A step across a gap in the boundaries' numbers (the library
 * found a new pattern) is not a step: left out.
 */
#include <stdlib.h>
#include <string.h>

#include "analyzer/passes/cost.h"
#include "analyzer/passes/cost_internal.h"
#include "analyzer/model/model.h"
#include "analyzer/lib/util.h"

#define COST_MAX_STEPS (1u << 20)   /* 8 MB of boundaries */
#define COST_MAX_WINDOWS (1u << 16)

static struct cost_stats *stats(struct model *m)
{
	if (!m->cost)
		m->cost = xcalloc(1, sizeof(*m->cost));
	return m->cost;
}

static void add_bound(struct cost_stats *s, uint64_t t, int cont)
{
	if (s->nb == COST_MAX_STEPS) {
		s->capped = 1;
		return;
	}
	if (s->nb == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 1024;
		s->b = xrealloc(s->b, s->cap * sizeof(*s->b));
		s->cont = xrealloc(s->cont, s->cap);
	}
	cont = cont && s->nb && t > s->b[s->nb - 1];
	s->b[s->nb] = t;
	s->cont[s->nb++] = (uint8_t)cont;
}

static void add_steps(struct cost_stats *s, const struct dump_record *rec)
{
	const uint8_t *pos = NULL;
	uint64_t t = 0;
	int cont = rec->steps.h.seq == s->next_seq;

	if (!s->nb || s->source == rec->steps.h.source)
		s->source = rec->steps.h.source;
	else
		s->source = 0;
	for (uint32_t i = 0; i < rec->steps.h.count; i++) {
		t = dump_steps_next(rec, &pos, t);
		add_bound(s, t, i ? 1 : cont);
	}
	s->next_seq = rec->steps.h.seq + rec->steps.h.count;
}

static struct cost_window *window(struct cost_stats *s, uint32_t seq)
{
	if (!seq || seq > COST_MAX_WINDOWS)
		return NULL;
	if (seq > s->nwin) {
		s->win = xrealloc(s->win, seq * sizeof(*s->win));
		memset(s->win + s->nwin, 0, (seq - s->nwin) * sizeof(*s->win));
		s->nwin = seq;
	}
	return &s->win[seq - 1];
}

static NOINLINE void add_record(struct model *m, const struct dump_record *rec)
{
	struct cost_window *w;

	if (rec->type == DUMP_STEPS) {
		add_steps(stats(m), rec);
	} else if (rec->type == DUMP_WINDOW && (w = window(stats(m), rec->window.seq))) {
		w->start = rec->window.start_ns;
		w->end = rec->window.end_ns;
	} else if (rec->type == DUMP_SWITCH && (w = window(stats(m), rec->gswitch.seq))) {
		w->attach = rec->gswitch.attach_ns;
		w->off = rec->gswitch.off_ns;
		w->have_switch = 1;
		w->on_at_end = !rec->gswitch.off_ns;
		w->reason = rec->gswitch.reason;
	}
}

/* Every record comes here: events return before any work. */
void cost_add(struct model *m, const struct dump_record *rec)
{
	if (rec->type != DUMP_EVENT)
		add_record(m, rec);
}

/* ---- the figures ---------------------------------------------------------- */

#define NEAR_MIN 10             /* steps around a window compared with it */
#define NEAR_MAX 50

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

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

static uint64_t median(uint64_t *v, size_t n)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_u64);
	return v[n / 2];
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median_d(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_d);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

struct span {
	uint64_t lo, hi;
	int clock;              /* opened by the clock: before steady steps */
};

static int cmp_span(const void *a, const void *b)
{
	return cmp_u64(&((const struct span *)a)->lo, &((const struct span *)b)->lo);
}

/* The windows' spans, sorted and merged; their number. */
static size_t spans(const struct cost_stats *s, uint64_t run_end, struct span *sp)
{
	size_t n = 0, out = 0;

	for (size_t i = 0; i < s->nwin; i++) {
		span_of(&s->win[i], run_end, &sp[n].lo, &sp[n].hi);
		sp[n].clock = s->win[i].reason == GT_WINDOW_CLOCK;
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

/* The steps (start and length; those across a gap left out), each with
 * the span it overlaps (-1: none); their number. */
struct step {
	uint64_t t0, d;
	long span;
	int after_gap;          /* a step was left out just before it */
};

static size_t steps_of(const struct cost_stats *s, const struct span *sp, size_t ns,
		       struct step *st)
{
	size_t n = 0, k = 0;
	int gap = 0;

	for (size_t i = 1; i < s->nb; i++) {
		uint64_t t0 = s->b[i - 1], t1 = s->b[i];

		if (!s->cont[i]) {
			gap = 1;
			continue;
		}
		while (k < ns && sp[k].hi <= t0)
			k++;
		st[n++] = (struct step){ t0, t1 - t0,
					 k < ns && sp[k].lo < t1 ? (long)k : -1, gap };
		gap = 0;
	}
	return n;
}

/* Durations of up to want steps outside windows, going down (dir -1) or
 * up (+1) from i, not past a gap (another pattern) or another window;
 * appended to v at nv. */
static size_t near(const struct step *st, size_t n, long i, int dir, size_t want,
		   uint64_t *v, size_t nv)
{
	size_t got = 0;

	if (i < 0 || (size_t)i >= n || (dir > 0 && st[i].after_gap) ||
	    (dir < 0 && st[i + 1].after_gap))
		return 0;
	for (; i >= 0 && (size_t)i < n && got < want; i += dir, got++) {
		if (st[i].span >= 0)
			break;
		v[nv + got] = st[i].d;
		if ((dir < 0 && st[i].after_gap) || (dir > 0 && (size_t)i + 1 < n &&
							st[i + 1].after_gap)) {
			got++;
			break;
		}
	}
	return got;
}

struct acc {
	uint64_t *in, *out;     /* durations inside measured windows, around */
	size_t nin, nout;
	double in_ns, base_ns;  /* their time, and what it would have been */
	uint64_t before[NEAR_MAX], after[NEAR_MAX];
	size_t nbefore, nafter; /* around the first measured window */
	double *ratio;          /* per window: the steps just after it over */
	size_t nratio;          /* those just before it */
};

/* The steps just after a window (CUPTI off again) over those just before
 * it (not yet attached): what a detached CUPTI leaves, window by window,
 * so that the run's drift cancels in the median over windows. */
static void pair(struct acc *a, size_t mark, size_t nb, size_t na)
{
	uint64_t before[NEAR_MAX], after[NEAR_MAX];

	if (nb < COST_MIN_STEPS || na < COST_MIN_STEPS)
		return;
	memcpy(before, a->out + mark, nb * sizeof(uint64_t));
	memcpy(after, a->out + mark + nb, na * sizeof(uint64_t));
	a->ratio[a->nratio++] = (double)median(after, na) / (double)median(before, nb);
}

/* One window's steps [first, last] against the steps around it. */
static void measure(struct acc *a, const struct step *st, size_t n, size_t first,
		    size_t last)
{
	size_t nin = last - first + 1, want = nin < NEAR_MIN ? NEAR_MIN : nin;
	size_t nb, na, mark = a->nout;
	uint64_t base;

	if (want > NEAR_MAX)
		want = NEAR_MAX;
	nb = near(st, n, (long)first - 1, -1, want, a->out, a->nout);
	na = near(st, n, (long)last + 1, 1, want, a->out, a->nout + nb);
	if (nb + na < COST_MIN_STEPS)
		return;
	if (!a->nbefore && !a->nafter) {
		memcpy(a->before, a->out + mark, nb * sizeof(uint64_t));
		memcpy(a->after, a->out + mark + nb, na * sizeof(uint64_t));
		a->nbefore = nb, a->nafter = na;
	}
	pair(a, mark, nb, na);
	a->nout += nb + na;
	base = median(a->out + mark, nb + na);
	for (size_t i = first; i <= last; i++) {
		a->in[a->nin++] = st[i].d;
		a->in_ns += (double)st[i].d;
		a->base_ns += (double)base;
	}
}

/* Whether the steps of [first, last] are of one pattern (no gap inside). */
static int one_pattern(const struct step *st, size_t first, size_t last)
{
	for (size_t k = first + 1; k <= last; k++)
		if (st[k].after_gap)
			return 0;
	return 1;
}

/* Each window measured (clock windows too when there are only those);
 * a window across a change of pattern is left out. */
static void measure_all(struct cost_figures *f, struct acc *a, const struct step *st,
			size_t n, const struct span *sp, size_t ns)
{
	int steady = 0;

	for (size_t k = 0; k < ns; k++)
		steady |= !sp[k].clock;
	for (size_t i = 0; i < n; i++) {
		size_t j = i;

		if (st[i].span < 0)
			continue;
		while (j + 1 < n && st[j + 1].span == st[i].span)
			j++;
		if (!one_pattern(st, i, j))
			f->left_out++, f->mixed++;
		else if (!steady || !sp[st[i].span].clock)
			measure(a, st, n, i, j);
		else
			f->left_out++;
		i = j;
	}
}

static void figures(struct cost_figures *f, struct acc *a, const struct step *st, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		f->all_ns += st[i].d;
		f->in += st[i].span >= 0;
	}
	f->steps = n;
	f->before = a->nbefore, f->after = a->nafter;
	f->in_p50 = median(a->in, a->nin);
	f->out_p50 = median(a->out, a->nout);
	f->before_p50 = median(a->before, a->nbefore);
	f->after_p50 = median(a->after, a->nafter);
	if (!f->in)
		f->why = "no step ran inside a GPU window";
	else if (a->nin < COST_MIN_STEPS)
		f->why = "too few steps inside GPU windows with steps outside around them";
	if (f->why)
		return;
	f->measured = 1;
	f->inside = a->in_ns / a->base_ns - 1;
	f->in_mean = (uint64_t)(a->in_ns / (double)a->nin);
	f->base_mean = (uint64_t)(a->base_ns / (double)a->nin);
	f->covered = (double)f->in / (double)f->steps;
	f->overall = (a->in_ns - a->base_ns) / (double)f->all_ns;
	f->have_after = a->nratio > 0;
	f->after_windows = a->nratio;
	if (f->have_after)
		f->after_detach = median_d(a->ratio, a->nratio) - 1;
}

void cost_finish(struct model *m)
{
	struct cost_stats *s = m->cost;
	struct span *sp;
	struct step *st;
	struct acc a = { 0 };
	size_t ns, n;

	if (!s || !s->nb)
		return;
	sp = xmalloc((s->nwin + 1) * sizeof(*sp));
	st = xmalloc(s->nb * sizeof(*st));
	a.in = xmalloc(s->nb * sizeof(uint64_t));
	a.out = xmalloc(2 * s->nb * sizeof(uint64_t));
	a.ratio = xmalloc((s->nwin + 1) * sizeof(double));
	ns = spans(s, m->start_ns + m->wall_ns, sp);
	n = steps_of(s, sp, ns, st);
	measure_all(&s->f, &a, st, n, sp, ns);
	if (!n)
		s->f.why = "fewer than 2 steps were found";
	else
		figures(&s->f, &a, st, n);
	free(sp);
	free(st);
	free(a.in);
	free(a.out);
	free(a.ratio);
}

const struct cost_figures *cost_figures(const struct model *m)
{
	return m->cost && m->cost->nb ? &m->cost->f : NULL;
}

void cost_release(struct model *m)
{
	if (!m->cost)
		return;
	free(m->cost->b);
	free(m->cost->cont);
	free(m->cost->win);
	free(m->cost);
	m->cost = NULL;
}

