/* SPDX-License-Identifier: MIT */
/*
 * w_nvtx_env.c - a program for the environment and sampler tests: it
 * makes one CUDA call (so the dump opens and the sampler starts), then
 * forks CHILDREN processes that each burn CPU for MS milliseconds (like
 * DataLoader workers), burns CPU itself for MS milliseconds, and waits
 * for them.
 *
 *   w_nvtx_env [MS [CHILDREN]]      (defaults 300 and 1)
 */
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "test/fake/workload.h"

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void burn(long ms)
{
	volatile unsigned long x = 0;
	double until = now_ms() + (double)ms;

	while (now_ms() < until)
		for (int i = 0; i < 10000; i++)
			x += (unsigned long)i;
}

int main(int argc, char **argv)
{
	struct wl_driver drv;
	PFN_cuCtxSynchronize_v2000 sync;
	long ms = argc > 1 ? strtol(argv[1], NULL, 10) : 300;
	long children = argc > 2 ? strtol(argv[2], NULL, 10) : 1;
	CUcontext ctx;
	CUdevice dev;

	wl_open(&drv, 0, 0);
	WL_CK(((PFN_cuDeviceGet_v2000)wl_lookup(&drv, "cuDeviceGet", 2000, 0))(&dev, 0));
	WL_CK(((PFN_cuDevicePrimaryCtxRetain_v7000)wl_lookup(
		&drv, "cuDevicePrimaryCtxRetain", 7000, 0))(&ctx, dev));
	WL_CK(((PFN_cuCtxSetCurrent_v4000)wl_lookup(&drv, "cuCtxSetCurrent",
						    4000, 0))(ctx));
	sync = (PFN_cuCtxSynchronize_v2000)wl_lookup(&drv, "cuCtxSynchronize", 2000, 0);
	WL_CK(sync());
	for (long i = 0; i < children; i++) {
		pid_t pid = fork();

		if (pid == 0) {
			burn(ms);
			_exit(0);
		}
		if (pid < 0)
			return WL_EXIT_FAIL;
	}
	burn(ms);
	while (wait(NULL) > 0)
		;
	printf("truth ms=%ld children=%ld pid=%d\n", ms, children, (int)getpid());
	return 0;
}
