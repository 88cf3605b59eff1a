/* SPDX-License-Identifier: MIT */
/*
 * w_threads.c - many threads launching at once, the cudart way.
 *
 *   w_threads [--ptsz] [THREADS [LAUNCHES]]     (defaults 8 and 100)
 *
 * Each thread looks its entry points up itself (so lookups race too), makes
 * its own stream, waits for the others, then does LAUNCHES launches of
 * WL_K_WORKER, each followed by a cuStreamSynchronize, except thread 0: it
 * launches without syncing and leaves through pthread_exit while the others
 * still run.  Totals: THREADS * LAUNCHES launches and (THREADS - 1) *
 * LAUNCHES stream syncs.
 */
#include <pthread.h>

#include "test/fake/workload.h"

struct shared {
	struct wl_driver drv;
	CUcontext ctx;
	CUfunction worker;
	CUdeviceptr buf;
	long launches;
	pthread_barrier_t start;
};

struct thread_arg {
	struct shared *sh;
	int index;
};

static void *thread_main(void *p)
{
	const struct thread_arg *a = p;
	struct shared *sh = a->sh;
	PFN_cuCtxSetCurrent_v4000 set_current;
	PFN_cuStreamCreate_v2000 stream_create;
	PFN_cuLaunchKernel_v4000 launch;
	PFN_cuStreamSynchronize_v2000 stream_sync;
	CUstream stream;
	int n = a->index;
	void *args[] = { &sh->buf, &n };
	long i;

	set_current = (PFN_cuCtxSetCurrent_v4000)wl_lookup(
		&sh->drv, "cuCtxSetCurrent", 4000, 0);
	stream_create = (PFN_cuStreamCreate_v2000)wl_lookup(
		&sh->drv, "cuStreamCreate", 2000, 0);
	launch = (PFN_cuLaunchKernel_v4000)wl_lookup(
		&sh->drv, "cuLaunchKernel", 4000, 1);
	stream_sync = (PFN_cuStreamSynchronize_v2000)wl_lookup(
		&sh->drv, "cuStreamSynchronize", 2000, 1);
	WL_CK(set_current(sh->ctx));
	WL_CK(stream_create(&stream, 0));
	pthread_barrier_wait(&sh->start);
	for (i = 0; i < sh->launches; i++) {
		WL_CK(launch(sh->worker, 16, 1, 1, 64, 1, 1, 0, stream, args,
			     NULL));
		if (a->index != 0)
			WL_CK(stream_sync(stream));
	}
	if (a->index == 0)
		pthread_exit(NULL);
	return NULL;
}

static void setup(struct shared *sh)
{
	static const char image[] = "fake cubin";
	PFN_cuDeviceGet_v2000 device_get;
	PFN_cuDevicePrimaryCtxRetain_v7000 retain;
	PFN_cuCtxSetCurrent_v4000 set_current;
	PFN_cuModuleLoadData_v2000 load;
	PFN_cuModuleGetFunction_v2000 get_function;
	PFN_cuMemAlloc_v3020 alloc;
	CUdevice dev;
	CUmodule mod;

	device_get = (PFN_cuDeviceGet_v2000)wl_lookup(&sh->drv, "cuDeviceGet",
						      2000, 0);
	retain = (PFN_cuDevicePrimaryCtxRetain_v7000)wl_lookup(
		&sh->drv, "cuDevicePrimaryCtxRetain", 7000, 0);
	set_current = (PFN_cuCtxSetCurrent_v4000)wl_lookup(
		&sh->drv, "cuCtxSetCurrent", 4000, 0);
	load = (PFN_cuModuleLoadData_v2000)wl_lookup(
		&sh->drv, "cuModuleLoadData", 2000, 0);
	get_function = (PFN_cuModuleGetFunction_v2000)wl_lookup(
		&sh->drv, "cuModuleGetFunction", 2000, 0);
	alloc = (PFN_cuMemAlloc_v3020)wl_lookup(&sh->drv, "cuMemAlloc", 3020,
						0);
	WL_CK(device_get(&dev, 0));
	WL_CK(retain(&sh->ctx, dev));
	WL_CK(set_current(sh->ctx));
	WL_CK(load(&mod, image));
	WL_CK(get_function(&sh->worker, mod, WL_K_WORKER));
	WL_CK(alloc(&sh->buf, 4096));
}

int main(int argc, char **argv)
{
	static struct shared sh;
	struct thread_arg *args;
	pthread_t *tids;
	long nthreads = 8;
	int ptsz = 0, nargs = 0, i;

	sh.launches = 100;
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--ptsz"))
			ptsz = 1;
		else if (nargs++ == 0)
			nthreads = strtol(argv[i], NULL, 10);
		else
			sh.launches = strtol(argv[i], NULL, 10);
	}
	if (nthreads < 1 || nthreads > 1024 || sh.launches < 0)
		return 2;

	wl_open(&sh.drv, 0, ptsz);
	setup(&sh);
	tids = calloc((size_t)nthreads, sizeof(*tids));
	args = calloc((size_t)nthreads, sizeof(*args));
	if (!tids || !args)
		return WL_EXIT_FAIL;
	pthread_barrier_init(&sh.start, NULL, (unsigned)nthreads);
	for (i = 0; i < nthreads; i++) {
		args[i] = (struct thread_arg){ &sh, i };
		if (pthread_create(&tids[i], NULL, thread_main, &args[i]))
			return WL_EXIT_FAIL;
	}
	for (i = 0; i < nthreads; i++)
		pthread_join(tids[i], NULL);
	return 0;
}
