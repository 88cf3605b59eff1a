/* SPDX-License-Identifier: MIT */
/*
 * fakecupti.c - a fake libcupti.so.13 for the GPU-less tests: the CUPTI
 * functions libgputrace.so calls, with the real cupti.h types, writing
 * the records a test chooses (fake_cupti.h) into the buffers the client
 * hands it, and giving them back through its completion callback the way
 * CUPTI does (when full, and at cuptiActivityFlushAll).
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cupti.h>

#include "test/fake_cupti/fake_cupti.h"

#define EXPORT __attribute__((visibility("default")))
#define MAX_KINDS 64

static struct {
	int taken, runtime, no_kernels, no_names;
	uint64_t queue_ns, kernel_ns, copy_ns, dropped, version, flush_stall_ms;
	uint64_t switch_us;          /* each kind's enable and disable */
	uint64_t attach_us;          /* each subscribe */
	int attach_holds;            /* the driver's calls wait for it */
	int64_t offset_ns, drift_ppm;
	uint64_t t_load;
	const char *counts;
} cfg;

static struct {
	pthread_mutex_t lock;
	int subscribed, latency;
	CUpti_BuffersCallbackRequestFunc requested;
	CUpti_BuffersCallbackCompleteFunc completed;
	uint8_t enabled[MAX_KINDS];
	CUpti_CallbackFunc cb;
	void *user;
	uint8_t domain[CUPTI_CB_DOMAIN_SIZE];   /* callbacks enabled */
	uint8_t one[CUPTI_CB_DOMAIN_SIZE][64];  /* ... or one by one */
	uint32_t corr;              /* the last correlation id given */
} st = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* A buffer being filled with GPU records. */
struct buf {
	uint8_t *p;
	size_t size, used;
};
static struct buf gpu_buf;

/* What the fake did and was asked: FAKE_CUPTI_COUNTS. */
static struct {
	unsigned long subscribe, subscribe_refused, finalize, enable, disable;
	unsigned long flush, flush_forced, latency;
	unsigned long cb_enter, cb_exit, cb_op;  /* callbacks; in an op */
	unsigned long cb_other;     /* callbacks of calls that put no work on
	                               the GPU (cuDeviceGet...) */
	unsigned long kernels, memcpys, memsets, syncs, lost;
	unsigned long buffers, refused;
	unsigned long graph_trace;  /* asked for a record per graph run (this
				       fake, as an old CUPTI, records nodes) */
	unsigned long busy_ns;      /* union of GPU intervals (one thread) */
} n;

static uint64_t busy_start, busy_end;

/* GPU intervals come in start order from one thread: their union. */
static void busy(uint64_t start, uint64_t end)
{
	if (start > busy_end) {
		n.busy_ns += busy_end - busy_start;
		busy_start = start;
	}
	if (end > busy_end)
		busy_end = end;
}

/* The call in progress on this thread (fake_cupti_begin .. end). */
static __thread struct {
	int active;
	struct fake_gpu_op op;
	uint64_t begin, drv_t0, drv_t1;
	int drv_seen;               /* its driver call has started */
	uint32_t drv_corr, rt_corr;
	uint8_t on[MAX_KINDS];      /* kinds enabled at the driver call's entry */
} cur;
static __thread uint32_t drv_corr_now;  /* the driver call in progress */

static uint64_t mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* CUPTI's clock: offset from ours, running drift_ppm faster. */
static uint64_t to_cupti(uint64_t t)
{
	int64_t since = (int64_t)(t - cfg.t_load);

	return (uint64_t)((int64_t)t + cfg.offset_ns + since / 1000000 * cfg.drift_ppm +
			  since % 1000000 * cfg.drift_ppm / 1000000);
}

static uint64_t env_num(const char *name, uint64_t def)
{
	const char *v = getenv(name);

	return v && *v ? strtoull(v, NULL, 10) : def;
}

static int64_t env_signed(const char *name)
{
	const char *v = getenv(name);

	return v && *v ? strtoll(v, NULL, 10) : 0;
}

static void driver_hook(int site, const char *sym);

/* As CUPTI hooks into the driver: through the fake's own entry point,
 * once the driver is loaded (at subscribe, or the first call). */
static void register_with_driver(void)
{
	static int done;
	void *h;
	void (*set)(void (*)(int, const char *));

	if (__atomic_load_n(&done, __ATOMIC_ACQUIRE))
		return;
	h = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
	if (!h)
		return;
	__atomic_store_n(&done, 1, __ATOMIC_RELEASE);
	*(void **)&set = dlsym(h, "fake_driver_set_tool");
	if (set)
		set(driver_hook);
	dlclose(h);
}

__attribute__((constructor)) static void fake_cupti_load(void)
{
	cfg.taken = (int)env_num("FAKE_CUPTI_TAKEN", 0);
	cfg.runtime = (int)env_num("FAKE_CUPTI_RUNTIME", 0);
	cfg.no_kernels = (int)env_num("FAKE_CUPTI_NO_KERNELS", 0);
	cfg.no_names = (int)env_num("FAKE_CUPTI_NO_NAMES", 0);
	cfg.queue_ns = env_num("FAKE_CUPTI_QUEUE_NS", 20000);
	cfg.kernel_ns = env_num("FAKE_CUPTI_KERNEL_NS", 10000);
	cfg.copy_ns = env_num("FAKE_CUPTI_COPY_NS", 5000);
	cfg.dropped = env_num("FAKE_CUPTI_DROPPED", 0);
	cfg.offset_ns = env_signed("FAKE_CUPTI_OFFSET_NS");
	cfg.drift_ppm = env_signed("FAKE_CUPTI_DRIFT_PPM");
	cfg.counts = getenv("FAKE_CUPTI_COUNTS");
	cfg.version = env_num("FAKE_CUPTI_VERSION", CUPTI_API_VERSION);
	cfg.flush_stall_ms = env_num("FAKE_CUPTI_FLUSH_STALL_MS", 0);
	cfg.switch_us = env_num("FAKE_CUPTI_SWITCH_US", 0);
	cfg.attach_us = env_num("FAKE_CUPTI_ATTACH_US", 0);
	cfg.attach_holds = (int)env_num("FAKE_CUPTI_ATTACH_HOLDS", 0);
	cfg.t_load = mono();
}

__attribute__((destructor)) static void fake_cupti_unload(void)
{
	FILE *f;

	if (!cfg.counts || !(f = fopen(cfg.counts, "w")))
		return;
#define P(x) fprintf(f, #x " %lu\n", n.x)
	P(subscribe); P(subscribe_refused); P(finalize); P(enable); P(disable);
	P(flush); P(flush_forced); P(latency); P(cb_enter); P(cb_exit); P(cb_op);
	P(cb_other);
	P(kernels); P(memcpys); P(memsets); P(syncs); P(lost);
	P(buffers); P(refused); P(graph_trace);
	n.busy_ns += busy_end - busy_start;
	P(busy_ns);
#undef P
	fclose(f);
}

/* ---- buffers ------------------------------------------------------------ */

static void complete(struct buf *b)
{
	uint8_t *p = b->p;
	size_t used = b->used;

	b->p = NULL;
	b->used = 0;
	if (p)
		st.completed(NULL, 0, p, b->size, used);
}

/* Room for size bytes in b, asking the client for a buffer: NULL if none. */
static void *room(struct buf *b, size_t size)
{
	size_t max = 0;
	void *r;

	if (b->p && b->used + size > b->size)
		complete(b);
	if (!b->p) {
		if (!st.requested)
			return NULL;
		st.requested(&b->p, &b->size, &max);
		if (!b->p) {
			n.refused++;
			return NULL;
		}
		n.buffers++;
		b->used = 0;
	}
	r = b->p + b->used;
	b->used += (size + 7) & ~(size_t)7;
	return r;
}

static int put(struct buf *b, const void *rec, size_t size)
{
	void *r = room(b, size);

	if (!r) {
		n.lost++;
		return -1;
	}
	memcpy(r, rec, size);
	return 0;
}

static size_t record_size(CUpti_ActivityKind kind)
{
	switch (kind) {
	case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION:
		return sizeof(CUpti_ActivityExternalCorrelation);
	case CUPTI_ACTIVITY_KIND_DRIVER:
	case CUPTI_ACTIVITY_KIND_RUNTIME:
		return sizeof(CUpti_ActivityAPI);
	case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
		return sizeof(CUpti_ActivityKernel10);
	case CUPTI_ACTIVITY_KIND_MEMCPY:
		return sizeof(CUpti_ActivityMemcpy6);
	case CUPTI_ACTIVITY_KIND_MEMSET:
		return sizeof(CUpti_ActivityMemset4);
	case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
		return sizeof(CUpti_ActivitySynchronization2);
	default:
		return 0;
	}
}

/* ---- the records of one call --------------------------------------------- */

static void put_kernel(uint32_t corr, uint64_t start)
{
	CUpti_ActivityKernel10 k;

	memset(&k, 0, sizeof(k));
	k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
	k.start = to_cupti(start);
	k.end = to_cupti(start + cfg.kernel_ns);
	k.streamId = 7;
	k.correlationId = corr;
	k.gridX = cur.op.grid[0], k.gridY = cur.op.grid[1], k.gridZ = cur.op.grid[2];
	k.blockX = cur.op.block[0], k.blockY = cur.op.block[1];
	k.blockZ = cur.op.block[2];
	k.name = cur.op.name;
	if (st.latency) {
		k.queued = to_cupti(cur.drv_t0);
		k.submitted = to_cupti(cur.drv_t1);
	}
	if (put(&gpu_buf, &k, sizeof(k)) == 0) {
		n.kernels++;
		busy(k.start, k.end);
	}
}

static void put_copy(uint32_t corr, uint64_t start)
{
	CUpti_ActivityMemcpy6 c;

	memset(&c, 0, sizeof(c));
	c.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
	c.copyKind = cur.op.copy_kind;
	c.srcKind = cur.op.src_kind;
	c.dstKind = cur.op.dst_kind;
	c.bytes = cur.op.bytes;
	c.start = to_cupti(start);
	c.end = to_cupti(start + cfg.copy_ns);
	c.streamId = 7;
	c.correlationId = corr;
	if (put(&gpu_buf, &c, sizeof(c)) == 0) {
		n.memcpys++;
		busy(c.start, c.end);
	}
}

static void put_set(uint32_t corr, uint64_t start)
{
	CUpti_ActivityMemset4 s;

	memset(&s, 0, sizeof(s));
	s.kind = CUPTI_ACTIVITY_KIND_MEMSET;
	s.bytes = cur.op.bytes;
	s.start = to_cupti(start);
	s.end = to_cupti(start + cfg.copy_ns);
	s.streamId = 7;
	s.correlationId = corr;
	s.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
	if (put(&gpu_buf, &s, sizeof(s)) == 0) {
		n.memsets++;
		busy(s.start, s.end);
	}
}

static void put_sync(uint32_t corr)
{
	CUpti_ActivitySynchronization2 s;

	memset(&s, 0, sizeof(s));
	s.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
	s.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE;
	s.start = to_cupti(cur.drv_t0);
	s.end = to_cupti(cur.drv_t1);
	s.streamId = 7;
	s.correlationId = corr;
	if (put(&gpu_buf, &s, sizeof(s)) == 0)
		n.syncs++;
}

static uint32_t next_corr(void)
{
	return __atomic_add_fetch(&st.corr, 1, __ATOMIC_RELAXED);
}

/*
 * The fake's callback ids: index + 1 in these lists (CUPTI's own ids
 * differ; clients must ask cuptiGetCallbackName, as libgputrace does).
 * A name not listed has id 0: its callback comes only with the whole
 * domain enabled.
 */
static const char *const cb_names[CUPTI_CB_DOMAIN_SIZE][16] = {
	[CUPTI_CB_DOMAIN_RUNTIME_API] = {
		"cudaLaunchKernel", "cudaMemcpyAsync", "cudaMemsetAsync",
		"cudaStreamSynchronize", "cudaGetDevice", "cudaStreamIsCapturing",
	},
	[CUPTI_CB_DOMAIN_DRIVER_API] = {
		"cuLaunchKernel", "cuMemcpyHtoD_v2", "cuMemcpyDtoHAsync_v2",
		"cuMemsetD8Async", "cuStreamSynchronize", "cuDeviceGet",
		"cuCtxGetCurrent", "cuPointerGetAttributes", "cuFuncGetName",
		"cuDevicePrimaryCtxRetain", "cuCtxSetCurrent", "cuMemAlloc_v2",
		"cuGraphLaunch",
	},
};

static uint32_t cb_id(CUpti_CallbackDomain d, const char *name)
{
	for (uint32_t i = 0; i < 16 && cb_names[d][i]; i++)
		if (!strcmp(cb_names[d][i], name))
			return i + 1;
	return 0;
}

static int gpu_work(const char *name)
{
	return strstr(name, "Launch") || strstr(name, "Memcpy") ||
	       strstr(name, "Memset") || strstr(name, "Synchronize");
}

/* The subscriber's API callback, when its domain or the call's id is
 * enabled. */
static void callback(CUpti_CallbackDomain d, int exit, uint32_t corr,
		     const char *name)
{
	CUpti_CallbackData data = {
		.callbackSite = exit ? CUPTI_API_EXIT : CUPTI_API_ENTER,
		.correlationId = corr,
		.functionName = name,
	};
	CUpti_CallbackFunc cb = st.cb;
	uint32_t id = cb_id(d, name);

	if (!cb || !(__atomic_load_n(&st.domain[d], __ATOMIC_RELAXED) ||
		     (id && __atomic_load_n(&st.one[d][id], __ATOMIC_RELAXED))))
		return;
	__atomic_fetch_add(exit ? &n.cb_exit : &n.cb_enter, 1, __ATOMIC_RELAXED);
	if (!exit && d == CUPTI_CB_DOMAIN_DRIVER_API && cur.active)
		__atomic_fetch_add(&n.cb_op, 1, __ATOMIC_RELAXED);
	if (!exit && !gpu_work(name))
		__atomic_fetch_add(&n.cb_other, 1, __ATOMIC_RELAXED);
	cb(st.user, d, id, &data);
}

static int attaching;                /* a subscribe under way */
static __thread int attacher;        /* this thread's */

/* With FAKE_CUPTI_ATTACH_HOLDS, as CUPTI's attach on a GPU shared with
 * another process: the program's driver calls wait until it is done. */
static void wait_attach(void)
{
	struct timespec ts = { 0, 100000 };

	while (!attacher && __atomic_load_n(&attaching, __ATOMIC_ACQUIRE))
		nanosleep(&ts, NULL);
}

/* Every fake driver call's entry (site 0) and exit (1), as the real
 * driver tells CUPTI: a correlation id, the callbacks, and for the op in
 * progress its driver call's id, times and the kinds enabled then (no
 * nesting: each fake driver call returns before the next starts). */
static void driver_hook(int site, const char *sym)
{
	if (site == 0) {
		wait_attach();
		drv_corr_now = next_corr();
		if (cur.active) {   /* the last one is the op's (a tracer's
				       own calls come before it) */
			cur.drv_seen = 1;
			cur.drv_corr = drv_corr_now;
			cur.drv_t0 = mono();
			memcpy(cur.on, st.enabled, sizeof(cur.on));
		}
		callback(CUPTI_CB_DOMAIN_DRIVER_API, 0, drv_corr_now, sym);
	} else {
		callback(CUPTI_CB_DOMAIN_DRIVER_API, 1, drv_corr_now, sym);
		if (cur.active)
			cur.drv_t1 = mono();
	}
}

/* The GPU records of the op: kernels carry the runtime call's id with
 * FAKE_CUPTI_RUNTIME=1, everything else the driver call's. */
static void call_records(void)
{
	uint32_t corr = cur.drv_seen ? cur.drv_corr : next_corr();
	uint32_t kcorr = cfg.runtime ? cur.rt_corr : corr;
	uint64_t start = (cur.drv_seen ? cur.drv_t1 : mono()) + cfg.queue_ns;

	switch (cur.op.kind) {
	case FAKE_GPU_KERNEL:
		if (cur.on[CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL] && !cfg.no_kernels)
			put_kernel(kcorr, start);
		break;
	case FAKE_GPU_MEMCPY:
		if (cur.on[CUPTI_ACTIVITY_KIND_MEMCPY])
			put_copy(corr, start);
		break;
	case FAKE_GPU_MEMSET:
		if (cur.on[CUPTI_ACTIVITY_KIND_MEMSET])
			put_set(corr, start);
		break;
	case FAKE_GPU_SYNC:
		if (cur.on[CUPTI_ACTIVITY_KIND_SYNCHRONIZATION])
			put_sync(corr);
		break;
	default:
		break;
	}
}

/* The runtime call that would make the op. */
static const char *rt_name(void)
{
	static const char *const names[] = {
		[FAKE_GPU_NONE] = "cudaGetDevice", [FAKE_GPU_KERNEL] = "cudaLaunchKernel",
		[FAKE_GPU_MEMCPY] = "cudaMemcpyAsync", [FAKE_GPU_MEMSET] = "cudaMemsetAsync",
		[FAKE_GPU_SYNC] = "cudaStreamSynchronize",
	};

	return names[cur.op.kind <= FAKE_GPU_SYNC ? cur.op.kind : 0];
}

/* The runtime call around the op (its callbacks with FAKE_CUPTI_RUNTIME=1). */
EXPORT void fake_cupti_begin(const struct fake_gpu_op *op)
{
	register_with_driver();
	memset(&cur, 0, sizeof(cur));
	cur.op = *op;
	cur.begin = mono();
	memcpy(cur.on, st.enabled, sizeof(cur.on));    /* until the driver call */
	if (cfg.runtime) {
		cur.rt_corr = next_corr();
		callback(CUPTI_CB_DOMAIN_RUNTIME_API, 0, cur.rt_corr, rt_name());
	}
	cur.active = 1;
}

EXPORT void fake_cupti_end(void)
{
	if (cfg.runtime)
		callback(CUPTI_CB_DOMAIN_RUNTIME_API, 1, cur.rt_corr, rt_name());
	pthread_mutex_lock(&st.lock);
	if (cur.active && st.subscribed)
		call_records();
	pthread_mutex_unlock(&st.lock);
	cur.active = 0;
}

/* ---- the CUPTI functions ---------------------------------------------------- */

EXPORT CUptiResult cuptiGetVersion(uint32_t *v)
{
	*v = (uint32_t)cfg.version;  /* FAKE_CUPTI_VERSION, else the header's */
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiGetResultString(CUptiResult r, const char **s)
{
	*s = r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED
	     ? "CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED" : "CUPTI_ERROR_FAKE";
	return CUPTI_SUCCESS;
}

/* As a real CUPTI's subscribe, enable and disable take a while
 * (FAKE_CUPTI_ATTACH_US, FAKE_CUPTI_SWITCH_US), while the program's
 * threads go on calling. */
static void delay_us(uint64_t us)
{
	struct timespec ts = { (time_t)(us / 1000000), (long)(us % 1000000 * 1000) };

	if (us)
		nanosleep(&ts, NULL);
}

static CUptiResult subscribe(CUpti_SubscriberHandle *s, char *old, size_t oldn)
{
	CUptiResult rc = CUPTI_SUCCESS;

	if (cfg.attach_holds && cfg.attach_us) {
		register_with_driver();
		attacher = 1;
		__atomic_store_n(&attaching, 1, __ATOMIC_RELEASE);
	}
	delay_us(cfg.attach_us);
	__atomic_store_n(&attaching, 0, __ATOMIC_RELEASE);
	attacher = 0;
	pthread_mutex_lock(&st.lock);
	if (cfg.taken || st.subscribed) {
		n.subscribe_refused++;
		if (old && oldn)
			snprintf(old, oldn, "fake profiler");
		rc = CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
	} else {
		register_with_driver();
		n.subscribe++;
		st.subscribed = 1;
		*s = (CUpti_SubscriberHandle)&st;
	}
	pthread_mutex_unlock(&st.lock);
	return rc;
}

EXPORT CUptiResult cuptiSubscribe(CUpti_SubscriberHandle *s, CUpti_CallbackFunc cb,
				  void *user)
{
	CUptiResult rc = subscribe(s, NULL, 0);

	if (rc == CUPTI_SUCCESS)
		st.user = user, st.cb = cb;
	return rc;
}

EXPORT CUptiResult cuptiSubscribe_v2(CUpti_SubscriberHandle *s, CUpti_CallbackFunc cb,
				     void *user, CUpti_SubscriberParams *p)
{
	CUptiResult rc = subscribe(s, p ? p->oldSubscriberName : NULL,
				   p ? p->oldSubscriberSize : 0);

	if (rc == CUPTI_SUCCESS)
		st.user = user, st.cb = cb;
	return rc;
}

EXPORT CUptiResult cuptiEnableDomain(uint32_t on, CUpti_SubscriberHandle s,
				     CUpti_CallbackDomain d)
{
	if (!st.subscribed || s != (CUpti_SubscriberHandle)&st ||
	    d <= CUPTI_CB_DOMAIN_INVALID || d >= CUPTI_CB_DOMAIN_SIZE)
		return CUPTI_ERROR_INVALID_PARAMETER;
	__atomic_store_n(&st.domain[d], on ? 1 : 0, __ATOMIC_RELAXED);
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiEnableCallback(uint32_t on, CUpti_SubscriberHandle s,
				       CUpti_CallbackDomain d, CUpti_CallbackId id)
{
	if (!st.subscribed || s != (CUpti_SubscriberHandle)&st ||
	    d <= CUPTI_CB_DOMAIN_INVALID || d >= CUPTI_CB_DOMAIN_SIZE || id >= 64)
		return CUPTI_ERROR_INVALID_PARAMETER;
	__atomic_store_n(&st.one[d][id], on ? 1 : 0, __ATOMIC_RELAXED);
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiGetCallbackName(CUpti_CallbackDomain d, uint32_t id,
					const char **name)
{
	if (!name || cfg.no_names || d <= CUPTI_CB_DOMAIN_INVALID ||
	    d >= CUPTI_CB_DOMAIN_SIZE || !id || id > 16 || !cb_names[d][id - 1])
		return CUPTI_ERROR_INVALID_PARAMETER;
	*name = cb_names[d][id - 1];
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiUnsubscribe(CUpti_SubscriberHandle s)
{
	(void)s;
	pthread_mutex_lock(&st.lock);
	st.subscribed = 0;
	st.cb = NULL;
	memset(st.domain, 0, sizeof(st.domain));
	memset(st.one, 0, sizeof(st.one));
	pthread_mutex_unlock(&st.lock);
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc rq,
						  CUpti_BuffersCallbackCompleteFunc cp)
{
	st.requested = rq;
	st.completed = cp;
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiActivityEnableLatencyTimestamps(uint8_t enable)
{
	n.latency++;
	st.latency = enable;
	return CUPTI_SUCCESS;
}

static void switch_delay(void)
{
	delay_us(cfg.switch_us);
}

EXPORT CUptiResult cuptiActivityEnable(CUpti_ActivityKind kind)
{
	switch_delay();
	n.graph_trace += kind == CUPTI_ACTIVITY_KIND_GRAPH_TRACE;
	if ((unsigned)kind >= MAX_KINDS || kind == CUPTI_ACTIVITY_KIND_KERNEL)
		return CUPTI_ERROR_NOT_COMPATIBLE;  /* a test must see KERNEL */
	if (!record_size(kind) && kind != CUPTI_ACTIVITY_KIND_MEMCPY2)
		return CUPTI_ERROR_INVALID_KIND;
	n.enable++;
	st.enabled[kind] = 1;
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiActivityDisable(CUpti_ActivityKind kind)
{
	switch_delay();
	if ((unsigned)kind >= MAX_KINDS)
		return CUPTI_ERROR_INVALID_KIND;
	n.disable++;
	st.enabled[kind] = 0;
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiActivityFlushAll(uint32_t flag)
{
	static int stalled;

	if (cfg.flush_stall_ms && !stalled++) {  /* a CUPTI stuck for a while */
		struct timespec ts = { cfg.flush_stall_ms / 1000,
				       cfg.flush_stall_ms % 1000 * 1000000 };

		nanosleep(&ts, NULL);
	}
	pthread_mutex_lock(&st.lock);
	n.flush++;
	n.flush_forced += !!(flag & CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
	if (gpu_buf.used)
		complete(&gpu_buf);
	pthread_mutex_unlock(&st.lock);
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiFinalize(void)
{
	cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
	cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
	pthread_mutex_lock(&st.lock);
	n.finalize++;
	st.subscribed = 0;
	st.cb = NULL;
	memset(st.domain, 0, sizeof(st.domain));
	memset(st.one, 0, sizeof(st.one));
	memset(st.enabled, 0, sizeof(st.enabled));
	pthread_mutex_unlock(&st.lock);
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiActivityGetNextRecord(uint8_t *buffer, size_t valid,
					      CUpti_Activity **rec)
{
	size_t off = 0;

	if (!buffer || !rec)
		return CUPTI_ERROR_INVALID_PARAMETER;
	if (*rec)
		off = (size_t)((uint8_t *)*rec - buffer) +
		      ((record_size((*rec)->kind) + 7) & ~(size_t)7);
	if (off >= valid)
		return CUPTI_ERROR_MAX_LIMIT_REACHED;
	*rec = (CUpti_Activity *)(buffer + off);
	return record_size((*rec)->kind) ? CUPTI_SUCCESS : CUPTI_ERROR_INVALID_KIND;
}

EXPORT CUptiResult cuptiActivityGetNumDroppedRecords(CUcontext c, uint32_t s,
						     size_t *dropped)
{
	(void)c, (void)s;           /* no lock: called from the callback */
	*dropped = __atomic_exchange_n(&cfg.dropped, 0, __ATOMIC_RELAXED);
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiGetTimestamp(uint64_t *ts)
{
	*ts = to_cupti(mono());
	return CUPTI_SUCCESS;
}
