/* SPDX-License-Identifier: MIT */
/*
 * env_internal.h - what env.c, env_samples.c, env_select.c and env_report.c
 * share.
 */
#ifndef GPUTRACE_ANALYZER_ENV_INTERNAL_H
#define GPUTRACE_ANALYZER_ENV_INTERNAL_H

#include "analyzer/passes/env.h"

/* The model's env_stats, made at the first use. */
struct env_stats *env_stats_of(struct model *m);

/* Take in one GT_CHUNK_SAMPLE record (env_samples.c). */
void env_sample(struct env_stats *s, const struct dump_record *rec);

/* A fact that is known (status OK): 1 and *v, else 0. */
int env_fact_num(const struct env_fact *f, int64_t *v);

/* CPU time used over the samples, in cores (ns of CPU per ns of wall):
 * 1 and *cores, or 0 with fewer than two samples. */
int env_cpu_cores(const struct env_stats *s, int user_key, int sys_key,
		  double *cores);
/* The share (0..1) of the machine's CPU time spent in state `key`
 * (GT_SAMPLE_HOST_IOWAIT, _IDLE): 1 and *share, or 0. */
int env_host_share(const struct env_stats *s, int key, double *share);

/* "ok", "missing", "failed", "forked" or "unknown": NVML at record time. */
const char *env_nvml_word(const struct env_stats *s);
/* nvidia-smi topo's word for an NVML topology level: "PIX", "SYS"... */
const char *env_topology_word(int64_t level);
/* "devices": [...] (env_devices.c). */
void env_devices_json(struct json *j, const struct env_stats *s);

#endif /* GPUTRACE_ANALYZER_ENV_INTERNAL_H */
