/* SPDX-License-Identifier: MIT */
/*
 * diff.c - --diff BEFORE AFTER (diff.h): the measures of both runs side
 * by side, the findings each has, then kernels, copy classes and waits
 * by the size of their change.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/report/diff.h"
#include "analyzer/export/export_facts.h"
#include "analyzer/lib/json.h"
#include "analyzer/passes/memory.h"
#include "analyzer/passes/nccl.h"
#include "analyzer/pipeline/pipeline.h"
#include "analyzer/lib/progress.h"
#include "analyzer/report/report.h"
#include "analyzer/reader/stdin_dump.h"
#include "analyzer/lib/table.h"
#include "analyzer/lib/units.h"
#include "analyzer/lib/util.h"

enum unit { U_NS, U_COUNT, U_BYTES, U_SHARE };

struct measure {
	const char *name;           /* text */
	const char *key;            /* JSON */
	enum unit unit;
	int known[2];
	double v[2];
};

#define MEASURES 16
#define DBUF 64                     /* a change: two numbers and a unit */

static uint64_t total(const struct model *m, enum row_kind kind, int bytes)
{
	size_t n;
	struct row **rows = model_rows(m, kind, &n);
	uint64_t t = 0;

	for (size_t i = 0; i < n; i++)
		t += bytes ? rows[i]->bytes : rows[i]->total_ns;
	free(rows);
	return t;
}

static uint64_t nccl_total(const struct model *m)
{
	size_t n;
	struct nccl_op **ops = nccl_ops(m, &n);
	uint64_t t = 0;

	for (size_t i = 0; i < n; i++)
		t += ops[i]->host_ns;
	free(ops);
	return t;
}

static void set(struct measure *me, int side, double v)
{
	me->known[side] = 1;
	me->v[side] = v;
}

/* The measures of one side. */
static void measure_side(struct measure *me, int s, const struct model *m)
{
	struct facts_steps st;
	uint64_t busy, span;

	set(&me[0], s, (double)m->wall_ns);
	set(&me[1], s, (double)m->events);
	if (facts_steps(m, &st)) {
		set(&me[2], s, (double)st.count);
		set(&me[3], s, (double)st.mean_ns);
	}
	if (facts_gpu_busy(m, &busy, &span))
		set(&me[4], s, (double)busy / (double)span);
	set(&me[5], s, (double)total(m, ROW_SYNC, 0));
	set(&me[6], s, (double)total(m, ROW_COPY, 0));
	set(&me[7], s, (double)total(m, ROW_COPY, 1));
	set(&me[8], s, (double)(total(m, ROW_KERNEL, 0) + total(m, ROW_GRAPH, 0)));
	set(&me[9], s, (double)total(m, ROW_HOSTMEM, 0));
	set(&me[10], s, (double)nccl_total(m));
}

static size_t measures(struct measure *me, const struct model *a,
		       const struct model *b)
{
	static const struct measure init[] = {
		{ "wall time", "wall_ns", U_NS, {0}, {0} },
		{ "events", "events", U_COUNT, {0}, {0} },
		{ "steps", "steps", U_COUNT, {0}, {0} },
		{ "step time (mean)", "step_ns_mean", U_NS, {0}, {0} },
		{ "GPU busy", "gpu_busy_share", U_SHARE, {0}, {0} },
		{ "waiting for the GPU", "sync_ns", U_NS, {0}, {0} },
		{ "copies (host time)", "copy_ns", U_NS, {0}, {0} },
		{ "bytes copied", "copy_bytes", U_BYTES, {0}, {0} },
		{ "kernel launches (host time)", "launch_ns", U_NS, {0}, {0} },
		{ "pinned memory calls", "hostmem_ns", U_NS, {0}, {0} },
		{ "NCCL calls (host time)", "nccl_host_ns", U_NS, {0}, {0} },
	};
	size_t n = ARRAY_SIZE(init);

	memcpy(me, init, sizeof(init));
	measure_side(me, 0, a);
	measure_side(me, 1, b);
	return n;
}

/* ---- text --------------------------------------------------------------- */

static const char *value(char *buf, enum unit u, int known, double v)
{
	if (!known)
		return "-";
	switch (u) {
	case U_NS: return fmt_ns(buf, UNITS_BUF, sat_from_double(v));
	case U_BYTES: return fmt_bytes(buf, UNITS_BUF, sat_from_double(v));
	case U_SHARE: snprintf(buf, UNITS_BUF, "%.1f%%", 100 * v); return buf;
	default: snprintf(buf, UNITS_BUF, "%.0f", v); return buf;
	}
}

static const char *delta(char *buf, enum unit u, const int *known,
			 const double *v)
{
	double d = v[1] - v[0];
	char tmp[UNITS_BUF];

	if (!known[0] || !known[1])
		return "-";
	if (u == U_SHARE) {
		snprintf(buf, DBUF, "%+.1f pts", 100 * d);
		return buf;
	}
	value(tmp, u, 1, d < 0 ? -d : d);
	if (v[0] > 0)
		snprintf(buf, DBUF, "%c%s (%+.0f%%)", d < 0 ? '-' : '+', tmp,
			 100 * d / v[0]);
	else
		snprintf(buf, DBUF, "%c%s", d < 0 ? '-' : '+', tmp);
	return buf;
}

static void measures_text(FILE *out, const struct measure *me, size_t n)
{
	static const struct table_column cols[] = {
		{ "Measure", 1 }, { "Before", 0 }, { "After", 0 }, { "Change", 0 },
	};
	char b[4][DBUF];
	struct table t;

	table_init(&t, cols, ARRAY_SIZE(cols));
	for (size_t i = 0; i < n; i++) {
		const char *cells[] = {
			me[i].name, value(b[1], me[i].unit, me[i].known[0], me[i].v[0]),
			value(b[2], me[i].unit, me[i].known[1], me[i].v[1]),
			delta(b[3], me[i].unit, me[i].known, me[i].v),
		};

		if (me[i].known[0] || me[i].known[1])
			table_add(&t, cells);
	}
	table_print(out, &t, report_width());
	table_release(&t);
	if (me[4].known[0] || me[4].known[1])
		report_line(out, "  GPU busy: " FACTS_BUSY_MEANS);
}

static void lines_text(FILE *out, const char *title, const struct diff_table *t,
		       size_t top, int bytes)
{
	static const struct table_column cols[] = {
		{ "Name", 1 }, { "Calls before", 0 }, { "Calls after", 0 },
		{ "Before", 0 }, { "After", 0 }, { "Change", 0 },
	};
	char b[6][DBUF];
	struct table tb;
	size_t shown = top && top < t->n ? top : t->n;

	fprintf(out, "\n%s\n", title);
	if (!t->n) {
		fputs("  (none)\n", out);
		return;
	}
	table_init(&tb, cols, ARRAY_SIZE(cols));
	if (shown && t->v[0].kernel)
		table_kernel_names(&tb);
	for (size_t i = 0; i < shown; i++) {
		const struct diff_line *l = &t->v[i];
		double v[2] = { (double)l->value[0], (double)l->value[1] };
		int known[2] = { 1, 1 };
		const char *cells[] = {
			l->name,
			value(b[1], U_COUNT, 1, (double)l->calls[0]),
			value(b[2], U_COUNT, 1, (double)l->calls[1]),
			value(b[3], U_NS, 1, v[0]), value(b[4], U_NS, 1, v[1]),
			delta(b[5], U_NS, known, v),
		};

		table_add(&tb, cells);
	}
	table_print(out, &tb, report_width());
	table_release(&tb);
	if (shown < t->n)
		fprintf(out, "  ... %zu more\n", t->n - shown);
	(void)bytes;
}

static void findings_text(FILE *out, const char *side, const struct model *m)
{
	struct finding f[FIND_KINDS];
	int n = memory_findings(m, f);
	char *verdict = facts_verdict(m);

	report_line(out, "  %s: %s", side, verdict ? verdict :
		    "(no diagnosis: the findings below are what this analyzer says)");
	for (int i = 0; i < n; i++)
		fprintf(out, "    - %s: %" PRIu64 " call%s\n", f[i].id, f[i].calls,
			plural(f[i].calls, "", "s"));
	if (!n)
		fprintf(out, "    - no findings\n");
	free(verdict);
}

static void causes_text(FILE *out, const struct model *a, const struct model *b)
{
	struct facts_cause c[2][FACTS_MAX_CAUSES];
	int n[2] = { facts_idle_causes(a, c[0], FACTS_MAX_CAUSES),
		     facts_idle_causes(b, c[1], FACTS_MAX_CAUSES) };
	char x[UNITS_BUF];

	if (!n[0] && !n[1])
		return;
	fprintf(out, "\nGPU idle causes\n");
	for (int s = 0; s < 2; s++)
		for (int i = 0; i < n[s]; i++)
			fprintf(out, "  %-6s %-30s %s\n", s ? "after" : "before",
				c[s][i].name, fmt_ns(x, sizeof(x), c[s][i].ns));
}

void diff_text(FILE *out, const char *pa, const char *pb,
	       const struct model *a, const struct model *b, size_t top)
{
	struct measure me[MEASURES];
	size_t n = measures(me, a, b);
	struct diff_table t;

	fputs("gputrace diff\n", out);
	report_line(out, "  before: %s (%s)", dump_name(pa),
		    *a->command ? a->command : a->exe);
	report_line(out, "  after:  %s (%s)", dump_name(pb),
		    *b->command ? b->command : b->exe);
	fputc('\n', out);
	measures_text(out, me, n);
	causes_text(out, a, b);
	fprintf(out, "\nVerdicts\n");
	findings_text(out, "before", a);
	findings_text(out, "after", b);
	diff_rows(a, b, ROW_KERNEL, &t);
	lines_text(out, t.n && t.v[0].gpu ? "Kernels (GPU time), largest change "
		   "first" : "Kernels (launch host time), largest change first",
		   &t, top, 0);
	diff_table_free(&t);
	diff_rows(a, b, ROW_COPYCLASS, &t);
	lines_text(out, "Copy classes (host time), largest change first", &t, top, 1);
	diff_table_free(&t);
	diff_rows(a, b, ROW_SYNC, &t);
	lines_text(out, "Waits (host time), largest change first", &t, top, 0);
	diff_table_free(&t);
}

/* ---- JSON --------------------------------------------------------------- */

static void side_values(struct json *j, const struct measure *me, int s)
{
	json_key(j, s ? "after" : "before");
	if (!me->known[s])
		json_null(j);
	else if (me->unit == U_SHARE)
		json_double(j, me->v[s]);
	else
		json_uint(j, sat_from_double(me->v[s]));
}

static void lines_json(struct json *j, const char *key, const struct diff_table *t)
{
	json_key(j, key);
	json_begin_array(j);
	for (size_t i = 0; i < t->n; i++) {
		const struct diff_line *l = &t->v[i];

		json_begin_object(j);
		json_key(j, "name");
		json_string(j, l->name);
		json_key(j, "calls_before");
		json_uint(j, l->calls[0]);
		json_key(j, "calls_after");
		json_uint(j, l->calls[1]);
		json_key(j, "ns_before");
		json_uint(j, l->value[0]);
		json_key(j, "ns_after");
		json_uint(j, l->value[1]);
		json_key(j, "delta_ns");
		json_int(j, (int64_t)(l->value[1] - l->value[0]));
		json_key(j, "bytes_before");
		json_uint(j, l->bytes[0]);
		json_key(j, "bytes_after");
		json_uint(j, l->bytes[1]);
		json_key(j, "gpu_time");
		json_bool(j, l->gpu);
		json_end_object(j);
	}
	json_end_array(j);
}

static void side_json(struct json *j, const char *key, const char *path,
		      const struct model *m)
{
	struct finding f[FIND_KINDS];
	int n = memory_findings(m, f);
	char *verdict = facts_verdict(m);

	json_key(j, key);
	json_begin_object(j);
	json_key(j, "path");
	json_string(j, dump_name(path));
	json_key(j, "command");
	json_string(j, m->command);
	json_key(j, "verdict");
	verdict ? json_string(j, verdict) : json_null(j);
	json_key(j, "findings");
	json_begin_array(j);
	for (int i = 0; i < n; i++)
		json_string(j, f[i].id);
	json_end_array(j);
	json_end_object(j);
	free(verdict);
}

static void table_json(struct json *j, const char *key, const struct model *a,
		       const struct model *b, enum row_kind kind)
{
	struct diff_table t;

	diff_rows(a, b, kind, &t);
	lines_json(j, key, &t);
	diff_table_free(&t);
}

void diff_json(FILE *out, const char *pa, const char *pb,
	       const struct model *a, const struct model *b)
{
	struct measure me[MEASURES];
	size_t n = measures(me, a, b);
	struct json j;

	json_init(&j, out);
	json_begin_object(&j);
	side_json(&j, "before", pa, a);
	side_json(&j, "after", pb, b);
	json_key(&j, "measures");
	json_begin_object(&j);
	for (size_t i = 0; i < n; i++) {
		json_key(&j, me[i].key);
		json_begin_object(&j);
		side_values(&j, &me[i], 0);
		side_values(&j, &me[i], 1);
		json_end_object(&j);
	}
	json_end_object(&j);
	table_json(&j, "kernels", a, b, ROW_KERNEL);
	table_json(&j, "copy_classes", a, b, ROW_COPYCLASS);
	table_json(&j, "syncs", a, b, ROW_SYNC);
	json_end_object(&j);
}
