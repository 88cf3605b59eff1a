/* SPDX-License-Identifier: MIT */
/*
 * export_trace_misc.c - the rest of the timeline: NVTX ranges and marks
 * on their threads (pushes as B/E, started ranges as async b/e, marks as
 * instants), NCCL's profiler records on a track per communicator (the
 * enqueue, and the GPU span when the GPU's time can be put on the host
 * clock), counters from the samples (GPU utilization, clocks, power,
 * temperature; the process's CPU use in cores, host iowait), and the
 * process's name.  With --perfetto, the same through export_perfetto.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/passes/env.h"
#include "analyzer/export/export_trace_internal.h"
#include "analyzer/lib/util.h"

#define NCCL_GPU_TID (TRACE_NCCL_TID + 100000000u)
#define SEC 1000000000ull

void trace_process(struct trace *t, const struct dump_process *p)
{
	char *name;

	if (t->d->label)
		name = xasprintf("%s: %s (pid %u, %s)", t->d->label, p->exe,
				 p->pid, p->host);
	else
		name = xasprintf("%s (pid %u, %s)", p->exe, p->pid, p->host);
	if (t->pf) {
		pft_process(t, name);
		free(name);
		return;
	}
	trace_begin(t, "M");
	xo_str(&t->o, "0,\"name\":\"process_name\",\"args\":{\"name\":");
	xo_qstr(&t->o, name);
	xo_str(&t->o, "}}");
	trace_begin(t, "M");
	xo_str(&t->o, "0,\"name\":\"process_sort_index\",\"args\":{\"sort_index\":");
	xo_u64(&t->o, t->d->index);
	xo_str(&t->o, "}}");
	free(name);
}

static void at(struct trace *t, uint64_t tid, uint64_t host_ns)
{
	xo_u64(&t->o, tid);
	xo_str(&t->o, ",\"ts\":");
	xo_us(&t->o, trace_ts(t, host_ns));
}

static void nvtx_name(struct trace *t, const struct dump_reader *r,
		      const struct dump_event *ev)
{
	uintptr_t dom = (uintptr_t)hmap_get_int(&t->domains, ev->arg[GT_ARG_NVTX_DOMAIN]);

	xo_str(&t->o, ",\"name\":");
	xo_str(&t->o, trace_str(t, r, (uint32_t)ev->arg[GT_ARG_NVTX_MSG]));
	xo_str(&t->o, ",\"cat\":\"nvtx\",\"args\":{\"domain\":");
	xo_str(&t->o, dom > 1 ? trace_str(t, r, (uint32_t)(dom - 1)) : "\"\"");
	xo_str(&t->o, ",\"category\":");
	xo_u64(&t->o, ev->arg[GT_ARG_NVTX_CATEGORY]);
	xo_ch(&t->o, '}');
}

static void async_id(struct trace *t, uint64_t range)
{
	xo_str(&t->o, ",\"cat\":\"nvtx\",\"id\":\"");
	xo_u64(&t->o, t->d->index);
	xo_ch(&t->o, ':');
	xo_u64(&t->o, range);
	xo_ch(&t->o, '"');
}

static void pf_nvtx(struct trace *t, const struct dump_reader *r,
		    const struct dump_event *ev)
{
	static const enum pft_kind kind[] = {
		[GT_NVTX_PUSH] = PFT_BEGIN, [GT_NVTX_POP] = PFT_END,
		[GT_NVTX_START] = PFT_BEGIN, [GT_NVTX_END] = PFT_END,
		[GT_NVTX_MARK] = PFT_INSTANT,
	};
	uintptr_t dom = (uintptr_t)hmap_get_int(&t->domains, ev->arg[GT_ARG_NVTX_DOMAIN]);
	uint8_t op = ev->op->direction;
	struct pft_slice e = { .tid = ev->tid, .t0 = ev->t0, .cat = "nvtx",
			       .name = trace_text(r, (uint32_t)ev->arg[GT_ARG_NVTX_MSG]) };

	pft_str(&e, "domain", dom > 1 ? trace_text(r, (uint32_t)(dom - 1)) : "");
	pft_u64(&e, "category", ev->arg[GT_ARG_NVTX_CATEGORY]);
	if (op == GT_NVTX_START || op == GT_NVTX_END)
		pft_range(t, kind[op], ev->arg[GT_ARG_NVTX_RANGE], &e);
	else
		pft_event(t, kind[op], &e);
}

void trace_nvtx(struct trace *t, const struct dump_reader *r,
		const struct dump_event *ev)
{
	static const char *const ph[] = {
		[GT_NVTX_PUSH] = "B", [GT_NVTX_POP] = "E", [GT_NVTX_START] = "b",
		[GT_NVTX_END] = "e", [GT_NVTX_MARK] = "i",
	};
	uint8_t op = ev->op->direction;

	if (op == GT_NVTX_NAME_THREAD) {
		trace_thread_name(t, ev->arg[GT_ARG_NVTX_CATEGORY],
				  trace_text(r, (uint32_t)ev->arg[GT_ARG_NVTX_MSG]), -1);
		return;
	}
	if (op >= ARRAY_SIZE(ph) || !ph[op])
		return;
	if (t->pf) {
		pf_nvtx(t, r, ev);
		return;
	}
	trace_begin(t, ph[op]);
	at(t, ev->tid, ev->t0);
	if (op == GT_NVTX_START || op == GT_NVTX_END)
		async_id(t, ev->arg[GT_ARG_NVTX_RANGE]);
	if (op == GT_NVTX_MARK)
		xo_str(&t->o, ",\"s\":\"t\"");
	if (op != GT_NVTX_POP && op != GT_NVTX_END)
		nvtx_name(t, r, ev);
	xo_ch(&t->o, '}');
}

/* ---- NCCL's profiler plugin --------------------------------------------- */

static void comm_tracks(struct trace *t, uint32_t comm)
{
	char name[48];

	if (hmap_get_int(&t->comms, comm))
		return;
	hmap_put_int(&t->comms, comm, (void *)1);
	snprintf(name, sizeof(name), "NCCL comm %u: enqueue", comm);
	trace_thread_name(t, TRACE_NCCL_TID + comm, name, 90000 + (int)(comm % 1000) * 2);
	snprintf(name, sizeof(name), "NCCL comm %u: GPU", comm);
	trace_thread_name(t, NCCL_GPU_TID + comm, name, 90001 + (int)(comm % 1000) * 2);
}

static void nccl_args(struct trace *t, const struct dump_reader *r,
		      const struct gt_nccl_prof *p)
{
	xo_str(&t->o, ",\"cat\":\"nccl\",\"args\":{\"count\":");
	xo_u64(&t->o, p->count);
	xo_str(&t->o, ",\"seq\":");
	xo_u64(&t->o, p->seq);
	xo_str(&t->o, ",\"datatype\":");
	xo_str(&t->o, trace_str(t, r, p->dtype_str));
	xo_str(&t->o, ",\"algorithm\":");
	xo_str(&t->o, trace_str(t, r, p->algo_str));
	xo_str(&t->o, ",\"protocol\":");
	xo_str(&t->o, trace_str(t, r, p->proto_str));
	xo_str(&t->o, ",\"channels\":");
	xo_u64(&t->o, p->channels);
	if (p->peer >= 0) {
		xo_str(&t->o, ",\"root_or_peer\":");
		xo_i64(&t->o, p->peer);
	}
	xo_str(&t->o, "}}");
}

static void pf_nccl_slice(struct trace *t, const struct dump_reader *r,
			  const struct gt_nccl_prof *p, uint64_t tid,
			  uint64_t h0, uint64_t h1)
{
	struct pft_slice e = { .tid = tid, .t0 = h0, .dur = h1 - h0,
			       .name = trace_text(r, p->func_str), .cat = "nccl" };

	pft_u64(&e, "count", p->count);
	pft_u64(&e, "seq", p->seq);
	pft_str(&e, "datatype", trace_text(r, p->dtype_str));
	pft_str(&e, "algorithm", trace_text(r, p->algo_str));
	pft_str(&e, "protocol", trace_text(r, p->proto_str));
	pft_u64(&e, "channels", p->channels);
	if (p->peer >= 0)
		pft_i64(&e, "root_or_peer", p->peer);
	pft_event(t, PFT_SLICE, &e);
}

static void nccl_slice(struct trace *t, const struct dump_reader *r,
		       const struct gt_nccl_prof *p, uint64_t tid,
		       uint64_t h0, uint64_t h1)
{
	if (!trace_in(t, h0, h1))
		return;
	if (t->pf) {
		pf_nccl_slice(t, r, p, tid, h0, h1);
		return;
	}
	trace_begin(t, "X");
	at(t, tid, h0);
	xo_str(&t->o, ",\"dur\":");
	xo_us(&t->o, h1 - h0);
	xo_str(&t->o, ",\"name\":");
	xo_str(&t->o, trace_str(t, r, p->func_str));
	nccl_args(t, r, p);
}

static void nccl_one(struct trace *t, const struct dump_reader *r,
		     const struct gt_nccl_prof *p)
{
	uint64_t g0, g1;

	comm_tracks(t, p->comm);
	if (p->start_ns && p->stop_ns >= p->start_ns)
		nccl_slice(t, r, p, TRACE_NCCL_TID + p->comm, p->start_ns,
			   p->stop_ns);
	if (!p->gpu_stop || p->gpu_stop < p->gpu_start)
		return;
	g0 = trace_globaltimer(t, p->gpu_start);
	g1 = g0 + (p->gpu_stop - p->gpu_start);
	/* a GPU time that maps far from its enqueue is not understood */
	if (g0 && g0 + SEC / 1000 >= p->start_ns && g0 <= p->stop_ns + 60 * SEC)
		nccl_slice(t, r, p, NCCL_GPU_TID + p->comm, g0, g1);
}

void trace_nccl_prof(struct trace *t, const struct dump_reader *r,
		     const struct dump_record *rec)
{
	const uint8_t *p = rec->nccl_prof.recs;
	struct gt_nccl_prof one;
	uint32_t i;

	for (i = 0; i < rec->nccl_prof.count; i++) {
		memcpy(&one, p + (size_t)i * rec->nccl_prof.size, sizeof(one));
		nccl_one(t, r, &one);
	}
}

/* ---- counters from the samples ------------------------------------------ */

static void counter(struct trace *t, uint64_t host_ns, const char *name,
		    double v)
{
	char num[32];

	if (!trace_in(t, host_ns, host_ns))
		return;
	if (t->pf) {
		pft_counter(t, host_ns, name, v);
		return;
	}
	snprintf(num, sizeof(num), "%.4g", v);
	trace_begin(t, "C");
	at(t, 0, host_ns);
	xo_str(&t->o, ",\"name\":");
	xo_qstr(&t->o, name);
	xo_str(&t->o, ",\"args\":{\"value\":");
	xo_str(&t->o, num);
	xo_str(&t->o, "}}");
}

static void device_item(struct trace *t, uint64_t ts, uint32_t dev,
			const struct env_item *it)
{
	static const struct { uint16_t key; const char *what; double scale; } k[] = {
		{ GT_SAMPLE_UTIL_GPU, "utilization (%)", 1 },
		{ GT_SAMPLE_UTIL_MEM, "memory utilization (%)", 1 },
		{ GT_SAMPLE_CLOCK_SM, "SM clock (MHz)", 1 },
		{ GT_SAMPLE_CLOCK_MEM, "memory clock (MHz)", 1 },
		{ GT_SAMPLE_POWER, "power (W)", 1e-3 },
		{ GT_SAMPLE_TEMP, "temperature (C)", 1 },
		{ GT_SAMPLE_MEM_USED, "memory used (GiB)", 1.0 / (1 << 30) },
	};
	char name[64];

	if (it->status != GT_INFO_OK)
		return;
	for (size_t i = 0; i < ARRAY_SIZE(k); i++)
		if (k[i].key == it->key) {
			snprintf(name, sizeof(name), "GPU %u %s", dev, k[i].what);
			counter(t, ts, name, (double)it->value * k[i].scale);
		}
}

/* CPU use in cores from the cumulative counters of two samples. */
static void host_sample(struct trace *t, uint64_t ts, const struct trace_cpu *now)
{
	struct trace_cpu *was = &t->cpu;
	double dt;

	if (was->have && ts > was->t) {
		dt = (double)(ts - was->t);
		counter(t, ts, "process CPU (cores)", (double)(now->cpu - was->cpu) / dt);
		counter(t, ts, "child processes CPU (cores)",
			(double)(now->child - was->child) / dt);
		if (now->total > was->total)
			counter(t, ts, "host iowait (%)", 100.0 *
				(double)(now->iowait - was->iowait) /
				(double)(now->total - was->total));
	}
	*was = *now;
	was->have = 1;
	was->t = ts;
}

void trace_sample(struct trace *t, const struct dump_record *rec)
{
	const void *pos = rec->info.items;
	const void *end = (const uint8_t *)pos + rec->info.size;
	uint32_t scope = rec->info.h.scope;
	struct trace_cpu now = { 0 };
	struct env_item it;

	while (env_item_next(&pos, end, &it)) {
		uint64_t v = it.status == GT_INFO_OK && it.value > 0 ?
			     (uint64_t)it.value : 0;

		if (scope < GT_SCOPE_CUDA)
			device_item(t, rec->info.h.time_ns, scope, &it);
		else if (scope == GT_SCOPE_HOST && it.key >= GT_SAMPLE_CPU_USER)
			switch (it.key) {
			case GT_SAMPLE_CPU_USER: case GT_SAMPLE_CPU_SYS:
				now.cpu += v; break;
			case GT_SAMPLE_CHILD_USER: case GT_SAMPLE_CHILD_SYS:
				now.child += v; break;
			case GT_SAMPLE_HOST_TOTAL: now.total = v; break;
			case GT_SAMPLE_HOST_IOWAIT: now.iowait = v; break;
			}
	}
	if (scope == GT_SCOPE_HOST)
		host_sample(t, rec->info.h.time_ns, &now);
}
