/* SPDX-License-Identifier: MIT */
/*
 * gpu_window.h - when CUPTI records the GPU side.  Per-kernel GPU timing
 * costs the program host time on every launch (CUPTI's own floor is about
 * 1.25x on a launch-bound loop), so by default it runs in windows:
 *
 *   GPUTRACE_GPU=windows   (default) the start window first: from the
 *                          program's first GPU work (CUPTI subscribed
 *                          before CUDA initializes) for
 *                          GPUTRACE_GPU_START_CALLS (4096) calls, or up to
 *                          steady steps.  Then placed on the program's
 *                          steps (steps.h): once they are steady, a window
 *                          covers GPUTRACE_GPU_WINDOW_STEPS (10) whole
 *                          steps and GPUTRACE_GPU_WINDOW_MS (500) or more,
 *                          and one more opens every GPUTRACE_GPU_PERIOD_MS
 *                          (30000).  While no step is found, by the clock:
 *                          GPUTRACE_GPU_WINDOW_MS long, the first
 *                          GPUTRACE_GPU_WARMUP_MS (5000) after the first
 *                          GPU work, then every period.  On request too:
 *                          GPUTRACE_GPU_SIGNAL (SIGUSR2), or the file
 *                          GPUTRACE_GPU_TRIGGER appearing; or only for
 *                          GPUTRACE_GPU_STEPS=a-b
 *   GPUTRACE_GPU=all       from the start to the end
 *   GPUTRACE_GPU=off       host side only (also GPUTRACE_CUPTI=0)
 *
 * Between windows CUPTI is detached (cuptiFinalize) by default, which
 * measured cheapest on the H200 (GPUTRACE_GPU_SWITCH=disable keeps it
 * attached with its activity kinds off instead), once the GPU finished
 * the window's work (all its records came; see end_drain).  Everything here runs
 * on the writer thread's cycle (gt_writer_on_cycle), never on the hot
 * path; the dump gets a GT_CHUNK_WINDOW at each opening and closing and
 * GT_CHUNK_CLOCK pairs to put CUPTI's clock on the host's.
 */
#ifndef GPUTRACE_PRELOAD_GPU_WINDOW_H
#define GPUTRACE_PRELOAD_GPU_WINDOW_H

#include <stddef.h>
#include <stdint.h>

struct gt_gpu_cfg {
	int cupti;                  /* GPUTRACE_CUPTI (1) */
	uint32_t mode;              /* GPUTRACE_GPU: enum gt_gpu_mode */
	uint32_t window_ms;         /* GPUTRACE_GPU_WINDOW_MS */
	uint32_t period_ms;         /* GPUTRACE_GPU_PERIOD_MS */
	uint32_t warmup_ms;         /* GPUTRACE_GPU_WARMUP_MS */
	int finalize;               /* GPUTRACE_GPU_SWITCH: finalize (1) or
	                               disable (0) between windows */
	int graph_trace;            /* GPUTRACE_GPU_GRAPHS=graph: one record
	                               per graph run instead of its nodes */
	uint32_t buffers;           /* GPUTRACE_CUPTI_BUFFERS (8) */
	size_t buffer_bytes;        /* GPUTRACE_CUPTI_BUFFER_KB (4096) */
	uint32_t flush_ms;          /* GPUTRACE_CUPTI_FLUSH_MS (100) */
	int latency;                /* GPUTRACE_CUPTI_LATENCY: queued and
	                               submitted times of kernels: 1, 0, or
	                               -1 where CUPTI is safe with them */
	int early;                  /* GPUTRACE_CUPTI_EARLY: subscribe before
	                               CUDA initializes (1), else at the
	                               first window */
	int place_clock;            /* GPUTRACE_GPU_PLACE=clock: never by steps */
	uint32_t window_steps;      /* GPUTRACE_GPU_WINDOW_STEPS (10) */
	uint32_t start_calls;       /* GPUTRACE_GPU_START_CALLS (4096): the
	                               start window's calls, 0: none */
	uint64_t range_lo, range_hi; /* GPUTRACE_GPU_STEPS=a-b, 0: none */
	int signal;                 /* GPUTRACE_GPU_SIGNAL, 0: none */
	char trigger[512];          /* GPUTRACE_GPU_TRIGGER, "": none */
};

extern struct gt_gpu_cfg gt_gpu_cfg;

/* Read the settings and hook into the writer's cycle; from gt_init. */
void gt_gpu_init(void);

#endif /* GPUTRACE_PRELOAD_GPU_WINDOW_H */
