/* SPDX-License-Identifier: MIT */
/*
 * w_cudart.c - a workload that reaches the driver the way libcudart does:
 * dlopen("libcuda.so.1"), dlsym "cuGetProcAddress_v2", then every entry
 * point through the cuGetProcAddress that call hands back.
 *
 *   w_cudart [--ptsz] [--via-v1] [--dlsym] [--old] [--mixed] [--exit=N] [-v]
 *            [ITERS [CTX_EVERY]]
 *
 * ITERS (default 20) iterations of wl_iteration, a cuCtxSynchronize every
 * CTX_EVERY (default 5), then wl_tail.  --ptsz asks for the per-thread
 * default stream variants, --via-v1 looks up through the 4-argument
 * cuGetProcAddress (asked for at 11030), --dlsym instead gets every entry
 * point by dlsym of its exported name, as Triton does.  --old also calls
 * the CUDA 2.0 cuMemcpyHtoD (32-bit arguments, looked up at version 2000)
 * once; --mixed also launches, copies HtoD and syncs once through each of
 * the legacy and the per-thread variants.  --exit=N exits with N after all
 * went well; -v prints what was done.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h>
#include <cudaTypedefs.h>

typedef CUresult (*PFN_cuMemcpyHtoD_v2000_t)(unsigned int, const void *,
					     unsigned int);

/* Fields are named as cuda.h renames the calls, see WL_CALL. */
static struct {
	PFN_cuDeviceGetCount_v2000 cuDeviceGetCount;
	PFN_cuDeviceGet_v2000 cuDeviceGet;
	PFN_cuDevicePrimaryCtxRetain_v7000 cuDevicePrimaryCtxRetain;
	PFN_cuCtxSetCurrent_v4000 cuCtxSetCurrent;
	PFN_cuModuleLoadData_v2000 cuModuleLoadData;
	PFN_cuModuleGetFunction_v2000 cuModuleGetFunction;
	PFN_cuMemAlloc_v3020 cuMemAlloc_v2;
	PFN_cuStreamCreate_v2000 cuStreamCreate;
	PFN_cuEventCreate_v2000 cuEventCreate;
	PFN_cuLaunchKernel_v4000 cuLaunchKernel;
	PFN_cuLaunchKernelEx_v11060 cuLaunchKernelEx;
	PFN_cuLaunchCooperativeKernel_v9000 cuLaunchCooperativeKernel;
	PFN_cuGraphLaunch_v10000 cuGraphLaunch;
	PFN_cuMemcpyHtoD_v3020 cuMemcpyHtoD_v2;
	PFN_cuMemcpyDtoHAsync_v3020 cuMemcpyDtoHAsync_v2;
	PFN_cuMemcpyDtoD_v3020 cuMemcpyDtoD_v2;
	PFN_cuMemcpy2D_v3020 cuMemcpy2D_v2;
	PFN_cuMemcpyBatchAsync_v13000 cuMemcpyBatchAsync_v2;
	PFN_cuMemsetD8_v3020 cuMemsetD8_v2;
	PFN_cuMemsetD32Async_v3020 cuMemsetD32Async;
	PFN_cuStreamSynchronize_v2000 cuStreamSynchronize;
	PFN_cuCtxSynchronize_v13000 cuCtxSynchronize_v2;
	PFN_cuCtxSynchronize_v2000 cuCtxSynchronize;
	PFN_cuEventRecord_v2000 cuEventRecord;
	PFN_cuStreamWaitEvent_v3020 cuStreamWaitEvent;
	PFN_cuEventSynchronize_v2000 cuEventSynchronize;
	PFN_cuStreamQuery_v2000 cuStreamQuery;
	PFN_cuEventQuery_v2000 cuEventQuery;
} api;

#define WL_CALL(f) api.f
#include "test/fake/workload.h"

static struct wl_driver drv;
static int use_dlsym;

/*
 * Set api.field: through cuGetProcAddress (name, version; the per-thread
 * variant with --ptsz when sfx is not NULL) or, with --dlsym, through
 * dlsym of the exported symbol: the field's name, plus sfx with --ptsz.
 */
static void *get(const char *field, const char *name, int version,
		 const char *sfx)
{
	char sym[128];
	void *p;

	if (!use_dlsym)
		return wl_lookup(&drv, name, version, sfx != NULL);
	snprintf(sym, sizeof(sym), "%s%s", field, drv.ptsz && sfx ? sfx : "");
	p = dlsym(drv.lib, sym);
	if (!p) {
		fprintf(stderr, "dlsym %s: %s\n", sym, dlerror());
		exit(WL_EXIT_FAIL);
	}
	return p;
}

#define GET(field, name, version, sfx)                                     \
	(api.field = (__typeof__(api.field))get(#field, name, version, sfx))

static void resolve(void)
{
	GET(cuDeviceGetCount, "cuDeviceGetCount", 2000, NULL);
	GET(cuDeviceGet, "cuDeviceGet", 2000, NULL);
	GET(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", 7000, NULL);
	GET(cuCtxSetCurrent, "cuCtxSetCurrent", 4000, NULL);
	GET(cuModuleLoadData, "cuModuleLoadData", 2000, NULL);
	GET(cuModuleGetFunction, "cuModuleGetFunction", 2000, NULL);
	GET(cuMemAlloc_v2, "cuMemAlloc", 3020, NULL);
	GET(cuStreamCreate, "cuStreamCreate", 2000, NULL);
	GET(cuEventCreate, "cuEventCreate", 2000, NULL);
	GET(cuLaunchKernel, "cuLaunchKernel", 4000, "_ptsz");
	GET(cuLaunchKernelEx, "cuLaunchKernelEx", 11060, "_ptsz");
	GET(cuLaunchCooperativeKernel, "cuLaunchCooperativeKernel", 9000,
	    "_ptsz");
	GET(cuGraphLaunch, "cuGraphLaunch", 10000, "_ptsz");
	GET(cuMemcpyHtoD_v2, "cuMemcpyHtoD", 3020, "_ptds");
	GET(cuMemcpyDtoHAsync_v2, "cuMemcpyDtoHAsync", 3020, "_ptsz");
	GET(cuMemcpyDtoD_v2, "cuMemcpyDtoD", 3020, "_ptds");
	GET(cuMemcpy2D_v2, "cuMemcpy2D", 3020, "_ptds");
	GET(cuMemcpyBatchAsync_v2, "cuMemcpyBatchAsync", 13000, "_ptsz");
	GET(cuMemsetD8_v2, "cuMemsetD8", 3020, "_ptds");
	GET(cuMemsetD32Async, "cuMemsetD32Async", 3020, "_ptsz");
	GET(cuStreamSynchronize, "cuStreamSynchronize", 2000, "_ptsz");
	GET(cuCtxSynchronize_v2, "cuCtxSynchronize", 13000, "");
	GET(cuCtxSynchronize, "cuCtxSynchronize", 2000, "");
	GET(cuEventRecord, "cuEventRecord", 2000, "_ptsz");
	GET(cuStreamWaitEvent, "cuStreamWaitEvent", 3020, "_ptsz");
	GET(cuEventSynchronize, "cuEventSynchronize", 2000, "");
	GET(cuStreamQuery, "cuStreamQuery", 2000, "_ptsz");
	GET(cuEventQuery, "cuEventQuery", 2000, "");
}

/* The Triton way: dlopen, then dlsym of each exported name. */
static void open_dlsym(int ptsz)
{
	PFN_cuInit_v2000 init;

	memset(&drv, 0, sizeof(drv));
	drv.ptsz = ptsz;
	drv.lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!drv.lib) {
		fprintf(stderr, "dlopen libcuda.so.1: %s\n", dlerror());
		exit(WL_EXIT_FAIL);
	}
	init = (PFN_cuInit_v2000)get("cuInit", "cuInit", 2000, NULL);
	WL_CK(init(0));
}

/*
 * Both variants of the same names in one process, as a program mixing
 * code built with and without per-thread default streams does: one launch,
 * one HtoD copy and one stream sync through each.
 */
static void call_mixed(struct wl_env *e)
{
	struct wl_driver d = drv;
	int i, n = 1024;
	void *args[] = { &e->da, &e->db, &e->db, &n };

	for (i = 0; i < 2; i++) {
		PFN_cuLaunchKernel_v4000 launch;
		PFN_cuMemcpyHtoD_v3020 htod;
		PFN_cuStreamSynchronize_v2000 sync;

		d.ptsz = i;
		launch = (PFN_cuLaunchKernel_v4000)wl_lookup(
			&d, "cuLaunchKernel", 4000, 1);
		htod = (PFN_cuMemcpyHtoD_v3020)wl_lookup(
			&d, "cuMemcpyHtoD", 3020, 1);
		sync = (PFN_cuStreamSynchronize_v2000)wl_lookup(
			&d, "cuStreamSynchronize", 2000, 1);
		WL_CK(launch(e->vecadd, 1, 1, 1, 32, 1, 1, 0, e->stream, args,
			     NULL));
		WL_CK(htod(e->da, e->ha, WL_HTOD_BYTES));
		WL_CK(sync(e->stream));
	}
}

/* The CUDA 2.0 cuMemcpyHtoD: a different function from cuMemcpyHtoD_v2. */
static void call_old(struct wl_env *e)
{
	PFN_cuMemcpyHtoD_v2000_t old = (PFN_cuMemcpyHtoD_v2000_t)wl_lookup(
		&drv, "cuMemcpyHtoD", 2000, 0);

	WL_CK(old(0x1000u, e->ha, WL_HTOD_BYTES));
}

int main(int argc, char **argv)
{
	int ptsz = 0, via_v1 = 0, old = 0, mixed = 0, verbose = 0, i, nargs = 0;
	int nr;
	long iters = 20, every = 5, code = 0;
	struct wl_env e;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--ptsz"))
			ptsz = 1;
		else if (!strcmp(argv[i], "--via-v1"))
			via_v1 = 1;
		else if (!strcmp(argv[i], "--old"))
			old = 1;
		else if (!strcmp(argv[i], "--mixed"))
			mixed = 1;
		else if (!strcmp(argv[i], "--dlsym"))
			use_dlsym = 1;
		else if (!strcmp(argv[i], "-v"))
			verbose = 1;
		else if (wl_opt_int(argv[i], "--exit", &code))
			;
		else if (nargs++ == 0)
			iters = strtol(argv[i], NULL, 10);
		else
			every = strtol(argv[i], NULL, 10);
	}

	if (use_dlsym)
		open_dlsym(ptsz);
	else
		wl_open(&drv, via_v1, ptsz);
	resolve();
	wl_setup(&e);
	for (i = 0; i < iters; i++)
		wl_iteration(&e, i, (int)every);
	nr = wl_tail(&e);
	if (old)
		call_old(&e);
	if (mixed)
		call_mixed(&e);
	if (verbose)
		printf("iters %ld every %ld ptsz %d via_v1 %d old %d mixed %d "
		       "dlsym %d not_ready %d\n", iters, every, ptsz, via_v1,
		       old, mixed, use_dlsym, nr);
	return (int)code;
}
