/* SPDX-License-Identifier: MIT */
/*
 * hostsample_report.c - what the host ran while the GPU waited on it
 * outside CUDA (idle_samples.h), in the text report (each cause's top
 * functions; the top functions of the threads that burn host time and of
 * the DataLoader workers over the steady steps), the JSON report
 * ("host_samples") and the HTML report (each cause's top functions, a
 * table each).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/diagnosis/idle_samples.h"
#include "analyzer/lib/json.h"
#include "analyzer/passes/hostsample.h"
#include "analyzer/report/html_internal.h"
#include "analyzer/report/report.h"
#include "analyzer/lib/table.h"
#include "analyzer/lib/units.h"
#include "analyzer/lib/util.h"

#define TEXT_TOP 5                  /* functions per cause, text report */
#define JSON_TOP 20                 /* ... JSON report, by self time; */
#define JSON_TOTAL 0.05             /* ... and any with this total share */
#define HTML_FNS 10                 /* ... HTML report */
#define TEXT_THREADS 3              /* threads shown, text report */
#define THREAD_MIN 0.10             /* ... with this share of the
				       process's sampled time, at least */

static const struct table_column fn_cols[] = {
	{ "Function", 1 }, { "Self", 0 }, { "Total", 0 }, { "Samples", 0 },
};

/* "62.5%" of part in whole, "-" when whole is 0. */
static const char *pct(char *buf, size_t size, uint64_t part, uint64_t whole)
{
	if (!whole)
		return "-";
	snprintf(buf, size, "%.1f%%", 100.0 * (double)part / (double)whole);
	return buf;
}

/* Why a cause with time has no samples. */
static const char *why_none(const struct idle_samples *is,
			    const struct idle_cause_samples *c)
{
	if (!strcmp(c->key, "dataloader_wait") && !is->workers)
		return "no sample: the workers' dumps were not given (give "
		       "them too, or their folder, to see what they ran)";
	if (!strcmp(c->key, "cpu_preprocessing"))
		return "no sample fell in it";
	return "no sample: the threads were off the CPU then (the CPU clock "
	       "samples running threads; GPUTRACE_HOST_CLOCK=wall samples "
	       "waiting ones too)";
}

/* "412 samples (3 workers' 120), 4.12 s sampled over 4.30 s of it: 96
 * per second" */
static void cause_line(FILE *out, const struct idle_samples *is,
		       const struct idle_cause_samples *c)
{
	char s[UNITS_BUF], t[UNITS_BUF], w[96] = "", rate[48] = "";

	if (!c->samples) {
		report_line(out, "  %s (%s): %s", c->text,
			    fmt_ns(t, sizeof(t), c->cause_ns), why_none(is, c));
		return;
	}
	if (c->worker_samples)
		snprintf(w, sizeof(w), ", %" PRIu64 " of them in the workers",
			 c->worker_samples);
	if (c->cause_ns)
		snprintf(rate, sizeof(rate), ": %.0f per second of it",
			 (double)c->samples * 1e9 / (double)c->cause_ns);
	report_line(out, "  %s: %" PRIu64 " sample%s%s, %s sampled over %s%s",
		    c->text, c->samples, plural(c->samples, "", "s"), w,
		    fmt_ns(s, sizeof(s), c->ns), fmt_ns(t, sizeof(t), c->cause_ns),
		    rate);
	if (!strcmp(c->key, "dataloader_wait") && !is->workers)
		report_line(out, "    (the process's own; the workers' dumps were not "
			    "given: give them too, or their folder, to see what "
			    "they ran)");
}

/* The top functions of fn[nfn], shares of whole ns. */
static void fn_table(FILE *out, const struct idle_fn *fn, size_t nfn,
		     uint64_t whole, size_t top)
{
	char b[3][UNITS_BUF];
	const char *cells[4];
	size_t shown = top && top < nfn ? top : nfn;
	struct table t;

	table_init(&t, fn_cols, ARRAY_SIZE(fn_cols));
	for (size_t i = 0; i < shown; i++) {
		cells[0] = fn[i].name;
		cells[1] = pct(b[0], UNITS_BUF, fn[i].self_ns, whole);
		cells[2] = pct(b[1], UNITS_BUF, fn[i].total_ns, whole);
		snprintf(b[2], UNITS_BUF, "%" PRIu64, fn[i].self_n);
		cells[3] = b[2];
		table_add(&t, cells);
	}
	table_print(out, &t, report_width());
	table_release(&t);
	if (shown < nfn)
		fprintf(out, "    ... %zu more function%s\n", nfn - shown,
			plural(nfn - shown, "", "s"));
}

static uint64_t threads_ns(const struct idle_samples *is)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < is->nthreads; i++)
		sum = sat_add(sum, is->threads[i].ns);
	return sum;
}

/* The threads that burn host time, and the workers, over the window. */
static void profiles_text(FILE *out, const struct idle_samples *is, size_t top)
{
	uint64_t all = threads_ns(is);
	char s[UNITS_BUF];

	if (!all && !is->wprof.samples)
		return;
	report_line(out, "  Over the %s, each thread's functions as shares of its own "
		    "sampled time (its CPU time outside CUDA calls):",
		    is->prof_steps ? "steady steps" : "whole run (no steps)");
	for (size_t i = 0; i < is->nthreads && i < TEXT_THREADS; i++) {
		const struct idle_profile *p = &is->threads[i];

		if ((double)p->ns < THREAD_MIN * (double)all)
			break;
		report_line(out, "  thread %u: %" PRIu64 " sample%s, %s sampled "
			    "(%.0f%% of the process's)", p->tid, p->samples,
			    plural(p->samples, "", "s"), fmt_ns(s, sizeof(s), p->ns),
			    100.0 * (double)p->ns / (double)all);
		fn_table(out, p->fn, p->nfn, p->ns, top);
	}
	if (!is->wprof.samples)
		return;
	report_line(out, "  DataLoader workers (%zu with samples): %" PRIu64
		    " sample%s, %s sampled: shares of their CPU time",
		    is->wprof.processes, is->wprof.samples,
		    plural(is->wprof.samples, "", "s"),
		    fmt_ns(s, sizeof(s), is->wprof.ns));
	fn_table(out, is->wprof.fn, is->wprof.nfn, is->wprof.ns, top);
}

static void head(FILE *out, const struct idle_samples *is)
{
	const char *rate = *is->rate ? is->rate : "rate not known";
	char w[96] = "";

	if (is->workers)
		snprintf(w, sizeof(w), ", %" PRIu64 " in %zu DataLoader worker%s",
			 is->worker_samples, is->workers, plural(is->workers, "", "s"));
	fputc('\n', out);
	report_line(out, "What the host ran%s outside CUDA (host samples: %s%s)",
		    is->gpu ? " while the GPU waited on it" : "", rate, is->gpu ? "" :
		    "; no GPU records: the host's own time by cause");
	report_line(out, "  %" PRIu64 " sample%s in the process%s; %" PRIu64
		    " tick%s found a thread inside a CUDA call: no sample, that "
		    "time is the call's.  By cause, each function's share of the "
		    "sampled time: as the innermost (self), anywhere in the stack "
		    "(total)", is->samples, plural(is->samples, "", "s"), w,
		    is->incall, plural(is->incall, "", "s"));
	if (is->lost)
		report_line(out, "  note: %" PRIu64 " samples past the first %u were "
			    "not kept: the causes count those before", is->lost,
			    HS_MAX_SAMPLES);
}

void hostsample_report_text(FILE *out, const struct model *m, size_t top)
{
	const struct idle_samples *is = idle_samples_of(m);
	size_t n = !top ? 0 : top < TEXT_TOP ? top : TEXT_TOP;   /* 0: all */

	if (!is || !(is->samples + is->worker_samples))
		return;                 /* the sampler's note says why */
	head(out, is);
	for (int k = 0; k < IDLE_SAMPLE_CAUSES; k++) {
		const struct idle_cause_samples *c = &is->c[k];

		if (!c->cause_ns && !c->samples)
			continue;
		cause_line(out, is, c);
		if (c->samples)
			fn_table(out, c->fn, c->nfn, c->ns, n);
	}
	profiles_text(out, is, n);
}

/* ---- JSON ------------------------------------------------------------------- */

static void put_uint(struct json *j, const char *key, uint64_t v)
{
	json_key(j, key);
	json_uint(j, v);
}

static void fn_json(struct json *j, uint64_t whole, const struct idle_fn *f)
{
	json_begin_object(j);
	json_key(j, "name");
	json_string(j, f->name);
	put_uint(j, "self_ns", f->self_ns);
	put_uint(j, "total_ns", f->total_ns);
	put_uint(j, "self_samples", f->self_n);
	put_uint(j, "total_samples", f->total_n);
	json_key(j, "self_share");
	json_double(j, whole ? (double)f->self_ns / (double)whole : 0);
	json_key(j, "total_share");
	json_double(j, whole ? (double)f->total_ns / (double)whole : 0);
	json_end_object(j);
}

static void fns_json(struct json *j, const struct idle_fn *fn, size_t nfn,
		     uint64_t whole)
{
	uint64_t left = 0;          /* the most total time of one left out */

	json_key(j, "functions");
	json_begin_array(j);
	for (size_t i = 0; i < nfn; i++) {
		if (i < JSON_TOP || (double)fn[i].total_ns >= JSON_TOTAL * (double)whole)
			fn_json(j, whole, &fn[i]);
		else if (fn[i].total_ns > left)
			left = fn[i].total_ns;
	}
	json_end_array(j);
	json_key(j, "unlisted_total_share_max");
	json_double(j, whole ? (double)left / (double)whole : 0);
}

static void cause_json(struct json *j, const struct idle_cause_samples *c)
{
	json_begin_object(j);
	json_key(j, "cause");
	json_string(j, c->key);
	put_uint(j, "cause_ns", c->cause_ns);
	put_uint(j, "samples", c->samples);
	put_uint(j, "sampled_ns", c->ns);
	put_uint(j, "worker_samples", c->worker_samples);
	put_uint(j, "worker_sampled_ns", c->worker_ns);
	put_uint(j, "waiting_samples", c->waiting);
	fns_json(j, c->fn, c->nfn, c->ns);
	json_end_object(j);
}

static void profile_json(struct json *j, const struct idle_profile *p,
			 int worker)
{
	json_begin_object(j);
	if (worker)
		put_uint(j, "processes", p->processes);
	else
		put_uint(j, "tid", p->tid);
	put_uint(j, "samples", p->samples);
	put_uint(j, "sampled_ns", p->ns);
	fns_json(j, p->fn, p->nfn, p->ns);
	json_end_object(j);
}

/* "profile", "threads", "workers_profile": over the steady steps. */
static void profiles_json(struct json *j, const struct idle_samples *is)
{
	json_key(j, "profile");
	json_begin_object(j);
	json_key(j, "window");
	json_string(j, is->prof_steps ? "steady_steps" : "whole_run");
	put_uint(j, "t0_ns", is->prof_t0);
	put_uint(j, "t1_ns", is->prof_t1 == UINT64_MAX ? 0 : is->prof_t1);
	json_end_object(j);
	json_key(j, "threads");
	json_begin_array(j);
	for (size_t i = 0; i < is->nthreads; i++)
		profile_json(j, &is->threads[i], 0);
	json_end_array(j);
	json_key(j, "workers_profile");
	if (is->wprof.samples)
		profile_json(j, &is->wprof, 1);
	else
		json_null(j);
}

void hostsample_report_json(struct json *j, const struct model *m)
{
	const struct idle_samples *is = idle_samples_of(m);

	json_key(j, "host_samples");
	if (!is) {
		json_null(j);
		return;
	}
	json_begin_object(j);
	json_key(j, "hz");
	if (is->hz > 0)
		json_double(j, is->hz);
	else
		json_null(j);
	json_key(j, "note");
	if (is->note)
		json_string(j, is->note);
	else
		json_null(j);
	json_key(j, "basis");
	json_string(j, is->gpu ? "gpu_idle" : "host_outside_cuda");
	put_uint(j, "samples", is->samples);
	put_uint(j, "incall_ticks", is->incall);
	put_uint(j, "lost", is->lost);
	put_uint(j, "cpu_ns", is->cpu_ns);
	put_uint(j, "workers", is->workers);
	put_uint(j, "worker_samples", is->worker_samples);
	json_key(j, "causes");
	json_begin_array(j);
	for (int k = 0; k < IDLE_SAMPLE_CAUSES; k++)
		cause_json(j, &is->c[k]);
	json_end_array(j);
	profiles_json(j, is);
	json_end_object(j);
}

/* ---- HTML ------------------------------------------------------------------- */

static void html_cause(FILE *out, const struct idle_cause_samples *c)
{
	char b[3][UNITS_BUF];
	size_t shown = c->nfn < HTML_FNS ? c->nfn : HTML_FNS;

	fprintf(out, "<h3>");
	html_esc(out, c->text);
	fprintf(out, "</h3>\n<p>%" PRIu64 " sample%s (%" PRIu64 " in the workers), "
		"%s sampled over %s of this cause.</p>\n", c->samples,
		plural(c->samples, "", "s"), c->worker_samples,
		fmt_ns(b[0], UNITS_BUF, c->ns), fmt_ns(b[1], UNITS_BUF, c->cause_ns));
	fprintf(out, "<table class=\"samples\"><thead><tr><th>Function</th>"
		"<th class=\"n\">Self</th><th class=\"n\">Total</th>"
		"<th class=\"n\">Samples</th></tr></thead><tbody>\n");
	for (size_t i = 0; i < shown; i++) {
		fprintf(out, "<tr><td>");
		html_esc(out, c->fn[i].name);
		fprintf(out, "</td><td class=\"n\">%s</td><td class=\"n\">%s</td>"
			"<td class=\"n\">%" PRIu64 "</td></tr>\n",
			pct(b[0], UNITS_BUF, c->fn[i].self_ns, c->ns),
			pct(b[1], UNITS_BUF, c->fn[i].total_ns, c->ns),
			c->fn[i].self_n);
	}
	fprintf(out, "</tbody></table>\n");
	if (shown < c->nfn)
		fprintf(out, "<p class=\"more\">... %zu more</p>\n", c->nfn - shown);
}

void hostsample_report_html(FILE *out, const struct model *m)
{
	const struct idle_samples *is = idle_samples_of(m);
	int any = 0;

	if (!is || !(is->samples + is->worker_samples))
		return;
	fprintf(out, "<section class=\"samples\" id=\"host-samples\"><h2>What the "
		"host ran %s outside CUDA</h2>\n<p>Host stack samples: "
		"%" PRIu64 " in the process, %" PRIu64 " in %zu worker%s; a tick "
		"inside a CUDA call is no sample (that time is the call's). Each "
		"function's share of a cause's sampled time: as the innermost "
		"function (self), anywhere in the stack (total).</p>\n",
		is->gpu ? "while the GPU waited on it" : "(no GPU records)", is->samples,
		is->worker_samples, is->workers, plural(is->workers, "", "s"));
	for (int k = 0; k < IDLE_SAMPLE_CAUSES; k++)
		if (is->c[k].samples) {
			html_cause(out, &is->c[k]);
			any = 1;
		}
	if (!any)
		fprintf(out, "<p>No sample fell in the idle time outside CUDA.</p>\n");
	fprintf(out, "</section>\n");
}
