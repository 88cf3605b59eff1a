/* SPDX-License-Identifier: MIT */
/*
 * w_stack.c - waits, a pageable copy and a pinned allocation made from
 * functions with known names, for the call site tests (test/t/4*-callsite*).
 * Linked with -lcuda, built with -g -O0 -fno-omit-frame-pointer -rdynamic
 * so that every unwinder and the analyzer's symbols see these functions.
 *
 *   w_stack [--threads=T] [N]      (defaults: 0 threads, N = 100)
 *
 * main: N waits in wait_here_for_test (cuStreamSynchronize), N / 10 in
 * other_wait_site (cuCtxSynchronize), one pageable copy in
 * copy_here_for_test (cuMemcpyHtoDAsync from malloc'd memory) and one
 * pinned allocation in pin_here_for_test (cuMemAllocHost).  Each of T
 * threads then makes N waits in wait_here_for_test too (from thread_main:
 * one more distinct stack, however many threads).  Prints
 * "truth waits=W ctx_waits=C".
 */
#include <pthread.h>

#include "test/fake/workload.h"

#define NOINLINE __attribute__((noinline))

static long n_waits = 100;

NOINLINE void wait_here_for_test(void)
{
	WL_CK(cuStreamSynchronize(NULL));
	__asm__ __volatile__("" ::: "memory");  /* no tail call */
}

NOINLINE void other_wait_site(void)
{
	WL_CK(cuCtxSynchronize());
	__asm__ __volatile__("" ::: "memory");
}

NOINLINE void copy_here_for_test(CUdeviceptr d, const void *host, size_t n)
{
	WL_CK(cuMemcpyHtoDAsync(d, host, n, NULL));
	__asm__ __volatile__("" ::: "memory");
}

NOINLINE void *pin_here_for_test(size_t n)
{
	void *p = NULL;

	WL_CK(cuMemAllocHost(&p, n));
	__asm__ __volatile__("" ::: "memory");
	return p;
}

static void *thread_main(void *ctx)
{
	WL_CK(cuCtxSetCurrent((CUcontext)ctx));
	for (long i = 0; i < n_waits; i++)
		wait_here_for_test();
	return NULL;
}

static void run_threads(long threads, CUcontext ctx)
{
	pthread_t t[64];

	if (threads > 64)
		threads = 64;
	for (long i = 0; i < threads; i++)
		if (pthread_create(&t[i], NULL, thread_main, ctx))
			wl_fail(__FILE__, __LINE__, "pthread_create", 0);
	for (long i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
}

int main(int argc, char **argv)
{
	long threads = 0;
	CUcontext ctx;
	CUdevice dev;
	CUdeviceptr d;
	void *host, *pinned;

	for (int i = 1; i < argc; i++)
		if (!wl_opt_int(argv[i], "--threads", &threads))
			n_waits = strtol(argv[i], NULL, 10);
	WL_CK(cuInit(0));
	WL_CK(cuDeviceGet(&dev, 0));
	WL_CK(cuDevicePrimaryCtxRetain(&ctx, dev));
	WL_CK(cuCtxSetCurrent(ctx));
	for (long i = 0; i < n_waits; i++)
		wait_here_for_test();
	for (long i = 0; i < n_waits / 10; i++)
		other_wait_site();
	WL_CK(cuMemAlloc(&d, WL_BUF_BYTES));
	host = calloc(1, WL_BUF_BYTES);
	if (!host)
		return WL_EXIT_FAIL;
	copy_here_for_test(d, host, WL_HTOD_BYTES);
	pinned = pin_here_for_test(WL_BUF_BYTES);
	WL_CK(cuMemFreeHost(pinned));
	run_threads(threads, ctx);
	printf("truth waits=%ld ctx_waits=%ld\n", n_waits * (1 + threads),
	       n_waits / 10);
	free(host);
	return 0;
}
