/* SPDX-License-Identifier: MIT */
/*
 * env_json.c - the "env" object of the JSON report: versions, the device
 * the program used (name, SMs, memory, link), throttling and other
 * processes seen, CPU use, the settings in the program's environment,
 * then every NVML device.  Unknown is null.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/passes/env_internal.h"
#include "analyzer/lib/util.h"

#define DEV(d, key) (&(d)->f[(key) - 32])

static void num(struct json *j, const char *key, const struct env_fact *f)
{
	int64_t v;

	json_key(j, key);
	if (f && env_fact_num(f, &v))
		v >= 0 ? json_uint(j, (uint64_t)v) : json_double(j, (double)v);
	else
		json_null(j);
}

static void text(struct json *j, const char *key, const struct env_fact *f)
{
	json_key(j, key);
	if (f && f->have && f->status == GT_INFO_OK && f->text)
		json_string(j, f->text);
	else
		json_null(j);
}

static void flag(struct json *j, const char *key, const struct env_fact *f)
{
	int64_t v;

	json_key(j, key);
	if (f && env_fact_num(f, &v))
		json_bool(j, v != 0);
	else
		json_null(j);
}

static void real(struct json *j, const char *key, int ok, double v)
{
	json_key(j, key);
	ok ? json_double(j, v) : json_null(j);
}

static void whole(struct json *j, const char *key, int ok, uint64_t v)
{
	json_key(j, key);
	ok ? json_uint(j, v) : json_null(j);
}

const char *env_nvml_word(const struct env_stats *s)
{
	const struct env_fact *f = s ? &s->host[GT_ENV_NVML] : NULL;

	if (!f || !f->have)
		return "unknown";
	if (f->status == GT_INFO_OK)
		return "ok";
	if (f->status == GT_INFO_FAILED)
		return "failed";
	return f->value < 0 ? "forked" : "missing";
}

/* The CUDA fact when CUDA said it, else NVML's. */
static const struct env_fact *either(const struct env_device *c,
				     const struct env_device *n, int key)
{
	if (c && DEV(c, key)->have && DEV(c, key)->status == GT_INFO_OK)
		return DEV(c, key);
	return n ? DEV(n, key) : NULL;
}

static void device_keys(struct json *j, const struct env_device *c,
			const struct env_device *n)
{
	const struct env_fact *cc = either(c, n, GT_ENV_CC);
	int64_t v;
	char buf[48];

	text(j, "device", either(c, n, GT_ENV_NAME));
	num(j, "sm_count", c ? DEV(c, GT_ENV_SM_COUNT) : NULL);
	num(j, "memory_bytes", either(c, n, GT_ENV_MEMORY));
	json_key(j, "compute_capability");
	if (cc && env_fact_num(cc, &v)) {
		snprintf(buf, sizeof(buf), "%lld.%lld", (long long)v / 10,
			 (long long)v % 10);
		json_string(j, buf);
	} else {
		json_null(j);
	}
	num(j, "pcie_gen", n ? DEV(n, GT_ENV_PCIE_GEN) : NULL);
	num(j, "pcie_width", n ? DEV(n, GT_ENV_PCIE_WIDTH) : NULL);
	num(j, "pcie_gen_max", n ? DEV(n, GT_ENV_PCIE_GEN_MAX) : NULL);
	num(j, "pcie_width_max", n ? DEV(n, GT_ENV_PCIE_WIDTH_MAX) : NULL);
	num(j, "nvlink_active", n ? DEV(n, GT_ENV_NVLINK_ACTIVE) : NULL);
	flag(j, "ecc", n ? DEV(n, GT_ENV_ECC) : NULL);
	flag(j, "persistence", n ? DEV(n, GT_ENV_PERSISTENCE) : NULL);
}

static void reasons(struct json *j, const struct env_gpu_samples *g)
{
	json_key(j, "throttle_reasons_seen");
	json_begin_array(j);
	for (unsigned b = 0; g && b < ENV_REASON_BITS; b++)
		if (g->reason_n[b])
			json_string(j, env_reason_name(b));
	json_end_array(j);
}

static void others(struct json *j, const struct env_stats *s)
{
	json_key(j, "other_processes");
	json_begin_array(j);
	for (uint32_t i = 0; s && i < s->n_nvml; i++)
		for (uint32_t k = 0; k < s->nvml[i].s.npids; k++) {
			json_begin_object(j);
			json_key(j, "device");
			json_uint(j, i);
			json_key(j, "pid");
			json_uint(j, s->nvml[i].s.pids[k]);
			json_key(j, "mem_bytes");
			json_uint(j, s->nvml[i].s.pid_mem[k]);
			json_end_object(j);
		}
	json_end_array(j);
}

static void gpu_state(struct json *j, const struct env_gpu_samples *g)
{
	int ok = g && g->util_n;

	json_key(j, "gpu_samples");
	json_uint(j, g ? g->n : 0);
	real(j, "util_mean", ok, ok ? (double)g->util_sum / (double)g->util_n : 0);
	whole(j, "util_max", ok, ok ? g->util_max : 0);
	whole(j, "sm_mhz_min", g && g->sm_max, g ? g->sm_min : 0);
	whole(j, "sm_mhz_max", g && g->sm_max, g ? g->sm_max : 0);
	whole(j, "mem_mhz_max", g && g->mem_max, g ? g->mem_max : 0);
	whole(j, "temp_max_c", g && g->temp_max, g ? g->temp_max : 0);
	real(j, "power_mean_w", g && g->power_n,
	     g && g->power_n ? (double)g->power_sum / (double)g->power_n / 1000 : 0);
	real(j, "power_max_w", g && g->power_n, g ? (double)g->power_max / 1000 : 0);
	whole(j, "mem_used_max_bytes", g && g->mem_used_max,
	      g ? g->mem_used_max : 0);
}

static void cpu(struct json *j, const struct env_stats *s)
{
	double v = 0;
	int ok;

	json_key(j, "cpu");
	json_begin_object(j);
	ok = s && env_cpu_cores(s, GT_SAMPLE_CPU_USER, GT_SAMPLE_CPU_SYS, &v);
	real(j, "process_cores", ok, v);
	ok = s && env_cpu_cores(s, GT_SAMPLE_CHILD_USER, GT_SAMPLE_CHILD_SYS, &v);
	real(j, "children_cores", ok, v);
	whole(j, "children_max", s && s->children_known,
	      s ? s->children_max : 0);
	ok = s && env_host_share(s, GT_SAMPLE_HOST_IOWAIT, &v);
	real(j, "host_iowait", ok, v);
	ok = s && env_host_share(s, GT_SAMPLE_HOST_IDLE, &v);
	real(j, "host_idle", ok, v);
	json_end_object(j);
}

static void host_keys(struct json *j, const struct env_stats *s)
{
	const struct env_fact *h = s ? s->host : NULL;
	int64_t q;

	num(j, "driver_version", h ? &h[GT_ENV_DRIVER_VERSION] : NULL);
	text(j, "driver_release", h ? &h[GT_ENV_DRIVER_RELEASE] : NULL);
	num(j, "runtime_version", h ? &h[GT_ENV_RUNTIME_VERSION] : NULL);
	num(j, "cupti_version", h ? &h[GT_ENV_CUPTI_VERSION] : NULL);
	json_key(j, "nvml");
	json_string(j, env_nvml_word(s));
	num(j, "cpu_cores", h ? &h[GT_ENV_CPU_CORES] : NULL);
	num(j, "cpu_affinity", h ? &h[GT_ENV_CPU_AFFINITY] : NULL);
	text(j, "cpu_affinity_list", h ? &h[GT_ENV_CPU_AFFINITY] : NULL);
	real(j, "cpu_quota", h && env_fact_num(&h[GT_ENV_CPU_QUOTA], &q),
	     h ? (double)h[GT_ENV_CPU_QUOTA].value / 1000 : 0);
	num(j, "host_memory_bytes", h ? &h[GT_ENV_HOST_MEMORY] : NULL);
	num(j, "sample_ms", h ? &h[GT_ENV_SAMPLE_MS] : NULL);
	json_key(j, "samples");
	json_uint(j, s ? s->host_samples : 0);
}

/* "settings": {"NAME": "value", ...}, null when the dump does not say. */
static void settings(struct json *j, const struct env_stats *s)
{
	json_key(j, "settings");
	if (!env_settings_known(s)) {
		json_null(j);
		return;
	}
	json_begin_object(j);
	for (uint32_t i = 0; i < s->nsettings; i++) {
		const char *eq = strchr(s->settings[i], '=');
		char *name = xmemdupz(s->settings[i], (size_t)(eq - s->settings[i]));

		json_key(j, name);
		json_string(j, eq + 1);
		free(name);
	}
	json_end_object(j);
}

void env_report_json(struct json *j, const struct model *m)
{
	const struct env_stats *s = m->env;
	int nv = env_main_nvml(m), cu = nv >= 0 ? env_cuda_of(m, nv) : 0;
	const struct env_device *n = nv >= 0 ? &s->nvml[nv] : NULL;
	const struct env_device *c = s && cu >= 0 && (uint32_t)cu < s->n_cuda ?
				     &s->cuda[cu] : NULL;

	json_key(j, "env");
	json_begin_object(j);
	host_keys(j, s);
	json_key(j, "cupti");
	json_string(j, env_cupti(m));
	json_key(j, "nvml_device");
	nv >= 0 ? json_uint(j, (uint64_t)nv) : json_null(j);
	device_keys(j, c, n);
	reasons(j, n ? &n->s : NULL);
	gpu_state(j, n ? &n->s : NULL);
	others(j, s);
	cpu(j, s);
	settings(j, s);
	env_devices_json(j, s);
	json_end_object(j);
}

void env_gpu_json(struct json *j, const struct model *m)
{
	double mean = 0;
	int ok = env_smi_util_mean(m, &mean);

	real(j, "smi_util_mean", ok, mean);
}
