/* SPDX-License-Identifier: MIT */
/*
 * env_cuda.c - the devices and versions as CUDA shows them to the program:
 * driver and runtime versions, CUPTI's when it is loaded, and per device
 * its name, SM count, memory, compute capability and PCI address.
 *
 * CUDA is never initialised by us: cuDeviceGetCount answers
 * CUDA_ERROR_NOT_INITIALIZED until the program has called cuInit, and
 * until then nothing else is asked.  The functions come from the driver
 * the program loaded (never loading one) and are not traced.
 */
#include <cuda.h>
#include <cudaTypedefs.h>

#include "include/gputrace/format.h"
#include "preload/base/dl.h"
#include "preload/env/env.h"
#include "preload/env/env_items.h"
#include "preload/hooks/procaddr.h"

#define MAX_CUDA_DEVICES 64

struct cuda_fns {
	PFN_cuDeviceGetCount_v2000 count;
	PFN_cuDeviceGet_v2000 get;
	PFN_cuDeviceGetName_v2000 name;
	PFN_cuDeviceTotalMem_v3020 mem;
	PFN_cuDeviceGetAttribute_v2000 attr;
	PFN_cuDriverGetVersion_v2020 version;
};

static void get_fns(struct cuda_fns *f)
{
	f->count = (PFN_cuDeviceGetCount_v2000)gt_driver_proc("cuDeviceGetCount", 2000);
	f->get = (PFN_cuDeviceGet_v2000)gt_driver_proc("cuDeviceGet", 2000);
	f->name = (PFN_cuDeviceGetName_v2000)gt_driver_proc("cuDeviceGetName", 2000);
	f->mem = (PFN_cuDeviceTotalMem_v3020)gt_driver_proc("cuDeviceTotalMem", 3020);
	f->attr = (PFN_cuDeviceGetAttribute_v2000)gt_driver_proc("cuDeviceGetAttribute",
								  2000);
	f->version = (PFN_cuDriverGetVersion_v2020)gt_driver_proc("cuDriverGetVersion",
								  2020);
}

/* A CUDA answer as an item: missing function, failure, or the value. */
static void cu_item(struct gt_items *it, uint16_t key, int have, CUresult rc,
		    int64_t v)
{
	if (!have)
		gt_items_fail(it, key, GT_INFO_MISSING, 0);
	else if (rc != CUDA_SUCCESS)
		gt_items_fail(it, key, rc == CUDA_ERROR_NOT_SUPPORTED ?
			      GT_INFO_NOT_SUPPORTED : GT_INFO_FAILED, rc);
	else
		gt_items_num(it, key, v);
}

static int attribute(const struct cuda_fns *f, struct gt_items *it, uint16_t key,
		     CUdevice dev, CUdevice_attribute a)
{
	int v = 0;
	CUresult rc = f->attr ? f->attr(&v, a, dev) : CUDA_ERROR_NOT_FOUND;

	if (it)
		cu_item(it, key, f->attr != NULL, rc, v);
	return rc == CUDA_SUCCESS ? v : -1;
}

/* One device's chunk; returns its PCI address, or UINT64_MAX. */
static uint64_t device_chunk(const struct cuda_fns *f, int ordinal)
{
	static struct gt_items it;
	char name[256] = "";
	size_t mem = 0;
	CUdevice dev = 0;
	CUresult rc;
	int major, minor, bus, slot, domain;

	if (!f->get || f->get(&dev, ordinal) != CUDA_SUCCESS)
		return UINT64_MAX;
	gt_items_begin(&it, GT_SCOPE_CUDA | (uint32_t)ordinal);
	rc = f->name ? f->name(name, sizeof(name) - 1, dev) : CUDA_ERROR_NOT_FOUND;
	if (rc == CUDA_SUCCESS)
		gt_items_text(&it, GT_ENV_NAME, 0, name);
	else
		cu_item(&it, GT_ENV_NAME, f->name != NULL, rc, 0);
	rc = f->mem ? f->mem(&mem, dev) : CUDA_ERROR_NOT_FOUND;
	cu_item(&it, GT_ENV_MEMORY, f->mem != NULL, rc, (int64_t)mem);
	attribute(f, &it, GT_ENV_SM_COUNT, dev, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
	major = attribute(f, NULL, 0, dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
	minor = attribute(f, NULL, 0, dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
	cu_item(&it, GT_ENV_CC, f->attr != NULL, major < 0 || minor < 0 ?
		CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS, major * 10 + minor);
	bus = attribute(f, NULL, 0, dev, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID);
	slot = attribute(f, NULL, 0, dev, CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID);
	domain = attribute(f, NULL, 0, dev, CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID);
	if (bus < 0 || slot < 0 || domain < 0) {
		cu_item(&it, GT_ENV_PCI, f->attr != NULL, CUDA_ERROR_INVALID_VALUE, 0);
		gt_items_put(&it, GT_CHUNK_ENV);
		return UINT64_MAX;
	}
	gt_items_num(&it, GT_ENV_PCI, (int64_t)domain << 16 | bus << 8 | slot);
	gt_items_put(&it, GT_CHUNK_ENV);
	return (uint64_t)domain << 16 | (uint64_t)bus << 8 | (uint64_t)slot;
}

/* Versions of what the program loaded: driver, cudart, CUPTI. */
static void versions(const struct cuda_fns *f, struct gt_items *it, int devices)
{
	int (*rt)(int *) = (int (*)(int *))gt_elf_find_global("cudaRuntimeGetVersion");
	int (*cupti)(uint32_t *) = (int (*)(uint32_t *))gt_elf_find_global("cuptiGetVersion");
	int v = 0, rc;
	uint32_t cv = 0;

	gt_items_num(it, GT_ENV_CUDA_DEVICES, devices);
	rc = f->version ? f->version(&v) : CUDA_ERROR_NOT_FOUND;
	cu_item(it, GT_ENV_DRIVER_VERSION, f->version != NULL, rc, v);
	v = 0;
	rc = rt ? rt(&v) : 0;
	cu_item(it, GT_ENV_RUNTIME_VERSION, rt != NULL, rc ? CUDA_ERROR_UNKNOWN : 0, v);
	rc = cupti ? cupti(&cv) : 0;
	cu_item(it, GT_ENV_CUPTI_VERSION, cupti != NULL, rc ? CUDA_ERROR_UNKNOWN : 0, cv);
}

/* Sample only the NVML devices the program can see, when known. */
static void narrow(struct gt_gpus *g, const uint64_t *pci, int n)
{
	uint64_t mask = 0;

	for (unsigned i = 0; i < g->n; i++)
		for (int k = 0; k < n; k++)
			if (pci[k] != UINT64_MAX && g->pci[i] == pci[k])
				mask |= 1ull << i;
	if (mask)
		g->sampled = mask;
}

int gt_env_cuda(struct gt_gpus *g)
{
	static struct gt_items it;
	uint64_t pci[MAX_CUDA_DEVICES];
	struct cuda_fns f;
	int n = 0;
	CUresult rc;

	get_fns(&f);
	if (!f.count)
		return 0;                   /* no driver loaded yet */
	rc = f.count(&n);
	if (rc == CUDA_ERROR_NOT_INITIALIZED)
		return 0;
	gt_items_begin(&it, GT_SCOPE_HOST);
	if (rc != CUDA_SUCCESS)
		n = 0;
	versions(&f, &it, n);
	gt_items_put(&it, GT_CHUNK_ENV);
	if (n > MAX_CUDA_DEVICES)
		n = MAX_CUDA_DEVICES;
	for (int i = 0; i < n; i++)
		pci[i] = device_chunk(&f, i);
	narrow(g, pci, n);
	return 1;
}
