/* SPDX-License-Identifier: MIT */
/*
 * launcher.h - what the safety workloads (w_fork, w_exec, w_signal,
 * w_late) share: the driver reached the cudart way, one context and
 * kernel (WL_K_WORKER), streams, and counted launches and syncs, so each
 * process can print the truth its dump must match:
 *
 *	truth pid=P launches=N syncs=M
 */
#ifndef GT_TEST_LAUNCHER_H
#define GT_TEST_LAUNCHER_H

#include <dirent.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <unistd.h>

#include "test/fake/workload.h"

struct launcher {
	struct wl_driver drv;
	CUcontext ctx;
	CUfunction kernel;
	CUdeviceptr buf;
	CUstream stream;                    /* the main thread's */
	PFN_cuCtxSetCurrent_v4000 set_current;
	PFN_cuStreamCreate_v2000 stream_create;
	PFN_cuLaunchKernel_v4000 launch;
	PFN_cuStreamSynchronize_v2000 sync;
	atomic_long launches, syncs;
};

#define LN_GET(l, T, name, ver) ((T)wl_lookup(&(l)->drv, name, ver, 0))

/* Open the driver (dlopen, cuInit) and set up; exits on failure. */
static inline void ln_open(struct launcher *l)
{
	static const char image[] = "fake cubin";
	CUdevice dev;
	CUmodule mod;

	wl_open(&l->drv, 0, 0);
	l->set_current = LN_GET(l, PFN_cuCtxSetCurrent_v4000, "cuCtxSetCurrent", 4000);
	l->stream_create = LN_GET(l, PFN_cuStreamCreate_v2000, "cuStreamCreate", 2000);
	l->launch = LN_GET(l, PFN_cuLaunchKernel_v4000, "cuLaunchKernel", 4000);
	l->sync = LN_GET(l, PFN_cuStreamSynchronize_v2000, "cuStreamSynchronize", 2000);
	WL_CK(LN_GET(l, PFN_cuDeviceGet_v2000, "cuDeviceGet", 2000)(&dev, 0));
	WL_CK(LN_GET(l, PFN_cuDevicePrimaryCtxRetain_v7000,
		     "cuDevicePrimaryCtxRetain", 7000)(&l->ctx, dev));
	WL_CK(l->set_current(l->ctx));
	WL_CK(LN_GET(l, PFN_cuModuleLoadData_v2000, "cuModuleLoadData", 2000)(&mod, image));
	WL_CK(LN_GET(l, PFN_cuModuleGetFunction_v2000, "cuModuleGetFunction",
		     2000)(&l->kernel, mod, WL_K_WORKER));
	WL_CK(LN_GET(l, PFN_cuMemAlloc_v3020, "cuMemAlloc", 3020)(&l->buf, 4096));
	WL_CK(l->stream_create(&l->stream, 0));
}

/* A thread other than the one that opened: the context, a stream. */
static inline CUstream ln_thread_stream(struct launcher *l)
{
	CUstream s;

	WL_CK(l->set_current(l->ctx));
	WL_CK(l->stream_create(&s, 0));
	return s;
}

/* n launches on s, a stream sync after each when sync. */
static inline void ln_run(struct launcher *l, CUstream s, long n, int sync)
{
	int arg = 1;
	void *args[] = { &l->buf, &arg };

	for (long i = 0; i < n; i++) {
		WL_CK(l->launch(l->kernel, 4, 1, 1, 32, 1, 1, 0, s, args, NULL));
		atomic_fetch_add(&l->launches, 1);
		if (sync) {
			WL_CK(l->sync(s));
			atomic_fetch_add(&l->syncs, 1);
		}
	}
}

/* The truth line of this process; flushed, as it may die next. */
static inline void ln_truth(struct launcher *l)
{
	printf("truth pid=%d launches=%ld syncs=%ld\n", (int)getpid(),
	       atomic_load(&l->launches), atomic_load(&l->syncs));
	fflush(stdout);
}

/* The descriptor open on a file in dir, or -1; target gets its path. */
static inline int wl_fd_in(const char *dir, char target[PATH_MAX])
{
	char link[64];
	struct dirent *e;
	DIR *d = opendir("/proc/self/fd");
	int found = -1;

	while (d && found < 0 && (e = readdir(d))) {
		ssize_t n;

		snprintf(link, sizeof(link), "/proc/self/fd/%.20s", e->d_name);
		n = readlink(link, target, PATH_MAX - 1);
		if (n <= 0)
			continue;
		target[n] = 0;
		if (!strncmp(target, dir, strlen(dir)) && target[strlen(dir)] == '/')
			found = atoi(e->d_name);
	}
	if (d)
		closedir(d);
	return found;
}

#endif /* GT_TEST_LAUNCHER_H */
