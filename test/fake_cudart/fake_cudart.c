/* SPDX-License-Identifier: MIT */
/*
 * fake_cudart.c - a fake shared libcudart.so.13 with just the pinned-memory
 * calls, each ending in the (fake) driver's call as the real runtime's do,
 * so tests see runtime and driver wrappers nest.  Linked with -lcuda.
 */
#include <cuda.h>
#include <cuda_runtime_api.h>

/* The runtime's error for a failed driver call, close enough for tests. */
static cudaError_t to_rt(CUresult rc)
{
	return rc == CUDA_SUCCESS ? cudaSuccess : cudaErrorInvalidValue;
}

cudaError_t cudaHostAlloc(void **p, size_t n, unsigned int flags)
{
	return to_rt(cuMemHostAlloc(p, n, flags));
}

cudaError_t cudaMallocHost(void **p, size_t n)
{
	return to_rt(cuMemAllocHost(p, n));
}

cudaError_t cudaHostRegister(void *p, size_t n, unsigned int flags)
{
	return to_rt(cuMemHostRegister(p, n, flags));
}

cudaError_t cudaHostUnregister(void *p)
{
	return to_rt(cuMemHostUnregister(p));
}

cudaError_t cudaFreeHost(void *p)
{
	return to_rt(cuMemFreeHost(p));
}
