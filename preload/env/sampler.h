/* SPDX-License-Identifier: MIT */
/*
 * sampler.h - the sampler thread: writes the environment when the dump
 * opens, then every GPUTRACE_SAMPLE_MS a GT_CHUNK_SAMPLE per GPU (NVML)
 * and one for the host (/proc).  It blocks every signal, never keeps the
 * process alive, and is stopped at exit before the last drain.
 */
#ifndef GPUTRACE_PRELOAD_SAMPLER_H
#define GPUTRACE_PRELOAD_SAMPLER_H

#include "preload/env/env.h"

/* Start it (once per process; the dump is open).  Called by the writer. */
void gt_sampler_start(void);

/* One GT_CHUNK_SAMPLE per sampled GPU (sampler_gpu.c). */
void gt_sample_gpus(const struct gt_gpus *g);

/* One GT_CHUNK_SAMPLE for this process and the machine (sampler_proc.c). */
void gt_sample_host(void);

#endif /* GPUTRACE_PRELOAD_SAMPLER_H */
