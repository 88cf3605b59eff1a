/* SPDX-License-Identifier: MIT */
/*
 * report_text.c - the default report: who ran, how long, then one table
 * per kind of call, most costly rows first, in at most 100 columns.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/passes/callsite.h"
#include "analyzer/passes/cost.h"
#include "analyzer/diagnosis/diagnosis.h"
#include "analyzer/passes/env.h"
#include "analyzer/passes/framework.h"
#include "analyzer/passes/gpu.h"
#include "analyzer/passes/memory.h"
#include "analyzer/passes/nccl.h"
#include "analyzer/passes/nvtx.h"
#include "analyzer/report/report.h"
#include "analyzer/lib/table.h"
#include "analyzer/lib/units.h"
#include "analyzer/lib/util.h"

/* What a table's rows are filled with, and what its cells left out. */
struct fill_ctx {
	const struct model *m;
	unsigned seen;              /* bandwidths not shown: 1 << BW_* */
};

/* Fills cells[] for one row; numbers go into buf. */
typedef void (*fill_fn)(struct fill_ctx *x, const struct row *r,
			char (*buf)[UNITS_BUF], const char **cells);

struct section {
	const char *title;
	enum row_kind kind;
	const struct table_column *cols;
	size_t ncols;
	fill_fn fill;
	int always;             /* shown even when it has no rows */
	int names;              /* the first column holds kernel names */
};

static const char *count(char *buf, uint64_t v)
{
	snprintf(buf, UNITS_BUF, "%" PRIu64, v);
	return buf;
}

static const char *mean(char *buf, const struct row *r)
{
	return fmt_ns(buf, UNITS_BUF, r->calls ? r->total_ns / r->calls : 0);
}

static void launch_cells(struct fill_ctx *x, const struct row *r,
			char (*buf)[UNITS_BUF], const char **cells)
{
	(void)x;
	cells[0] = r->name;
	cells[1] = count(buf[1], r->calls);
	cells[2] = fmt_ns(buf[2], UNITS_BUF, r->total_ns);
	cells[3] = mean(buf[3], r);
	cells[4] = fmt_ns(buf[4], UNITS_BUF, hist_quantile(&r->hist, 0.50));
	cells[5] = fmt_ns(buf[5], UNITS_BUF, hist_quantile(&r->hist, 0.99));
}

static void copy_cells(struct fill_ctx *x, const struct row *r,
			char (*buf)[UNITS_BUF], const char **cells)
{
	(void)x;
	cells[0] = r->name;
	cells[1] = direction_name(r->direction);
	cells[2] = memory_name(r->memory);
	cells[3] = r->async ? "async" : "sync";
	cells[4] = count(buf[4], r->calls);
	cells[5] = fmt_bytes(buf[5], UNITS_BUF, r->bytes);
	cells[6] = fmt_ns(buf[6], UNITS_BUF, r->total_ns);
	cells[7] = mean(buf[7], r);
}

/* Bandwidth: the class's bytes over its GPU time (bandwidth.c). */
static const char *gbps(struct fill_ctx *x, char *buf, const struct row *r)
{
	uint64_t bytes, ns;
	double v;
	enum bw_state st;

	report_class_gpu(x->m, r, &bytes, &ns);
	st = report_bandwidth(x->m, r->direction, bytes, ns, &v);
	x->seen |= st != BW_OK ? 1u << st : 0;
	return report_bandwidth_cell(buf, UNITS_BUF, st, v);
}

static void class_cells(struct fill_ctx *x, const struct row *r,
			char (*buf)[UNITS_BUF], const char **cells)
{
	cells[0] = direction_name(r->direction);
	cells[1] = memory_name(r->memory);
	cells[2] = r->async ? "async" : "sync";
	cells[3] = count(buf[3], r->calls);
	cells[4] = fmt_bytes(buf[4], UNITS_BUF, r->bytes);
	cells[5] = fmt_ns(buf[5], UNITS_BUF, r->total_ns);
	cells[6] = gbps(x, buf[6], r);
}

static void hostmem_cells(struct fill_ctx *x, const struct row *r,
			char (*buf)[UNITS_BUF], const char **cells)
{
	(void)x;
	cells[0] = r->name;
	cells[1] = count(buf[1], r->calls);
	cells[2] = fmt_bytes(buf[2], UNITS_BUF, r->bytes);
	cells[3] = fmt_ns(buf[3], UNITS_BUF, r->total_ns);
	cells[4] = mean(buf[4], r);
}

static void set_cells(struct fill_ctx *x, const struct row *r,
			char (*buf)[UNITS_BUF], const char **cells)
{
	(void)x;
	cells[0] = r->name;
	cells[1] = r->async ? "async" : "sync";
	cells[2] = count(buf[2], r->calls);
	cells[3] = fmt_bytes(buf[3], UNITS_BUF, r->bytes);
	cells[4] = fmt_ns(buf[4], UNITS_BUF, r->total_ns);
	cells[5] = mean(buf[5], r);
}

static void wait_cells(struct fill_ctx *x, const struct row *r,
			char (*buf)[UNITS_BUF], const char **cells)
{
	(void)x;
	cells[0] = r->name;
	cells[1] = count(buf[1], r->calls);
	cells[2] = fmt_ns(buf[2], UNITS_BUF, r->total_ns);
	cells[3] = mean(buf[3], r);
	cells[4] = fmt_ns(buf[4], UNITS_BUF, hist_quantile(&r->hist, 0.99));
	cells[5] = fmt_ns(buf[5], UNITS_BUF, r->max_ns);
}

static const struct table_column kernel_cols[] = {
	{ "Kernel", 1 }, { "Calls", 0 }, { "Total", 0 }, { "Mean", 0 },
	{ "p50", 0 }, { "p99", 0 },
};
static const struct table_column graph_cols[] = {
	{ "Graph", 1 }, { "Calls", 0 }, { "Total", 0 }, { "Mean", 0 },
	{ "p50", 0 }, { "p99", 0 },
};
static const struct table_column copy_cols[] = {
	{ "API", 1 }, { "Dir", 1 }, { "Memory", 1 }, { "Mode", 1 }, { "Calls", 0 },
	{ "Bytes", 0 }, { "Host time", 0 }, { "Mean", 0 },
};
static const struct table_column class_cols[] = {
	{ "Dir", 1 }, { "Memory", 1 }, { "Mode", 1 }, { "Calls", 0 },
	{ "Bytes", 0 }, { "Host time", 0 }, { "GPU bandwidth", 0 },
};
static const struct table_column hostmem_cols[] = {
	{ "API", 1 }, { "Calls", 0 }, { "Bytes", 0 }, { "Host time", 0 },
	{ "Mean", 0 },
};
static const struct table_column set_cols[] = {
	{ "API", 1 }, { "Mode", 1 }, { "Calls", 0 }, { "Bytes", 0 },
	{ "Host time", 0 }, { "Mean", 0 },
};
static const struct table_column wait_cols[] = {
	{ "API", 1 }, { "Calls", 0 }, { "Total", 0 }, { "Mean", 0 },
	{ "p99", 0 }, { "Max", 0 },
};

static const struct section sections[] = {
	{ "Kernels (host time per launch)", ROW_KERNEL, kernel_cols,
	  ARRAY_SIZE(kernel_cols), launch_cells, 1, 1 },
	{ "Graph launches (host time per launch)", ROW_GRAPH, graph_cols,
	  ARRAY_SIZE(graph_cols), launch_cells, 0, 0 },
	{ "Copies (host time in the call)", ROW_COPY, copy_cols,
	  ARRAY_SIZE(copy_cols), copy_cells, 1, 0 },
	{ "Copy classes (direction x host memory x mode)", ROW_COPYCLASS,
	  class_cols, ARRAY_SIZE(class_cols), class_cells, 0, 0 },
	{ "Pinned host memory (allocations, registrations, frees)", ROW_HOSTMEM,
	  hostmem_cols, ARRAY_SIZE(hostmem_cols), hostmem_cells, 0, 0 },
	{ "Memsets (host time in the call)", ROW_SET, set_cols,
	  ARRAY_SIZE(set_cols), set_cells, 0, 0 },
	{ "Waits (host time blocked or polling)", ROW_SYNC, wait_cols,
	  ARRAY_SIZE(wait_cols), wait_cells, 1, 0 },
};

static void fill_table(struct table *t, const struct section *s,
		       struct row **rows, size_t n, struct fill_ctx *x)
{
	char buf[TABLE_MAX_COLS][UNITS_BUF];
	const char *cells[TABLE_MAX_COLS];
	size_t i;

	table_init(t, s->cols, s->ncols);
	if (s->names)
		table_kernel_names(t);
	for (i = 0; i < n; i++) {
		s->fill(x, rows[i], buf, cells);
		table_add(t, cells);
	}
}

static void print_section(FILE *out, const struct model *m,
			  const struct section *s, size_t top)
{
	size_t n, shown;
	struct row **rows = model_rows(m, s->kind, &n);
	struct table t;
	struct fill_ctx x = { m, 0 };

	if (n || s->always) {
		fprintf(out, "\n%s\n", s->title);
		shown = top && top < n ? top : n;
		fill_table(&t, s, rows, shown, &x);
		if (n)
			table_print(out, &t, report_width());
		else
			fputs("  (none)\n", out);
		if (shown < n)
			fprintf(out, "  ... %zu more\n", n - shown);
		report_bandwidth_notes(out, m, x.seen);
		table_release(&t);
	}
	free(rows);
}

/* Findings, wrapped to the report width, each with its numbers. */
static void print_findings(FILE *out, const struct model *m)
{
	struct finding f[FIND_KINDS];
	int n = memory_findings(m, f);

	if (!n)
		return;
	fprintf(out, "\nFindings\n");
	for (int i = 0; i < n; i++)
		report_wrap(out, "  - ", "    ", f[i].text);
}

static void print_header(FILE *out, const struct model *m)
{
	char wall[UNITS_BUF], rank[UNITS_BUF] = "";
	size_t i;

	if (m->rank != UINT32_MAX)
		snprintf(rank, sizeof(rank), "  rank %u", m->rank);
	report_line(out, "gputrace report: %s", *m->command ? m->command : m->exe);
	report_line(out, "pid %u  host %s%s  wall %s  events %" PRIu64
	     "  dropped %" PRIu64 "  threads %zu", m->pid,
	     *m->host ? m->host : "?", rank,
	     fmt_ns(wall, sizeof(wall), m->wall_ns), m->events, m->dropped,
	     m->threads);
	framework_report_text(out, m);
	if (m->ends_early)
		report_line(out, "warning: the dump ends early: "
		     DUMP_ENDS_EARLY_WHY);
	if (m->dropped)
		report_line(out, "warning: %" PRIu64 " %s dropped: counts "
		     "and times below are low", m->dropped,
		     plural(m->dropped, "event was", "events were"));
	for (i = 0; i < m->nr_notes && i < MODEL_NOTES; i++)
		report_wrap(out, "note: ", "      ", m->notes[i].text);
	if (m->nr_notes > MODEL_NOTES)
		report_line(out, "note: ... %zu more notes", m->nr_notes - MODEL_NOTES);
	cost_report_text(out, m);
}

void report_text(FILE *out, const struct model *m,
		 const struct report_opts *opts)
{
	size_t i;

	print_header(out, m);
	diagnosis_report_head(out, m);  /* the verdict opens the report */
	print_findings(out, m);
	diagnosis_report_text(out, m, opts->top);
	hostsample_report_text(out, m, opts->top);
	for (i = 0; i < ARRAY_SIZE(sections); i++)
		print_section(out, m, &sections[i], opts->top);
	nccl_report_text(out, m, opts->top);
	callsites_print_text(out, m, opts->top);
	nvtx_report_text(out, m, opts->top);
	gpu_report_text(out, m, opts->top);
	env_report_text(out, m);
}
