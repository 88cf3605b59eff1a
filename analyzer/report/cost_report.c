/* SPDX-License-Identifier: MIT */
/*
 * cost_report.c - the cost pass's lines of the text report (where the GPU
 * windows went, what they cost the run) and its JSON keys (gpu_windows,
 * tracing_cost).
 */
#include <math.h>
#include <stdio.h>

#include "analyzer/passes/cost_internal.h"
#include "analyzer/model/model.h"
#include "analyzer/report/report.h"
#include "analyzer/lib/units.h"
#include "analyzer/lib/util.h"

/* How far apart (in share of a step) the medians' figure must be from
 * the means' for the report to give it too. */
#define MEDIANS_APART 0.05

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

/* The windows left out of the figures, and why. */
static void left_out_text(FILE *out, const struct cost_figures *f)
{
	uint64_t clock = f->left_out - f->mixed;

	if (clock)
		report_line(out, "  (%llu window%s by the clock left out: %s before the "
			    "steps were steady)", (unsigned long long)clock,
			    clock == 1 ? "" : "s", clock == 1 ? "it opened" : "they opened");
	if (f->mixed)
		report_line(out, "  (%llu window%s across a change of the step pattern "
			    "left out)", (unsigned long long)f->mixed, f->mixed == 1 ? "" : "s");
}

/* What a detached CUPTI leaves: steps just after windows against just
 * before them. */
static void after_text(FILE *out, const struct cost_figures *f)
{
	char a[UNITS_BUF], b[UNITS_BUF], n[48];

	if (f->after_windows == 1)
		snprintf(n, sizeof(n), "one window");
	else
		snprintf(n, sizeof(n), "the median of %llu windows",
			 (unsigned long long)f->after_windows);
	report_line(out, "  after a window (CUPTI off again): %+.1f%% per step just "
		    "after it against just before it (%s; the first: %s against %s)",
		    100 * f->after_detach, n, fmt_ns(a, sizeof(a), f->after_p50),
		    fmt_ns(b, sizeof(b), f->before_p50));
}

/* The medians, when they tell otherwise than the means: a few long steps
 * inside the windows (switching CUPTI on, a late record) make the mean. */
static void medians_text(FILE *out, const struct cost_figures *f)
{
	char a[UNITS_BUF], b[UNITS_BUF];
	double med;

	if (!f->out_p50)
		return;
	med = (double)f->in_p50 / (double)f->out_p50 - 1;
	if (fabs(med - f->inside) <= MEDIANS_APART)
		return;
	report_line(out, "  by the medians: %+.1f%% per step inside (%s against %s): a few "
		    "long steps inside the windows make the mean", 100 * med,
		    fmt_ns(a, sizeof(a), f->in_p50), fmt_ns(b, sizeof(b), f->out_p50));
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
		report_line(out, "tracing cost in this run: not measured (%s; %llu steps)",
			    f->why, (unsigned long long)f->steps);
		return;
	}
	report_line(out, "tracing cost in this run: %+.1f%% per step inside GPU windows "
		    "(%s a step on average against %s for the steps around them), "
		    "which covered %.1f%% of the %llu steps; %+.2f%% overall",
		    100 * f->inside, fmt_ns(a, sizeof(a), f->in_mean),
		    fmt_ns(b, sizeof(b), f->base_mean), 100 * f->covered,
		    (unsigned long long)f->steps, 100 * f->overall);
	medians_text(out, f);
	left_out_text(out, f);
	if (m->cost->capped)
		report_line(out, "  (the first %zu step starts only: the run had more)",
			    m->cost->nb);
	if (f->have_after)
		after_text(out, f);
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
	put_u(j, "inside_mean_ns", f->in_mean);
	put_u(j, "around_mean_ns", f->base_mean);
	put_u(j, "inside_p50_ns", f->in_p50);
	put_u(j, "outside_p50_ns", f->out_p50);
	put_u(j, "before_p50_ns", f->before_p50);
	put_u(j, "after_p50_ns", f->after_p50);
	put_u(j, "windows_left_out", f->left_out);
	json_key(j, "capped");
	json_bool(j, m->cost->capped);
	put_d(j, "inside", f->inside);
	put_d(j, "covered", f->covered);
	put_d(j, "overall", f->overall);
	if (f->have_after) {
		put_d(j, "after_detach", f->after_detach);
		put_u(j, "after_windows", f->after_windows);
	}
	json_end_object(j);
}
