/* SPDX-License-Identifier: MIT */
/*
 * html_tables.c - the breakdown of one dump as HTML tables (kernels,
 * copies, copy classes, waits, NCCL, NVTX ranges, call sites) and the
 * charts that read better than numbers (where host time went or GPU idle
 * causes, top kernels, copy classes).
 */
#include <inttypes.h>
#include <stdlib.h>

#include "analyzer/passes/callsite.h"
#include "analyzer/lib/demangle.h"
#include "analyzer/export/export_facts.h"
#include "analyzer/passes/gpu.h"
#include "analyzer/report/html_internal.h"
#include "analyzer/passes/nccl.h"
#include "analyzer/passes/nvtx.h"
#include "analyzer/report/report.h"
#include "analyzer/lib/units.h"
#include "analyzer/lib/util.h"

#define CELLS 8

struct col {
	const char *title;
	int num;                    /* right-aligned number */
};

static void table_begin(FILE *out, const char *id, const char *title,
			const struct col *cols, size_t n)
{
	fprintf(out, "<h3>%s</h3>\n<table id=\"%s\"><thead><tr>", title, id);
	for (size_t i = 0; i < n; i++)
		fprintf(out, "<th%s>%s</th>", cols[i].num ? " class=\"n\"" : "",
			cols[i].title);
	fprintf(out, "</tr></thead><tbody>\n");
}

static void table_row(FILE *out, const struct col *cols, size_t n,
		      const char *const *cells)
{
	fprintf(out, "<tr>");
	for (size_t i = 0; i < n; i++) {
		fprintf(out, "<td%s>", cols[i].num ? " class=\"n\"" : "");
		html_esc(out, cells[i] ? cells[i] : "");
		fprintf(out, "</td>");
	}
	fprintf(out, "</tr>\n");
}

static void table_end(FILE *out, size_t shown, size_t n)
{
	fprintf(out, "</tbody></table>\n");
	if (shown < n)
		fprintf(out, "<p class=\"more\">... %zu more</p>\n", n - shown);
}

static const char *u64(char *b, uint64_t v)
{
	snprintf(b, UNITS_BUF, "%" PRIu64, v);
	return b;
}

static const char *ns(char *b, uint64_t v)
{
	return fmt_ns(b, UNITS_BUF, v);
}

static void kernels(FILE *out, const struct model *m)
{
	static const struct col cols[] = {
		{ "Kernel", 0 }, { "Calls", 1 }, { "Launch total", 1 },
		{ "Launch p50", 1 }, { "Launch p99", 1 }, { "GPU time", 1 },
	};
	size_t n, shown;
	struct row **rows = model_rows(m, ROW_KERNEL, &n);
	char b[CELLS][UNITS_BUF], name[256];

	shown = n < HTML_TOP ? n : HTML_TOP;
	table_begin(out, "table-kernels", "Kernels", cols, ARRAY_SIZE(cols));
	for (size_t i = 0; i < shown; i++) {
		const struct row *r = rows[i];
		const char *cells[] = {
			name, u64(b[1], r->calls), ns(b[2], r->total_ns),
			ns(b[3], hist_quantile(&r->hist, 0.5)),
			ns(b[4], hist_quantile(&r->hist, 0.99)),
			r->gpu && r->gpu->calls ? ns(b[5], r->gpu->total_ns) : "-",
		};

		short_kernel_name(r->name, name, sizeof(name));
		table_row(out, cols, ARRAY_SIZE(cols), cells);
	}
	table_end(out, shown, n);
	free(rows);
}

/* Bytes over GPU time (bandwidth.c); "-" unknown or doubtful. */
static const char *gbps(const struct model *m, char *b, const struct row *r)
{
	uint64_t bytes, ns;
	double v;
	enum bw_state st;

	report_class_gpu(m, r, &bytes, &ns);
	st = report_bandwidth(m, r->direction, bytes, ns, &v);
	return report_bandwidth_cell(b, UNITS_BUF, st, v);
}

static void copies(FILE *out, const struct model *m)
{
	static const struct col cols[] = {
		{ "Direction", 0 }, { "Host memory", 0 }, { "Mode", 0 },
		{ "Calls", 1 }, { "Bytes", 1 }, { "Host time", 1 },
		{ "GPU bandwidth", 1 },
	};
	size_t n, shown;
	struct row **rows = model_rows(m, ROW_COPYCLASS, &n);
	char b[CELLS][UNITS_BUF];

	shown = n < HTML_TOP ? n : HTML_TOP;
	table_begin(out, "table-copy-classes", "Copy classes", cols,
		    ARRAY_SIZE(cols));
	for (size_t i = 0; i < shown; i++) {
		const struct row *r = rows[i];
		const char *cells[] = {
			direction_name(r->direction), memory_name(r->memory),
			r->async ? "async" : "sync", u64(b[3], r->calls),
			fmt_bytes(b[4], UNITS_BUF, r->bytes), ns(b[5], r->total_ns),
			gbps(m, b[6], r),
		};

		table_row(out, cols, ARRAY_SIZE(cols), cells);
	}
	table_end(out, shown, n);
	free(rows);
}

static void waits(FILE *out, const struct model *m)
{
	static const struct col cols[] = {
		{ "API", 0 }, { "Calls", 1 }, { "Total", 1 }, { "p99", 1 },
		{ "Longest", 1 },
	};
	size_t n, shown;
	struct row **rows = model_rows(m, ROW_SYNC, &n);
	char b[CELLS][UNITS_BUF];

	shown = n < HTML_TOP ? n : HTML_TOP;
	table_begin(out, "table-waits", "Waits for the GPU", cols, ARRAY_SIZE(cols));
	for (size_t i = 0; i < shown; i++) {
		const struct row *r = rows[i];
		const char *cells[] = {
			r->name, u64(b[1], r->calls), ns(b[2], r->total_ns),
			ns(b[3], hist_quantile(&r->hist, 0.99)), ns(b[4], r->max_ns),
		};

		table_row(out, cols, ARRAY_SIZE(cols), cells);
	}
	table_end(out, shown, n);
	free(rows);
}

static void nccl(FILE *out, const struct model *m)
{
	static const struct col cols[] = {
		{ "Operation", 0 }, { "Calls", 1 }, { "Bytes", 1 },
		{ "Host time", 1 }, { "GPU time", 1 }, { "Algorithm", 0 },
	};
	size_t n;
	struct nccl_op **ops = nccl_ops(m, &n);
	char b[CELLS][UNITS_BUF];

	if (n) {
		table_begin(out, "table-nccl", "NCCL", cols, ARRAY_SIZE(cols));
		for (size_t i = 0; i < n; i++) {
			const struct nccl_op *o = ops[i];
			const char *cells[] = {
				o->op, u64(b[1], o->calls),
				fmt_bytes(b[2], UNITS_BUF, o->bytes),
				ns(b[3], o->host_ns),
				o->gpu_calls ? ns(b[4], o->gpu_ns) : "-",
				o->nalgos ? o->algos[0].name : "-",
			};

			table_row(out, cols, ARRAY_SIZE(cols), cells);
		}
		table_end(out, n, n);
	}
	free(ops);
}

static void ranges(FILE *out, const struct model *m)
{
	static const struct col cols[] = {
		{ "Range", 0 }, { "Domain", 0 }, { "Calls", 1 }, { "Wall total", 1 },
		{ "Longest", 1 }, { "Kernels inside", 1 },
	};
	size_t n, shown;
	struct nvtx_row **rows = nvtx_rows(m, 0, &n);
	char b[CELLS][UNITS_BUF];

	shown = n < HTML_TOP ? n : HTML_TOP;
	if (n) {
		table_begin(out, "table-nvtx", "NVTX ranges", cols, ARRAY_SIZE(cols));
		for (size_t i = 0; i < shown; i++) {
			const struct nvtx_row *r = rows[i];
			const char *cells[] = {
				r->name, r->domain, u64(b[2], r->calls),
				ns(b[3], r->total_ns), ns(b[4], r->max_ns),
				u64(b[5], r->kernels),
			};

			table_row(out, cols, ARRAY_SIZE(cols), cells);
		}
		table_end(out, shown, n);
	}
	free(rows);
}

static void callsites(FILE *out, const struct model *m)
{
	static const struct col cols[] = {
		{ "Kind", 0 }, { "Calls", 1 }, { "Host time", 1 }, { "Where", 0 },
	};
	size_t n, shown;
	const struct callsite_row *rows = callsites_rows(m, &n);
	char b[CELLS][UNITS_BUF];

	shown = n < 10 ? n : 10;
	if (!n)
		return;
	table_begin(out, "table-callsites", "Call sites", cols, ARRAY_SIZE(cols));
	for (size_t i = 0; i < shown; i++) {
		const struct callsite_row *r = &rows[i];
		char *where = xasprintf("%s%s%s", r->nframes ? r->frames[0] : "?",
					r->nframes > 1 ? " < " : "",
					r->nframes > 1 ? r->frames[1] : "");
		const char *cells[] = {
			callsite_kind_name(r->kind), u64(b[1], r->calls),
			ns(b[2], r->ns_total), where,
		};

		table_row(out, cols, ARRAY_SIZE(cols), cells);
		free(where);
	}
	table_end(out, shown, n);
}

void html_tables(FILE *out, const struct model *m)
{
	kernels(out, m);
	copies(out, m);
	waits(out, m);
	nccl(out, m);
	ranges(out, m);
	callsites(out, m);
}

/* ---- charts --------------------------------------------------------------- */

static uint64_t rows_total(const struct model *m, enum row_kind kind)
{
	size_t n;
	struct row **rows = model_rows(m, kind, &n);
	uint64_t t = 0;

	for (size_t i = 0; i < n; i++)
		t += rows[i]->total_ns;
	free(rows);
	return t;
}

static void idle_chart(FILE *out, const struct model *m)
{
	struct facts_cause c[FACTS_MAX_CAUSES];
	int n = facts_idle_causes(m, c, FACTS_MAX_CAUSES);
	struct html_bar bars[FACTS_MAX_CAUSES];
	char text[FACTS_MAX_CAUSES][UNITS_BUF];
	static const struct { enum row_kind k; const char *name; } kinds[] = {
		{ ROW_SYNC, "waits for the GPU" }, { ROW_COPY, "copies" },
		{ ROW_KERNEL, "kernel launches" }, { ROW_GRAPH, "graph launches" },
		{ ROW_SET, "memsets" }, { ROW_HOSTMEM, "pinned memory calls" },
	};

	for (int i = 0; i < n; i++)
		bars[i] = (struct html_bar){ c[i].name, (double)c[i].ns,
					     ns(text[i], c[i].ns), "#c44e52" };
	if (n) {
		html_bar_chart(out, "chart-idle", "GPU idle time by cause", bars, (size_t)n);
		return;
	}
	for (size_t i = 0; i < ARRAY_SIZE(kinds); i++) {
		uint64_t v = rows_total(m, kinds[i].k);

		bars[n++] = (struct html_bar){ kinds[i].name, (double)v,
					       ns(text[i], v), "#c44e52" };
	}
	html_bar_chart(out, "chart-idle", "Host time in CUDA calls by kind "
		       "(GPU idle causes need the diagnosis)", bars, (size_t)n);
}

/* The kernels with the most GPU time (from the GPU records); with no
 * GPU records, those with the most host time in their launches, and the
 * title says so. */
static void kernel_chart(FILE *out, const struct model *m)
{
	size_t n, shown;
	struct row **rows = gpu_rows_by_time(m, ROW_KERNEL, &n);
	struct html_bar bars[10];
	char text[10][UNITS_BUF], names[10][128];
	int gpu = n > 0;

	if (!gpu) {
		free(rows);
		rows = model_rows(m, ROW_KERNEL, &n);
	}
	shown = n < 10 ? n : 10;
	for (size_t i = 0; i < shown; i++) {
		uint64_t v = gpu ? rows[i]->gpu->total_ns : rows[i]->total_ns;

		short_kernel_name(rows[i]->name, names[i], sizeof(names[i]));
		bars[i] = (struct html_bar){ names[i], (double)v, ns(text[i], v), NULL };
	}
	html_bar_chart(out, "chart-kernels", gpu ? "Top kernels (GPU time, from "
		       "the GPU records)" : "Top kernels by host launch time (no GPU "
		       "records in this dump: GPU time unknown)", bars, shown);
	free(rows);
}

static void copy_chart(FILE *out, const struct model *m)
{
	size_t n, shown;
	struct row **rows = model_rows(m, ROW_COPYCLASS, &n);
	struct html_bar bars[10];
	char text[10][2 * UNITS_BUF + 8], names[10][64], t[UNITS_BUF], s[UNITS_BUF];

	shown = n < 10 ? n : 10;
	for (size_t i = 0; i < shown; i++) {
		const struct row *r = rows[i];

		snprintf(names[i], sizeof(names[i]), "%s %s %s",
			 direction_name(r->direction), memory_name(r->memory),
			 r->async ? "async" : "sync");
		snprintf(text[i], sizeof(text[i]), "%s, %s", ns(t, r->total_ns),
			 fmt_bytes(s, sizeof(s), r->bytes));
		bars[i] = (struct html_bar){ names[i], (double)r->total_ns, text[i],
					     "#e39c2b" };
	}
	html_bar_chart(out, "chart-copies", "Copy classes (host time, bytes)",
		       bars, shown);
	free(rows);
}

void html_charts(FILE *out, const struct model *m)
{
	idle_chart(out, m);
	kernel_chart(out, m);
	copy_chart(out, m);
}
