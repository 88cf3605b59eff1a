/* SPDX-License-Identifier: MIT */
/*
 * diagnosis.c - the diagnosis's state and its order of work: records go
 * to the host spans, the GPU timeline, the samples and the step finders
 * as the dump streams by; at the end the steps are found, the idle time
 * attributed, the classes scored and the gains estimated.
 */
#include <stdlib.h>
#include <string.h>

#include "analyzer/passes/callsite_internal.h"
#include "analyzer/diagnosis/diagnosis_internal.h"
#include "analyzer/lib/util.h"

struct diagnosis *diagnosis_of(struct model *m)
{
	if (!m->diag) {
		struct diagnosis *d = xcalloc(1, sizeof(*d));

		hmap_init(&d->threads);
		hmap_init(&d->cands);
		hmap_init(&d->nvtx_threads);
		hmap_init(&d->sync_sites);
		hmap_init(&d->kinds);
		hmap_init(&d->shape_info);
		hmap_init(&d->opt_fns);
		hmap_init(&d->cont_shapes);
		for (int l = 0; l < GL_KINDS; l++)
			d->gpu_budget[l] = DIAG_MAX_GPU_SPANS;
		d->outside_budget = DIAG_MAX_HOST_SPANS;
		d->base_ns = m->start_ns - m->start_ns % DIAG_BUCKET_NS;
		m->diag = d;
	}
	return m->diag;
}

/* A launch's token: its kernel's function, from its shape's info. */
static uint32_t launch_tok(uintptr_t info)
{
	return info ? (uint32_t)(info >> SHAPE_FN_SHIFT) : 0x3fffffffu;
}

/* A launch: counted in its bucket with its shape's grid class; its
 * token is its kernel's function (shape_info). */
static uint32_t launch(struct diagnosis *d, const struct dump_event *ev)
{
	uint64_t id = ev->arg[GT_ARG_LAUNCH_SHAPE];
	uintptr_t info = id <= UINT32_MAX ?
			 (uintptr_t)hmap_get_int(&d->shape_info, id) : 0;

	idle_gpu_launch(d, ev, 0, info & SHAPE_CLASS_MASK);
	return launch_tok(info);
}

/*
 * What a GPU call is in the launch sequence (its kernel, or its op, into
 * *tok), counted per bucket when it feeds the GPU; 0 for other calls.
 */
static int gpu_call(struct diagnosis *d, const struct dump_event *ev,
		    uint8_t kind, uint32_t *tok)
{
	const struct dump_op *op = ev->op;

	switch (kind) {
	case GT_KIND_LAUNCH:
		*tok = launch(d, ev);
		return 1;
	case GT_KIND_GRAPH:
		idle_gpu_launch(d, ev, 1, 0);
		*tok = 0x40000000u | (uint32_t)(ev->arg[GT_ARG_GRAPH_HANDLE] >> 4 & 0x3fffffffu);
		return 1;
	case GT_KIND_COPY:
		if (op->direction == GT_DIR_HTOD)
			idle_gpu_htod(d, ev);
		/* fallthrough */
	case GT_KIND_SET:
		*tok = 0x80000000u | (uint32_t)op->id << 4 | op->direction;
		return 1;
	default:
		return 0;
	}
}

/* The GPU side of a call: counted per bucket when it feeds the GPU, its
 * token to the step finder. */
static NOINLINE void gpu_side(struct diagnosis *d, const struct dump_event *ev,
			      uint8_t kind)
{
	uint32_t tok;

	if (gpu_call(d, ev, kind, &tok) && !ev->result) {
		d->gpu_calls++;
		steps_period_token(d, ev->tid, tok, steps_arg_hash(ev), ev->t0);
	}
}

/*
 * Most calls: a launch whose shape is a dense key, in the last bucket
 * asked for, by the thread whose detector was asked for last: counted,
 * its token in *tok, without a call; its detector, or NULL with nothing
 * done for other calls.
 */
static inline struct period_det *short_launch(struct diagnosis *d,
					      const struct dump_event *ev,
					      uint32_t *tok)
{
	uint64_t id = ev->arg[GT_ARG_LAUNCH_SHAPE];
	struct period_det *p = d->last_det;
	uintptr_t info;

	if (ev->op->kind != GT_KIND_LAUNCH || id >= HMAP_DENSE || ev->result ||
	    ev->t0 - d->last_b_lo >= d->last_b_len || !p || p->tid != ev->tid)
		return NULL;
	info = (uintptr_t)hmap_get_int(&d->shape_info, id);
	idle_count_in(d->last_b, ev->t0);
	idle_gpu_launch_in(d->last_b, ev, 0, info & SHAPE_CLASS_MASK);
	*tok = launch_tok(info);
	d->gpu_calls++;
	return p;
}

/* An event, all of it (out of line: the short path's way out). */
static NOINLINE void add_event(struct model *m, struct diagnosis *d,
			       const struct dump_reader *r,
			       const struct dump_event *ev)
{
	uint8_t kind = ev->op->kind;
	struct period_det *p;
	uint32_t tok;

	if (kind == GT_KIND_NVTX) {
		steps_nvtx_event(d, r, ev);
		return;
	}
	idle_host_event(m, d, ev);
	if ((p = short_launch(d, ev, &tok)))
		steps_period_add(p, tok, (uint8_t)ev->arg[GT_ARG_LAUNCH_ARGS], ev->t0);
	else if (kind >= GT_KIND_LAUNCH && kind <= GT_KIND_SET)
		gpu_side(d, ev, kind);          /* a GPU call (gpu_call) */
}

/* Records other than events (out of line: an event's path saves no
 * registers for them). */
static NOINLINE void add_other(struct model *m, struct diagnosis *d,
			       const struct dump_reader *r,
			       const struct dump_record *rec)
{
	switch (rec->type) {
	case DUMP_GPU:
		idle_gpu_chunk(m, d, r, rec);
		break;
	case DUMP_WINDOW:
		idle_gpu_window(d, &rec->window);
		break;
	case DUMP_SWITCH:
		idle_gpu_switch(d, &rec->gswitch);
		break;
	case DUMP_STEPS:
		steps_library_chunk(d, rec);
		break;
	case DUMP_FUNCTION:
		steps_function(d, r, &rec->function);
		break;
	case DUMP_SHAPE:
		idle_gpu_shape(d, &rec->shape);
		break;
	case DUMP_SAMPLE:
		idle_sample(d, rec);
		break;
	default:
		break;
	}
}

/* A record, all of it. */
static NOINLINE void add_record(struct model *m, const struct dump_reader *r,
				const struct dump_record *rec)
{
	struct diagnosis *d = diagnosis_of(m);

	if (rec->type != DUMP_EVENT) {
		add_other(m, d, r, rec);
		return;
	}
	chunk_times_add(&d->chunk_times, rec->offset, rec->event.t0);
	add_event(m, d, r, &rec->event);
}

/* An event once its chunk is counted. */
static NOINLINE void add_rest(struct model *m, const struct dump_reader *r,
			      const struct dump_record *rec)
{
	add_event(m, m->diag, r, &rec->event);
}

/* An event's GPU side, once its host side is done. */
static NOINLINE void add_gpu(struct model *m, const struct dump_reader *r,
			     const struct dump_record *rec)
{
	(void)r;
	gpu_side(m->diag, &rec->event, rec->event.op->kind);
}

/*
 * Most events take the short path, which makes no call but the last
 * (each way out is one, with the arguments as they came, the rest of the
 * work out of line), so it saves few registers: an event of the chunk
 * before, a call that goes on with its thread's run, a launch
 * (short_launch).
 */
void diagnosis_add(struct model *m, const struct dump_reader *r,
		   const struct dump_record *rec)
{
	struct diagnosis *d = m->diag;
	const struct dump_event *ev = &rec->event;
	struct period_det *p;
	uint32_t tok;

	if (!d || rec->type != DUMP_EVENT ||
	    !chunk_times_same(&d->chunk_times, rec->offset, ev->t0)) {
		add_record(m, r, rec);
		return;
	}
	if (!idle_host_short(d, ev)) {
		add_rest(m, r, rec);
		return;
	}
	if (!(p = short_launch(d, ev, &tok))) {
		add_gpu(m, r, rec);
		return;
	}
	steps_period_add(p, tok, (uint8_t)ev->arg[GT_ARG_LAUNCH_ARGS], ev->t0);
}

void diagnosis_finish(struct model *m)
{
	struct diagnosis *d = diagnosis_of(m);

	idle_host_flush(d);
	idle_host_segments(d);
	idle_gpu_finish(m, d);
	verdict_env_facts(m, d);
	idle_outside_prepare(d);
	steps_finish(m, d);
	idle_finish(m, d);
	replay_diagnose(m, d);
	steps_pace(d);
	verdict_finish(m, d);
	replay_verdict(m, d);
	d->finished = 1;
}

const char *diagnosis_site(const struct model *m, uint32_t stack)
{
	const struct cs_stack *s;

	if (!m->callsites || !stack)
		return NULL;
	s = hmap_get_int(&m->callsites->stacks, stack);
	return s && s->python && s->pf[0] ? s->pf[0] : NULL;
}

void diagnosis_release(struct model *m)
{
	struct diagnosis *d = m->diag;

	if (!d)
		return;
	hmap_release_values(&d->threads, NULL);
	hmap_release_values(&d->sync_sites, NULL);
	hmap_release(&d->kinds);
	hmap_release(&d->shape_info);
	hmap_release(&d->opt_fns);
	contention_release(d);
	free(d->spans);
	free(d->segs);
	chunk_times_release(&d->chunk_times);
	for (uint32_t i = 0; i < DIAG_MAX_DEVICES; i++)
		for (int l = 0; l < GL_KINDS; l++)
			span_release(&d->dev[i].l[l]);
	span_release(&d->windows);
	span_release(&d->region);
	span_release(&d->warm_region);
	span_release(&d->outside);
	idle_samples_release(d);
	for (size_t i = 0; i < ARRAY_SIZE(d->bucket_pages); i++)
		free(d->bucket_pages[i]);
	free(d->samples);
	free(d->splits);
	steps_nvtx_release(d);
	steps_period_release(d);
	steps_release(&d->steps);
	verdict_release(d);
	replay_summary_release(d);
	free(d);
	m->diag = NULL;
}

size_t diagnosis_steps(const struct model *m, const uint64_t **t, size_t *warmup,
		       int *capped)
{
	const struct step_stats *s = m->diag ? &m->diag->steps : NULL;

	if (!s || s->nt < 2)
		return 0;
	*t = s->t;
	*warmup = s->warmup;
	*capped = s->capped;
	return s->nt;
}
