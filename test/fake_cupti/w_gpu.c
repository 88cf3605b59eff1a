/* SPDX-License-Identifier: MIT */
/*
 * w_gpu.c - the workload of the CUPTI tests: reaches the fake driver the
 * way cudart does (so the tracer attaches CUPTI before cuInit) and tells
 * the fake CUPTI what GPU work each call makes (fake_cupti.h).
 *
 *   w_gpu [--sleep-us=N] [--threads=T] [--idle-ms=M] [--setup-ms=S]
 *         [--init-reps=R] [--random] [--raise-at=I] [--own-handler]
 *         [--touch-at=I] [--alternate] [--blocks=K] [--graphs]
 *         [--queue] [--fresh-args] [ITERS]
 *
 * Each iteration on each thread: two kernel launches (vecAdd 4x256,
 * scale 2x128), a HtoD copy of 4096 bytes (pageable), a DtoH async copy
 * of 8192 bytes (pageable), a memset of 1000 bytes, a stream sync; then
 * it sleeps N microseconds.  --idle-ms: M milliseconds between CUDA's
 * start and the first launch (a framework loading its data).  --setup-ms:
 * S milliseconds of set-up first, with a launch of a new shape and a copy
 * of a new size every 20 to 60 ms (loading, compiling).  --init-reps: R
 * quick repeats of two launches (building a model layer by layer, which
 * looks like steps), then 700 ms without GPU work.  --random: the two
 * launches of each iteration are of a kernel and grid drawn at random, so
 * the calls never repeat with a period.  --raise-at: the first thread
 * raises SIGUSR2 before iteration I; --own-handler: the program has its
 * own SIGUSR2 handler (counted in the truth line); --touch-at: it creates
 * the file $W_GPU_TRIGGER before iteration I.  --alternate: six more
 * launches of scale an iteration, one of them on a grid of 3 every other
 * iteration (a kernel's shape picked by the batch): the calls repeat
 * every two iterations.  --blocks: each iteration is K blocks of the
 * same two launches (a model of identical layers), block j on its own
 * buffer, then the stream sync: the calls repeat every block, the
 * arguments (FAKE_KERNEL_PARAMS=1) every iteration.  --graphs: each
 * iteration is one CUDA graph launch (its GPU record a kernel's).
 * --queue: no sync in the loop, one after it (a host that queues every
 * step before the GPU ran them).  --fresh-args: the two launches of
 * iteration i run on a buffer of their own (d + 64 i): the arguments
 * (FAKE_KERNEL_PARAMS=1) never come back, as a framework's that hands
 * each step new tensors.  Prints "truth ..." lines with the
 * counts.
 */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
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
	PFN_cuGraphLaunch_v10000 graph_launch;
} api;

static CUcontext ctx;
static CUfunction vecadd, scale;
static long iters = 10, sleep_us, idle_ms, setup_ms, init_reps, random_order;
static long raise_at = -1, own_handler, touch_at = -1, alternate, blocks;
static long graphs, queue, fresh_args;
static volatile sig_atomic_t handler_calls;
static unsigned setup_calls;

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
	api.graph_launch = wl_lookup(&d, "cuGraphLaunch", 10000, 0);
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

static void launch_add(CUstream s, CUdeviceptr d, unsigned grid)
{
	int n = 1024;
	void *args[] = { &d, &d, &d, &n };

	ON_GPU(((struct fake_gpu_op){ .kind = FAKE_GPU_KERNEL, .name = WL_K_VECADD,
				      .grid = { grid, 1, 1 }, .block = { 256, 1, 1 } }),
	       api.launch(vecadd, grid, 1, 1, 256, 1, 1, 0, s, args, NULL));
}

static void launch_scale(CUstream s, CUdeviceptr d, unsigned grid)
{
	int n = 1024;
	float alpha = 2.0f;
	void *args[] = { &d, &n, &alpha };

	ON_GPU(((struct fake_gpu_op){ .kind = FAKE_GPU_KERNEL, .name = WL_K_SCALE,
				      .grid = { grid, 1, 1 }, .block = { 128, 1, 1 } }),
	       api.launch(scale, grid, 1, 1, 128, 1, 1, 0, s, args, NULL));
}

/* One launch of either kernel on a grid of 1 to 3 blocks, drawn from r. */
static void launch_random(CUstream s, CUdeviceptr d, unsigned r)
{
	if (r & 1)
		launch_add(s, d, 1 + (r >> 1) % 3);
	else
		launch_scale(s, d, 1 + (r >> 1) % 3);
}

static void sync_stream(CUstream s)
{
	ON_GPU(((struct fake_gpu_op){ .kind = FAKE_GPU_SYNC }), api.sync(s));
}

/* K blocks of identical layers, each on its own part of d; or a graph. */
static void layers(CUstream s, CUdeviceptr d)
{
	for (long j = 0; j < blocks; j++) {
		launch_add(s, d + 256 * (CUdeviceptr)j, 4);
		launch_scale(s, d + 256 * (CUdeviceptr)j, 2);
	}
	if (graphs)
		ON_GPU(((struct fake_gpu_op){ .kind = FAKE_GPU_KERNEL, .name = "graph_node",
					      .grid = { 8, 1, 1 }, .block = { 128, 1, 1 } }),
		       api.graph_launch((CUgraphExec)(uintptr_t)0x6a000, s));
	if (!queue)
		sync_stream(s);
}

static void iteration(CUstream s, CUdeviceptr d, unsigned char *h,
		      unsigned *seed, long i)
{
	if (blocks || graphs) {
		layers(s, d);
		return;
	}
	for (int k = 0; alternate && k < 6; k++)
		launch_scale(s, d, k == 3 && i % 2 ? 3 : 2);
	if (random_order) {
		launch_random(s, d, (unsigned)rand_r(seed));
		launch_random(s, d, (unsigned)rand_r(seed));
	} else {
		CUdeviceptr at = d + (fresh_args ? 64 * (CUdeviceptr)(i % 1024) : 0);

		launch_add(s, at, 4);
		launch_scale(s, at, 2);
	}
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

static void on_usr2(int sig)
{
	(void)sig;
	handler_calls++;
}

/* What the first thread does before iteration i: a signal, a file. */
static void before(long i)
{
	const char *path = getenv("W_GPU_TRIGGER");

	if (i == raise_at)
		raise(SIGUSR2);
	if (i == touch_at && path) {
		int fd = open(path, O_WRONLY | O_CREAT, 0600);

		if (fd >= 0)
			close(fd);
	}
}

/* Loading and compiling: launches of new shapes and copies of new sizes,
 * every 20 to 60 ms, for setup_ms. */
static void set_up(CUstream s, CUdeviceptr d, unsigned char *h)
{
	struct timespec t0, now;
	unsigned k = 0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		struct timespec gap = { 0, (20 + (long)(k * 17 % 41)) * 1000000L };

		launch_add(s, d, 8 + k);
		ON_GPU(((struct fake_gpu_op){ .kind = FAKE_GPU_MEMCPY,
					      .bytes = 512 + 64 * k, .copy_kind = 1,
					      .src_kind = 1, .dst_kind = 3 }),
		       api.htod(d, h, 512 + 64 * k));
		k++;
		nanosleep(&gap, NULL);
		clock_gettime(CLOCK_MONOTONIC, &now);
		setup_calls = k;
	} while ((now.tv_sec - t0.tv_sec) * 1000 + (now.tv_nsec - t0.tv_nsec) / 1000000 <
		 setup_ms);
}

/* A model built layer by layer: a short-lived pattern, then a pause. */
static void init_layers(CUstream s, CUdeviceptr d)
{
	struct timespec ms = { 0, 1000000L }, pause = { 0, 700000000L };

	for (long k = 0; k < init_reps; k++) {
		launch_add(s, d, 16);
		launch_scale(s, d, 16);
		nanosleep(&ms, NULL);
	}
	nanosleep(&pause, NULL);
}

static void *thread_main(void *arg)
{
	struct timespec ts = { sleep_us / 1000000, sleep_us % 1000000 * 1000 };
	unsigned char *h = calloc(1, WL_BUF_BYTES);
	unsigned seed = 1 + (unsigned)(uintptr_t)arg;
	CUdeviceptr d;
	CUstream s;

	if (!h)
		exit(WL_EXIT_FAIL);
	WL_CK(api.set_current(ctx));
	WL_CK(api.alloc(&d, WL_BUF_BYTES));
	WL_CK(api.stream_create(&s, 0));
	if (setup_ms && !arg)
		set_up(s, d, h);
	if (init_reps && !arg)
		init_layers(s, d);
	for (long i = 0; i < iters; i++) {
		if (!arg)
			before(i);
		iteration(s, d, h, &seed, i);
		if (sleep_us)
			nanosleep(&ts, NULL);
	}
	if (queue)
		sync_stream(s);
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
		    wl_opt_int(argv[i], "--idle-ms", &idle_ms) ||
		    wl_opt_int(argv[i], "--setup-ms", &setup_ms) ||
		    wl_opt_int(argv[i], "--init-reps", &init_reps) ||
		    wl_opt_int(argv[i], "--raise-at", &raise_at) ||
		    wl_opt_int(argv[i], "--touch-at", &touch_at) ||
		    wl_opt_int(argv[i], "--blocks", &blocks))
			continue;
		if (!strcmp(argv[i], "--fresh-args")) {
			fresh_args = 1;
			continue;
		}
		if (!strcmp(argv[i], "--random") || !strcmp(argv[i], "--own-handler")) {
			*(argv[i][2] == 'r' ? &random_order : &own_handler) = 1;
			continue;
		}
		if (!strcmp(argv[i], "--alternate") || !strcmp(argv[i], "--graphs") ||
		    !strcmp(argv[i], "--queue")) {
			*(argv[i][2] == 'a' ? &alternate : argv[i][2] == 'g' ? &graphs
								 : &queue) = 1;
			continue;
		}
		iters = strtol(argv[i], NULL, 10);
	}
	if (threads < 1 || threads > 16)
		threads = 1;
	if (own_handler)
		signal(SIGUSR2, on_usr2);
	lookup();
	setup();
	if (idle_ms) {      /* a traced call first: the dump starts there */
		struct timespec idle = { idle_ms / 1000, idle_ms % 1000 * 1000000 };

		WL_CK(api.sync(NULL));
		nanosleep(&idle, NULL);
	}
	for (long i = 0; i < threads; i++)
		if (pthread_create(&t[i], NULL, thread_main, (void *)(uintptr_t)i))
			exit(WL_EXIT_FAIL);
	for (long i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
	printf("truth threads=%ld iters=%ld kernels=%ld copies=%ld sets=%ld "
	       "syncs=%ld handler_calls=%d setup_launches=%u\n", threads, iters,
	       (blocks || graphs ? 2 * blocks : alternate ? 8 : 2) * threads * iters,
	       blocks || graphs ? 0 : 2 * threads * iters,
	       blocks || graphs ? 0 : threads * iters,
	       queue ? threads : threads * iters, (int)handler_calls, setup_calls);
	if (graphs)
		printf("truth graphs=%ld\n", threads * iters);
	return 0;
}
