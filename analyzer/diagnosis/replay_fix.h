/* SPDX-License-Identifier: MIT */
/*
 * replay_fix.h - what the fixes' files share (replay_fix.c, the driver
 * and the simple fixes; replay_batch.c, a larger batch; replay_supply.c,
 * DataLoader workers; replay_shared.c, a GPU no longer shared): the
 * graph a fix edits, copied when it first changes something.
 */
#ifndef GPUTRACE_ANALYZER_REPLAY_FIX_H
#define GPUTRACE_ANALYZER_REPLAY_FIX_H

#include "analyzer/diagnosis/replay.h"

/*
 * The graph a fix reads and changes: the one given until the fix first
 * changes something, then a copy of it (a fix that changes nothing costs
 * no copy).
 */
struct edit {
	const struct rp_graph *g;
	struct rp_graph copy;
	int copied;
};

struct rp_graph *fix_writable(struct edit *ed);
struct rp_item *fix_item(struct edit *ed, size_t i);
/* Append to r's assumptions ("; " between them). */
void fix_assume(struct rp_fix_result *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Each returns whether it changed the graph; end: which figure. */
int fix_batch(struct edit *ed, const struct rp_env *e, enum rp_end end,
	      struct rp_fix_result *r);
int fix_workers(struct edit *ed, const struct rp_env *e, enum rp_end end,
		struct rp_fix_result *r);
/* Kernels at their durations without the other process on the GPU
 * (their shapes' fast runs); 0 when nothing tells them. */
int fix_unshared(struct edit *ed, enum rp_end end, struct rp_fix_result *r);

/* replay_batch.c: how much longer a kernel whose grid asks for `fill` of
 * the GPU's thread slots (0 unknown: k) runs on k times the samples;
 * the share of the kernel time in kernels asking for under
 * RP_LATENCY_FILL (-1 no grid known). */
double rp_kernel_growth(double fill, double k, enum rp_end end);
double rp_latency_share(const struct rp_graph *g);

/* replay_precision.c: what a kernel computes in, by its name. */
enum rp_prec_kind {
	RPK_OTHER,
	RPK_CONV32,             /* an fp32/TF32 convolution */
	RPK_MM32,               /* an fp32/TF32 GEMM */
	RPK_MM16,               /* a bf16/fp16/fp8 GEMM or convolution */
	RPK_MEM32,              /* a memory-bound kernel on fp32 tensors */
	RPK_LAYOUT,             /* a layout conversion (NCHW <-> NHWC) */
	RPK_KINDS,
};

struct model;

enum rp_prec_kind rp_precision_kind(const char *name);
/* The dump's kernel GPU time by those kinds, as shares. */
void rp_precision_shares(const struct model *m, struct rp_precision *p);
/* Whether the fix is advised: fp32 convolutions (or their conversions),
 * GEMMs not mostly 16-bit already. */
int rp_precision_applies(const struct rp_precision *p);
/* The kernels' time after the fix over before, for one figure. */
double rp_precision_factor(const struct rp_precision *p, enum rp_end end);
int fix_precision(struct edit *ed, const struct rp_env *e, enum rp_end end,
		  struct rp_fix_result *r);

/* replay_supply.c: each step's first data stretch becomes a take from
 * the workers (RW_SUPPLY: a batch every interval, res ns of the main
 * process's own); the rest of its data stretches go. */
void fix_supply_items(struct edit *ed, uint64_t interval, uint64_t res);
/* The recorded step: the span over its steps. */
uint64_t fix_step_pace(const struct rp_graph *g);
/* The workers' CPU time per batch: fetch (the main thread's data time a
 * step) without workers, their sampled CPU time a step with them. */
double fix_worker_cpu(const struct rp_graph *g, const struct rp_env *e,
		      double fetch);

/* The steps' data: per step of the span, its main thread's time in
 * stretches flagged RPF_DATA (n = g->steps). */
uint64_t *fix_data_per_step(const struct rp_graph *g);

#endif /* GPUTRACE_ANALYZER_REPLAY_FIX_H */
