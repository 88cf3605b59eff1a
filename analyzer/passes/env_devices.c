/* SPDX-License-Identifier: MIT */
/*
 * env_devices.c - every NVML device of the dump, for "env.devices" and the
 * text report: identity, link, whether the program used it, its samples,
 * and how it connects to the others (nvidia-smi topo's words).
 */
#include <stdio.h>

#include "analyzer/passes/env_internal.h"

#define DEV(d, key) (&(d)->f[(key) - 32])

const char *env_topology_word(int64_t level)
{
	switch (level) {
	case 0: return "board";         /* the same board (multi-GPU card) */
	case 10: return "PIX";          /* one PCIe switch */
	case 20: return "PXB";          /* several PCIe switches */
	case 30: return "PHB";          /* a PCIe host bridge */
	case 40: return "NODE";         /* host bridges of one NUMA node */
	case 50: return "SYS";          /* across NUMA nodes */
	default: return "?";
	}
}

static void put_fact(struct json *j, const char *key, const struct env_fact *f,
		     int as_text)
{
	int64_t v;

	json_key(j, key);
	if (as_text && f->have && f->status == GT_INFO_OK && f->text)
		json_string(j, f->text);
	else if (!as_text && env_fact_num(f, &v) && v >= 0)
		json_uint(j, (uint64_t)v);
	else
		json_null(j);
}

static void topology(struct json *j, const struct env_device *d)
{
	json_key(j, "topology");
	json_begin_array(j);
	for (uint32_t k = 0; k < d->ntopo; k++) {
		json_begin_object(j);
		json_key(j, "to");
		json_uint(j, d->topo[k] >> 32);
		json_key(j, "link");
		json_string(j, env_topology_word((int64_t)(d->topo[k] & 0xffffffffu)));
		json_end_object(j);
	}
	json_end_array(j);
}

static void one(struct json *j, const struct env_device *d, uint32_t i)
{
	const struct env_gpu_samples *g = &d->s;

	json_begin_object(j);
	json_key(j, "index");
	json_uint(j, i);
	put_fact(j, "name", DEV(d, GT_ENV_NAME), 1);
	put_fact(j, "pci", DEV(d, GT_ENV_PCI), 1);
	put_fact(j, "uuid", DEV(d, GT_ENV_UUID), 1);
	put_fact(j, "memory_bytes", DEV(d, GT_ENV_MEMORY), 0);
	put_fact(j, "pcie_gen", DEV(d, GT_ENV_PCIE_GEN), 0);
	put_fact(j, "pcie_width", DEV(d, GT_ENV_PCIE_WIDTH), 0);
	put_fact(j, "nvlink_active", DEV(d, GT_ENV_NVLINK_ACTIVE), 0);
	put_fact(j, "sm_mhz_limit", DEV(d, GT_ENV_SM_CLOCK_MAX), 0);
	put_fact(j, "power_limit_mw", DEV(d, GT_ENV_POWER_LIMIT), 0);
	json_key(j, "used");
	json_bool(j, g->self_n > 0);
	json_key(j, "samples");
	json_uint(j, g->n);
	json_key(j, "util_mean");
	if (g->util_n)
		json_double(j, (double)g->util_sum / (double)g->util_n);
	else
		json_null(j);
	topology(j, d);
	json_end_object(j);
}

void env_devices_json(struct json *j, const struct env_stats *s)
{
	json_key(j, "devices");
	json_begin_array(j);
	for (uint32_t i = 0; s && i < s->n_nvml; i++)
		one(j, &s->nvml[i], i);
	json_end_array(j);
}
