// SPDX-License-Identifier: MIT
/*
 * cupti_probe.cu - facts about CUPTI that decide how libgputrace.so uses it,
 * measured on the GPU by check_cupti.py (prints "truth k=v" lines):
 *
 *   - whether subscribing and enabling latency timestamps before any CUDA
 *     call initializes CUDA (cuCtxGetCurrent says NOT_INITIALIZED or not),
 *     and whether a child forked after that can still use CUDA;
 *   - host time per empty-kernel launch with CUPTI in each state: only
 *     subscribed, kinds enabled (with external correlation push/pop),
 *     kinds disabled again, after cuptiFinalize, subscribed again;
 *   - what each switch costs (enable, disable, finalize, subscribe);
 *   - whether external correlation records come without the DRIVER kind
 *     (phase enabled_nodriver: they do not), and which correlation id a
 *     kernel launched through cudart carries when the id is pushed from
 *     inside the driver call, as libgputrace.so's wrapper does (phases
 *     inside_*: CUPTI reads the pushed id at the entry of each API call,
 *     so the runtime call around it sees the previous one, "previous_id",
 *     and the driver call's record never joins the kernel: hence the join
 *     through the runtime record that encloses the driver call);
 *   - CUPTI's clock against CLOCK_REALTIME and CLOCK_MONOTONIC.
 *
 *   cupti_probe N            (N launches per phase)
 *   cupti_probe N --plain    (no CUPTI at all: the baseline)
 */
#include <cuda.h>
#include <cuda_runtime.h>
#include <cupti.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

__global__ void empty(void) {}

static long kernels, extcorr, memcpys, other, late;
#define MAXCORR (1u << 24)
static uint64_t *extmap;          /* correlation id -> external id */
static uint32_t *kcorr;           /* kernels' correlation ids this phase */
static long nk;
static uint64_t *launch_ext;      /* the id pushed during each launch */
static long nl;
static CUpti_SubscriberHandle sub;

static double now_us(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static void CUPTIAPI requested(uint8_t **buf, size_t *size, size_t *max)
{
	*buf = (uint8_t *)aligned_alloc(8, 4 << 20);
	*size = 4 << 20;
	*max = 0;
}

static void CUPTIAPI completed(CUcontext c, uint32_t s, uint8_t *buf, size_t size, size_t valid)
{
	CUpti_Activity *r = NULL;

	while (cuptiActivityGetNextRecord(buf, valid, &r) == CUPTI_SUCCESS) {
		if (r->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) {
			uint32_t c = ((CUpti_ActivityKernel10 *)r)->correlationId;
			kernels++;
			late += c < MAXCORR && !extmap[c];
			if (nk < (1 << 22))
				kcorr[nk++] = c;
		} else if (r->kind == CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION) {
			CUpti_ActivityExternalCorrelation *e = (CUpti_ActivityExternalCorrelation *)r;
			extcorr++;
			if (e->correlationId < MAXCORR)
				extmap[e->correlationId] = e->externalId;
		}
		else if (r->kind == CUPTI_ACTIVITY_KIND_MEMCPY)
			memcpys++;
		else
			other++;
	}
	free(buf);
}

/*
 * Emulating libgputrace's wrapper, which runs inside the driver call that
 * cudart's launch makes: a driver-API callback on cuLaunchKernel pushes the
 * next external id at entry, and either pops it at exit (eager) or leaves
 * it pushed until the next launch (lazy).
 */
static int push_mode;             /* 0 none, 1 eager, 2 lazy */
static uint64_t next_ext;
static int pushed;

static void CUPTIAPI nop_cb(void *u, CUpti_CallbackDomain d, CUpti_CallbackId id, const void *p)
{
	const CUpti_CallbackData *cb = (const CUpti_CallbackData *)p;

	if (!push_mode || d != CUPTI_CB_DOMAIN_DRIVER_API)
		return;
	if (cb->callbackSite == CUPTI_API_ENTER) {
		if (pushed)
			cuptiActivityPopExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, NULL);
		cuptiActivityPushExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, ++next_ext);
		pushed = 1;
	} else if (push_mode == 1) {
		cuptiActivityPopExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, NULL);
		pushed = 0;
	}
}

static const CUpti_ActivityKind kinds[] = {
	CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
	CUPTI_ACTIVITY_KIND_MEMSET, CUPTI_ACTIVITY_KIND_SYNCHRONIZATION,
	CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION,
};
#define NKINDS (sizeof(kinds) / sizeof(kinds[0]))

static double timed_us(void (*fn)(void))
{
	double t = now_us(CLOCK_MONOTONIC);
	fn();
	return now_us(CLOCK_MONOTONIC) - t;
}

static int enable_rc;
static void enable_all(void)
{
	for (unsigned i = 0; i < NKINDS; i++)
		enable_rc |= cuptiActivityEnable(kinds[i]);
}
static void disable_all(void)
{
	for (unsigned i = 0; i < NKINDS; i++)
		cuptiActivityDisable(kinds[i]);
}
static void finalize(void)
{
	cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
	cuptiFinalize();
}
static int sub_rc;
static void subscribe(void)
{
	sub_rc = cuptiSubscribe(&sub, (CUpti_CallbackFunc)nop_cb, NULL);
	cuptiActivityRegisterCallbacks(requested, completed);
}

/* Host time per launch over n launches; push/pop around each when ext. */
static double launch_loop(long n, int ext)
{
	double t;

	for (int i = 0; i < 1000; i++) {
		empty<<<1, 1>>>();
		if (nl < (1 << 22))
			launch_ext[nl++] = next_ext;
	}
	cudaDeviceSynchronize();
	t = now_us(CLOCK_MONOTONIC);
	for (long i = 0; i < n; i++) {
		if (ext)
			cuptiActivityPushExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, i + 1);
		empty<<<1, 1>>>();
		if (nl < (1 << 22))
			launch_ext[nl++] = next_ext;
		if (ext)
			cuptiActivityPopExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, NULL);
	}
	t = (now_us(CLOCK_MONOTONIC) - t) / n;
	cudaDeviceSynchronize();
	return t;
}

static void phase(const char *name, long n, int ext)
{
	long k0 = kernels, e0 = extcorr, l0 = late, j = 0;
	double us;

	nk = nl = 0;
	us = launch_loop(n, ext);
	cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
	long seq_ok = 0, own = 0, prev = 0;
	for (long i = 0; i < nk && i < nl; i++) {
		uint64_t x = kcorr[i] < MAXCORR ? extmap[kcorr[i]] : 0;
		own += x && x == launch_ext[i];
		prev += x && i && x == launch_ext[i - 1];
	}
	printf("truth phase_%s_own_id=%ld phase_%s_previous_id=%ld phase_%s_api_records=%ld\n",
	       name, own, name, prev, name, other);
	other = 0;
	for (long i = 0; i < nk; i++) {
		j += kcorr[i] < MAXCORR && extmap[kcorr[i]];
		seq_ok += i && kcorr[i] < MAXCORR && kcorr[i - 1] < MAXCORR &&
			  extmap[kcorr[i]] && extmap[kcorr[i]] == extmap[kcorr[i - 1]] + 1;
	}
	printf("truth phase_%s_ext_in_sequence=%ld\n", name, seq_ok);
	printf("truth phase_%s_us=%.3f phase_%s_kernels=%ld phase_%s_ext=%ld "
	       "phase_%s_joined=%ld phase_%s_ext_late=%ld\n",
	       name, us, name, kernels - k0, name, extcorr - e0, name, j,
	       name, late - l0);
	fflush(stdout);
}

static void clocks(void)
{
	uint64_t c;
	double rt = now_us(CLOCK_REALTIME), mono = now_us(CLOCK_MONOTONIC);

	cuptiGetTimestamp(&c);
	printf("truth cupti_minus_realtime_us=%.1f cupti_minus_monotonic_s=%.3f\n",
	       c / 1e3 - rt, (c / 1e3 - mono) / 1e6);
}

static int fork_child_uses_cuda(void)
{
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		void *p;
		if (cudaMalloc(&p, 16) != cudaSuccess)
			_exit(3);
		empty<<<1, 1>>>();
		_exit(cudaDeviceSynchronize() == cudaSuccess ? 0 : 4);
	}
	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 100;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000;
	CUcontext ctx;
	double t;

	extmap = (uint64_t *)calloc(MAXCORR, sizeof(*extmap));
	kcorr = (uint32_t *)calloc(1 << 22, sizeof(*kcorr));
	launch_ext = (uint64_t *)calloc(1 << 22, sizeof(*launch_ext));
	if (argc > 2 && !strcmp(argv[2], "--plain")) {
		printf("truth phase_plain_us=%.3f\n", launch_loop(n, 0));
		return 0;
	}
	t = now_us(CLOCK_MONOTONIC);
	subscribe();
	cuptiActivityEnableLatencyTimestamps(1);
	printf("truth subscribe_rc=%d subscribe_us=%.0f\n", sub_rc, now_us(CLOCK_MONOTONIC) - t);
	/* before cuInit: did CUPTI initialize CUDA? */
	printf("truth cuda_init_before_use=%d\n", cuCtxGetCurrent(&ctx) != CUDA_ERROR_NOT_INITIALIZED);
	printf("truth fork_child_rc=%d\n", fork_child_uses_cuda());
	cudaFree(0);
	clocks();
	phase("subscribed", n, 0);
	printf("truth enable_us=%.0f\n", timed_us(enable_all));
	phase("enabled_nodriver", n, 1);
	cuptiActivityEnable(CUPTI_ACTIVITY_KIND_DRIVER);
	phase("enabled_driver", n, 1);
	cuptiActivityDisable(CUPTI_ACTIVITY_KIND_DRIVER);
	/* pushes from inside the driver call, as the tracer's wrapper does */
	disable_all();
	cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel);
	enable_all();
	push_mode = 1;
	cuptiActivityEnable(CUPTI_ACTIVITY_KIND_DRIVER);
	phase("inside_eager_driver", n, 0);
	cuptiActivityDisable(CUPTI_ACTIVITY_KIND_DRIVER);
	push_mode = 2;
	cuptiActivityEnable(CUPTI_ACTIVITY_KIND_RUNTIME);
	phase("inside_lazy_runtime", n, 0);
	cuptiActivityEnable(CUPTI_ACTIVITY_KIND_DRIVER);
	phase("inside_lazy_both", n, 0);
	cuptiActivityDisable(CUPTI_ACTIVITY_KIND_DRIVER);
	cuptiActivityDisable(CUPTI_ACTIVITY_KIND_RUNTIME);
	push_mode = 0;
	cuptiEnableCallback(0, sub, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel);
	cuptiActivityEnable(CUPTI_ACTIVITY_KIND_RUNTIME);
	phase("outside_runtime", n, 1);
	cuptiActivityDisable(CUPTI_ACTIVITY_KIND_RUNTIME);
	/* Outside windows: kinds disabled (still attached), or detached. */
	for (int round = 0; round < 3; round++) {
		char name[32];

		printf("truth disable_us_%d=%.0f\n", round, timed_us(disable_all));
		cuptiActivityDisable(CUPTI_ACTIVITY_KIND_RUNTIME);
		cuptiActivityDisable(CUPTI_ACTIVITY_KIND_DRIVER);
		snprintf(name, sizeof(name), "disabled_%d", round);
		phase(name, n, 0);
		printf("truth finalize_us_%d=%.0f\n", round, timed_us(finalize));
		snprintf(name, sizeof(name), "finalized_%d", round);
		phase(name, n, 0);
		printf("truth resubscribe_us_%d=%.0f resubscribe_rc_%d=%d\n", round,
		       timed_us(subscribe), round, sub_rc);
		enable_rc = 0;
		printf("truth enable_again_us_%d=%.0f enable_again_rc_%d=%d\n", round,
		       timed_us(enable_all), round, enable_rc);
		cuptiActivityEnable(CUPTI_ACTIVITY_KIND_RUNTIME);
		cuptiActivityEnable(CUPTI_ACTIVITY_KIND_DRIVER);
		snprintf(name, sizeof(name), "reenabled_%d", round);
		phase(name, n, 1);
	}
	clocks();
	return 0;
}
