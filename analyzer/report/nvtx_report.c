/* SPDX-License-Identifier: MIT */
/*
 * nvtx_report.c - the NVTX ranges as a text table and as JSON: per range
 * name, calls, wall time, GPU active time inside (kernels, copies), kernels launched inside;
 * then marks, and the names given to categories and threads.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/passes/nvtx_internal.h"
#include "analyzer/report/report.h"
#include "analyzer/lib/table.h"
#include "analyzer/lib/units.h"
#include "analyzer/lib/util.h"

static const struct table_column range_cols[] = {
	{ "Range", 1 }, { "Calls", 0 }, { "Total", 0 }, { "Mean", 0 },
	{ "Max", 0 }, { "GPU active", 0 }, { "Kernels", 0 },
};

static const char *label(char *buf, size_t cap, const struct nvtx_row *r)
{
	if (*r->domain)
		snprintf(buf, cap, "%s [%s]", r->name, r->domain);
	else
		snprintf(buf, cap, "%s", r->name);
	return buf;
}

static void range_cells(const struct model *m, const struct nvtx_row *r,
			char (*b)[UNITS_BUF], char *name, size_t cap,
			const char **cells)
{
	cells[0] = label(name, cap, r);
	snprintf(b[1], UNITS_BUF, "%" PRIu64, r->calls);
	cells[1] = b[1];
	cells[2] = fmt_ns(b[2], UNITS_BUF, r->total_ns);
	cells[3] = fmt_ns(b[3], UNITS_BUF, r->calls ? r->total_ns / r->calls : 0);
	cells[4] = fmt_ns(b[4], UNITS_BUF, r->max_ns);
	cells[5] = nvtx_gpu_known(m) ? fmt_ns(b[5], UNITS_BUF, r->gpu_ns) : "-";
	snprintf(b[6], UNITS_BUF, "%" PRIu64, r->kernels);
	cells[6] = b[6];
}

static void marks_line(FILE *out, const struct model *m)
{
	size_t n, i;
	struct nvtx_row **v = nvtx_rows(m, 1, &n);
	char *line = xstrdup(""), *next, more[48] = "";

	for (i = 0; i < n && i < 8; i++) {
		next = xasprintf("%s%s%s%s%s x%" PRIu64, line, i ? ", " : "", v[i]->name,
				 *v[i]->domain ? " @" : "", v[i]->domain, v[i]->calls);
		free(line);
		line = next;
	}
	if (n > 8)
		snprintf(more, sizeof(more), ", ... %zu more", n - 8);
	if (n)
		report_line(out, "  marks: %s%s", line, more);
	free(line);
	free(v);
}

void nvtx_report_text(FILE *out, const struct model *m, size_t top)
{
	char b[TABLE_MAX_COLS][UNITS_BUF], name[256];
	const char *cells[TABLE_MAX_COLS];
	size_t n, i, shown;
	struct nvtx_row **v = nvtx_rows(m, 0, &n);
	struct table t;

	if (n || (m->nvtx && m->nvtx->rows.len)) {
		fputc('\n', out);
		report_line(out, "NVTX ranges (wall time per range%s)",
			    nvtx_gpu_known(m) ? "" : "; GPU active time needs GPU records");
		shown = top && top < n ? top : n;
		table_init(&t, range_cols, ARRAY_SIZE(range_cols));
		for (i = 0; i < shown; i++) {
			range_cells(m, v[i], b, name, sizeof(name), cells);
			table_add(&t, cells);
		}
		if (n)
			table_print(out, &t, report_width());
		if (shown < n)
			fprintf(out, "  ... %zu more\n", n - shown);
		table_release(&t);
		marks_line(out, m);
		if (m->nvtx->unmatched)
			fprintf(out, "  %" PRIu64 " pop%s or end%s matched no "
				"open range\n", m->nvtx->unmatched,
				plural(m->nvtx->unmatched, "", "s"),
				plural(m->nvtx->unmatched, "", "s"));
	}
	free(v);
}

/* ---- JSON ---------------------------------------------------------------- */

static void put_uint(struct json *j, const char *key, uint64_t v)
{
	json_key(j, key);
	json_uint(j, v);
}

static void put_str(struct json *j, const char *key, const char *s)
{
	json_key(j, key);
	json_string(j, s);
}

static void range_json(struct json *j, const struct nvtx_row *r, int marks)
{
	json_begin_object(j);
	put_str(j, "name", r->name);
	put_str(j, "domain", r->domain);
	put_uint(j, "calls", r->calls);
	if (!marks) {
		put_uint(j, "wall_ns_total", r->total_ns);
		put_uint(j, "wall_ns_max", r->max_ns);
		put_uint(j, "gpu_active_ns", r->gpu_ns);
		put_uint(j, "kernels", r->kernels);
		put_uint(j, "category", r->category);
		put_uint(j, "unclosed", r->unclosed);
	}
	json_end_object(j);
}

static void rows_json(struct json *j, const struct model *m, const char *key,
		      int marks)
{
	size_t n;
	struct nvtx_row **v = nvtx_rows(m, marks, &n);

	json_key(j, key);
	json_begin_array(j);
	for (size_t i = 0; i < n; i++)
		range_json(j, v[i], marks);
	json_end_array(j);
	free(v);
}

static void names_json(struct json *j, const struct model *m, const char *key,
		       int threads)
{
	size_t n;
	struct nvtx_name **v = nvtx_names(m->nvtx, threads, &n);

	json_key(j, key);
	json_begin_array(j);
	for (size_t i = 0; i < n; i++) {
		json_begin_object(j);
		if (!threads)
			put_str(j, "domain", v[i]->domain);
		put_uint(j, threads ? "tid" : "category", v[i]->id);
		put_str(j, "name", v[i]->name);
		json_end_object(j);
	}
	json_end_array(j);
	free(v);
}

void nvtx_report_json(struct json *j, const struct model *m)
{
	rows_json(j, m, "nvtx", 0);
	json_key(j, "nvtx_info");
	json_begin_object(j);
	json_key(j, "gpu_known");
	json_bool(j, nvtx_gpu_known(m));
	put_uint(j, "unmatched", m->nvtx ? m->nvtx->unmatched : 0);
	put_uint(j, "spans_not_timed", m->nvtx ? m->nvtx->spans_lost : 0);
	rows_json(j, m, "marks", 1);
	names_json(j, m, "categories", 0);
	names_json(j, m, "threads", 1);
	json_end_object(j);
}
