/* SPDX-License-Identifier: MIT */
/*
 * timeline.c - the pass that bins a dump's timeline for the HTML report
 * (timeline.h): host time of CUDA calls by kind, GPU busy time per device
 * (CUPTI records on the host clock, as fitted so far) and time with GPU
 * timing, in TL_BINS bins that widen as the run goes on; and, while no
 * step detection is wired in, step times from NVTX ranges pushed with
 * "step" in their name (torch's ProfilerStep#N, a user's
 * range_push("train_step")).  Fixed memory, but for one small stack per
 * thread.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/model/model.h"
#include "analyzer/passes/timeline.h"
#include "analyzer/lib/util.h"

#define FIRST_WIDTH 1000000ull      /* 1 ms per bin to begin with */
#define STACK_MAX 64

struct timeline_stack {
	uint64_t t0[STACK_MAX];
	uint8_t step[STACK_MAX];
	uint32_t depth;             /* may exceed STACK_MAX: not recorded */
};

/* Merge pairs of bins until t (>= t0) fits; the width doubles each time.
 * Compared as (t - t0) / TL_BINS: t0 + width * TL_BINS can wrap. */
static void fit(struct timeline *b, uint64_t t)
{
	while ((t - b->t0) / TL_BINS >= b->width && b->width <= UINT64_MAX / 2) {
		for (size_t i = 0; i < TL_BINS / 2; i++) {
			for (int k = 0; k < TL_KINDS; k++)
				b->host[k][i] = b->host[k][2 * i] + b->host[k][2 * i + 1];
			for (uint32_t d = 0; d < b->ndev; d++)
				b->gpu[d][i] = b->gpu[d][2 * i] + b->gpu[d][2 * i + 1];
			b->timed[i] = b->timed[2 * i] + b->timed[2 * i + 1];
		}
		for (size_t i = TL_BINS / 2; i < TL_BINS; i++) {
			for (int k = 0; k < TL_KINDS; k++)
				b->host[k][i] = 0;
			for (uint32_t d = 0; d < b->ndev; d++)
				b->gpu[d][i] = 0;
			b->timed[i] = 0;
		}
		b->width *= 2;
	}
}

/* Add [a, e) to bins v, cut to the run. */
static void add_span(struct timeline *b, uint64_t *v, uint64_t a, uint64_t e)
{
	if (a < b->t0)
		a = b->t0;
	if (e <= a)
		return;
	fit(b, e - 1);
	if (e > b->end)
		b->end = e;
	for (size_t i = (a - b->t0) / b->width; a < e; i++) {
		uint64_t bin_end = timeline_bin_start(b, i + 1);
		uint64_t upto = e < bin_end ? e : bin_end;

		v[i] += upto - a;
		a = upto;
	}
}

static int host_kind(uint8_t kind)
{
	switch (kind) {
	case GT_KIND_LAUNCH: case GT_KIND_GRAPH: return TL_LAUNCH;
	case GT_KIND_COPY: case GT_KIND_SET: return TL_COPY;
	case GT_KIND_SYNC: return TL_SYNC;
	case GT_KIND_NCCL: return TL_NCCL;
	default: return TL_OTHER;
	}
}

static int step_name(struct timeline *b, const struct dump_reader *r,
		     uint64_t id)
{
	uintptr_t v = (uintptr_t)hmap_get_int(&b->is_step, id);
	const char *s;

	if (!v) {
		s = id <= UINT32_MAX ? dump_string(r, (uint32_t)id) : NULL;
		v = 2;
		for (; s && *s && v == 2; s++)
			if (!strncasecmp(s, "step", 4))
				v = 1;
		hmap_put_int(&b->is_step, id, (void *)v);
	}
	return v == 1;
}

static void step_done(struct timeline *b, uint64_t ns)
{
	b->steps_total++;
	b->step_acc += ns;
	if (++b->step_acc_n < b->step_per_bar)
		return;
	if (b->nsteps == TL_MAX_STEPS) {
		for (size_t i = 0; i < TL_MAX_STEPS / 2; i++)
			b->step_ns[i] = (b->step_ns[2 * i] + b->step_ns[2 * i + 1]) / 2;
		b->nsteps = TL_MAX_STEPS / 2;
		b->step_per_bar *= 2;
		return;                 /* this bar's steps start again */
	}
	b->step_ns[b->nsteps++] = b->step_acc / b->step_acc_n;
	b->step_acc = b->step_acc_n = 0;
}

static void nvtx(struct timeline *b, const struct dump_reader *r,
		 const struct dump_event *ev)
{
	struct timeline_stack *s = hmap_get_int(&b->stacks, ev->tid);

	if (!s) {
		s = xcalloc(1, sizeof(*s));
		hmap_put_int(&b->stacks, ev->tid, s);
	}
	if (ev->op->direction == GT_NVTX_PUSH) {
		if (s->depth < STACK_MAX) {
			s->t0[s->depth] = ev->t0;
			s->step[s->depth] = (uint8_t)step_name(b, r, ev->arg[GT_ARG_NVTX_MSG]);
		}
		s->depth++;
	} else if (ev->op->direction == GT_NVTX_POP && s->depth) {
		if (--s->depth < STACK_MAX && s->step[s->depth] &&
		    ev->t0 >= s->t0[s->depth])
			step_done(b, ev->t0 - s->t0[s->depth]);
	}
}

static void gpu_records(struct timeline *b, const struct dump_record *rec)
{
	const uint8_t *p = rec->gpu.recs;
	uint32_t kind = rec->gpu.h.kind;
	struct gt_gpu_kernel k;
	struct gt_gpu_copy c;
	uint64_t s, e, h;
	uint32_t dev;

	if (kind != GT_GPU_KERNEL && kind != GT_GPU_MEMCPY && kind != GT_GPU_MEMSET)
		return;
	for (uint32_t i = 0; i < rec->gpu.h.count; i++, p += rec->gpu.h.rec_size) {
		if (kind == GT_GPU_KERNEL) {
			memcpy(&k, p, sizeof(k));
			s = k.start, e = k.end, dev = k.device;
		} else {
			memcpy(&c, p, sizeof(c));
			s = c.start, e = c.end, dev = c.device;
		}
		h = gpu_clock_map(&b->clock, s);
		if (!h || e < s || dev >= TL_MAX_DEV)
			continue;
		if (dev >= b->ndev)
			b->ndev = dev + 1;
		b->gpu_seen = 1;
		add_span(b, b->gpu[dev], h, sat_add(h, e - s));
	}
}

/* Not inlined into the pipeline's test of whether it was asked for. */
NOINLINE void timeline_add(struct model *m, const struct dump_reader *r,
			   const struct dump_record *rec)
{
	struct timeline *b = m->timeline;

	switch (rec->type) {
	case DUMP_EVENT:
		if (rec->event.op->kind == GT_KIND_NVTX)
			nvtx(b, r, &rec->event);
		else
			add_span(b, b->host[host_kind(rec->event.op->kind)],
				 rec->event.t0, rec->event.t1);
		break;
	case DUMP_CLOCK:
		gpu_clock_add(&b->clock, &rec->clock);
		break;
	case DUMP_GPU:
		gpu_records(b, rec);
		break;
	case DUMP_WINDOW:
		if (rec->window.end_ns > rec->window.start_ns)
			add_span(b, b->timed, rec->window.start_ns, rec->window.end_ns);
		break;
	default:
		break;
	}
}

void timeline_steps(struct timeline *b, const uint64_t *t, size_t n)
{
	b->nsteps = 0;
	b->step_per_bar = 1;
	b->step_acc = b->step_acc_n = b->steps_total = 0;
	for (size_t i = 0; i + 1 < n; i++)
		step_done(b, t[i + 1] > t[i] ? t[i + 1] - t[i] : 0);
}

void timeline_begin(struct model *m)
{
	struct timeline *b = xcalloc(1, sizeof(*b));

	b->t0 = m->start_ns;
	b->end = m->start_ns;
	b->width = FIRST_WIDTH;
	b->step_per_bar = 1;
	m->timeline = b;
}

void timeline_release(struct model *m)
{
	struct timeline *b = m->timeline;

	if (!b)
		return;
	hmap_release_values(&b->stacks, NULL);
	hmap_release(&b->is_step);
	free(b);
	m->timeline = NULL;
}
