/* SPDX-License-Identifier: MIT */
/*
 * env.h - the machine and software the program ran on (GT_CHUNK_ENV),
 * collected by the sampler thread: NVML and /proc facts when the dump
 * opens, CUDA's own view once the program has initialised CUDA.
 */
#ifndef GPUTRACE_PRELOAD_ENV_H
#define GPUTRACE_PRELOAD_ENV_H

#include <stdint.h>

#include "preload/env/nvml_api.h"

#define GT_MAX_GPUS 64

/* The NVML devices, and which of them the sampler reads. */
struct gt_gpus {
	unsigned n;
	gt_nvml_dev dev[GT_MAX_GPUS];
	uint64_t pci[GT_MAX_GPUS];  /* domain << 16 | bus << 8 | device */
	uint64_t sampled;           /* bit i: sample device i */
};

/* Versions, then each NVML device (name, memory, links, topology...);
 * fills g (empty when NVML is missing). */
void gt_env_nvml(struct gt_gpus *g);

/* CPU count, affinity, cgroup limit, memory, the sampling interval,
 * the settings (below). */
void gt_env_host(void);

struct gt_items;
/* The variables that change CUDA's, NCCL's or OpenMP's behaviour, as the
 * program was started with them (env_settings.c). */
void gt_env_settings(struct gt_items *it);

/*
 * CUDA's devices and versions, asked only once the program initialised
 * CUDA (never initialising it ourselves): 1 when written, 0 when CUDA is
 * not initialised yet.  Then the sampler keeps to the devices CUDA shows
 * the program (matched by PCI address), if any match.
 */
int gt_env_cuda(struct gt_gpus *g);

#endif /* GPUTRACE_PRELOAD_ENV_H */
