/* SPDX-License-Identifier: MIT */
/*
 * w_unload.c - a kernel handle given to another kernel after its module
 * was unloaded, as JIT compilers (XLA's autotuner) do: launches N times a
 * kernel of 8 parameters, unloads its module, loads another whose kernel
 * of 1 parameter gets the same handle (the fake driver gives freed
 * handles again), then launches that one N times with a parameter array
 * of one entry that ends where readable memory ends: a tracer that still
 * believed the first kernel's layout would read past it and die.
 * Linked with -lcuda (the fake driver).
 *
 *   w_unload N
 *
 * Prints "unload reused=R" (1: the second kernel got the first's handle).
 */
#define WL_CALL(f) f
#include <sys/mman.h>
#include <unistd.h>

#include "test/fake/workload.h"

#define K_WIDE "wide_kernel_p8"
#define K_NARROW "narrow_kernel_p1"

/* A page whose last 8 bytes hold the one parameter pointer, before a
 * page that cannot be read. */
static void **last_word_before_a_hole(void)
{
	long pg = sysconf(_SC_PAGESIZE);
	char *m = mmap(NULL, 2 * (size_t)pg, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (m == MAP_FAILED || mprotect(m + pg, (size_t)pg, PROT_NONE)) {
		perror("mmap");
		exit(WL_EXIT_FAIL);
	}
	return (void **)(m + pg - sizeof(void *));
}

static void launch_n(CUfunction f, void **kp, long n)
{
	for (long i = 0; i < n; i++)
		WL_CK(cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, 0, kp, NULL));
	WL_CK(cuCtxSynchronize());
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100;
	uint64_t v[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	void *wide[8], **narrow = last_word_before_a_hole();
	CUcontext ctx;
	CUdevice dev;
	CUmodule m1, m2;
	CUfunction f, g;

	for (int i = 0; i < 8; i++)
		wide[i] = &v[i];
	WL_CK(cuInit(0));
	WL_CK(cuDeviceGet(&dev, 0));
	WL_CK(cuDevicePrimaryCtxRetain(&ctx, dev));
	WL_CK(cuCtxSetCurrent(ctx));
	WL_CK(cuModuleLoadData(&m1, "first"));
	WL_CK(cuModuleGetFunction(&f, m1, K_WIDE));
	launch_n(f, wide, n);
	WL_CK(cuModuleUnload(m1));
	WL_CK(cuModuleLoadData(&m2, "second"));
	WL_CK(cuModuleGetFunction(&g, m2, K_NARROW));
	narrow[0] = &v[0];
	launch_n(g, narrow, n);
	printf("unload reused=%d\n", f == g);
	return 0;
}
