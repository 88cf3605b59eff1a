/* SPDX-License-Identifier: MIT */
/*
 * w_pinned.c - copies of every kind of host memory, through the fake
 * driver and the fake shared runtime (linked -lcudart -lcuda):
 *
 *   pageable async HtoD (staged), pageable sync DtoH, pinned (runtime
 *   cudaHostAlloc) async HtoD and sync HtoD (sync pinned), registered
 *   (cudaHostRegister) async DtoH then, after unregistering, the same
 *   buffer again (pageable), driver-pinned (cuMemHostAlloc) async HtoD,
 *   memory pinned behind the tracer's back (found through the pointer
 *   attributes), managed memory (cuMemcpyAsync), device to device, and
 *   pinned async HtoD each waited for at once (synchronous in effect).
 *
 * Each kind N times (argv[1], default 3).  Prints "truth" counts.
 */
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SZ 4096
#define CHECK(x) do { if ((x) != 0) { fprintf(stderr, "%s failed\n", #x); exit(1); } } while (0)

/* The CUDA 4.0 registration, which the tracer does not wrap: memory pinned
 * behind its back. */
#undef cuMemHostRegister
CUresult cuMemHostRegister(void *p, size_t n, unsigned int flags);

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 3;
	char *pageable = malloc(SZ), *registered = malloc(SZ), *quiet = malloc(SZ);
	void *rt_pinned, *drv_pinned;
	CUdeviceptr dev, dev2, managed;
	CUcontext ctx;
	CUdevice d;

	memset(pageable, 1, SZ);
	CHECK(cuInit(0));
	CHECK(cuDeviceGet(&d, 0));
	CHECK(cuDevicePrimaryCtxRetain(&ctx, d));
	CHECK(cuCtxSetCurrent(ctx));
	CHECK(cuMemAlloc(&dev, SZ));
	CHECK(cuMemAlloc(&dev2, SZ));
	CHECK(cudaHostAlloc(&rt_pinned, SZ, 0));
	CHECK(cuMemHostAlloc(&drv_pinned, SZ, 0));
	CHECK(cudaHostRegister(registered, SZ, 0));
	CHECK(cuMemHostRegister(quiet, SZ, 0));
	CHECK(cuMemAllocManaged(&managed, SZ, CU_MEM_ATTACH_GLOBAL));
	for (int i = 0; i < n; i++) {
		CHECK(cuMemcpyHtoDAsync(dev, pageable, SZ, NULL));     /* pageable, staged */
		CHECK(cuMemcpyDtoH(pageable, dev, SZ));                /* pageable sync */
		CHECK(cuMemcpyHtoDAsync(dev, rt_pinned, SZ, NULL));    /* pinned async */
		CHECK(cuMemcpyHtoD(dev, rt_pinned, SZ));               /* pinned sync */
		CHECK(cuMemcpyDtoHAsync(registered, dev, SZ, NULL));   /* registered */
		CHECK(cuMemcpyHtoDAsync(dev, drv_pinned, SZ, NULL));   /* driver pinned */
		CHECK(cuMemcpyHtoDAsync(dev, quiet, SZ, NULL));        /* pinned quietly */
		CHECK(cuMemcpyAsync(dev, managed, SZ, NULL));          /* managed */
		CHECK(cuMemcpyDtoDAsync(dev2, dev, SZ, NULL));         /* device */
	}
	CHECK(cudaHostUnregister(registered));
	for (int i = 0; i < n; i++)
		CHECK(cuMemcpyDtoHAsync(registered, dev, SZ, NULL));   /* pageable again */
	CHECK(cuStreamSynchronize(NULL));
	for (int i = 0; i < n; i++) {          /* .to(device) without non_blocking */
		CHECK(cuMemcpyHtoDAsync(dev, rt_pinned, SZ, NULL));
		CHECK(cuStreamSynchronize(NULL));
	}
	CHECK(cudaFreeHost(rt_pinned));
	CHECK(cuMemFreeHost(drv_pinned));
	printf("truth n=%d size=%d allocs=3 frees=2\n", n, SZ);
	return 0;
}
