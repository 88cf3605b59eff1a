/* SPDX-License-Identifier: MIT */
/*
 * driver_api.c - a C program that uses the CUDA driver API directly,
 * linked with -lcuda: cuModuleLoad, cuLaunchKernel, cuMemcpyHtoD,
 * cuCtxSynchronize by name.  Prints how many calls it made.
 *
 *   driver_api KERNELS.cubin [iterations]
 */
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(x) do { CUresult r_ = (x); if (r_ != CUDA_SUCCESS) { \
	const char *s_ = ""; cuGetErrorString(r_, &s_); \
	fprintf(stderr, "%s: %s\n", #x, s_); exit(1); } } while (0)

int main(int argc, char **argv)
{
	int iters = argc > 2 ? atoi(argv[2]) : 100, n = 1 << 16;
	size_t bytes = n * sizeof(float);
	float *h = malloc(bytes), a = 2.0f;
	CUdevice dev;
	CUcontext ctx;
	CUmodule mod;
	CUfunction saxpy;
	CUdeviceptr x, y;
	long launches = 0, htod = 0, dtoh = 0, syncs = 0;

	for (int i = 0; i < n; i++)
		h[i] = 1.0f;
	CHECK(cuInit(0));
	CHECK(cuDeviceGet(&dev, 0));
	CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
	CHECK(cuCtxSetCurrent(ctx));
	CHECK(cuModuleLoad(&mod, argc > 1 ? argv[1] : "kernels.cubin"));
	CHECK(cuModuleGetFunction(&saxpy, mod, "saxpy"));
	CHECK(cuMemAlloc(&x, bytes));
	CHECK(cuMemAlloc(&y, bytes));
	CHECK(cuMemcpyHtoD(x, h, bytes)); htod++;
	CHECK(cuMemcpyHtoD(y, h, bytes)); htod++;
	for (int it = 0; it < iters; it++) {
		void *args[] = { &a, &x, &y, &n };

		CHECK(cuLaunchKernel(saxpy, (n + 255) / 256, 1, 1, 256, 1, 1, 0, NULL,
				     args, NULL));
		launches++;
		CHECK(cuCtxSynchronize()); syncs++;
	}
	CHECK(cuMemcpyDtoH(h, y, bytes)); dtoh++;
	if (h[0] != 1.0f + 2.0f * iters) {
		fprintf(stderr, "wrong result %f\n", h[0]);
		return 1;
	}
	printf("truth launches=%ld htod=%ld dtoh=%ld ctx_syncs=%ld bytes=%zu\n",
	       launches, htod, dtoh, syncs, bytes);
	return 0;
}
