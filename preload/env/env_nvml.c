/* SPDX-License-Identifier: MIT */
/*
 * env_nvml.c - what NVML says about the driver and each GPU, once, when
 * the dump opens: versions, name, memory, compute capability, PCIe link
 * (now and at most), NVLink, topology between GPUs, ECC, persistence,
 * compute and MIG modes, clock and power limits.  Every answer is kept,
 * "not supported" and errors included.
 */
#include <string.h>

#include "include/gputrace/format.h"
#include "preload/env/env.h"
#include "preload/env/env_items.h"
#include "preload/env/nvml.h"

#define CALL(nv, f, ...) \
	((nv)->f ? (nv)->f(__VA_ARGS__) : GT_NVML_ERROR_FUNCTION_NOT_FOUND)

static void host_items(const struct gt_nvml_fns *nv, struct gt_items *it,
		       unsigned n)
{
	char ver[GT_NVML_VERSION_SIZE] = "";
	int cuda = 0, rc;

	gt_items_num(it, GT_ENV_NVML, n);
	rc = CALL(nv, nvmlSystemGetDriverVersion, ver, sizeof(ver));
	if (rc == GT_NVML_SUCCESS)
		gt_items_text(it, GT_ENV_DRIVER_RELEASE, 0, ver);
	else
		gt_items_nvml(it, GT_ENV_DRIVER_RELEASE, rc, 0);
	rc = CALL(nv, nvmlSystemGetCudaDriverVersion_v2, &cuda);
	gt_items_nvml(it, GT_ENV_DRIVER_VERSION, rc, cuda);
}

static void pcie_items(const struct gt_nvml_fns *nv, struct gt_items *it,
		       gt_nvml_dev d)
{
	unsigned v = 0;
	int rc;

	rc = CALL(nv, nvmlDeviceGetCurrPcieLinkGeneration, d, &v);
	gt_items_nvml(it, GT_ENV_PCIE_GEN, rc, v);
	rc = CALL(nv, nvmlDeviceGetMaxPcieLinkGeneration, d, &v);
	gt_items_nvml(it, GT_ENV_PCIE_GEN_MAX, rc, v);
	rc = CALL(nv, nvmlDeviceGetCurrPcieLinkWidth, d, &v);
	gt_items_nvml(it, GT_ENV_PCIE_WIDTH, rc, v);
	rc = CALL(nv, nvmlDeviceGetMaxPcieLinkWidth, d, &v);
	gt_items_nvml(it, GT_ENV_PCIE_WIDTH_MAX, rc, v);
}

/* Links up; "not supported" when the first link is. */
static void nvlink_items(const struct gt_nvml_fns *nv, struct gt_items *it,
			 gt_nvml_dev d)
{
	int active, rc = GT_NVML_SUCCESS, up = 0;
	unsigned link;

	for (link = 0; link < GT_NVML_NVLINK_MAX_LINKS; link++) {
		active = 0;
		rc = CALL(nv, nvmlDeviceGetNvLinkState, d, link, &active);
		if (rc != GT_NVML_SUCCESS)
			break;
		up += active == 1;
	}
	gt_items_nvml(it, GT_ENV_NVLINK_ACTIVE, link ? GT_NVML_SUCCESS : rc, up);
}

static void mode_items(const struct gt_nvml_fns *nv, struct gt_items *it,
		       gt_nvml_dev d)
{
	int cur = 0, pend = 0, rc;
	unsigned ucur = 0, upend = 0, v = 0;

	rc = CALL(nv, nvmlDeviceGetEccMode, d, &cur, &pend);
	gt_items_nvml(it, GT_ENV_ECC, rc, cur);
	rc = CALL(nv, nvmlDeviceGetPersistenceMode, d, &cur);
	gt_items_nvml(it, GT_ENV_PERSISTENCE, rc, cur);
	rc = CALL(nv, nvmlDeviceGetComputeMode, d, &cur);
	gt_items_nvml(it, GT_ENV_COMPUTE_MODE, rc, cur);
	rc = CALL(nv, nvmlDeviceGetMigMode, d, &ucur, &upend);
	gt_items_nvml(it, GT_ENV_MIG, rc, ucur);
	rc = CALL(nv, nvmlDeviceGetMaxClockInfo, d, GT_NVML_CLOCK_SM, &v);
	gt_items_nvml(it, GT_ENV_SM_CLOCK_MAX, rc, v);
	rc = CALL(nv, nvmlDeviceGetMaxClockInfo, d, GT_NVML_CLOCK_MEM, &v);
	gt_items_nvml(it, GT_ENV_MEM_CLOCK_MAX, rc, v);
	rc = CALL(nv, nvmlDeviceGetEnforcedPowerLimit, d, &v);
	gt_items_nvml(it, GT_ENV_POWER_LIMIT, rc, v);
}

static void id_items(const struct gt_nvml_fns *nv, struct gt_items *it,
		     struct gt_gpus *g, unsigned i)
{
	char text[GT_NVML_NAME_SIZE] = "";
	struct gt_nvml_pci pci;
	struct gt_nvml_memory mem;
	int major = 0, minor = 0, rc;

	rc = CALL(nv, nvmlDeviceGetName, g->dev[i], text, sizeof(text));
	rc ? gt_items_nvml(it, GT_ENV_NAME, rc, 0)
	   : gt_items_text(it, GT_ENV_NAME, 0, text);
	rc = CALL(nv, nvmlDeviceGetUUID, g->dev[i], text, sizeof(text));
	rc ? gt_items_nvml(it, GT_ENV_UUID, rc, 0)
	   : gt_items_text(it, GT_ENV_UUID, 0, text);
	memset(&pci, 0, sizeof(pci));
	rc = CALL(nv, nvmlDeviceGetPciInfo_v3, g->dev[i], &pci);
	g->pci[i] = rc ? UINT64_MAX : (uint64_t)pci.domain << 16 |
				       (pci.bus & 0xff) << 8 | (pci.device & 0xff);
	pci.bus_id[sizeof(pci.bus_id) - 1] = 0;
	rc ? gt_items_nvml(it, GT_ENV_PCI, rc, 0)
	   : gt_items_text(it, GT_ENV_PCI, (int64_t)g->pci[i], pci.bus_id);
	rc = CALL(nv, nvmlDeviceGetMemoryInfo, g->dev[i], &mem);
	gt_items_nvml(it, GT_ENV_MEMORY, rc, rc ? 0 : (int64_t)mem.total);
	rc = CALL(nv, nvmlDeviceGetCudaComputeCapability, g->dev[i], &major, &minor);
	gt_items_nvml(it, GT_ENV_CC, rc, major * 10 + minor);
}

static void topology_items(const struct gt_nvml_fns *nv, struct gt_items *it,
			   const struct gt_gpus *g, unsigned i)
{
	int level, rc;

	for (unsigned j = 0; j < g->n; j++) {
		if (j == i)
			continue;
		level = 0;
		rc = CALL(nv, nvmlDeviceGetTopologyCommonAncestor, g->dev[i],
			  g->dev[j], &level);
		if (rc == GT_NVML_SUCCESS)
			gt_items_num(it, GT_ENV_TOPOLOGY, (int64_t)j << 32 | level);
		else if (j == (i ? 0u : 1u))    /* say once why there is none */
			gt_items_nvml(it, GT_ENV_TOPOLOGY, rc, (int64_t)j << 32);
	}
}

static void device_chunk(const struct gt_nvml_fns *nv, struct gt_gpus *g,
			 unsigned i)
{
	static struct gt_items it;      /* one thread: the sampler */

	gt_items_begin(&it, i);
	id_items(nv, &it, g, i);
	pcie_items(nv, &it, g->dev[i]);
	nvlink_items(nv, &it, g->dev[i]);
	mode_items(nv, &it, g->dev[i]);
	topology_items(nv, &it, g, i);
	gt_items_put(&it, GT_CHUNK_ENV);
}

/* The host chunk when NVML cannot be used: why. */
static void nvml_missing(struct gt_items *it)
{
	int err = 0, st = gt_nvml_state(&err);

	if (st == GT_NVML_FAILED)
		gt_items_fail(it, GT_ENV_NVML, GT_INFO_FAILED, err);
	else
		gt_items_fail(it, GT_ENV_NVML, GT_INFO_MISSING,
			      st == GT_NVML_FORKED ? -1 : 0);
}

void gt_env_nvml(struct gt_gpus *g)
{
	static struct gt_items it;
	const struct gt_nvml_fns *nv = gt_nvml();
	unsigned n = 0;

	memset(g, 0, sizeof(*g));
	gt_items_begin(&it, GT_SCOPE_HOST);
	if (!nv) {
		nvml_missing(&it);
		gt_items_put(&it, GT_CHUNK_ENV);
		return;
	}
	if (nv->nvmlDeviceGetCount_v2(&n) != GT_NVML_SUCCESS)
		n = 0;
	while (g->n < n && g->n < GT_MAX_GPUS &&     /* indices stay NVML's */
	       nv->nvmlDeviceGetHandleByIndex_v2(g->n, &g->dev[g->n]) ==
	       GT_NVML_SUCCESS)
		g->n++;
	g->sampled = g->n >= 64 ? ~0ull : (1ull << g->n) - 1;
	host_items(nv, &it, g->n);
	gt_items_put(&it, GT_CHUNK_ENV);
	for (unsigned i = 0; i < g->n; i++)
		device_chunk(nv, g, i);
}
