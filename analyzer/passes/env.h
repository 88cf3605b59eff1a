/* SPDX-License-Identifier: MIT */
/*
 * env.h - the machine and software a dump was recorded on (GT_CHUNK_ENV)
 * and what the samples saw while it ran (GT_CHUNK_SAMPLE): versions,
 * devices, links, clocks and throttling, other processes on the GPU, CPU
 * use.  Fixed-size state: at most ENV_MAX_DEVICES devices each side.
 */
#ifndef GPUTRACE_ANALYZER_ENV_H
#define GPUTRACE_ANALYZER_ENV_H

#include <stdint.h>
#include <stdio.h>

#include "analyzer/reader/dump_reader.h"
#include "analyzer/lib/json.h"
#include "analyzer/model/model.h"

#define ENV_MAX_DEVICES 64
#define ENV_HOST_KEYS 16            /* enum gt_env_key 0..15 */
#define ENV_DEV_KEYS 32             /* enum gt_env_key 32..63 */
#define ENV_MAX_PIDS 32             /* other processes remembered */
#define ENV_REASON_BITS 16
#define ENV_MAX_SETTINGS 64         /* GT_ENV_SETTING items kept */

/* One item of an environment or sample record (dump_env.c). */
struct env_item {
	uint16_t key, status;
	int64_t value;
	const char *text;           /* len bytes, not NUL-terminated */
	uint32_t len;
};

/* The next item from *pos (before end): 1, or 0 at the end or if cut. */
int env_item_next(const void **pos, const void *end, struct env_item *it);

/* What the dump says about one fact: the last item for it. */
struct env_fact {
	int have;
	uint16_t status;            /* enum gt_info_status */
	int64_t value;
	char *text;                 /* NULL when none */
};

/* What the samples of one NVML device add up to. */
struct env_gpu_samples {
	uint64_t n;                 /* samples */
	uint64_t util_n, util_sum, util_max;
	uint64_t self_n, self_util_sum; /* samples with this process on it */
	uint64_t sm_min, sm_max, mem_min, mem_max;
	uint64_t reasons_n;         /* samples with reasons known */
	uint64_t reason_n[ENV_REASON_BITS];     /* samples with bit i set */
	uint64_t temp_max, power_n, power_sum, power_max, mem_used_max;
	uint64_t self_mem_max;
	uint16_t util_status;       /* why utilization is missing, if it is */
	uint32_t pids[ENV_MAX_PIDS];
	uint64_t pid_mem[ENV_MAX_PIDS];
	uint32_t npids;
	uint64_t other_n;           /* samples with another process on it */
};

struct env_device {
	struct env_fact f[ENV_DEV_KEYS];
	uint64_t topo[ENV_MAX_DEVICES]; /* other << 32 | level, as written */
	uint32_t ntopo;
	struct env_gpu_samples s;
};

/* Cumulative host counters: the first and the last sample. */
struct env_counter {
	int have;
	uint64_t t_first, first, t_last, last;
};

struct env_stats {
	struct env_fact host[ENV_HOST_KEYS];
	struct env_device nvml[ENV_MAX_DEVICES];
	struct env_device cuda[ENV_MAX_DEVICES];
	uint32_t n_nvml, n_cuda;    /* highest index seen + 1 */
	uint64_t host_samples;
	struct env_counter cpu[8];  /* by GT_SAMPLE_CPU_USER + i */
	uint64_t children_max;
	int children_known;
	const char *cupti;          /* "on", "off", "taken" */
	char *settings[ENV_MAX_SETTINGS];   /* "NAME=value", as recorded */
	uint32_t nsettings;
};

/* Account for a record of the dump (model.c calls it for each). */
void env_add(struct model *m, const struct dump_reader *r,
	     const struct dump_record *rec);
void env_release(struct model *m);

/* The CUPTI state the GPU timeline part found: "on", "off" or "taken"
 * (a static string); "off" until it says otherwise. */
void env_set_cupti(struct model *m, const char *state);
const char *env_cupti(const struct model *m);

/* Mean nvidia-smi utilization (%) over the samples of the devices the
 * program used: 1 and *mean, or 0 when no sample has one. */
int env_smi_util_mean(const struct model *m, double *mean);

/* The NVML device the program mostly used, or -1 (env_select.c). */
int env_main_nvml(const struct model *m);
/* The CUDA device matching NVML device i (by PCI address), or -1. */
int env_cuda_of(const struct model *m, int i);
/* NVML device i's memory, one total for every output: CUDA's
 * (cuDeviceTotalMem, what the program can allocate) when its CUDA twin is
 * known, else NVML's; i < 0: CUDA device 0's.  *source says which ("CUDA's
 * total"); 0 when the dump does not say. */
uint64_t env_gpu_memory(const struct model *m, int i, const char **source);

/* The value of setting `name` (CUDA_LAUNCH_BLOCKING...) at the start of
 * the run, or NULL when it was not set or the dump does not say. */
const char *env_setting(const struct env_stats *s, const char *name);
/* Whether the dump recorded the settings (GT_ENV_SETTINGS). */
int env_settings_known(const struct env_stats *s);

/* "sw_power_cap"... for reason bit i. */
const char *env_reason_name(unsigned bit);

void env_report_text(FILE *out, const struct model *m);
/* "env": {...} */
void env_report_json(struct json *j, const struct model *m);
/* Inside the "gpu" object: "smi_util_mean": number or null. */
void env_gpu_json(struct json *j, const struct model *m);

#endif /* GPUTRACE_ANALYZER_ENV_H */
