/* SPDX-License-Identifier: MIT */
/*
 * nvml.c - libnvidia-ml.so.1, loaded at run time by the sampler thread,
 * never by the traced program's threads.  A machine without it (or with
 * a driver NVML cannot talk to) still traces: the environment and the
 * samples then say NVML was missing or failed, and why.
 *
 * NVML is initialised once per process.  A forked child does not use the
 * parent's NVML (its handles and file descriptors belong to the parent),
 * but initialises its own if the parent never did.
 */
#include <dlfcn.h>
#include <unistd.h>

#include "preload/base/dl.h"
#include "preload/base/internal.h"
#include "preload/env/nvml.h"

#if __has_include(<nvml.h>)         /* check our layouts where we can */
#include <nvml.h>
_Static_assert(sizeof(nvmlUtilization_t) == sizeof(struct gt_nvml_utilization),
	       "nvmlUtilization_t layout");
_Static_assert(sizeof(nvmlMemory_t) == sizeof(struct gt_nvml_memory),
	       "nvmlMemory_t layout");
_Static_assert(sizeof(nvmlPciInfo_t) == sizeof(struct gt_nvml_pci),
	       "nvmlPciInfo_t layout");
_Static_assert(sizeof(nvmlProcessInfo_v2_t) == sizeof(struct gt_nvml_process),
	       "nvmlProcessInfo_t layout");
_Static_assert(NVML_DEVICE_NAME_V2_BUFFER_SIZE == GT_NVML_NAME_SIZE, "name size");
#endif

static struct gt_nvml_fns fns;
static pid_t inited_pid;            /* the process that ran nvmlInit */
static int state = GT_NVML_UNTRIED;
static int error;

static int resolve(void *h)
{
#define GT_NVML_GET(name, params) \
	fns.name = (gt_nvml_ret (*) params)gt_real_dlsym(h, #name);
	GT_NVML_FUNCS(GT_NVML_GET)
#undef GT_NVML_GET
	return fns.nvmlInit_v2 && fns.nvmlDeviceGetCount_v2 &&
	       fns.nvmlDeviceGetHandleByIndex_v2;
}

static void open_nvml(void)
{
	void *h;

	h = NULL;
	if (!gt_dl_enter()) {               /* no fork while it loads */
		h = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
		gt_dl_leave();
	}

	if (!h || !resolve(h)) {
		state = GT_NVML_MISSING;
		gt_debug("gputrace: no usable libnvidia-ml.so.1 (%s); no GPU "
			 "samples\n", h ? "functions missing" : dlerror());
		return;
	}
	error = fns.nvmlInit_v2();
	state = error == GT_NVML_SUCCESS ? GT_NVML_READY : GT_NVML_FAILED;
	if (state == GT_NVML_FAILED)
		gt_debug("gputrace: nvmlInit failed (%d); no GPU samples\n", error);
	inited_pid = getpid();
}

const struct gt_nvml_fns *gt_nvml(void)
{
	if (state == GT_NVML_UNTRIED)
		open_nvml();
	else if (state == GT_NVML_READY && inited_pid != getpid())
		state = GT_NVML_FORKED;
	return state == GT_NVML_READY ? &fns : NULL;
}

int gt_nvml_state(int *err)
{
	gt_nvml();
	if (err)
		*err = error;
	return state;
}
