/* SPDX-License-Identifier: MIT */
/*
 * cost_report.c - the cost pass's lines of the text report (where the GPU
 * windows went, what they cost the run) and its JSON keys (gpu_windows,
 * tracing_cost).
 */
#include <stdio.h>

#include "analyzer/passes/cost_internal.h"
#include "analyzer/passes/hostsample.h"
#include "analyzer/model/model.h"
#include "analyzer/diagnosis/diagnosis.h"
#include "analyzer/report/report.h"
#include "analyzer/lib/units.h"
#include "analyzer/lib/util.h"

static const char *const reason_names[] = {
	[GT_WINDOW_CLOCK] = "clock", [GT_WINDOW_STEPS] = "steps",
	[GT_WINDOW_SIGNAL] = "signal", [GT_WINDOW_FILE] = "file",
	[GT_WINDOW_RANGE] = "range", [GT_WINDOW_ALL] = "all",
	[GT_WINDOW_START] = "start",
};

static const char *const reason_texts[] = {
	[GT_WINDOW_CLOCK] = "by the clock (no steady steps known then)",
	[GT_WINDOW_STEPS] = "on steady steps",
	[GT_WINDOW_SIGNAL] = "on a signal (GPUTRACE_GPU_SIGNAL)",
	[GT_WINDOW_FILE] = "on the trigger file (GPUTRACE_GPU_TRIGGER)",
	[GT_WINDOW_RANGE] = "on the steps of GPUTRACE_GPU_STEPS",
	[GT_WINDOW_ALL] = "for the whole run (GPUTRACE_GPU=all)",
	[GT_WINDOW_START] = "at the start (GPUTRACE_GPU_START_CALLS)",
};

const char *cost_reason_name(uint32_t reason)
{
	return reason < ARRAY_SIZE(reason_names) && reason_names[reason]
	       ? reason_names[reason] : "unknown";
}

/* "GPU windows: 3, 2 on steady steps, 1 by the clock (...)" */
static void windows_text(FILE *out, const struct cost_stats *s)
{
	size_t n[ARRAY_SIZE(reason_texts)] = { 0 }, known = 0;
	char line[512];
	int len;

	for (size_t i = 0; i < s->nwin; i++)
		if (s->win[i].reason < ARRAY_SIZE(n) && s->win[i].have_switch)
			n[s->win[i].reason]++, known++;
	if (!known)
		return;
	len = snprintf(line, sizeof(line), "GPU windows: %zu", s->nwin);
	for (size_t r = 1; r < ARRAY_SIZE(n); r++)
		if (n[r] && len > 0 && (size_t)len < sizeof(line))
			len += snprintf(line + len, sizeof(line) - (size_t)len, ", %zu %s",
					n[r], reason_texts[r]);
	report_line(out, "%s", line);
}

/* The figures on the diagnosis's steps when it found some (the steps its
 * verdict counts), else, or when none of them ran inside a window, on the
 * library's; 0 when the library wrote no steps (no windows placed on
 * them, no cost to tell). */
static int figures_of(const struct model *m, struct cost_figures *f)
{
	struct cost_steps lib, diag = { .from = COST_STEPS_DIAGNOSIS };
	struct cost_figures other;

	if (!cost_library_steps(m, &lib))
		return 0;
	diag.nt = diagnosis_steps(m, &diag.t, &diag.skip, &diag.capped);
	cost_measure(m, diag.nt ? &diag : &lib, f);
	if (!diag.nt || f->in)
		return 1;
	cost_measure(m, &lib, &other);
	if (other.in) {
		other.other_steps = f->steps;
		*f = other;
	}
	return 1;
}

/* The windows left out of the figures, and why. */
static void left_out_text(FILE *out, const struct cost_figures *f)
{
	uint64_t clock = f->left_out - f->mixed;

	if (clock)
		report_line(out, "  (%llu window%s left out: %s before the "
			    "steps were steady)", (unsigned long long)clock,
			    clock == 1 ? "" : "s", clock == 1 ? "it opened" : "they opened");
	if (f->mixed)
		report_line(out, "  (%llu window%s across a change of the step pattern "
			    "left out)", (unsigned long long)f->mixed, f->mixed == 1 ? "" : "s");
}

/* "steps vary +-1.2%" (the spread, or the interval's half width when
 * wider and not measurable), or that it is not known. */
static const char *vary(char *buf, size_t size, const struct cost_estimate *e)
{
	double x = e->spread, half = (e->hi - e->lo) / 2;

	if (!e->measurable && half > x)
		x = half;
	if (x < 0)
		return "how far the steps move by themselves is not known";
	if (x >= 1)
		snprintf(buf, size, "steps vary up to %.0f-fold", 1 + x);
	else
		snprintf(buf, size, "steps vary +-%.1f%%", 100 * x);
	return buf;
}

/* "+4.1% per step inside GPU windows (90% interval +3.0% to +5.2%; steps
 * vary +-1.0%)", or "not measurable (steps vary +-9.0%; +4.1% per step
 * ..., 90% interval -3.0% to +11.2%)". */
static void estimate_text(char *buf, size_t size, const struct cost_estimate *e,
			  const char *what)
{
	char v[64];

	if (e->measurable)
		snprintf(buf, size, "%+.1f%% per step %s (%.0f%% interval %+.1f%% to %+.1f%%; %s)",
			 100 * e->median, what, 100 * COST_LEVEL, 100 * e->lo, 100 * e->hi,
			 vary(v, sizeof(v), e));
	else
		snprintf(buf, size, "not measurable (%s; %+.1f%% per step %s, "
			 "%.0f%% interval %+.1f%% to %+.1f%%)", vary(v, sizeof(v), e),
			 100 * e->median, what, 100 * COST_LEVEL, 100 * e->lo, 100 * e->hi);
}

/* Which steps, how many inside, and how they were paired. */
static void steps_text(FILE *out, const struct cost_figures *f)
{
	char a[UNITS_BUF], b[UNITS_BUF], like[96] = "a like step", pairs[320] = "";
	char other[96] = "";

	if (f->period > 1)
		snprintf(like, sizeof(like), "a like step (a multiple of %u steps away: "
			 "the steps repeat in a pattern of %u)", f->period, f->period);
	if (f->inside.pairs)
		snprintf(pairs, sizeof(pairs), "; %llu just inside paired with %s just "
			 "outside (%llu window edge%s; medians %s against %s)",
			 (unsigned long long)f->inside.pairs, like,
			 (unsigned long long)f->inside.groups, f->inside.groups == 1 ? "" : "s",
			 fmt_ns(a, sizeof(a), f->inside.a_p50), fmt_ns(b, sizeof(b), f->inside.b_p50));
	if (f->other_steps)
		snprintf(other, sizeof(other), " (none of the %llu the diagnosis counts ran "
			 "inside a window)", (unsigned long long)f->other_steps);
	report_line(out, "  steps: the %llu %s%s, %llu of them inside windows (%.1f%%)%s",
		    (unsigned long long)f->steps, f->from == COST_STEPS_DIAGNOSIS ?
		    "the diagnosis counts" : "the library marked", other,
		    (unsigned long long)f->in, 100 * f->covered, pairs);
}

/* What a detached CUPTI leaves: steps just after windows against like
 * steps just before them. */
static void after_text(FILE *out, const struct cost_figures *f)
{
	char a[UNITS_BUF], b[UNITS_BUF], line[320];
	const struct cost_estimate *e = &f->after;

	estimate_text(line, sizeof(line), e, "just after a window against like steps "
		      "just before it");
	report_line(out, "  after a window (CUPTI off again): %s; %llu window%s, %llu pairs, "
		    "medians %s against %s", line, (unsigned long long)f->after_windows,
		    f->after_windows == 1 ? "" : "s", (unsigned long long)e->pairs,
		    fmt_ns(a, sizeof(a), e->a_p50), fmt_ns(b, sizeof(b), e->b_p50));
}

/* The host sampler's own time, measured in its handler at every sample:
 * the share of the sampled threads' CPU time it added. */
static int sampler_cost(const struct model *m, double *mean_ns, double *share)
{
	const struct hostsamples *hs = hostsamples_of(m);

	if (!hs || !hs->handler_n || !hs->cpu_ns)
		return 0;
	*mean_ns = (double)hs->handler_ns / (double)hs->handler_n;
	*share = *mean_ns * (double)hs->total / (double)hs->cpu_ns;
	return 1;
}

static void sampler_text(FILE *out, const struct model *m)
{
	const struct hostsamples *hs = hostsamples_of(m);
	double mean, share;
	char a[32], b[32];

	if (!sampler_cost(m, &mean, &share))
		return;
	report_line(out, "  host sampler: %llu samples, %s each in its handler (mean), %s in "
		    "all: %.3f%% of the sampled threads' CPU time (the kernel's signal "
		    "delivery, a few us a tick, is not in it)", (unsigned long long)hs->total,
		    fmt_ns(a, sizeof(a), (uint64_t)(mean + 0.5)),
		    fmt_ns(b, sizeof(b), hs->handler_ns), 100 * share);
}

static void figures_text(FILE *out, const struct cost_figures *f)
{
	char line[320];

	if (!f->inside.known) {
		report_line(out, "tracing cost in this run: not measured (%s)", f->why);
	} else {
		estimate_text(line, sizeof(line), &f->inside, "inside GPU windows");
		if (f->inside.measurable)
			report_line(out, "tracing cost in this run: %s, %+.2f%% overall "
				    "(%+.2f%% to %+.2f%%)", line, 100 * f->overall,
				    100 * f->overall_lo, 100 * f->overall_hi);
		else
			report_line(out, "tracing cost in this run: %s", line);
	}
	steps_text(out, f);
	left_out_text(out, f);
	if (f->capped)
		report_line(out, "  (the first %llu steps only: the run had more)",
			    (unsigned long long)f->steps);
	if (f->after.known)
		after_text(out, f);
}

void cost_report_text(FILE *out, const struct model *m)
{
	struct cost_figures f;

	if (m->cost)
		windows_text(out, m->cost);
	if (figures_of(m, &f))
		figures_text(out, &f);
	sampler_text(out, m);
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

/* One comparison: "median", "lo", "hi", "spread", "measurable", "pairs",
 * the groups under their name, the two sides' medians under theirs. */
static void estimate_json(struct json *j, const char *key, const struct cost_estimate *e,
			  const char *groups, const char *a, const char *b)
{
	json_key(j, key);
	json_begin_object(j);
	put_d(j, "median", e->median);
	put_d(j, "lo", e->lo);
	put_d(j, "hi", e->hi);
	if (e->spread >= 0)
		put_d(j, "spread", e->spread);
	json_key(j, "measurable");
	json_bool(j, e->measurable);
	put_u(j, "pairs", e->pairs);
	put_u(j, groups, e->groups);
	put_u(j, a, e->a_p50);
	put_u(j, b, e->b_p50);
	json_end_object(j);
}

/* "host_sampler_cost": the sampler's handler time (sampler_cost). */
static void sampler_json(struct json *j, const struct model *m)
{
	const struct hostsamples *hs = hostsamples_of(m);
	double mean, share;

	if (!sampler_cost(m, &mean, &share))
		return;
	json_key(j, "host_sampler_cost");
	json_begin_object(j);
	put_u(j, "samples", hs->total);
	put_u(j, "measured", hs->handler_n);
	put_d(j, "handler_mean_ns", mean);
	put_u(j, "handler_ns", hs->handler_ns);
	put_d(j, "share_of_sampled_cpu", share);
	json_end_object(j);
}

void cost_report_json(struct json *j, const struct model *m)
{
	struct cost_figures f;

	if (m->cost && m->cost->nwin)
		windows_json(j, m->cost, m->start_ns);
	sampler_json(j, m);
	if (!figures_of(m, &f))
		return;
	json_key(j, "tracing_cost");
	json_begin_object(j);
	json_key(j, "measured");
	json_bool(j, f.inside.known);
	if (f.why) {
		json_key(j, "why_not");
		json_string(j, f.why);
	}
	json_key(j, "steps_from");
	json_string(j, f.from == COST_STEPS_DIAGNOSIS ? "diagnosis" : "library");
	put_u(j, "steps", f.steps);
	if (f.other_steps)
		put_u(j, "diagnosis_steps", f.other_steps);
	put_u(j, "steps_inside", f.in);
	put_d(j, "covered", f.covered);
	put_u(j, "period", f.period);
	put_u(j, "windows_left_out", f.left_out);
	json_key(j, "capped");
	json_bool(j, f.capped);
	if (f.inside.known)
		estimate_json(j, "inside", &f.inside, "edges", "inside_p50_ns",
			      "outside_p50_ns");
	if (f.inside.measurable) {
		json_key(j, "overall");
		json_begin_object(j);
		put_d(j, "median", f.overall);
		put_d(j, "lo", f.overall_lo);
		put_d(j, "hi", f.overall_hi);
		json_end_object(j);
	}
	if (f.after.known)
		estimate_json(j, "after_detach", &f.after, "windows", "after_p50_ns",
			      "before_p50_ns");
	json_end_object(j);
}
