/* SPDX-License-Identifier: MIT */
/*
 * cupti.h - the GPU side of the trace: CUPTI's activity records (kernels,
 * copies, memsets, synchronizations) joined exactly to the host events
 * that caused them.
 *
 * The join: while a GPU window is open, CUPTI's API callbacks tell each
 * thread the correlation ids of the runtime call it is in and of the
 * driver call it just made (cupti_corr.c).  When the real call of a
 * traced driver call returns, the wrapper publishes which of those ids
 * belong to its event (gt_rec_id); kernels, copies, memsets and waits
 * carry one of them, so the writer thread joins each GPU record to its
 * host event before the record reaches the dump (cupti_records.c).
 * External correlation ids cannot do this: CUPTI (13.0) samples them at
 * an API call's entry and keeps no API record for the driver calls that
 * cudart makes, so an id pushed inside the driver call, where the
 * wrapper is, reaches no record (seen on the H200).
 *
 * Hot path: when no window is open, one relaxed load and a predicted
 * branch (GT_GPU_BEGIN); inside a window, two atomic adds, a few
 * thread-local stores and one or two table stores, plus CUPTI's own
 * callback (so CUPTI is never detached while a call is inside it).
 */
#ifndef GPUTRACE_PRELOAD_CUPTI_H
#define GPUTRACE_PRELOAD_CUPTI_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "preload/base/internal.h"

extern atomic_int gt_gpu_on;        /* a window is open: join calls */

/*
 * Before the real call; work is how many GPU records the call should
 * bring (a launch 1, copies their count, waits 0, graphs
 * GT_GPU_UNCOUNTED): CUPTI is detached only once they all came, which
 * means the GPU finished that work.  Returns 0 when the window is shut,
 * else a token for gt_cupti_end, which publishes the call's correlation
 * ids for event id (cls: 0 work, 1 a wait), or takes the work back if
 * the call failed.
 */
#define GT_GPU_UNCOUNTED 0xffffffffu
unsigned gt_cupti_begin(unsigned work);
void gt_cupti_end(unsigned token, int failed, uint64_t id, unsigned cls);

/*
 * Around the real call of a traced driver call, between gt_rec_begin and
 * gt_rec_commit (ring.h must be included):
 *	unsigned gpu_ = GT_GPU_BEGIN(work);  ...real call...
 *	GT_GPU_END(gpu_, failed, cls);
 */
#define GT_GPU_BEGIN(work)                                                   \
	(unlikely(atomic_load_explicit(&gt_gpu_on, memory_order_relaxed))   \
	 ? gt_cupti_begin(work) : 0u)
#define GT_GPU_END(token, failed, cls)                                       \
	do {                                                                 \
		if (unlikely(token))                                         \
			gt_cupti_end((token), (failed), gt_rec_id(), (cls)); \
	} while (0)

/*
 * Before CUDA initializes (the first cuGetProcAddress): load CUPTI,
 * subscribe, ask for launch latency timestamps.  Cheap after the first
 * call; does nothing when GPU tracing is off.
 */
extern atomic_int gt_cupti_early_done;
void gt_cupti_early_slow(void);
static inline void gt_cupti_early(void)
{
	if (unlikely(!atomic_load_explicit(&gt_cupti_early_done,
					   memory_order_relaxed)))
		gt_cupti_early_slow();
}

/* ---- for gpu_window.c: the writer thread only ------------------------ */

/* Load and subscribe if not yet done; 0 when subscribed. */
int gt_cupti_attach(void);
/* Start pushing ids, then enable the activity kinds; 0 on success.
 * graphs_whole: a record per graph run (CUPTI's graph trace), not per
 * node, whatever GPUTRACE_GPU_GRAPHS says. */
int gt_cupti_enable(int graphs_whole);
/* Disable the kinds; then gt_cupti_ids_off stops the join (and its
 * callbacks). */
void gt_cupti_disable(void);
void gt_cupti_ids_off(void);
/* Calls still inside a push (after the flag went down). */
unsigned gt_cupti_inflight(void);
/* The calls that put work on the GPU the window opening next may take
 * (0: no bound); the last wakes the writer.  Whether they were taken. */
void gt_cupti_limit_calls(uint64_t n);
int gt_cupti_calls_spent(void);
/* At a window's opening: count the work pushed from now on. */
void gt_cupti_work_reset(void);
/* Whether every record the window's work should bring has come (and no
 * graph, whose records cannot be counted, was launched). */
int gt_cupti_work_done(void);
/* How many of those records have not come (0 when all have). */
uint64_t gt_cupti_work_missing(void);
/* cuptiActivityFlushAll, forced or not. */
void gt_cupti_flush(int forced);
/* Detach (cuptiFinalize): outside windows CUPTI then costs nothing. */
void gt_cupti_detach(void);
/* CUPTI's clock; 0 when not loaded. */
uint64_t gt_cupti_now(void);
/* The state for GT_GPU_STATE (enum gt_cupti_state), version, names. */
uint32_t gt_cupti_state(void);
/* GPU windows, subscribing only when the first opens: say so until then. */
void gt_cupti_waiting(void);
uint32_t gt_cupti_version(void);
const char *gt_cupti_path(void);
const char *gt_cupti_holder(void);
/* Why CUPTI is not on, for the note: a static string or "". */
const char *gt_cupti_why(void);
/* The CUPTI call the writer thread is inside, or NULL. */
const char *gt_cupti_calling(void);
/* Launch latency timestamps were left off: this CUPTI can deadlock. */
int gt_cupti_latency_unsafe(void);
/* A forked child: CUPTI is the parent's; never touch it. */
void gt_cupti_forget(void);

#endif /* GPUTRACE_PRELOAD_CUPTI_H */
