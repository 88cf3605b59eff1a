/* SPDX-License-Identifier: MIT */
/*
 * env_select.c - which device the report is about, and the figures drawn
 * from several records: the GPU the program used (the NVML device where
 * the samples saw it, else the one CUDA calls device 0, else NVML's
 * first), its CUDA twin by PCI address, and the mean utilization.
 */
#include "analyzer/passes/env_internal.h"

static const char *const reason_names[] = {
	"gpu_idle", "applications_clocks_setting", "sw_power_cap",
	"hw_slowdown", "sync_boost", "sw_thermal_slowdown",
	"hw_thermal_slowdown", "hw_power_brake_slowdown",
	"display_clock_setting",
};

const char *env_reason_name(unsigned bit)
{
	static const char *const other[] = {
		"bit9", "bit10", "bit11", "bit12", "bit13", "bit14", "bit15",
	};

	if (bit < sizeof(reason_names) / sizeof(*reason_names))
		return reason_names[bit];
	return bit < 16 ? other[bit - 9] : "?";
}

int env_fact_num(const struct env_fact *f, int64_t *v)
{
	if (!f->have || f->status != GT_INFO_OK)
		return 0;
	*v = f->value;
	return 1;
}

int env_cuda_of(const struct model *m, int i)
{
	const struct env_stats *s = m->env;
	int64_t a, b;

	if (!s || i < 0 || !env_fact_num(&s->nvml[i].f[GT_ENV_PCI - 32], &a))
		return -1;
	for (uint32_t k = 0; k < s->n_cuda; k++)
		if (env_fact_num(&s->cuda[k].f[GT_ENV_PCI - 32], &b) && a == b)
			return (int)k;
	return -1;
}

uint64_t env_gpu_memory(const struct model *m, int i, const char **source)
{
	const struct env_stats *s = m->env;
	int cu = i >= 0 ? env_cuda_of(m, i) : -1;
	int64_t v;

	if (!s)
		return 0;
	if (i < 0 && s->n_cuda)
		cu = 0;
	if (cu >= 0 && env_fact_num(&s->cuda[cu].f[GT_ENV_MEMORY - 32], &v) && v > 0) {
		*source = "CUDA's total";
		return (uint64_t)v;
	}
	*source = "NVML's total";
	return i >= 0 && env_fact_num(&s->nvml[i].f[GT_ENV_MEMORY - 32], &v) && v > 0 ?
	       (uint64_t)v : 0;
}

/* The NVML device whose PCI address is CUDA device 0's, or -1. */
static int nvml_of_cuda0(const struct env_stats *s)
{
	int64_t a, b;

	if (!s->n_cuda || !env_fact_num(&s->cuda[0].f[GT_ENV_PCI - 32], &a))
		return -1;
	for (uint32_t i = 0; i < s->n_nvml; i++)
		if (env_fact_num(&s->nvml[i].f[GT_ENV_PCI - 32], &b) && a == b)
			return (int)i;
	return -1;
}

int env_main_nvml(const struct model *m)
{
	const struct env_stats *s = m->env;
	uint64_t best = 0;
	int pick = -1;

	if (!s || !s->n_nvml)
		return -1;
	for (uint32_t i = 0; i < s->n_nvml; i++)
		if (s->nvml[i].s.self_n > best) {
			best = s->nvml[i].s.self_n;
			pick = (int)i;
		}
	if (pick < 0)
		pick = nvml_of_cuda0(s);
	return pick >= 0 ? pick : 0;
}

/* Over the samples with the program on the device, where that is known;
 * else over every sample of every sampled device. */
int env_smi_util_mean(const struct model *m, double *mean)
{
	const struct env_stats *s = m->env;
	uint64_t n = 0, sum = 0, all_n = 0, all_sum = 0;

	for (uint32_t i = 0; s && i < s->n_nvml; i++) {
		n += s->nvml[i].s.self_n;
		sum += s->nvml[i].s.self_util_sum;
		all_n += s->nvml[i].s.util_n;
		all_sum += s->nvml[i].s.util_sum;
	}
	if (!n) {
		n = all_n;
		sum = all_sum;
	}
	if (!n)
		return 0;
	*mean = (double)sum / (double)n;
	return 1;
}
