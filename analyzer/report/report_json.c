/* SPDX-License-Identifier: MIT */
/*
 * report_json.c - the model as one JSON object, for scripts and tests.
 * Every row is written, sorted like the text report.
 */
#include <stdlib.h>

#include "analyzer/passes/callsite.h"
#include "analyzer/passes/cost.h"
#include "analyzer/diagnosis/diagnosis.h"
#include "analyzer/passes/env.h"
#include "analyzer/passes/framework.h"
#include "analyzer/passes/gpu.h"
#include "analyzer/lib/json.h"
#include "analyzer/passes/memory.h"
#include "analyzer/passes/nccl.h"
#include "analyzer/passes/nvtx.h"
#include "analyzer/report/report.h"

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

static void put_bool(struct json *j, const char *key, int v)
{
	json_key(j, key);
	json_bool(j, v);
}

/* Calls and launch overhead of a kernel or graph row. */
static void launches(struct json *j, const struct row *r)
{
	put_uint(j, "calls", r->calls);
	put_uint(j, "launch_ns_total", r->total_ns);
	put_uint(j, "launch_ns_p50", hist_quantile(&r->hist, 0.50));
	put_uint(j, "launch_ns_p99", hist_quantile(&r->hist, 0.99));
	put_uint(j, "launch_ns_max", r->max_ns);
}

static void kernel(struct json *j, const struct row *r)
{
	put_str(j, "name", r->name);
	put_str(j, "symbol", r->symbol);
	launches(j, r);
	gpu_row_json(j, r, ROW_KERNEL);
}

static void graph(struct json *j, const struct row *r)
{
	put_uint(j, "handle", r->handle);
	launches(j, r);
	gpu_row_json(j, r, ROW_GRAPH);
}

static void copy(struct json *j, const struct row *r)
{
	put_str(j, "api", r->name);
	put_str(j, "direction", direction_name(r->direction));
	put_bool(j, "async", r->async);
	put_str(j, "memory", memory_name(r->memory));
	put_uint(j, "calls", r->calls);
	put_uint(j, "bytes", r->bytes);
	put_uint(j, "host_ns_total", r->total_ns);
	gpu_row_json(j, r, ROW_COPY);
}

static void copy_class(struct json *j, const struct model *m, const struct row *r)
{
	uint64_t bytes, ns;
	double v;

	put_str(j, "direction", direction_name(r->direction));
	put_str(j, "memory", memory_name(r->memory));
	put_bool(j, "async", r->async);
	put_uint(j, "calls", r->calls);
	put_uint(j, "bytes", r->bytes);
	put_uint(j, "host_ns_total", r->total_ns);
	report_class_gpu(m, r, &bytes, &ns);
	put_uint(j, "gpu_bytes", bytes);
	put_uint(j, "gpu_ns_total", ns);
	json_key(j, "gbps");        /* bytes over GPU time; null: not known,
				       or above the host link's rate */
	if (report_bandwidth(m, r->direction, bytes, ns, &v) == BW_OK)
		json_double(j, v);
	else
		json_null(j);
}

/* Like table(): its rows need the model for their bandwidth. */
static void copy_classes(struct json *j, const struct model *m)
{
	size_t n;
	struct row **rows = model_rows(m, ROW_COPYCLASS, &n);

	json_key(j, "copy_classes");
	json_begin_array(j);
	for (size_t i = 0; i < n; i++) {
		json_begin_object(j);
		copy_class(j, m, rows[i]);
		json_end_object(j);
	}
	json_end_array(j);
	free(rows);
}

static void hostmem(struct json *j, const struct row *r)
{
	put_str(j, "api", r->name);
	put_bool(j, "release", r->release);
	put_uint(j, "calls", r->calls);
	put_uint(j, "bytes", r->bytes);
	put_uint(j, "host_ns_total", r->total_ns);
}

static void memory(struct json *j, const struct model *m)
{
	struct pinned_allocs pa = memory_pinned_allocs(m);
	struct finding f[FIND_KINDS];
	int n = memory_findings(m, f);

	json_key(j, "pinned_allocs");
	json_begin_object(j);
	put_uint(j, "calls", pa.calls);
	put_uint(j, "bytes", pa.bytes);
	put_uint(j, "host_ns_total", pa.host_ns);
	json_end_object(j);
	json_key(j, "findings");
	json_begin_array(j);
	for (int i = 0; i < n; i++) {
		json_begin_object(j);
		put_str(j, "id", f[i].id);
		put_uint(j, "calls", f[i].calls);
		put_uint(j, "bytes", f[i].bytes);
		put_uint(j, "ns", f[i].ns);
		put_str(j, "text", f[i].text);
		json_end_object(j);
	}
	json_end_array(j);
}

static void set(struct json *j, const struct row *r)
{
	put_str(j, "api", r->name);
	put_bool(j, "async", r->async);
	put_uint(j, "calls", r->calls);
	put_uint(j, "bytes", r->bytes);
	put_uint(j, "host_ns_total", r->total_ns);
	gpu_row_json(j, r, ROW_SET);
}

static void sync(struct json *j, const struct row *r)
{
	put_str(j, "api", r->name);
	put_uint(j, "calls", r->calls);
	put_uint(j, "wait_ns_total", r->total_ns);
	put_uint(j, "wait_ns_max", r->max_ns);
	put_uint(j, "wait_ns_p50", hist_quantile(&r->hist, 0.50));
	put_uint(j, "wait_ns_p99", hist_quantile(&r->hist, 0.99));
}

static void table(struct json *j, const struct model *m, const char *key,
		  enum row_kind kind, void (*fn)(struct json *,
						 const struct row *))
{
	size_t n, i;
	struct row **rows = model_rows(m, kind, &n);

	json_key(j, key);
	json_begin_array(j);
	for (i = 0; i < n; i++) {
		json_begin_object(j);
		fn(j, rows[i]);
		json_end_object(j);
	}
	json_end_array(j);
	free(rows);
}

static void process(struct json *j, const struct model *m)
{
	json_key(j, "process");
	json_begin_object(j);
	put_uint(j, "pid", m->pid);
	put_uint(j, "ppid", m->ppid);
	put_str(j, "command", m->command);
	put_str(j, "executable", m->exe);
	json_end_object(j);
	put_str(j, "host", m->host);
	if (m->rank != UINT32_MAX)
		put_uint(j, "rank", m->rank);
}

static void notes(struct json *j, const struct model *m)
{
	size_t i;

	json_key(j, "notes");
	json_begin_array(j);
	for (i = 0; i < m->nr_notes && i < MODEL_NOTES; i++)
		json_string(j, m->notes[i].text);
	json_end_array(j);
}

void report_json(FILE *out, const struct model *m)
{
	struct json j;

	json_init(&j, out);
	json_begin_object(&j);
	put_uint(&j, "format_version", m->format_version);
	process(&j, m);
	framework_report_json(&j, m);
	put_uint(&j, "wall_ns", m->wall_ns);
	put_uint(&j, "events", m->events);
	put_uint(&j, "dropped", m->dropped);
	put_bool(&j, "ends_early", m->ends_early);
	put_uint(&j, "threads", m->threads);
	put_uint(&j, "streams", m->streams);
	notes(&j, m);
	table(&j, m, "kernels", ROW_KERNEL, kernel);
	table(&j, m, "graphs", ROW_GRAPH, graph);
	table(&j, m, "copies", ROW_COPY, copy);
	copy_classes(&j, m);
	table(&j, m, "host_memory", ROW_HOSTMEM, hostmem);
	memory(&j, m);
	table(&j, m, "sets", ROW_SET, set);
	table(&j, m, "syncs", ROW_SYNC, sync);
	nccl_report_json(&j, m);
	callsites_json(&j, m);
	nvtx_report_json(&j, m);
	diagnosis_report_json(&j, m);
	hostsample_report_json(&j, m);
	cost_report_json(&j, m);
	env_report_json(&j, m);
	json_key(&j, "gpu");            /* the GPU timeline adds its keys here */
	json_begin_object(&j);
	env_gpu_json(&j, m);
	gpu_report_json(&j, m);
	json_end_object(&j);
	json_end_object(&j);
}
