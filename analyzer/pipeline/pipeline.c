/* SPDX-License-Identifier: MIT */
/*
 * pipeline.c - the passes a dump's records go through, in one table, in
 * the order they run (pipeline.h).  Only this file knows them all: the
 * model (model.c) holds the shared tables, each pass its own part of the
 * model, and what one pass needs from another is given to it here.
 *
 *   add       each record, in table order: the GPU records' clock fit
 *             before the diagnosis, the model's rows before the passes
 *             that take an event's row
 *   finish    the model's totals, then table order: the GPU timeline
 *             before NVTX (which asks it for busy time), the framework
 *             before the diagnosis (which words its advice for it)
 *   release   table order
 *
 * A pass the reports do not all need (the HTML report's timeline) runs
 * only when the command asked for it: its part of the model is set then.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "analyzer/passes/callsite.h"
#include "analyzer/passes/cost.h"
#include "analyzer/diagnosis/diagnosis.h"
#include "analyzer/passes/env.h"
#include "analyzer/passes/framework.h"
#include "analyzer/passes/gpu.h"
#include "analyzer/passes/hostsample.h"
#include "analyzer/passes/memory.h"
#include "analyzer/model/model.h"
#include "analyzer/passes/nccl.h"
#include "analyzer/passes/nvtx.h"
#include "analyzer/passes/timeline.h"
#include "analyzer/pipeline/pipeline.h"

typedef void (*add_fn)(struct model *m, const struct dump_reader *r,
		       const struct dump_record *rec);

/* What a pass's part of the model must be for it to take some events. */
enum gate {
	ANY,
	WITH_NVTX,                          /* m->nvtx set */
	WITH_GPU,                           /* m->gpu set */
	WITH_TIMELINE,                      /* m->timeline set */
};

struct pass {
	const char *name;                   /* for the reader of this table */
	add_fn add;                         /* NULL: none */
	uint32_t events;                    /* the events it takes: KIND() of
					       their op kind, or ALL */
	uint32_t gated;                     /* those it takes only while gate
					       holds: no call at all else */
	enum gate gate;
	void (*finish)(struct model *m);
	void (*release)(struct model *m);
};

/* ---- what the passes' own entry points take, from a record ------------- */

static void cost_record(struct model *m, const struct dump_reader *r,
			const struct dump_record *rec)
{
	(void)r;
	cost_add(m, rec);
}

static void memory_record(struct model *m, const struct dump_reader *r,
			  const struct dump_record *rec)
{
	(void)r;
	if (rec->type == DUMP_EVENT)
		memory_add_event(m, &rec->event);
}

static void callsites_record(struct model *m, const struct dump_reader *r,
			     const struct dump_record *rec)
{
	if (rec->type == DUMP_EVENT)
		callsites_add_event(m, &rec->event);
	else if (rec->type == DUMP_STACK || rec->type == DUMP_MODULES)
		callsites_add_record(m, r, rec);
}

/* A host event and the model's row of it, for the join to GPU records. */
static void gpu_event_record(struct model *m, const struct dump_reader *r,
			     const struct dump_record *rec)
{
	if (rec->type == DUMP_EVENT)
		gpu_add_event(m, r, &rec->event, m->ev_row);
}

/* The HTML report's timeline, when asked for (loader_model_with()): its
 * events come only then (WITH_TIMELINE), the other records always. */
static void timeline_record(struct model *m, const struct dump_reader *r,
			    const struct dump_record *rec)
{
	if (m->timeline)
		timeline_add(m, r, rec);
}

static void nvtx_finish_busy(struct model *m)
{
	nvtx_finish(m, gpu_has_records(m) ? gpu_busy_between : NULL);
}

/* Kinds of op 31 and up share the last bit. */
#define KIND(k) (1u << ((k) < 31 ? (k) : 31))
#define ALL UINT32_MAX
/* Events of CUDA calls: host samples are not calls (hostsample.h). */
#define CALLS (ALL & ~KIND(GT_KIND_HOSTSAMPLE))

/* Launches count for NVTX ranges only once there are some (nvtx_add);
 * host events join GPU records only once there are some (gpu_add_event). */
static const struct pass passes[] = {
	{ "nccl",       nccl_add,         KIND(GT_KIND_NCCL), 0, ANY,
	  NULL,             nccl_release },
	{ "env",        env_add,          0, 0, ANY,
	  NULL,             env_release },
	{ "gpu",        gpu_add,          0, 0, ANY,
	  gpu_finish,       gpu_release },
	{ "nvtx",       nvtx_add,         KIND(GT_KIND_NVTX),
			KIND(GT_KIND_LAUNCH), WITH_NVTX,
	  nvtx_finish_busy, nvtx_release },
	{ "framework",  framework_add,    0, 0, ANY,
	  framework_finish, framework_release },
	{ "hostsamples", hostsamples_add, KIND(GT_KIND_HOSTSAMPLE), 0, ANY,
	  hostsamples_finish, hostsamples_release },
	{ "diagnosis",  diagnosis_add,    CALLS, 0, ANY,
	  diagnosis_finish, diagnosis_release },
	{ "cost",       cost_record,      0, 0, ANY,
	  NULL,             cost_release },
	{ "model",      model_core_add,   CALLS, 0, ANY,
	  NULL,             model_core_release },
	{ "memory",     memory_record,    CALLS, 0, ANY,
	  NULL,             memory_release },
	{ "callsites",  callsites_record, KIND(GT_KIND_SYNC) | KIND(GT_KIND_COPY) |
					  KIND(GT_KIND_NCCL) | KIND(GT_KIND_HOSTALLOC),
			0, ANY,
	  NULL,             callsites_release },
	{ "gpu-events", gpu_event_record, 0, CALLS, WITH_GPU,
	  NULL,             NULL },
	{ "timeline",   timeline_record,  0, CALLS, WITH_TIMELINE,
	  NULL,             timeline_release },
};
#define NPASSES (sizeof(passes) / sizeof(passes[0]))

/* Inline: the gate of a pass is a test in the loop, not a call. */
static ALWAYS_INLINE int gate_open(const struct model *m, enum gate gate)
{
	switch (gate) {
	case WITH_NVTX:
		return m->nvtx != NULL;
	case WITH_GPU:
		return m->gpu != NULL;
	case WITH_TIMELINE:
		return m->timeline != NULL;
	default:
		return 1;
	}
}

static ALWAYS_INLINE int takes(const struct pass *p, const struct model *m,
			       uint32_t kind)
{
	return (p->events & kind) ||
	       ((p->gated & kind) && gate_open(m, p->gate));
}

/* A record other than an event, to every pass: out of line (they are
 * few), the events' loop alone goes inline into the reading loop. */
static NOINLINE void add_record(struct model *m, const struct dump_reader *r,
				const struct dump_record *rec)
{
#pragma GCC unroll 16
	for (size_t i = 0; i < NPASSES; i++)
		if (passes[i].add)
			passes[i].add(m, r, rec);
}

/* Most records are events: each goes only to the passes that take its
 * kind.  Inline in the reading loop (link-time optimization). */
ALWAYS_INLINE void pipeline_add(struct model *m, const struct dump_reader *r,
				const struct dump_record *rec)
{
	uint32_t kind;

	if (rec->type != DUMP_EVENT) {
		add_record(m, r, rec);
		return;
	}
	kind = KIND(rec->event.op->kind);
#pragma GCC unroll 16   /* direct calls: the table is constant */
	for (size_t i = 0; i < NPASSES; i++)
		if (passes[i].add && takes(&passes[i], m, kind))
			passes[i].add(m, r, rec);
}

void pipeline_finish(struct model *m, int ends_early)
{
	model_core_finish(m, ends_early);
	for (size_t i = 0; i < NPASSES; i++)
		if (passes[i].finish)
			passes[i].finish(m);
}

void pipeline_release(struct model *m)
{
	for (size_t i = 0; i < NPASSES; i++)
		if (passes[i].release)
			passes[i].release(m);
	pipeline_release_workers(m);
}

void pipeline_release_workers(struct model *m)
{
	for (size_t i = 0; i < m->nworkers; i++) {
		pipeline_release(m->workers[i]);
		free(m->workers[i]);
	}
	free(m->workers);
	m->workers = NULL;
	m->nworkers = 0;
}
