/* SPDX-License-Identifier: MIT */
/*
 * cost.c - the run's own measure of what GPU windows cost it (cost.h).
 *
 * Keeps every step boundary the library wrote (at most COST_MAX_STEPS)
 * and every window's switching span (from switching CUPTI on to switching
 * it off again).  Each window's steps are compared with the steps just
 * around it, outside any window (as many, at least NEAR_MIN, at most
 * NEAR_MAX): a program's step time drifts (warm-up, phases, a data set
 * that changes), and neighbours in time share the drift.  Windows placed
 * by the clock before the steps were steady are left out when others are
 * there.  A step across a gap in the boundaries' numbers (the library
 * found a new pattern) is not a step: left out.
 */
#include <stdlib.h>
#include <string.h>

#include "analyzer/cost.h"
#include "analyzer/model.h"
#include "analyzer/units.h"
#include "analyzer/util.h"

#define COST_MAX_STEPS (1u << 20)   /* 8 MB of boundaries */
#define COST_MAX_WINDOWS (1u << 16)

struct cost_window {
	uint64_t start, end;        /* kinds on (GT_CHUNK_WINDOW) */
	uint64_t attach, off;       /* switching span (GT_CHUNK_SWITCH) */
	uint32_t reason;            /* enum gt_window_reason, 0 unknown */
	int have_switch, on_at_end;
};

struct cost_stats {
	uint64_t *b;                /* boundaries, in time order */
	uint8_t *cont;              /* cont[i]: b[i] follows b[i - 1] */
	size_t nb, cap;
	uint64_t next_seq;          /* the seq the next boundary should have */
	int capped;
	struct cost_window *win;    /* by seq - 1 */
	size_t nwin;
	struct cost_figures f;
};

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

void cost_add(struct model *m, const struct dump_record *rec)
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
};

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
	f->covered = (double)f->in / (double)f->steps;
	f->overall = (a->in_ns - a->base_ns) / (double)f->all_ns;
	f->have_after = a->nbefore >= COST_MIN_STEPS && a->nafter >= COST_MIN_STEPS;
	if (f->have_after)
		f->after_detach = (double)f->after_p50 / (double)f->before_p50 - 1;
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
}

static const char *const reason_names[] = {
	[GT_WINDOW_CLOCK] = "clock", [GT_WINDOW_STEPS] = "steps",
	[GT_WINDOW_SIGNAL] = "signal", [GT_WINDOW_FILE] = "file",
	[GT_WINDOW_RANGE] = "range", [GT_WINDOW_ALL] = "all",
};

static const char *const reason_texts[] = {
	[GT_WINDOW_CLOCK] = "by the clock (no steady steps known then)",
	[GT_WINDOW_STEPS] = "on steady steps",
	[GT_WINDOW_SIGNAL] = "on a signal (GPUTRACE_GPU_SIGNAL)",
	[GT_WINDOW_FILE] = "on the trigger file (GPUTRACE_GPU_TRIGGER)",
	[GT_WINDOW_RANGE] = "on the steps of GPUTRACE_GPU_STEPS",
	[GT_WINDOW_ALL] = "for the whole run (GPUTRACE_GPU=all)",
};

const char *cost_reason_name(uint32_t reason)
{
	return reason < ARRAY_SIZE(reason_names) && reason_names[reason]
	       ? reason_names[reason] : "unknown";
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

/* ---- reports ---------------------------------------------------------------- */

/* "GPU windows: 3, 2 on steady steps, 1 by the clock (...)" */
static void windows_text(FILE *out, const struct cost_stats *s)
{
	size_t n[ARRAY_SIZE(reason_texts)] = { 0 }, known = 0;
	const char *sep = "";

	for (size_t i = 0; i < s->nwin; i++)
		if (s->win[i].reason < ARRAY_SIZE(n) && s->win[i].have_switch)
			n[s->win[i].reason]++, known++;
	if (!known)
		return;
	fprintf(out, "GPU windows: %zu,", s->nwin);
	for (size_t r = 1; r < ARRAY_SIZE(n); r++) {
		if (!n[r])
			continue;
		fprintf(out, "%s %zu %s", sep, n[r], reason_texts[r]);
		sep = ",";
	}
	fputs("\n", out);
}

void cost_report_text(FILE *out, const struct model *m)
{
	const struct cost_figures *f = cost_figures(m);
	char a[UNITS_BUF], b[UNITS_BUF];

	if (m->cost)
		windows_text(out, m->cost);
	if (!f)
		return;
	if (!f->measured) {
		fprintf(out, "tracing cost in this run: not measured (%s; %llu steps)\n",
			f->why, (unsigned long long)f->steps);
		return;
	}
	fprintf(out, "tracing cost in this run: %+.1f%% per step inside GPU windows "
		"(%s against %s for the steps around them), which covered %.1f%% of "
		"the %llu steps; %+.2f%% overall\n", 100 * f->inside,
		fmt_ns(a, sizeof(a), f->in_p50), fmt_ns(b, sizeof(b), f->out_p50),
		100 * f->covered, (unsigned long long)f->steps, 100 * f->overall);
	if (f->left_out > f->mixed)
		fprintf(out, "  (%llu window%s by the clock left out: %s before the steps "
			"were steady)\n", (unsigned long long)(f->left_out - f->mixed),
			f->left_out - f->mixed == 1 ? "" : "s",
			f->left_out - f->mixed == 1 ? "it opened" : "they opened");
	if (f->mixed)
		fprintf(out, "  (%llu window%s across a change of the step pattern left out)\n",
			(unsigned long long)f->mixed, f->mixed == 1 ? "" : "s");
	if (f->have_after)
		fprintf(out, "  after the first window (CUPTI off again): %+.1f%% per step "
			"against the steps just before it (%s against %s)\n",
			100 * f->after_detach, fmt_ns(a, sizeof(a), f->after_p50),
			fmt_ns(b, sizeof(b), f->before_p50));
}

static void put_u(struct json *j, const char *k, uint64_t v)
{
	json_key(j, k);
	json_uint(j, v);
}

static void put_d(struct json *j, const char *k, double v)
{
	json_key(j, k);
	json_double(j, v);
}

/* "gpu_windows": each window's span and why it opened, after the start. */
static void windows_json(struct json *j, const struct cost_stats *s, uint64_t t0)
{
	json_key(j, "gpu_windows");
	json_begin_array(j);
	for (size_t i = 0; i < s->nwin && i < 64; i++) {
		const struct cost_window *w = &s->win[i];

		json_begin_object(j);
		put_u(j, "seq", i + 1);
		json_key(j, "reason");
		json_string(j, cost_reason_name(w->reason));
		put_u(j, "start_ns", w->start > t0 ? w->start - t0 : 0);
		put_u(j, "end_ns", w->end > t0 ? w->end - t0 : 0);
		put_u(j, "attach_ns", w->attach > t0 ? w->attach - t0 : 0);
		put_u(j, "off_ns", w->off > t0 ? w->off - t0 : 0);
		json_end_object(j);
	}
	json_end_array(j);
}

void cost_report_json(struct json *j, const struct model *m)
{
	const struct cost_figures *f = cost_figures(m);

	if (m->cost && m->cost->nwin)
		windows_json(j, m->cost, m->start_ns);
	if (!f)
		return;
	json_key(j, "tracing_cost");
	json_begin_object(j);
	json_key(j, "measured");
	json_bool(j, f->measured);
	if (f->why) {
		json_key(j, "why_not");
		json_string(j, f->why);
	}
	put_u(j, "steps", f->steps);
	put_u(j, "steps_inside", f->in);
	put_u(j, "steps_before", f->before);
	put_u(j, "steps_after", f->after);
	put_u(j, "inside_p50_ns", f->in_p50);
	put_u(j, "outside_p50_ns", f->out_p50);
	put_u(j, "before_p50_ns", f->before_p50);
	put_u(j, "after_p50_ns", f->after_p50);
	put_u(j, "windows_left_out", f->left_out);
	put_d(j, "inside", f->inside);
	put_d(j, "covered", f->covered);
	put_d(j, "overall", f->overall);
	if (f->have_after)
		put_d(j, "after_detach", f->after_detach);
	json_end_object(j);
}
