/* SPDX-License-Identifier: MIT */
/*
 * cupti.h - the GPU side of the trace: CUPTI's activity records (kernels,
 * copies, memsets, synchronizations) joined exactly to the host events
 * that caused them.
 *
 * The join: while a GPU window is open (gpu_window.h) every traced driver
 * call pushes its event's id (gt_rec_id) as a CUPTI external correlation
 * id around the real call.  CUPTI ties that id to the driver call's
 * correlation id; a kernel started through cudart carries the runtime
 * call's correlation id instead, which is found as the runtime call that
 * encloses that driver call on the same thread (CUPTI's API records).
 * The writer thread resolves both before the records reach the dump
 * (cupti_records.c), so GPU records carry the host event's id.
 *
 * Hot path: when no window is open, one relaxed load and a predicted
 * branch (GT_GPU_BEGIN); inside a window, a push and a pop into CUPTI and
 * two atomic adds (so CUPTI is never detached while a call is inside it).
 */
#ifndef GPUTRACE_PRELOAD_CUPTI_H
#define GPUTRACE_PRELOAD_CUPTI_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "preload/internal.h"

extern atomic_int gt_gpu_on;        /* a window is open: push ids */

/* Push id for the calling thread: 1 if pushed (pop it), else 0. */
int gt_cupti_push(uint64_t id);
void gt_cupti_pop(void);

/*
 * Around the real call of a traced driver call, between gt_rec_begin and
 * gt_rec_commit (ring.h must be included):
 *	int gpu_ = GT_GPU_BEGIN();  ...real call...  GT_GPU_END(gpu_);
 */
#define GT_GPU_BEGIN()                                                       \
	(unlikely(atomic_load_explicit(&gt_gpu_on, memory_order_relaxed))   \
	 ? gt_cupti_push(gt_rec_id()) : 0)
#define GT_GPU_END(pushed)                                                   \
	do { if (unlikely(pushed)) gt_cupti_pop(); } while (0)

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
/* Enable the activity kinds and open the window flag; 0 on success. */
int gt_cupti_enable(void);
/* Close the window flag and disable the kinds. */
void gt_cupti_disable(void);
/* Calls still inside a push (after the flag went down). */
unsigned gt_cupti_inflight(void);
/* cuptiActivityFlushAll, forced or not. */
void gt_cupti_flush(int forced);
/* Detach (cuptiFinalize): outside windows CUPTI then costs nothing. */
void gt_cupti_detach(void);
/* CUPTI's clock; 0 when not loaded. */
uint64_t gt_cupti_now(void);
/* The state for GT_GPU_STATE (enum gt_cupti_state), version, names. */
uint32_t gt_cupti_state(void);
uint32_t gt_cupti_version(void);
const char *gt_cupti_path(void);
const char *gt_cupti_holder(void);
/* Why CUPTI is not on, for the note: a static string or "". */
const char *gt_cupti_why(void);
/* A forked child: CUPTI is the parent's; never touch it. */
void gt_cupti_forget(void);

#endif /* GPUTRACE_PRELOAD_CUPTI_H */
