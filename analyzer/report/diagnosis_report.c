/* SPDX-License-Identifier: MIT */
/*
 * diagnosis_report.c - the diagnosis in the text report: the verdict that
 * opens it (3 to 6 lines) and the Diagnosis section (steps, what the GPU
 * waited for, the classes with their evidence, advice and gain).
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/diagnosis/diagnosis_internal.h"
#include "analyzer/report/report.h"
#include "analyzer/lib/table.h"
#include "analyzer/lib/units.h"
#include "analyzer/lib/util.h"

static int gpu_mode(const struct diagnosis *d)
{
	return d->have_gpu && d->steady.span_ns;
}

/* Causes by time, most first; returns how many have time. */
static size_t causes_sorted(const struct breakdown *b, int *order)
{
	size_t n = 0;

	for (int c = 0; c < IC_CAUSES; c++) {
		size_t i = n++;

		while (i && b->cause[order[i - 1]] < b->cause[c]) {
			order[i] = order[i - 1];
			i--;
		}
		order[i] = c;
	}
	while (n && !b->cause[order[n - 1]])
		n--;
	return n;
}

/* "sync bubble 48%, launching 9%, ..." (at most max causes) */
static void idle_headline(const struct breakdown *b, char *buf, size_t size,
			  size_t max)
{
	int order[IC_CAUSES];
	size_t n = causes_sorted(b, order), at = 0;

	buf[0] = 0;
	for (size_t i = 0; i < n && i < max && at < size; i++)
		at += (size_t)snprintf(buf + at, size - at, "%s%s %.0f%%", i ? ", " : "",
				       idle_cause_name(order[i]),
				       100.0 * b->cause[order[i]] / b->span_ns);
}

static void steps_line(FILE *out, const struct step_stats *s, const char *lead)
{
	char a[UNITS_BUF], b[UNITS_BUF], c[UNITS_BUF], h[UNITS_BUF], w[80] = "";
	size_t n = s->nt ? s->nt - 1 - s->warmup : 0;

	if (!s->nt) {
		report_line(out, "%sno repeating steps found (no NVTX step range, no "
		      "launch pattern)", lead);
		return;
	}
	if (s->warmup)
		snprintf(w, sizeof(w), "; %zu warm-up step%s apart", s->warmup,
			 plural(s->warmup, "", "s"));
	if (s->gpu_paced)
		report_line(out, "%s%zu step%s of %s, at the GPU's pace (over %u GPU-timed "
			    "steps); the host ran ahead: its calls took %s a step (p50 %s)%s",
			    lead, n, plural(n, "", "s"), fmt_ns(a, sizeof(a), s->step),
			    s->gpu_steps, fmt_ns(h, sizeof(h), s->mean),
			    fmt_ns(b, sizeof(b), s->p50), w);
	else
		report_line(out, "%s%zu step%s of %s mean (p50 %s, p99 %s)%s", lead, n,
			    plural(n, "", "s"), fmt_ns(a, sizeof(a), s->mean),
			    fmt_ns(b, sizeof(b), s->p50), fmt_ns(c, sizeof(c), s->p99), w);
}

/* "Next": the classes after the first, by the list's own key, each with
 * that key's figure only: the replayed gain, or the score. */
static void next_line(FILE *out, const struct diagnosis *d)
{
	int replay = verdict_by_replay(d);
	char rest[512] = "", g[128];
	size_t at = 0, n = 0;

	for (size_t i = 1; i < d->nv && n < 3 && at < sizeof(rest); i++) {
		const struct verdict *v = &d->v[i];

		if (replay && !v->replayed)
			break;          /* not ranked by the replay: in the list */
		at += (size_t)snprintf(rest + at, sizeof(rest) - at, "%s%s, %s",
				       n++ ? "; " : "", verdict_class_title(v->cls),
				       replay ? verdict_gain_text(v, 1, g, sizeof(g)) :
				       (snprintf(g, sizeof(g), "score %.2f", v->score), g));
	}
	if (n)
		report_line(out, "  Next (%s): %s", replay ? "replayed" : "by score",
			    rest);
}

void diagnosis_report_head(FILE *out, const struct model *m)
{
	const struct diagnosis *d = m->diag;
	const struct verdict *v;
	char t[UNITS_BUF], h[256], b[UNITS_BUF], g[128];

	if (!d || !d->nv) {
		report_line(out, "Verdict: none (no CUDA activity to diagnose)");
		return;
	}
	v = &d->v[0];
	if (gpu_mode(d)) {
		idle_headline(&d->steady, h, sizeof(h), 4);
		report_line(out, "Verdict: %s - GPU busy %s of %s; idle: %s",
		      verdict_class_title(v->cls),
		      fmt_share(b, sizeof(b), d->steady.busy_ns, d->steady.span_ns),
		      fmt_ns(t, sizeof(t), d->steady.span_ns), *h ? h : "none");
	} else {
		report_line(out, "Verdict: %s (host side only: no GPU records, GPU idle "
		      "time unknown)", verdict_class_title(v->cls));
	}
	steps_line(out, &d->steps, "  ");
	if (v->nev)
		report_line(out, "  Why: %s", v->evidence[!gpu_mode(d) && v->nev > 1]);
	if (verdict_has_gain(v))
		report_line(out, "  Change (%s): %s", verdict_gain_text(v, 0, g, sizeof(g)),
			    v->change);
	else
		report_line(out, "  Change: %s", v->change);
	next_line(out, d);
}

static const struct table_column idle_cols[] = {
	{ "Cause", 1 }, { "Time", 0 }, { "Share", 0 }, { "Per step", 0 },
};

static void idle_table(FILE *out, const struct diagnosis *d,
		       const struct breakdown *b)
{
	char buf[3][UNITS_BUF], share[16];
	const char *cells[4];
	int order[IC_CAUSES];
	size_t n = causes_sorted(b, order);
	double steps = d->steps.mean ? (double)b->span_ns / d->steps.mean : 0;
	struct table t;

	table_init(&t, idle_cols, ARRAY_SIZE(idle_cols));
	for (size_t i = 0; i <= n; i++) {
		uint64_t ns = i < n ? b->cause[order[i]] : b->busy_ns;

		cells[0] = i < n ? idle_cause_text(order[i]) : "busy: compute kernels running";
		cells[1] = fmt_ns(buf[0], UNITS_BUF, ns);
		snprintf(share, sizeof(share), "%.1f%%", 100.0 * ns / b->span_ns);
		cells[2] = share;
		cells[3] = steps >= 1 ? fmt_ns(buf[2], UNITS_BUF, (uint64_t)(ns / steps)) : "-";
		table_add(&t, cells);
	}
	table_print(out, &t, report_width());
	table_release(&t);
}

static void host_table(FILE *out, const struct host_breakdown *h)
{
	static const char *const names[] = {
		"waiting on the GPU (synchronize, readbacks)", "launching",
		"pinning host memory", "in NCCL", "staging uploads",
	};
	static const char *const outside[] = {
		"outside CUDA: CPU-bound in this process",
		"outside CUDA: waiting on worker processes",
		"outside CUDA: I/O wait", "outside CUDA: other",
	};
	char buf[UNITS_BUF], share[16];
	const char *cells[4] = { NULL, NULL, NULL, "-" };
	struct table t;

	table_init(&t, idle_cols, ARRAY_SIZE(idle_cols));
	for (int i = 0; i < HC_KINDS + 5; i++) {
		uint64_t ns = i < HC_KINDS ? h->state[i] : i < HC_KINDS + 4 ?
			      h->outside[i - HC_KINDS] : h->drained;

		if (!ns)
			continue;
		cells[0] = i < HC_KINDS ? names[i] : i < HC_KINDS + 4 ?
			   outside[i - HC_KINDS] : "outside CUDA after a wait emptied the "
			   "queue (sync bubble)";
		cells[1] = fmt_ns(buf, sizeof(buf), ns);
		snprintf(share, sizeof(share), "%.1f%%", 100.0 * ns / h->span_ns);
		cells[2] = share;
		table_add(&t, cells);
	}
	table_print(out, &t, report_width());
	table_release(&t);
}

static void steps_section(FILE *out, const struct step_stats *s)
{
	char a[UNITS_BUF], b[UNITS_BUF], c[UNITS_BUF], lo[UNITS_BUF], hi[UNITS_BUF];

	if (!s->nt) {
		steps_line(out, s, "  Steps: ");
		return;
	}
	report_line(out, "  Steps: %zu%s, from the %s", s->nt - 1,
	      s->capped ? " (and more: only so many are kept)" : "", s->name);
	report_line(out, "    steady: %zu step%s, mean %s, p50 %s, p99 %s, min %s, max %s",
	      s->nt - 1 - s->warmup, plural(s->nt - 1 - s->warmup, "", "s"),
	      fmt_ns(a, sizeof(a), s->mean),
	      fmt_ns(b, sizeof(b), s->p50), fmt_ns(c, sizeof(c), s->p99),
	      fmt_ns(lo, sizeof(lo), s->min), fmt_ns(hi, sizeof(hi), s->max));
	if (s->warmup)
		report_line(out, "    warm-up: %zu step%s at the start, mean %s",
			    s->warmup, plural(s->warmup, "", "s"),
			    fmt_ns(a, sizeof(a), s->warm_mean));
	if (s->outliers) {
		char list[200] = "";
		size_t at = 0;

		for (size_t i = 0; i < s->outliers && i < ARRAY_SIZE(s->outlier_idx) &&
		     at < sizeof(list); i++) {
			size_t k = s->outlier_idx[i];

			at += (size_t)snprintf(list + at, sizeof(list) - at, "%s#%zu %s",
					       i ? ", " : "", k + 1,
					       fmt_ns(a, sizeof(a), s->t[k + 1] - s->t[k]));
		}
		report_line(out, "    %zu beyond 3 sigma (%s): %s", s->outliers,
		      fmt_ns(b, sizeof(b), s->stddev), list);
	}
}

/* One class of the list: its rank, name and the figure it is ranked by
 * (the replayed gain, or the score), its gain on a line of its own when
 * ranked by score; then its evidence and advice. */
static void verdict_item(FILE *out, const struct verdict *v, size_t rank,
			 int by_gain)
{
	char g[128];

	if (by_gain)
		report_line(out, "  %zu. %s (%s): %s", rank, verdict_class_title(v->cls),
			    verdict_class_name(v->cls), verdict_gain_text(v, 0, g, sizeof(g)));
	else
		report_line(out, "  %zu. %s (%s): score %.2f", rank,
			    verdict_class_title(v->cls), verdict_class_name(v->cls),
			    v->score);
	if (!by_gain && verdict_has_gain(v))
		report_line(out, "     gain %s", verdict_gain_text(v, 0, g, sizeof(g)));
	for (size_t k = 0; k < v->nev; k++)
		report_wrap(out, "     - ", "       ", v->evidence[k]);
	for (size_t k = 0; k < v->nadv; k++)
		report_wrap(out, "     > ", "       ", v->advice[k]);
}

/* The classes by one key each: when the replay ranks them, those it
 * replayed by their replayed gain, then the others under their own
 * heading by score; else all by score. */
static void verdict_list(FILE *out, const struct diagnosis *d)
{
	int replay = verdict_by_replay(d), in_gain = replay;

	fputc('\n', out);
	if (replay)
		report_line(out, "  Verdict, ordered by replayed gain (time per sample "
			    "saved: the step time where the batch stays the same)");
	else
		report_line(out, "  Verdict, ordered by score (the share of the %s "
			    "each class explains)", d->have_gpu && d->steady.span_ns ?
			    "steady GPU time" : "host time");
	for (size_t i = 0; i < d->nv; i++) {
		const struct verdict *v = &d->v[i];

		if (in_gain && !v->replayed) {
			in_gain = 0;
			report_line(out, "  Classes no replayed fix changes, ordered by "
				    "score (the share of the steady GPU time each "
				    "explains)");
		}
		verdict_item(out, v, i + 1, in_gain);
	}
}

void diagnosis_report_text(FILE *out, const struct model *m, size_t top)
{
	const struct diagnosis *d = m->diag;
	char t[UNITS_BUF], h[256];

	(void)top;
	if (!d || (!d->steady.span_ns && !d->host.span_ns))
		return;
	fprintf(out, "\nDiagnosis\n");
	steps_section(out, &d->steps);
	if (gpu_mode(d)) {
		report_line(out, "  What the GPU waited for, steady state (%s of GPU time in "
		      "windows with GPU timing):", fmt_ns(t, sizeof(t), d->steady.span_ns));
		idle_table(out, d, &d->steady);
		if (d->warm.span_ns) {
			idle_headline(&d->warm, h, sizeof(h), 4);
			report_line(out, "  Warm-up and start-up apart: %s, GPU busy %.0f%%; "
				    "idle: %s",
			      fmt_ns(t, sizeof(t), d->warm.span_ns),
			      100.0 * d->warm.busy_ns / d->warm.span_ns, *h ? h : "none");
		}
	} else {
		report_line(out, "  Host time by state (no GPU records: what the GPU did is "
		      "unknown; GPUTRACE_GPU=all records it):");
		host_table(out, &d->host);
	}
	if (d->region_all)
		report_line(out, "  note: no GPU timing window fell in the steady steps: the "
		      "time above is all the timed time, warm-up included");
	if (d->spans_lost || d->gpu_lost)
		report_line(out, "  note: timeline cut short (%llu host and %llu GPU spans over "
		      "the caps): the diagnosis covers the start of the run",
		      (unsigned long long)d->spans_lost, (unsigned long long)d->gpu_lost);
	verdict_list(out, d);
	replay_report_text(out, d);
}
