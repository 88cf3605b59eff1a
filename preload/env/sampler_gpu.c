/* SPDX-License-Identifier: MIT */
/*
 * sampler_gpu.c - one NVML sample of a GPU: utilization as nvidia-smi
 * shows it, SM and memory clocks and why they are held down, temperature,
 * power, memory used, and the other processes computing on it (with what
 * this process itself holds there).  Called by the sampler thread only.
 */
#include <unistd.h>

#include "include/gputrace/format.h"
#include "preload/env/env_items.h"
#include "preload/env/nvml.h"
#include "preload/env/sampler.h"

#define MAX_PROCS 64

#define CALL(nv, f, ...) \
	((nv)->f ? (nv)->f(__VA_ARGS__) : GT_NVML_ERROR_FUNCTION_NOT_FOUND)

static void clocks(const struct gt_nvml_fns *nv, struct gt_items *it,
		   gt_nvml_dev d)
{
	unsigned long long why = 0;
	unsigned mhz = 0;
	int rc;

	rc = CALL(nv, nvmlDeviceGetClockInfo, d, GT_NVML_CLOCK_SM, &mhz);
	gt_items_nvml(it, GT_SAMPLE_CLOCK_SM, rc, mhz);
	rc = CALL(nv, nvmlDeviceGetClockInfo, d, GT_NVML_CLOCK_MEM, &mhz);
	gt_items_nvml(it, GT_SAMPLE_CLOCK_MEM, rc, mhz);
	rc = CALL(nv, nvmlDeviceGetCurrentClocksEventReasons, d, &why);
	if (rc == GT_NVML_ERROR_FUNCTION_NOT_FOUND)     /* before NVML 12.2 */
		rc = CALL(nv, nvmlDeviceGetCurrentClocksThrottleReasons, d, &why);
	gt_items_nvml(it, GT_SAMPLE_CLOCK_REASONS, rc, (int64_t)why);
}

static void load(const struct gt_nvml_fns *nv, struct gt_items *it,
		 gt_nvml_dev d)
{
	struct gt_nvml_utilization u = { 0, 0 };
	struct gt_nvml_memory mem = { 0, 0, 0 };
	unsigned v = 0;
	int rc;

	rc = CALL(nv, nvmlDeviceGetUtilizationRates, d, &u);
	gt_items_nvml(it, GT_SAMPLE_UTIL_GPU, rc, u.gpu);
	gt_items_nvml(it, GT_SAMPLE_UTIL_MEM, rc, u.memory);
	rc = CALL(nv, nvmlDeviceGetTemperature, d, GT_NVML_TEMPERATURE_GPU, &v);
	gt_items_nvml(it, GT_SAMPLE_TEMP, rc, v);
	rc = CALL(nv, nvmlDeviceGetPowerUsage, d, &v);
	gt_items_nvml(it, GT_SAMPLE_POWER, rc, v);
	rc = CALL(nv, nvmlDeviceGetMemoryInfo, d, &mem);
	gt_items_nvml(it, GT_SAMPLE_MEM_USED, rc, (int64_t)mem.used);
}

static void processes(const struct gt_nvml_fns *nv, struct gt_items *it,
		      gt_nvml_dev d)
{
	static struct gt_nvml_process p[MAX_PROCS];
	unsigned n = MAX_PROCS, i;
	unsigned self = (unsigned)getpid();
	int64_t own = 0;
	int rc;

	rc = CALL(nv, nvmlDeviceGetComputeRunningProcesses_v3, d, &n, p);
	if (rc == GT_NVML_ERROR_FUNCTION_NOT_FOUND) {
		n = MAX_PROCS;
		rc = CALL(nv, nvmlDeviceGetComputeRunningProcesses_v2, d, &n, p);
	}
	if (rc != GT_NVML_SUCCESS) {
		gt_items_nvml(it, GT_SAMPLE_OTHER_PID, rc, 0);
		return;
	}
	for (i = 0; i < n && i < MAX_PROCS; i++) {
		if (p[i].pid == self) {
			own += (int64_t)p[i].used_gpu_memory;
			continue;
		}
		gt_items_num(it, GT_SAMPLE_OTHER_PID, p[i].pid);
		gt_items_num(it, GT_SAMPLE_OTHER_MEM, (int64_t)p[i].used_gpu_memory);
	}
	gt_items_num(it, GT_SAMPLE_SELF_MEM, own);
}

void gt_sample_gpus(const struct gt_gpus *g)
{
	static struct gt_items it;
	const struct gt_nvml_fns *nv = g->n ? gt_nvml() : NULL;

	if (!nv)
		return;
	for (unsigned i = 0; i < g->n; i++) {
		if (!(g->sampled >> i & 1))
			continue;
		gt_items_begin(&it, i);
		load(nv, &it, g->dev[i]);
		clocks(nv, &it, g->dev[i]);
		processes(nv, &it, g->dev[i]);
		gt_items_put(&it, GT_CHUNK_SAMPLE);
	}
}
