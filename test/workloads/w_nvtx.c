/* SPDX-License-Identifier: MIT */
/*
 * w_nvtx.c - NVTX through the real nvtx3 headers (header-only, as PyTorch
 * and NCCL use it), with kernel launches on the fake driver inside the
 * ranges.  The tracer must become NVTX's injection on its own.
 *
 *   w_nvtx [STEPS [THREADS]]        (defaults 5 and 4)
 *
 * What it does, and so what the report must say (test/t/600-nvtx.t):
 *   main thread: named "main-thread" (nvtxNameOsThread), then STEPS
 *   times:                     push "step" { 2 launches, push "inner"
 *                              { 1 launch } pop } pop
 *   3 marks "tick"; push/pop of L"wide-\u0175" twice; an Ex push
 *   "ex-range" in category 1 (named "phase"); emit_nvtx-style pushes
 *   "aten::mm, seq = N, ..." for N = 1, 2 (one name: "aten::mm")
 *   start/end "startend" twice on this thread; "cross" started here and
 *   ended by another thread
 *   domain "mydomain": 4 pushes of the registered string "registered",
 *   1 mark "dmark"; "shared" pushed in the default domain and in
 *   "mydomain", interleaved (each pop closes its own domain's range)
 *   THREADS threads, STEPS times each: push "worker" { 1 launch, push
 *   "worker-inner" {} pop } pop
 * Launches: STEPS * 3 + THREADS * STEPS; NVTX events: 4 * STEPS + 34 +
 * 4 * THREADS * STEPS.  It prints "truth k=v" lines;
 * levels_ok=1 when push and pop returned the nesting levels.
 */
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <wchar.h>

#include <nvtx3/nvToolsExt.h>

#include "test/fake/workload.h"

struct shared {
	struct wl_driver drv;
	CUcontext ctx;
	CUfunction fn;
	CUdeviceptr buf;
	PFN_cuLaunchKernel_v4000 launch;
	PFN_cuCtxSetCurrent_v4000 set_current;
	long steps;
	nvtxRangeId_t cross;
};

static void launch(struct shared *sh)
{
	int n = 16;
	void *args[] = { &sh->buf, &n };

	WL_CK(sh->launch(sh->fn, 1, 1, 1, 32, 1, 1, 0, NULL, args, NULL));
}

static void setup(struct shared *sh)
{
	static const char image[] = "fake cubin";
	PFN_cuDeviceGet_v2000 device_get;
	PFN_cuDevicePrimaryCtxRetain_v7000 retain;
	PFN_cuModuleLoadData_v2000 load;
	PFN_cuModuleGetFunction_v2000 get_function;
	PFN_cuMemAlloc_v3020 alloc;
	CUdevice dev;
	CUmodule mod;

	wl_open(&sh->drv, 0, 0);
	device_get = (PFN_cuDeviceGet_v2000)wl_lookup(&sh->drv, "cuDeviceGet", 2000, 0);
	retain = (PFN_cuDevicePrimaryCtxRetain_v7000)wl_lookup(
		&sh->drv, "cuDevicePrimaryCtxRetain", 7000, 0);
	sh->set_current = (PFN_cuCtxSetCurrent_v4000)wl_lookup(
		&sh->drv, "cuCtxSetCurrent", 4000, 0);
	load = (PFN_cuModuleLoadData_v2000)wl_lookup(&sh->drv, "cuModuleLoadData", 2000, 0);
	get_function = (PFN_cuModuleGetFunction_v2000)wl_lookup(
		&sh->drv, "cuModuleGetFunction", 2000, 0);
	alloc = (PFN_cuMemAlloc_v3020)wl_lookup(&sh->drv, "cuMemAlloc", 3020, 0);
	sh->launch = (PFN_cuLaunchKernel_v4000)wl_lookup(&sh->drv, "cuLaunchKernel",
							  4000, 0);
	WL_CK(device_get(&dev, 0));
	WL_CK(retain(&sh->ctx, dev));
	WL_CK(sh->set_current(sh->ctx));
	WL_CK(load(&mod, image));
	WL_CK(get_function(&sh->fn, mod, WL_K_WORKER));
	WL_CK(alloc(&sh->buf, 4096));
}

static void *worker(void *p)
{
	struct shared *sh = p;

	WL_CK(sh->set_current(sh->ctx));
	for (long i = 0; i < sh->steps; i++) {
		nvtxRangePushA("worker");
		launch(sh);
		nvtxRangePushA("worker-inner");
		nvtxRangePop();
		nvtxRangePop();
	}
	return NULL;
}

static void *ender(void *p)
{
	nvtxRangeEnd(((struct shared *)p)->cross);
	return NULL;
}

/* Returns whether push and pop returned the nesting levels. */
static int steps(struct shared *sh)
{
	int ok = 1;

	for (long i = 0; i < sh->steps; i++) {
		ok &= nvtxRangePushA("step") == 0;
		launch(sh);
		launch(sh);
		ok &= nvtxRangePushA("inner") == 1;
		launch(sh);
		ok &= nvtxRangePop() == 1;
		ok &= nvtxRangePop() == 0;
	}
	return ok;
}

static void push_ex(const char *msg, uint32_t category)
{
	nvtxEventAttributes_t a = { 0 };

	a.version = NVTX_VERSION;
	a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
	a.category = category;
	a.messageType = NVTX_MESSAGE_TYPE_ASCII;
	a.message.ascii = msg;
	nvtxRangePushEx(&a);
}

static void default_domain(struct shared *sh)
{
	char buf[64];
	pthread_t t;

	for (int i = 0; i < 3; i++)
		nvtxMarkA("tick");
	for (int i = 0; i < 2; i++) {
		nvtxRangePushW(L"wide-\u0175");
		nvtxRangePop();
	}
	nvtxNameCategoryA(1, "phase");
	push_ex("ex-range", 1);
	nvtxRangePop();
	for (int i = 1; i <= 2; i++) {
		snprintf(buf, sizeof(buf), "aten::mm, seq = %d, sizes = [[%d]]", i, i);
		nvtxRangePushA(buf);
		nvtxRangePop();
	}
	for (int i = 0; i < 2; i++)
		nvtxRangeEnd(nvtxRangeStartA("startend"));
	sh->cross = nvtxRangeStartA("cross");
	if (pthread_create(&t, NULL, ender, sh))
		exit(WL_EXIT_FAIL);
	pthread_join(t, NULL);
}

static void domains(void)
{
	nvtxDomainHandle_t d = nvtxDomainCreateA("mydomain");
	nvtxStringHandle_t s = nvtxDomainRegisterStringA(d, "registered");
	nvtxEventAttributes_t a = { 0 };

	a.version = NVTX_VERSION;
	a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
	a.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
	a.message.registered = s;
	for (int i = 0; i < 4; i++) {
		nvtxDomainRangePushEx(d, &a);
		nvtxDomainRangePop(d);
	}
	a.messageType = NVTX_MESSAGE_TYPE_ASCII;
	a.message.ascii = "dmark";
	nvtxDomainMarkEx(d, &a);
	a.message.ascii = "shared";
	nvtxRangePushA("shared");           /* default domain */
	nvtxDomainRangePushEx(d, &a);       /* mydomain */
	nvtxRangePop();                     /* closes the default one */
	nvtxDomainRangePop(d);
}

int main(int argc, char **argv)
{
	static struct shared sh;
	long nthreads = argc > 2 ? strtol(argv[2], NULL, 10) : 4;
	pthread_t tids[64];
	int levels;

	sh.steps = argc > 1 ? strtol(argv[1], NULL, 10) : 5;
	if (sh.steps < 0 || nthreads < 0 || nthreads > 64)
		return 2;
	setup(&sh);
	nvtxNameOsThreadA((uint32_t)syscall(SYS_gettid), "main-thread");
	levels = steps(&sh);
	default_domain(&sh);
	domains();
	for (long i = 0; i < nthreads; i++)
		if (pthread_create(&tids[i], NULL, worker, &sh))
			return WL_EXIT_FAIL;
	for (long i = 0; i < nthreads; i++)
		pthread_join(tids[i], NULL);
	printf("truth steps=%ld threads=%ld launches=%ld nvtx_events=%ld "
	       "levels_ok=%d\n", sh.steps, nthreads,
	       sh.steps * 3 + nthreads * sh.steps,
	       4 * sh.steps + 34 + 4 * nthreads * sh.steps, levels);
	return 0;
}
