/* SPDX-License-Identifier: MIT */
/*
 * timeline.h - the pass that bins a dump's timeline for the HTML report
 * (timeline.c): host time of CUDA calls by kind, GPU busy time per device,
 * time with GPU timing, and step times, in TL_BINS bins that widen as the
 * run goes on.  Only when asked for (loader_model_with()): the model's
 * timeline is NULL otherwise.
 */
#ifndef GPUTRACE_ANALYZER_TIMELINE_H
#define GPUTRACE_ANALYZER_TIMELINE_H

#include <stddef.h>
#include <stdint.h>

#include "analyzer/passes/gpu_internal.h"
#include "analyzer/lib/hmap.h"
#include "analyzer/lib/util.h"
#include "analyzer/reader/dump_reader.h"

struct model;

#define TL_BINS 400                 /* columns of the timeline */
#define TL_MAX_DEV 16               /* devices drawn */
#define TL_MAX_STEPS 2048           /* step bars (pairs merge beyond) */

enum timeline_host {                /* host time by kind of call */
	TL_LAUNCH, TL_COPY, TL_SYNC, TL_NCCL, TL_OTHER, TL_KINDS,
};

/* A dump's timeline in TL_BINS equal bins: when time runs past the
 * last bin, pairs of bins merge and each bin gets twice as wide. */
struct timeline {
	uint64_t t0;                /* the dump's start */
	uint64_t width;             /* ns per bin */
	uint64_t end;               /* the latest time seen */
	uint64_t host[TL_KINDS][TL_BINS];
	uint64_t gpu[TL_MAX_DEV][TL_BINS];      /* GPU busy (sum of records) */
	uint64_t timed[TL_BINS];    /* time inside GPU timing windows */
	uint32_t ndev;
	int gpu_seen;
	struct gpu_clock clock;
	/* step times from NVTX ranges named like "step" (no diagnosis) */
	uint64_t step_ns[TL_MAX_STEPS];
	size_t nsteps;
	uint64_t step_per_bar;      /* steps each bar is the mean of */
	uint64_t step_acc, step_acc_n;
	uint64_t steps_total;
	struct hmap stacks;         /* tid -> struct timeline_stack */
	struct hmap is_step;        /* string id -> 1 step, 2 not */
};

/* Where bin i starts; times near 2^64 stop at UINT64_MAX, not wrap. */
static inline uint64_t timeline_bin_start(const struct timeline *b, uint64_t i)
{
	uint64_t off;

	if (__builtin_mul_overflow(i, b->width, &off))
		return UINT64_MAX;
	return sat_add(b->t0, off);
}


/* Bin the model's records from now on (start: the dump's start). */
void timeline_begin(struct model *m);
void timeline_add(struct model *m, const struct dump_reader *r,
		  const struct dump_record *rec);
void timeline_release(struct model *m);
/* Replace the NVTX steps of b by these boundaries (the diagnosis's). */
void timeline_steps(struct timeline *b, const uint64_t *t, size_t n);

#endif /* GPUTRACE_ANALYZER_TIMELINE_H */
