/* SPDX-License-Identifier: MIT */
/*
 * gpu_report.c - the GPU timeline in the reports: a summary (CUPTI's
 * state, the windows with GPU timing, busy and active time, joins,
 * drops), GPU time
 * and queue delay per kernel, GPU time and bandwidth per copy class, and
 * kernels that ran without a launch of their own (graphs); in JSON, the
 * "gpu" object's keys and each row's GPU keys.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/lib/demangle.h"
#include "analyzer/passes/env.h"
#include "analyzer/export/export_facts.h"
#include "analyzer/passes/gpu_internal.h"
#include "analyzer/report/report.h"
#include "analyzer/lib/table.h"
#include "analyzer/lib/units.h"
#include "analyzer/lib/util.h"

const char *gpu_cupti_name(uint32_t state)
{
	return state == GT_CUPTI_ON ? "on" : state == GT_CUPTI_TAKEN ? "taken"
									 : "off";
}

const char *gpu_mode_name(uint32_t mode)
{
	return mode == GT_GPU_MODE_ALL ? "all" : mode == GT_GPU_MODE_WINDOWS
						   ? "windows" : "off";
}

static double share(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0;
}

static uint64_t busy_total(const struct gpu_stats *s)
{
	uint64_t b = 0;

	for (uint32_t d = 0; d < s->ndev; d++)
		b = sat_add(b, s->dev[d].busy);
	return b;
}

/* ---- text ----------------------------------------------------------------- */

static void why_not(FILE *out, const struct gpu_stats *s)
{
	switch (s->state.state) {
	case GT_CUPTI_TAKEN:
		report_line(out, "  CUPTI was held by another tool (%s): host timing "
			    "only", s->holder ? s->holder : "not named");
		break;
	case GT_CUPTI_MISSING:
		fputs("  no libcupti could be loaded: host timing only\n", out);
		break;
	case GT_CUPTI_FAILED:
		fputs("  CUPTI refused to record (see the notes): host timing "
		      "only\n", out);
		break;
	case GT_CUPTI_WAITING:
		if (s->no_window)
			report_line(out, "  no GPU window opened: %s", s->no_window);
		else
			report_line(out, "  no GPU window opened: the run ended before the "
				    "first (%.1f s after the first GPU work, "
				    "GPUTRACE_GPU_WARMUP_MS); GPUTRACE_GPU=all times every "
				    "kernel of a short run", s->state.warmup_ms / 1e3);
		break;
	default:
		fputs("  off (GPUTRACE_GPU=off or GPUTRACE_CUPTI=0): host "
		      "timing only\n", out);
		break;
	}
}

static double rel_s(const struct model *m, uint64_t t)
{
	return t > m->start_ns ? (double)(t - m->start_ns) / 1e9 : 0;
}

/* Which spans had GPU timing: the first few, seconds after the start. */
static void spans(FILE *out, const struct model *m, const struct gpu_stats *s)
{
	size_t n = s->windows < 4 ? s->windows : 4, at = 0;
	char list[200] = "";

	if (!n)
		return;
	for (size_t i = 0; i < n; i++)
		at += (size_t)snprintf(list + at, sizeof(list) - at, "%s %.2f-%.2f s",
				       i ? "," : "", rel_s(m, s->shown[i].start),
				       rel_s(m, s->shown[i].end));
	report_line(out, "  GPU timing from%s%s after the start; GPU figures below "
		    "are from these spans only", list, s->windows > n ? ", ..." : "");
}

/* The three figures of GPU use, each under one name with what it
 * measures over which time: GPU busy (export_facts.h), GPU active, and
 * nvidia-smi's utilization as NVML sampled it. */
static void busy_lines(FILE *out, const struct model *m, const struct gpu_stats *s)
{
	char a[UNITS_BUF], b[UNITS_BUF], c[UNITS_BUF];
	uint64_t busy, span, active = busy_total(s);
	double smi;

	if (facts_gpu_busy(m, &busy, &span))
		report_line(out, "  GPU busy %s of %s: " FACTS_BUSY_MEANS,
			    fmt_share(a, sizeof(a), busy, span),
			    fmt_ns(b, sizeof(b), span));
	report_line(out, "  GPU active %s of %s (%s): any kernel, copy or memset "
		    "running, over every GPU-timed window (warm-up and pauses "
		    "included)", fmt_share(a, sizeof(a), active, s->window_ns),
		    fmt_ns(b, sizeof(b), s->window_ns), fmt_ns(c, sizeof(c), active));
	if (env_smi_util_mean(m, &smi))
		report_line(out, "  nvidia-smi utilization %.0f%%: NVML's share of "
			    "time with a kernel running, sampled over the whole run "
			    "(Machine state)", smi);
}

static void summary(FILE *out, const struct model *m, const struct gpu_stats *s)
{
	char a[UNITS_BUF], b[UNITS_BUF];

	report_line(out, "  %" PRIu64 " window%s with GPU timing, %s of %s", s->windows,
		    plural(s->windows, "", "s"), fmt_ns(a, sizeof(a), s->window_ns),
		    fmt_ns(b, sizeof(b), m->wall_ns));
	busy_lines(out, m, s);
	spans(out, m, s);
	report_line(out, "  records: %" PRIu64 " kernel%s, %" PRIu64 " cop%s, %" PRIu64
		" memset%s, %" PRIu64 " sync%s; launches in windows %" PRIu64
		", joined %.1f%%", s->kernels, plural(s->kernels, "", "s"),
		s->copies, plural(s->copies, "y", "ies"), s->sets,
		plural(s->sets, "", "s"), s->syncs, plural(s->syncs, "", "s"),
		s->launches, share(s->launches_joined, s->launches));
	if (s->drops.cupti_dropped || s->drops.refused || s->drops.lost)
		report_line(out, "  warning: GPU records lost: %" PRIu64 " dropped by "
			"CUPTI, %" PRIu64 " buffers refused, %" PRIu64 " not "
			"written", s->drops.cupti_dropped, s->drops.refused,
			s->drops.lost);
	if (s->name_mismatch || s->orphans)
		report_line(out, "  warning: %" PRIu64 " kernel%s named otherwise than "
			"their launch, %" PRIu64 " record%s without their host "
			"event", s->name_mismatch, plural(s->name_mismatch, "", "s"),
			s->orphans, plural(s->orphans, "", "s"));
}

static const struct table_column kernel_cols[] = {
	{ "Kernel", 1 }, { "GPU runs", 0 }, { "GPU total", 0 }, { "Mean", 0 },
	{ "p50", 0 }, { "p99", 0 }, { "Queue p50", 0 },
};

static const struct table_column copy_cols[] = {
	{ "API", 1 }, { "Dir", 1 }, { "Memory", 1 }, { "GPU runs", 0 },
	{ "Bytes", 0 }, { "GPU time", 0 }, { "Bandwidth", 0 },
};

static int by_gpu_time(const void *pa, const void *pb)
{
	const struct row *a = *(const struct row *const *)pa;
	const struct row *b = *(const struct row *const *)pb;
	uint64_t x = a->gpu ? a->gpu->total_ns : 0, y = b->gpu ? b->gpu->total_ns : 0;

	return x != y ? (x > y ? -1 : 1) : strcmp(a->name, b->name);
}

struct row **gpu_rows_by_time(const struct model *m, enum row_kind kind,
			      size_t *n)
{
	size_t all, i;
	struct row **rows = model_rows(m, kind, &all);

	for (i = *n = 0; i < all; i++)
		if (rows[i]->gpu && rows[i]->gpu->calls)
			rows[(*n)++] = rows[i];
	qsort(rows, *n, sizeof(*rows), by_gpu_time);
	return rows;
}

static const char *num(char *buf, uint64_t v)
{
	snprintf(buf, UNITS_BUF, "%" PRIu64, v);
	return buf;
}

static void kernel_table(FILE *out, const struct model *m, size_t top)
{
	char buf[7][UNITS_BUF];
	const char *cells[7];
	size_t n, shown;
	struct row **rows = gpu_rows_by_time(m, ROW_KERNEL, &n);
	struct table t;

	shown = top && top < n ? top : n;
	table_init(&t, kernel_cols, 7);
	table_kernel_names(&t);
	for (size_t i = 0; i < shown; i++) {
		const struct row_gpu *g = rows[i]->gpu;

		cells[0] = rows[i]->name;
		cells[1] = num(buf[1], g->calls);
		cells[2] = fmt_ns(buf[2], UNITS_BUF, g->total_ns);
		cells[3] = fmt_ns(buf[3], UNITS_BUF, g->total_ns / g->calls);
		cells[4] = fmt_ns(buf[4], UNITS_BUF, hist_quantile(&g->dur, 0.50));
		cells[5] = fmt_ns(buf[5], UNITS_BUF, hist_quantile(&g->dur, 0.99));
		cells[6] = g->queue.count ? fmt_ns(buf[6], UNITS_BUF,
						   hist_quantile(&g->queue, 0.50)) : "-";
		table_add(&t, cells);
	}
	if (n) {
		fputs("\nKernels (GPU time, in windows; queue: launch return to "
		      "GPU start)\n", out);
		table_print(out, &t, report_width());
		if (shown < n)
			fprintf(out, "  ... %zu more\n", n - shown);
	}
	table_release(&t);
	free(rows);
}

static void copy_table(FILE *out, const struct model *m, size_t top)
{
	char buf[7][UNITS_BUF];
	const char *cells[7];
	size_t n, shown;
	struct row **rows = gpu_rows_by_time(m, ROW_COPY, &n);
	struct table t;
	unsigned seen = 0;

	shown = top && top < n ? top : n;
	table_init(&t, copy_cols, 7);
	for (size_t i = 0; i < shown; i++) {
		const struct row_gpu *g = rows[i]->gpu;
		enum bw_state st;
		double v;

		cells[0] = rows[i]->name;
		cells[1] = direction_name(rows[i]->direction);
		cells[2] = memory_name(rows[i]->memory);
		cells[3] = num(buf[3], g->calls);
		cells[4] = fmt_bytes(buf[4], UNITS_BUF, g->bytes);
		cells[5] = fmt_ns(buf[5], UNITS_BUF, g->total_ns);
		st = report_bandwidth(m, rows[i]->direction, g->bytes, g->total_ns, &v);
		seen |= st != BW_OK ? 1u << st : 0;
		cells[6] = report_bandwidth_cell(buf[6], UNITS_BUF, st, v);
		table_add(&t, cells);
	}
	if (n) {
		fputs("\nCopies (GPU time, in windows)\n", out);
		table_print(out, &t, report_width());
		if (shown < n)
			fprintf(out, "  ... %zu more\n", n - shown);
		report_bandwidth_notes(out, m, seen);
	}
	table_release(&t);
	free(rows);
}

static const struct table_column only_cols[] = {
	{ "Kernel", 1 }, { "Run by", 1 }, { "GPU runs", 0 }, { "GPU total", 0 },
};

static int by_only_time(const void *pa, const void *pb)
{
	const struct gpu_kernel_only *a = *(const struct gpu_kernel_only *const *)pa;
	const struct gpu_kernel_only *b = *(const struct gpu_kernel_only *const *)pb;

	if (a->g.total_ns != b->g.total_ns)
		return a->g.total_ns > b->g.total_ns ? -1 : 1;
	return strcmp(a->symbol, b->symbol);
}

/* Most GPU time first. */
static void only_table(FILE *out, const struct gpu_stats *s)
{
	size_t n;
	struct gpu_kernel_only **v;
	char buf[4][UNITS_BUF];
	const char *cells[4];
	struct table t;

	if (!s->only.len)
		return;
	fputs("\nKernels without a launch of their own (run by graphs, or not "
	      "joined)\n", out);
	v = (struct gpu_kernel_only **)hmap_values(&s->only, &n);
	qsort(v, n, sizeof(*v), by_only_time);
	table_init(&t, only_cols, ARRAY_SIZE(only_cols));
	table_kernel_names(&t);
	for (size_t i = 0; i < n; i++) {
		const struct gpu_kernel_only *k = v[i];
		char *dem = demangle(strchr(k->symbol, ' ') + 1);

		cells[0] = dem;
		cells[1] = k->via_graph ? "graph" : "unjoined";
		cells[2] = num(buf[2], k->g.calls);
		cells[3] = fmt_ns(buf[3], UNITS_BUF, k->g.total_ns);
		table_add(&t, cells);
		free(dem);
	}
	table_print(out, &t, report_width());
	table_release(&t);
	free(v);
}

void gpu_report_text(FILE *out, const struct model *m, size_t top)
{
	const struct gpu_stats *s = m->gpu;

	if (!s || !s->have_state)
		return;
	fprintf(out, "\nGPU timeline (CUPTI %s, GPUTRACE_GPU=%s",
		s->state.state == GT_CUPTI_WAITING ? "not subscribed"
						    : gpu_cupti_name(s->state.state),
		gpu_mode_name(s->state.mode));
	if (s->state.mode == GT_GPU_MODE_WINDOWS)
		fprintf(out, ": %.2f s every %.2f s", s->state.window_ms / 1e3,
			s->state.period_ms / 1e3);
	fputs(")\n", out);
	if (s->state.state != GT_CUPTI_ON) {
		why_not(out, s);
		return;
	}
	summary(out, m, s);
	kernel_table(out, m, top);
	copy_table(out, m, top);
	only_table(out, s);
}

/* ---- JSON -------------------------------------------------------------------- */

static void put_uint(struct json *j, const char *key, uint64_t v)
{
	json_key(j, key);
	json_uint(j, v);
}

static void put_double(struct json *j, const char *key, double v)
{
	json_key(j, key);
	json_double(j, v);
}

void gpu_row_json(struct json *j, const struct row *r, enum row_kind kind)
{
	static const struct row_gpu none;
	const struct row_gpu *g = r->gpu ? r->gpu : &none;

	if (!r->gpu && kind != ROW_KERNEL)
		return;                 /* rows without GPU records keep their keys */
	put_uint(j, "gpu_calls", g->calls);
	put_uint(j, "gpu_ns_total", g->total_ns);
	if (kind == ROW_KERNEL) {
		put_uint(j, "gpu_ns_p50", hist_quantile(&g->dur, 0.50));
		put_uint(j, "gpu_ns_p99", hist_quantile(&g->dur, 0.99));
		put_uint(j, "queue_ns_p50", hist_quantile(&g->queue, 0.50));
		put_uint(j, "queue_ns_p99", hist_quantile(&g->queue, 0.99));
	} else if (kind == ROW_COPY || kind == ROW_SET) {
		put_uint(j, "gpu_bytes", g->bytes);
		put_double(j, "gpu_gbps", g->total_ns ? (double)g->bytes /
			   (double)g->total_ns : 0);
	}
	if (kind == ROW_COPY)
		put_uint(j, "cupti_memory_mismatch", g->mismatch);
}

static void windows_json(struct json *j, const struct gpu_stats *s,
			 const struct model *m)
{
	size_t n = s->windows < GPU_WINDOWS_SHOWN ? s->windows : GPU_WINDOWS_SHOWN;

	json_key(j, "windows");
	json_begin_object(j);
	put_uint(j, "count", s->windows);
	put_uint(j, "total_ns", s->window_ns);
	json_key(j, "first");           /* [start, end] after the dump's start */
	json_begin_array(j);
	for (size_t i = 0; i < n; i++) {
		json_begin_array(j);
		json_uint(j, s->shown[i].start - m->start_ns);
		json_uint(j, s->shown[i].end - m->start_ns);
		json_end_array(j);
	}
	json_end_array(j);
	json_end_object(j);
}

static void records_json(struct json *j, const struct gpu_stats *s)
{
	json_key(j, "records");
	json_begin_object(j);
	put_uint(j, "kernels", s->kernels);
	put_uint(j, "copies", s->copies);
	put_uint(j, "sets", s->sets);
	put_uint(j, "syncs", s->syncs);
	put_uint(j, "graphs", s->graphs);
	put_uint(j, "incomplete", s->incomplete);
	put_uint(j, "unjoined", s->unjoined);
	put_uint(j, "orphans", s->orphans);
	put_uint(j, "name_mismatch", s->name_mismatch);
	put_uint(j, "negative_queue", s->negative_queue);
	put_uint(j, "window_edge", s->edge);
	json_end_object(j);
	put_uint(j, "launches_in_windows", s->launches);
	put_uint(j, "launches_joined", s->launches_joined);
	put_uint(j, "copies_in_windows", s->copies_in);
	put_uint(j, "copies_joined", s->copies_joined);
	json_key(j, "dropped");
	json_begin_object(j);
	put_uint(j, "cupti", s->drops.cupti_dropped);
	put_uint(j, "refused_buffers", s->drops.refused);
	put_uint(j, "lost", s->drops.lost);
	json_end_object(j);
}

static void devices_json(struct json *j, const struct gpu_stats *s)
{
	json_key(j, "devices");
	json_begin_array(j);
	for (uint32_t d = 0; d < s->ndev; d++) {
		if (!s->dev[d].busy)
			continue;
		json_begin_object(j);
		put_uint(j, "device", d);
		put_uint(j, "active_ns", s->dev[d].busy);
		json_end_object(j);
	}
	json_end_array(j);
}

static void only_json(struct json *j, const struct gpu_stats *s)
{
	size_t pos = 0;
	struct gpu_kernel_only *k;

	json_key(j, "kernels_without_launch");
	json_begin_array(j);
	while ((k = hmap_next(&s->only, &pos))) {
		json_begin_object(j);
		json_key(j, "symbol");
		json_string(j, strchr(k->symbol, ' ') + 1);
		json_key(j, "via_graph");
		json_bool(j, k->via_graph);
		put_uint(j, "calls", k->g.calls);
		put_uint(j, "gpu_ns_total", k->g.total_ns);
		json_end_object(j);
	}
	json_end_array(j);
}

/* "busy_*": as everywhere (export_facts.h); "active_*": any GPU work. */
static void busy_json(struct json *j, const struct model *m,
		      const struct gpu_stats *s)
{
	uint64_t busy, span;
	int known = facts_gpu_busy(m, &busy, &span);

	json_key(j, "busy_ns");
	known ? json_uint(j, busy) : json_null(j);
	json_key(j, "busy_span_ns");
	known ? json_uint(j, span) : json_null(j);
	json_key(j, "busy_share");
	known ? json_double(j, (double)busy / (double)span) : json_null(j);
	put_uint(j, "active_ns", busy_total(s));
	put_uint(j, "wall_ns", s->window_ns);
	json_key(j, "active_share");
	s->window_ns ? json_double(j, (double)busy_total(s) / (double)s->window_ns)
		     : json_null(j);
}

void gpu_report_json(struct json *j, const struct model *m)
{
	const struct gpu_stats *s = m->gpu;
	static const struct gpu_stats none;

	if (!s)
		s = &none;
	json_key(j, "cupti");
	json_string(j, s->have_state ? gpu_cupti_name(s->state.state) : "off");
	json_key(j, "mode");
	json_string(j, gpu_mode_name(s->have_state ? s->state.mode : GT_GPU_MODE_OFF));
	busy_json(j, m, s);
	windows_json(j, s, m);
	records_json(j, s);
	devices_json(j, s);
	json_key(j, "clock");
	json_begin_object(j);
	put_uint(j, "pairs", s->clock.pairs);
	put_double(j, "offset_ns", gpu_clock_offset(&s->clock));
	put_double(j, "drift_ppm", gpu_clock_drift_ppm(&s->clock));
	json_end_object(j);
	only_json(j, s);
}
