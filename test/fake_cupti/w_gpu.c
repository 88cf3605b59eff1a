/* SPDX-License-Identifier: MIT */
/*
 * w_gpu.c - the workload of the CUPTI tests: reaches the fake driver the
 * way cudart does (so the tracer attaches CUPTI before cuInit) and tells
 * the fake CUPTI what GPU work each call makes (fake_cupti.h).
 *
 *   w_gpu [--sleep-us=N] [--threads=T] [--idle-ms=M] [ITERS]
 *
 * Each iteration on each thread: two kernel launches (vecAdd 4x256,
 * scale 2x128), a HtoD copy of 4096 bytes (pageable), a DtoH async copy
 * of 8192 bytes (pageable), a memset of 1000 bytes, a stream sync; then
 * it sleeps N microseconds.  --idle-ms: M milliseconds between CUDA's
 * start and the first launch (a framework loading its data).  Prints
 * "truth ..." lines with the counts.
 */
#include <pthread.h>
#include <time.h>

#include "test/fake/workload.h"
#include "test/fake_cupti/fake_cupti.h"

#define HTOD_BYTES 4096
#define DTOH_BYTES 8192
#define SET_BYTES 1000

static struct {
	PFN_cuDeviceGet_v2000 get;
	PFN_cuDevicePrimaryCtxRetain_v7000 retain;
	PFN_cuCtxSetCurrent_v4000 set_current;
	PFN_cuModuleLoadData_v2000 load;
	PFN_cuModuleGetFunction_v2000 function;
	PFN_cuMemAlloc_v3020 alloc;
	PFN_cuStreamCreate_v2000 stream_create;
	PFN_cuLaunchKernel_v4000 launch;
	PFN_cuMemcpyHtoD_v3020 htod;
	PFN_cuMemcpyDtoHAsync_v3020 dtoh_async;
	PFN_cuMemsetD8Async_v3020 set_async;
	PFN_cuStreamSynchronize_v2000 sync;
} api;

static CUcontext ctx;
static CUfunction vecadd, scale;
static long iters = 10, sleep_us, idle_ms;

/* fake_cupti_begin, the call, fake_cupti_end. */
#define ON_GPU(opinit, call)                                               \
	do {                                                               \
		struct fake_gpu_op op_ = opinit;                           \
		fake_cupti_begin(&op_);                                    \
		WL_CK(call);                                               \
		fake_cupti_end();                                          \
	} while (0)

static void lookup(void)
{
	struct wl_driver d;

	wl_open(&d, 0, 0);
	api.get = wl_lookup(&d, "cuDeviceGet", 2000, 0);
	api.retain = wl_lookup(&d, "cuDevicePrimaryCtxRetain", 7000, 0);
	api.set_current = wl_lookup(&d, "cuCtxSetCurrent", 4000, 0);
	api.load = wl_lookup(&d, "cuModuleLoadData", 2000, 0);
	api.function = wl_lookup(&d, "cuModuleGetFunction", 2000, 0);
	api.alloc = wl_lookup(&d, "cuMemAlloc", 3020, 0);
	api.stream_create = wl_lookup(&d, "cuStreamCreate", 2000, 0);
	api.launch = wl_lookup(&d, "cuLaunchKernel", 4000, 0);
	api.htod = wl_lookup(&d, "cuMemcpyHtoD", 3020, 0);
	api.dtoh_async = wl_lookup(&d, "cuMemcpyDtoHAsync", 3020, 0);
	api.set_async = wl_lookup(&d, "cuMemsetD8Async", 3020, 0);
	api.sync = wl_lookup(&d, "cuStreamSynchronize", 2000, 0);
}

static void setup(void)
{
	static const char image[] = "fake cubin";
	CUdevice dev;
	CUmodule mod;

	WL_CK(api.get(&dev, 0));
	WL_CK(api.retain(&ctx, dev));
	WL_CK(api.set_current(ctx));
	WL_CK(api.load(&mod, image));
	WL_CK(api.function(&vecadd, mod, WL_K_VECADD));
	WL_CK(api.function(&scale, mod, WL_K_SCALE));
}

static void iteration(CUstream s, CUdeviceptr d, unsigned char *h)
{
	int n = 1024;
	float alpha = 2.0f;
	void *add_args[] = { &d, &d, &d, &n };
	void *scale_args[] = { &d, &n, &alpha };

	ON_GPU(((struct fake_gpu_op){ .kind = FAKE_GPU_KERNEL, .name = WL_K_VECADD,
				      .grid = { 4, 1, 1 }, .block = { 256, 1, 1 } }),
	       api.launch(vecadd, 4, 1, 1, 256, 1, 1, 0, s, add_args, NULL));
	ON_GPU(((struct fake_gpu_op){ .kind = FAKE_GPU_KERNEL, .name = WL_K_SCALE,
				      .grid = { 2, 1, 1 }, .block = { 128, 1, 1 } }),
	       api.launch(scale, 2, 1, 1, 128, 1, 1, 0, s, scale_args, NULL));
	ON_GPU(((struct fake_gpu_op){ .kind = FAKE_GPU_MEMCPY, .bytes = HTOD_BYTES,
				      .copy_kind = 1, .src_kind = 1, .dst_kind = 3 }),
	       api.htod(d, h, HTOD_BYTES));
	ON_GPU(((struct fake_gpu_op){ .kind = FAKE_GPU_MEMCPY, .bytes = DTOH_BYTES,
				      .copy_kind = 2, .src_kind = 3, .dst_kind = 1 }),
	       api.dtoh_async(h, d, DTOH_BYTES, s));
	ON_GPU(((struct fake_gpu_op){ .kind = FAKE_GPU_MEMSET, .bytes = SET_BYTES }),
	       api.set_async(d + 8192, 0x5a, SET_BYTES, s));
	ON_GPU(((struct fake_gpu_op){ .kind = FAKE_GPU_SYNC }), api.sync(s));
}

static void *thread_main(void *arg)
{
	struct timespec ts = { sleep_us / 1000000, sleep_us % 1000000 * 1000 };
	unsigned char *h = calloc(1, WL_BUF_BYTES);
	CUdeviceptr d;
	CUstream s;

	(void)arg;
	if (!h)
		exit(WL_EXIT_FAIL);
	WL_CK(api.set_current(ctx));
	WL_CK(api.alloc(&d, WL_BUF_BYTES));
	WL_CK(api.stream_create(&s, 0));
	for (long i = 0; i < iters; i++) {
		iteration(s, d, h);
		if (sleep_us)
			nanosleep(&ts, NULL);
	}
	free(h);
	return NULL;
}

int main(int argc, char **argv)
{
	long threads = 1;
	pthread_t t[16];

	for (int i = 1; i < argc; i++) {
		if (wl_opt_int(argv[i], "--sleep-us", &sleep_us) ||
		    wl_opt_int(argv[i], "--threads", &threads) ||
		    wl_opt_int(argv[i], "--idle-ms", &idle_ms))
			continue;
		iters = strtol(argv[i], NULL, 10);
	}
	if (threads < 1 || threads > 16)
		threads = 1;
	lookup();
	setup();
	if (idle_ms) {      /* a traced call first: the dump starts there */
		struct timespec idle = { idle_ms / 1000, idle_ms % 1000 * 1000000 };

		WL_CK(api.sync(NULL));
		nanosleep(&idle, NULL);
	}
	for (long i = 0; i < threads; i++)
		if (pthread_create(&t[i], NULL, thread_main, NULL))
			exit(WL_EXIT_FAIL);
	for (long i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
	printf("truth threads=%ld iters=%ld kernels=%ld copies=%ld sets=%ld "
	       "syncs=%ld\n", threads, iters, 2 * threads * iters,
	       2 * threads * iters, threads * iters, threads * iters);
	return 0;
}
