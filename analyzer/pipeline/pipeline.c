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
 *             before NVTX (which asks it for busy time)
 *   release   table order
 *
 * A pass the reports do not all need (the HTML report's timeline) runs
 * only when the command asked for it: its part of the model is set then.
 */
#include <stddef.h>
#include <stdint.h>

#include "analyzer/passes/callsite.h"
#include "analyzer/passes/cost.h"
#include "analyzer/diagnosis/diagnosis.h"
#include "analyzer/passes/env.h"
#include "analyzer/passes/gpu.h"
#include "analyzer/passes/memory.h"
#include "analyzer/model/model.h"
#include "analyzer/passes/nccl.h"
#include "analyzer/passes/nvtx.h"
#include "analyzer/passes/timeline.h"
#include "analyzer/pipeline/pipeline.h"

typedef void (*add_fn)(struct model *m, const struct dump_reader *r,
		       const struct dump_record *rec);

struct pass {
	const char *name;                   /* for the reader of this table */
	add_fn add;                         /* NULL: none */
	uint32_t events;                    /* the events it takes: KIND() of
					       their op kind, or ALL */
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

/* Launches count for NVTX ranges only once there are some (nvtx_add). */
static void nvtx_record(struct model *m, const struct dump_reader *r,
			const struct dump_record *rec)
{
	if (rec->type != DUMP_EVENT || rec->event.op->kind != GT_KIND_LAUNCH ||
	    m->nvtx)
		nvtx_add(m, r, rec);
}

/* The HTML report's timeline, when asked for (loader_model_with()). */
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

static const struct pass passes[] = {
	{ "nccl",       nccl_add,         KIND(GT_KIND_NCCL),
	  NULL,             nccl_release },
	{ "env",        env_add,          0,
	  NULL,             env_release },
	{ "gpu",        gpu_add,          0,
	  gpu_finish,       gpu_release },
	{ "nvtx",       nvtx_record,      KIND(GT_KIND_NVTX) | KIND(GT_KIND_LAUNCH),
	  nvtx_finish_busy, nvtx_release },
	{ "diagnosis",  diagnosis_add,    ALL,
	  diagnosis_finish, diagnosis_release },
	{ "cost",       cost_record,      0,
	  cost_finish,      cost_release },
	{ "model",      model_core_add,   ALL,
	  NULL,             model_core_release },
	{ "memory",     memory_record,    ALL,
	  NULL,             memory_release },
	{ "callsites",  callsites_record, KIND(GT_KIND_SYNC) | KIND(GT_KIND_COPY) |
					  KIND(GT_KIND_NCCL) | KIND(GT_KIND_HOSTALLOC),
	  NULL,             callsites_release },
	{ "gpu-events", gpu_event_record, ALL,
	  NULL,             NULL },
	{ "timeline",   timeline_record,  ALL,
	  NULL,             timeline_release },
};
#define NPASSES (sizeof(passes) / sizeof(passes[0]))

/* Most records are events: each goes only to the passes that take its
 * kind. */
void pipeline_add(struct model *m, const struct dump_reader *r,
		  const struct dump_record *rec)
{
	int event = rec->type == DUMP_EVENT;
	uint32_t kind = event ? KIND(rec->event.op->kind) : 0;

#pragma GCC unroll 16   /* direct calls: the table is constant */
	for (size_t i = 0; i < NPASSES; i++)
		if (passes[i].add && (!event || (passes[i].events & kind)))
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
}
