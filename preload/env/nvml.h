/* SPDX-License-Identifier: MIT */
/*
 * nvml.h - NVML for the sampler thread (nvml.c): loaded and initialised at
 * the first use, from that one thread only.
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

/* The functions (some may be NULL), or NULL when NVML cannot be used. */
const struct gt_nvml_fns *gt_nvml(void);

/* enum gt_nvml_state; *err gets nvmlInit's error when it failed. */
int gt_nvml_state(int *err);

#endif /* GPUTRACE_PRELOAD_NVML_H */
