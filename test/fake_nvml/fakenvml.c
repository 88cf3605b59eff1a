/* SPDX-License-Identifier: MIT */
/*
 * fakenvml.c - a fake libnvidia-ml.so.1 for the tests: the NVML functions
 * gputrace calls (preload/env/nvml_api.h, with NVML's own names and numbers),
 * answering what the test chose through FAKE_NVML_* variables:
 *
 *   FAKE_NVML_INIT_ERROR=N     nvmlInit_v2 fails with N
 *   FAKE_NVML_DEVICES=N        devices (default 1, at most 8)
 *   FAKE_NVML_NAME=S           device name (default "NVIDIA Fake GPU")
 *   FAKE_NVML_UTIL=A,B,...     GPU utilization %, one value per call, cycling
 *   FAKE_NVML_REASONS=HEX      clock event reasons (default 0)
 *   FAKE_NVML_PROCS=P:M,...    compute processes: pid P (or "self") using
 *                              M bytes
 *   FAKE_NVML_PCIE=G,GM,W,WM   link generation now/max, width now/max
 *   FAKE_NVML_UNSUPPORTED=...  answer NOT_SUPPORTED for: power, temp, ecc,
 *                              nvlink, reasons, procs, pcie
 *   FAKE_NVML_NVLINK=N         links up (of 18)
 *
 * Every other answer is a fixed, plausible value (see below).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "preload/env/nvml_api.h"

#define EXPORT __attribute__((visibility("default")))
#define MAX_DEV 8

struct gt_nvml_dev {
	unsigned index;
};

static struct gt_nvml_dev devs[MAX_DEV];
static unsigned calls_util;

static const char *env(const char *name, const char *def)
{
	const char *v = getenv(name);

	return v && *v ? v : def;
}

static int unsupported(const char *what)
{
	const char *list = env("FAKE_NVML_UNSUPPORTED", "");

	return strstr(list, what) != NULL;
}

static unsigned ndev(void)
{
	unsigned n = (unsigned)atoi(env("FAKE_NVML_DEVICES", "1"));

	return n > MAX_DEV ? MAX_DEV : n;
}

/* The n-th (0-based) comma-separated number of a list, cycling. */
static long nth(const char *list, unsigned n)
{
	long vals[64];
	unsigned count = 0;
	char *end;

	while (count < 64) {
		vals[count] = strtol(list, &end, 0);
		if (end == list)
			break;
		count++;
		list = *end == ',' ? end + 1 : end;
	}
	return count ? vals[n % count] : 0;
}

EXPORT gt_nvml_ret nvmlInit_v2(void)
{
	return atoi(env("FAKE_NVML_INIT_ERROR", "0"));
}

EXPORT gt_nvml_ret nvmlSystemGetDriverVersion(char *v, unsigned len)
{
	snprintf(v, len, "%s", "580.95.05");
	return GT_NVML_SUCCESS;
}

EXPORT gt_nvml_ret nvmlSystemGetCudaDriverVersion_v2(int *v)
{
	*v = 13000;
	return GT_NVML_SUCCESS;
}

EXPORT gt_nvml_ret nvmlDeviceGetCount_v2(unsigned *n)
{
	*n = ndev();
	return GT_NVML_SUCCESS;
}

EXPORT gt_nvml_ret nvmlDeviceGetHandleByIndex_v2(unsigned i, gt_nvml_dev *d)
{
	if (i >= ndev())
		return GT_NVML_ERROR_INVALID_ARGUMENT;
	devs[i].index = i;
	*d = &devs[i];
	return GT_NVML_SUCCESS;
}

EXPORT gt_nvml_ret nvmlDeviceGetName(gt_nvml_dev d, char *name, unsigned len)
{
	snprintf(name, len, "%s", env("FAKE_NVML_NAME", "NVIDIA Fake GPU"));
	return GT_NVML_SUCCESS;
}

EXPORT gt_nvml_ret nvmlDeviceGetUUID(gt_nvml_dev d, char *uuid, unsigned len)
{
	snprintf(uuid, len, "GPU-fake-%u", d->index);
	return GT_NVML_SUCCESS;
}

EXPORT gt_nvml_ret nvmlDeviceGetPciInfo_v3(gt_nvml_dev d, struct gt_nvml_pci *p)
{
	memset(p, 0, sizeof(*p));
	p->bus = 0x10 + d->index;
	snprintf(p->bus_id, sizeof(p->bus_id), "00000000:%02X:00.0", p->bus);
	return GT_NVML_SUCCESS;
}

EXPORT gt_nvml_ret nvmlDeviceGetMemoryInfo(gt_nvml_dev d, struct gt_nvml_memory *m)
{
	m->total = 150ull << 30;
	m->used = 1ull << 30;
	m->free = m->total - m->used;
	return GT_NVML_SUCCESS;
}

EXPORT gt_nvml_ret nvmlDeviceGetCudaComputeCapability(gt_nvml_dev d, int *ma, int *mi)
{
	*ma = 9;
	*mi = 0;
	return GT_NVML_SUCCESS;
}

static gt_nvml_ret pcie(unsigned field, unsigned *v)
{
	if (unsupported("pcie"))
		return GT_NVML_ERROR_NOT_SUPPORTED;
	*v = (unsigned)nth(env("FAKE_NVML_PCIE", "4,5,16,16"), field);
	return GT_NVML_SUCCESS;
}

EXPORT gt_nvml_ret nvmlDeviceGetCurrPcieLinkGeneration(gt_nvml_dev d, unsigned *v)
{
	return pcie(0, v);
}

EXPORT gt_nvml_ret nvmlDeviceGetMaxPcieLinkGeneration(gt_nvml_dev d, unsigned *v)
{
	return pcie(1, v);
}

EXPORT gt_nvml_ret nvmlDeviceGetCurrPcieLinkWidth(gt_nvml_dev d, unsigned *v)
{
	return pcie(2, v);
}

EXPORT gt_nvml_ret nvmlDeviceGetMaxPcieLinkWidth(gt_nvml_dev d, unsigned *v)
{
	return pcie(3, v);
}

EXPORT gt_nvml_ret nvmlDeviceGetNvLinkState(gt_nvml_dev d, unsigned link, int *up)
{
	if (unsupported("nvlink"))
		return GT_NVML_ERROR_NOT_SUPPORTED;
	*up = (int)link < atoi(env("FAKE_NVML_NVLINK", "0"));
	return GT_NVML_SUCCESS;
}

EXPORT gt_nvml_ret nvmlDeviceGetTopologyCommonAncestor(gt_nvml_dev a, gt_nvml_dev b,
						       int *level)
{
	*level = 10;                            /* one PCIe switch */
	return GT_NVML_SUCCESS;
}

EXPORT gt_nvml_ret nvmlDeviceGetEccMode(gt_nvml_dev d, int *cur, int *pend)
{
	if (unsupported("ecc"))
		return GT_NVML_ERROR_NOT_SUPPORTED;
	*cur = *pend = 1;
	return GT_NVML_SUCCESS;
}

EXPORT gt_nvml_ret nvmlDeviceGetPersistenceMode(gt_nvml_dev d, int *mode)
{
	*mode = 1;
	return GT_NVML_SUCCESS;
}

EXPORT gt_nvml_ret nvmlDeviceGetComputeMode(gt_nvml_dev d, int *mode)
{
	*mode = 0;
	return GT_NVML_SUCCESS;
}

EXPORT gt_nvml_ret nvmlDeviceGetMigMode(gt_nvml_dev d, unsigned *cur, unsigned *pend)
{
	return GT_NVML_ERROR_NOT_SUPPORTED;
}

EXPORT gt_nvml_ret nvmlDeviceGetMaxClockInfo(gt_nvml_dev d, int type, unsigned *mhz)
{
	*mhz = type == GT_NVML_CLOCK_MEM ? 2619 : 1980;
	return GT_NVML_SUCCESS;
}

EXPORT gt_nvml_ret nvmlDeviceGetEnforcedPowerLimit(gt_nvml_dev d, unsigned *mw)
{
	*mw = 700000;
	return GT_NVML_SUCCESS;
}

EXPORT gt_nvml_ret nvmlDeviceGetUtilizationRates(gt_nvml_dev d,
						 struct gt_nvml_utilization *u)
{
	u->gpu = (unsigned)nth(env("FAKE_NVML_UTIL", "0"), calls_util++);
	u->memory = u->gpu / 2;
	return GT_NVML_SUCCESS;
}

EXPORT gt_nvml_ret nvmlDeviceGetClockInfo(gt_nvml_dev d, int type, unsigned *mhz)
{
	*mhz = type == GT_NVML_CLOCK_MEM ? 2619 : 1755;
	return GT_NVML_SUCCESS;
}

EXPORT gt_nvml_ret nvmlDeviceGetCurrentClocksEventReasons(gt_nvml_dev d,
							  unsigned long long *r)
{
	if (unsupported("reasons"))
		return GT_NVML_ERROR_NOT_SUPPORTED;
	*r = strtoull(env("FAKE_NVML_REASONS", "0"), NULL, 16);
	return GT_NVML_SUCCESS;
}

EXPORT gt_nvml_ret nvmlDeviceGetTemperature(gt_nvml_dev d, int sensor, unsigned *c)
{
	if (unsupported("temp"))
		return GT_NVML_ERROR_NOT_SUPPORTED;
	*c = 41;
	return GT_NVML_SUCCESS;
}

EXPORT gt_nvml_ret nvmlDeviceGetPowerUsage(gt_nvml_dev d, unsigned *mw)
{
	if (unsupported("power"))
		return GT_NVML_ERROR_NOT_SUPPORTED;
	*mw = 123000;
	return GT_NVML_SUCCESS;
}

EXPORT gt_nvml_ret nvmlDeviceGetComputeRunningProcesses_v3(
	gt_nvml_dev d, unsigned *count, struct gt_nvml_process *p)
{
	const char *list = env("FAKE_NVML_PROCS", "");
	unsigned n = 0;

	if (unsupported("procs"))
		return GT_NVML_ERROR_NOT_SUPPORTED;
	while (*list && n < *count) {
		char *end;

		p[n].pid = !strncmp(list, "self", 4) ? (unsigned)getpid()
						     : (unsigned)strtoul(list, NULL, 10);
		end = strchr(list, ':');
		p[n].used_gpu_memory = end ? strtoull(end + 1, NULL, 10) : 0;
		p[n].gpu_instance_id = p[n].compute_instance_id = 0xffffffffu;
		n++;
		end = strchr(list, ',');
		list = end ? end + 1 : "";
	}
	*count = n;
	return GT_NVML_SUCCESS;
}
