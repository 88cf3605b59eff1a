/* SPDX-License-Identifier: MIT */
/*
 * steps.h - the program's training steps, found while it runs, so that GPU
 * windows cover whole steady steps (gpu_window.c) and the dump holds every
 * step's start (GT_CHUNK_STEPS), from which the analyzer measures what
 * tracing cost the run.
 *
 * Everything runs on the writer thread, over the calls it drains: the
 * traced calls' path does nothing more than before.  A step is marked by
 *
 *   GPUTRACE_STEP=auto          (default) the launch sequence repeating:
 *                               each thread's kernels (by launch shape),
 *                               copies, memsets and graph launches; the
 *                               thread whose steps are longest is the
 *                               outer loop (the main thread, not autograd's)
 *   GPUTRACE_STEP=nvtx:NAME     a range named NAME pushed or started
 *   GPUTRACE_STEP=kernel:TEXT   a launch of a kernel whose name holds TEXT
 *
 * Steps are steady once GPUTRACE_GPU_STEADY_STEPS (5) steps in a row ran
 * no kernel or launch shape not seen before and took a stable time (each
 * within 1.5x of their median), or once three times as many ran without a
 * new kernel, however their times vary.
 */
#ifndef GPUTRACE_PRELOAD_STEPS_H
#define GPUTRACE_PRELOAD_STEPS_H

#include <stdint.h>

/* What the window schedule reads of the steps (writer thread only). */
struct gt_steps_view {
	uint32_t source;            /* enum gt_step_source, 0: none found */
	uint64_t count;             /* boundaries found so far (the last's seq) */
	uint64_t last_ns;           /* the last boundary */
	uint64_t last_call_ns;      /* the last GPU call of the steps' thread */
	uint64_t median_ns;         /* median of the recent steps, 0 unknown */
	int steady;
	const char *why;            /* not steady (or none): why, for notes */
};

/* Settings (GPUTRACE_STEP, GPUTRACE_GPU_STEADY_STEPS); from gt_gpu_init. */
void gt_steps_init(void);

/* The writer drained a GPU call of thread tid made at t: a kernel launch
 * (tok its launch shape's id, func its kernel's, args its arguments' hash,
 * format.h's GT_ARG_LAUNCH_ARGS), or a copy, memset or graph launch (tok
 * from writer.c, func and args 0). */
void gt_steps_call(uint32_t tid, uint32_t tok, uint32_t func, uint8_t args,
		   uint64_t t);

/* The writer drained an NVTX push or start with message id msg. */
void gt_steps_nvtx(uint32_t msg, uint64_t t);

/* The writer defined a launch shape or a kernel not seen before. */
void gt_steps_new_kernel(uint64_t t);

/* The writer defined kernel function id, named name (may be NULL). */
void gt_steps_function(uint32_t id, const char *name);

/* Writer cycle: check the periods, write the new boundaries (final: all). */
void gt_steps_cycle(int final);

/* At the dump's end, after the last drain: the last boundaries. */
void gt_steps_end(int final);

const struct gt_steps_view *gt_steps_view(void);

/* GPUTRACE_GPU_STEADY_STEPS. */
uint32_t gt_steps_steady_n(void);

/* Boundaries of the primary steps after t (of the last 256), and the
 * first of them in *first. */
uint64_t gt_steps_bounds_after(uint64_t t, uint64_t *first);

/* Fork child: the parent's steps are not its own. */
void gt_steps_forget(void);

#endif /* GPUTRACE_PRELOAD_STEPS_H */
