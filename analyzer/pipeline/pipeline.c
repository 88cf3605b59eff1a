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
 */
#include <stddef.h>

#include "analyzer/passes/callsite.h"
#include "analyzer/passes/cost.h"
#include "analyzer/diagnosis/diagnosis.h"
#include "analyzer/passes/env.h"
#include "analyzer/passes/gpu.h"
#include "analyzer/passes/memory.h"
#include "analyzer/model/model.h"
#include "analyzer/passes/nccl.h"
#include "analyzer/passes/nvtx.h"
#include "analyzer/pipeline/pipeline.h"

typedef void (*add_fn)(struct model *m, const struct dump_reader *r,
		       const struct dump_record *rec);

struct pass {
	const char *name;                   /* for the reader of this table */
	add_fn add;                         /* NULL: none */
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

static void nvtx_finish_busy(struct model *m)
{
	nvtx_finish(m, gpu_has_records(m) ? gpu_busy_between : NULL);
}

static const struct pass passes[] = {
	{ "nccl",       nccl_add,         NULL,             nccl_release },
	{ "env",        env_add,          NULL,             env_release },
	{ "gpu",        gpu_add,          gpu_finish,       gpu_release },
	{ "nvtx",       nvtx_add,         nvtx_finish_busy, nvtx_release },
	{ "diagnosis",  diagnosis_add,    diagnosis_finish, diagnosis_release },
	{ "cost",       cost_record,      cost_finish,      cost_release },
	{ "model",      model_core_add,   NULL,             model_core_release },
	{ "memory",     memory_record,    NULL,             memory_release },
	{ "callsites",  callsites_record, NULL,             callsites_release },
	{ "gpu-events", gpu_event_record, NULL,             NULL },
};
#define NPASSES (sizeof(passes) / sizeof(passes[0]))

void pipeline_add(struct model *m, const struct dump_reader *r,
		  const struct dump_record *rec)
{
#pragma GCC unroll 16   /* direct calls: the table is constant */
	for (size_t i = 0; i < NPASSES; i++)
		if (passes[i].add)
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
