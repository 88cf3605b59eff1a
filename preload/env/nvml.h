/* SPDX-License-Identifier: MIT */
/*
 * nvml.h - NVML for the sampler thread (nvml.c): loaded by the thread that
 * starts tracing, before the sampler thread exists (gt_nvml_load), and
 * initialised at the first use, from the sampler thread only.
 */
#ifndef GPUTRACE_PRELOAD_NVML_H
#define GPUTRACE_PRELOAD_NVML_H

#include "preload/env/nvml_api.h"

enum gt_nvml_state {
	GT_NVML_UNTRIED,
	GT_NVML_READY,
	GT_NVML_MISSING,            /* no libnvidia-ml.so.1, or not usable */
	GT_NVML_FAILED,             /* nvmlInit failed */
	GT_NVML_FORKED,             /* the parent's NVML: not ours to use */
};

/* Load libnvidia-ml.so.1 and find its functions, once (no nvmlInit). */
void gt_nvml_load(void);

/* The functions (some may be NULL), or NULL when NVML cannot be used. */
const struct gt_nvml_fns *gt_nvml(void);

/* enum gt_nvml_state; *err gets nvmlInit's error when it failed. */
int gt_nvml_state(int *err);

#endif /* GPUTRACE_PRELOAD_NVML_H */
