/* SPDX-License-Identifier: MIT */
/*
 * workload.h - what the test workloads (test/workloads/) share: error
 * checks, the cudart way of reaching the driver (dlopen, dlsym of
 * cuGetProcAddress_v2, then lookups through the pointer it hands back),
 * and the main op sequence that w_cudart and w_direct both run.
 *
 * The numbers below are also written in test/lib/GtRun.pm, which derives
 * the counts and bytes the tracer must report: change both together.
 */
#ifndef GT_TEST_WORKLOAD_H
#define GT_TEST_WORKLOAD_H

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h>
#include <cudaTypedefs.h>

#define WL_K_VECADD "_Z6vecAddPfS_S_i"   /* vecAdd(float*, float*, float*, int) */
#define WL_K_SCALE "_Z5scalePfif"        /* scale(float*, int, float) */
#define WL_K_REDUCE "_Z9reduceSumPfi"    /* reduceSum(float*, int) */
#define WL_K_WORKER "_Z6workerPfi"       /* worker(float*, int) */

#define WL_HTOD_BYTES 4096
#define WL_DTOH_BYTES 8192
#define WL_DTOD_BYTES 2048
#define WL_SET8_BYTES 1000
#define WL_SET32_COUNT 256               /* 1024 bytes */
#define WL_2D_WIDTH 256
#define WL_2D_HEIGHT 16                  /* 4096 bytes */
#define WL_BATCH_SIZES { 100, 200, 300 } /* 600 bytes */
#define WL_BUF_BYTES (1 << 16)

/* Exit codes: 0 ok, WL_EXIT_FAIL a call failed, WL_EXIT_DATA data wrong. */
#define WL_EXIT_FAIL 90
#define WL_EXIT_DATA 91

static inline void wl_fail(const char *file, int line, const char *what, int rc)
{
	fprintf(stderr, "%s:%d: %s failed: %d\n", file, line, what, rc);
	exit(WL_EXIT_FAIL);
}

#define WL_CK(call)                                                        \
	do {                                                               \
		CUresult wl_rc_ = (call);                                  \
		if (wl_rc_ != CUDA_SUCCESS)                                \
			wl_fail(__FILE__, __LINE__, #call, (int)wl_rc_);   \
	} while (0)

/* ---- the cudart way ---------------------------------------------------- */

struct wl_driver {
	void *lib;                          /* dlopen("libcuda.so.1") */
	PFN_cuGetProcAddress_v12000 gpa;    /* the 5-argument one ... */
	PFN_cuGetProcAddress_v11030 gpa1;   /* ... or, with via_v1, this */
	int ptsz;                           /* ask for per-thread variants */
};

/*
 * Look name up as cudart does.  With pt and d->ptsz it asks with
 * CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, at 7000 at least, the
 * version the per-thread variants came with.  Exits if it is not found.
 */
static inline void *wl_lookup(const struct wl_driver *d, const char *name,
			      int version, int pt)
{
	cuuint64_t flags = 0;
	CUdriverProcAddressQueryResult st = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
	void *p = NULL;
	CUresult rc;

	if (pt && d->ptsz) {
		flags = CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM;
		if (version < 7000)
			version = 7000;
	}
	if (d->gpa1) {
		rc = d->gpa1(name, &p, version, flags);
		st = CU_GET_PROC_ADDRESS_SUCCESS;
	} else {
		rc = d->gpa(name, &p, version, flags, &st);
	}
	if (rc != CUDA_SUCCESS || st != CU_GET_PROC_ADDRESS_SUCCESS || !p) {
		fprintf(stderr, "cuGetProcAddress(%s, %d, %llu): %d status %d\n",
			name, version, (unsigned long long)flags, (int)rc,
			(int)st);
		exit(WL_EXIT_FAIL);
	}
	return p;
}

/*
 * dlopen the driver, dlsym cuGetProcAddress_v2, ask it for "" and cuInit,
 * then for cuGetProcAddress itself (12000, or 11030 with via_v1), and keep
 * that pointer for every later lookup.  cuInit is called here.
 */
static inline void wl_open(struct wl_driver *d, int via_v1, int ptsz)
{
	PFN_cuGetProcAddress_v12000 first;
	PFN_cuInit_v2000 init;
	CUdriverProcAddressQueryResult st;
	void *p = NULL;

	memset(d, 0, sizeof(*d));
	d->lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!d->lib) {
		fprintf(stderr, "dlopen libcuda.so.1: %s\n", dlerror());
		exit(WL_EXIT_FAIL);
	}
	first = (PFN_cuGetProcAddress_v12000)dlsym(d->lib, "cuGetProcAddress_v2");
	if (!first) {
		fprintf(stderr, "dlsym cuGetProcAddress_v2: %s\n", dlerror());
		exit(WL_EXIT_FAIL);
	}
	if (first("", &p, 0, 0, &st) == CUDA_SUCCESS || p) {
		fprintf(stderr, "cuGetProcAddress(\"\") found something\n");
		exit(WL_EXIT_FAIL);
	}
	d->gpa = first;
	init = (PFN_cuInit_v2000)wl_lookup(d, "cuInit", 2000, 0);
	if (via_v1) {
		d->gpa1 = (PFN_cuGetProcAddress_v11030)wl_lookup(
			d, "cuGetProcAddress", 11030, 0);
		d->gpa = NULL;
	} else {
		d->gpa = (PFN_cuGetProcAddress_v12000)wl_lookup(
			d, "cuGetProcAddress", 12000, 0);
	}
	d->ptsz = ptsz;
	WL_CK(init(0));
}

/* Parse "--name=N"; returns 1 and sets *v when arg is that option. */
static inline int wl_opt_int(const char *arg, const char *name, long *v)
{
	size_t n = strlen(name);

	if (strncmp(arg, name, n) || arg[n] != '=')
		return 0;
	*v = strtol(arg + n + 1, NULL, 10);
	return 1;
}

/* ---- the main op sequence ---------------------------------------------- */

/*
 * Define WL_CALL(f) before including this header to get wl_setup and
 * wl_run.  f is a driver name after cuda.h's renames (cuMemcpyHtoD_v2,
 * cuLaunchKernel_ptsz...): w_direct calls it by name, w_cudart through a
 * struct of pointers with fields of those names.
 */
#ifdef WL_CALL

struct wl_env {
	CUcontext ctx;
	CUmodule mod;
	CUfunction vecadd, scale, reduce;
	CUstream stream;
	CUevent event;
	CUdeviceptr da, db;
	unsigned char *ha, *hb;
};

static inline void wl_setup(struct wl_env *e)
{
	static const char image[] = "fake cubin";
	CUdevice dev;
	int n = 0;

	WL_CK(WL_CALL(cuDeviceGetCount)(&n));
	if (n < 1)
		wl_fail(__FILE__, __LINE__, "cuDeviceGetCount >= 1", n);
	WL_CK(WL_CALL(cuDeviceGet)(&dev, 0));
	WL_CK(WL_CALL(cuDevicePrimaryCtxRetain)(&e->ctx, dev));
	WL_CK(WL_CALL(cuCtxSetCurrent)(e->ctx));
	WL_CK(WL_CALL(cuModuleLoadData)(&e->mod, image));
	WL_CK(WL_CALL(cuModuleGetFunction)(&e->vecadd, e->mod, WL_K_VECADD));
	WL_CK(WL_CALL(cuModuleGetFunction)(&e->scale, e->mod, WL_K_SCALE));
	WL_CK(WL_CALL(cuModuleGetFunction)(&e->reduce, e->mod, WL_K_REDUCE));
	WL_CK(WL_CALL(cuMemAlloc)(&e->da, WL_BUF_BYTES));
	WL_CK(WL_CALL(cuMemAlloc)(&e->db, WL_BUF_BYTES));
	WL_CK(WL_CALL(cuStreamCreate)(&e->stream, 0));
	WL_CK(WL_CALL(cuEventCreate)(&e->event, 0));
	e->ha = calloc(1, WL_BUF_BYTES);
	e->hb = calloc(1, WL_BUF_BYTES);
	if (!e->ha || !e->hb)
		exit(WL_EXIT_FAIL);
}

/* One iteration: 3 launches, 3 copies, 2 memsets, a stream sync. */
static inline void wl_iteration(struct wl_env *e, int i, int ctx_every)
{
	int n = 1024;
	float alpha = 2.0f;
	void *add_args[] = { &e->da, &e->db, &e->db, &n };
	void *scale_args[] = { &e->da, &n, &alpha };
	CUlaunchConfig cfg = {
		.gridDimX = 8, .gridDimY = 1, .gridDimZ = 1,
		.blockDimX = 64, .blockDimY = 1, .blockDimZ = 1,
		.sharedMemBytes = 0, .hStream = e->stream,
	};

	WL_CK(WL_CALL(cuLaunchKernel)(e->vecadd, 4, 1, 1, 256, 1, 1, 0,
				      e->stream, add_args, NULL));
	WL_CK(WL_CALL(cuLaunchKernel)(e->scale, 2, 2, 1, 128, 1, 1, 1024,
				      e->stream, scale_args, NULL));
	WL_CK(WL_CALL(cuLaunchKernelEx)(&cfg, e->vecadd, add_args, NULL));

	memset(e->ha, (unsigned char)(i + 1), WL_HTOD_BYTES);
	WL_CK(WL_CALL(cuMemcpyHtoD)(e->da, e->ha, WL_HTOD_BYTES));
	WL_CK(WL_CALL(cuMemcpyDtoHAsync)(e->hb, e->da, WL_DTOH_BYTES,
					 e->stream));
	WL_CK(WL_CALL(cuMemcpyDtoD)(e->db, e->da, WL_DTOD_BYTES));
	WL_CK(WL_CALL(cuMemsetD8)(e->db + 4096, 0x5a, WL_SET8_BYTES));
	WL_CK(WL_CALL(cuMemsetD32Async)(e->db + 8192, 7u, WL_SET32_COUNT,
					e->stream));
	WL_CK(WL_CALL(cuStreamSynchronize)(e->stream));
	if (ctx_every > 0 && (i + 1) % ctx_every == 0)
		WL_CK(WL_CALL(cuCtxSynchronize_v2)(e->ctx));

	/* The copies must have moved the bytes the program asked for. */
	if (e->hb[0] != (unsigned char)(i + 1) ||
	    memcmp(e->hb, e->ha, WL_HTOD_BYTES)) {
		fprintf(stderr, "iteration %d: wrong data came back\n", i);
		exit(WL_EXIT_DATA);
	}
}

/*
 * After the loop: a graph, a 2D copy, a batch copy, a cooperative launch,
 * event waits and queries, and cuCtxSynchronize(void).  Returns how many
 * queries said CUDA_ERROR_NOT_READY (0..2).
 */
static inline int wl_tail(struct wl_env *e)
{
	static char graph_exec_stand_in;
	int n = 1024, not_ready = 0;
	void *reduce_args[] = { &e->da, &n };
	CUdeviceptr dsts[3], srcs[3];
	size_t sizes[] = WL_BATCH_SIZES, idx = 0;
	CUmemcpyAttributes attr;
	CUDA_MEMCPY2D c2 = {
		.srcMemoryType = CU_MEMORYTYPE_HOST, .srcHost = e->ha,
		.srcPitch = WL_2D_WIDTH,
		.dstMemoryType = CU_MEMORYTYPE_DEVICE, .dstDevice = e->db,
		.dstPitch = 2 * WL_2D_WIDTH,
		.WidthInBytes = WL_2D_WIDTH, .Height = WL_2D_HEIGHT,
	};
	CUresult rc;
	int i;

	WL_CK(WL_CALL(cuGraphLaunch)((CUgraphExec)&graph_exec_stand_in,
				     e->stream));
	WL_CK(WL_CALL(cuMemcpy2D)(&c2));

	memset(&attr, 0, sizeof(attr));
	attr.srcAccessOrder = CU_MEMCPY_SRC_ACCESS_ORDER_STREAM;
	for (i = 0; i < 3; i++) {
		dsts[i] = e->db + 1024 * (CUdeviceptr)i;
		srcs[i] = e->da + 1024 * (CUdeviceptr)i;
	}
	WL_CK(WL_CALL(cuMemcpyBatchAsync)(dsts, srcs, sizes, 3, &attr, &idx, 1,
					  e->stream));

	WL_CK(WL_CALL(cuLaunchCooperativeKernel)(e->reduce, 1, 1, 1, 32, 1, 1,
						 0, e->stream, reduce_args));
	WL_CK(WL_CALL(cuEventRecord)(e->event, e->stream));
	WL_CK(WL_CALL(cuStreamWaitEvent)(e->stream, e->event, 0));
	WL_CK(WL_CALL(cuEventSynchronize)(e->event));
	rc = WL_CALL(cuStreamQuery)(e->stream);
	if (rc != CUDA_SUCCESS && rc != CUDA_ERROR_NOT_READY)
		wl_fail(__FILE__, __LINE__, "cuStreamQuery", rc);
	not_ready += rc == CUDA_ERROR_NOT_READY;
	rc = WL_CALL(cuEventQuery)(e->event);
	if (rc != CUDA_SUCCESS && rc != CUDA_ERROR_NOT_READY)
		wl_fail(__FILE__, __LINE__, "cuEventQuery", rc);
	not_ready += rc == CUDA_ERROR_NOT_READY;
	WL_CK(WL_CALL(cuCtxSynchronize)());
	return not_ready;
}

#endif /* WL_CALL */

#endif /* GT_TEST_WORKLOAD_H */
