/* SPDX-License-Identifier: MIT */
/*
 * fakecupti.c - a fake libcupti.so.13 for the GPU-less tests: the CUPTI
 * functions libgputrace.so calls, with the real cupti.h types, writing
 * the records a test chooses (fake_cupti.h) into the buffers the client
 * hands it, and giving them back through its completion callback the way
 * CUPTI does (when full, and at cuptiActivityFlushAll).
 */
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
#define STACK_MAX 16

static struct {
	int taken, runtime, late_api, no_kernels;
	uint64_t queue_ns, kernel_ns, copy_ns, dropped;
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
	uint32_t corr;
} st = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* A buffer being filled: API records and GPU records apart. */
struct buf {
	uint8_t *p;
	size_t size, used;
	int held;                   /* FAKE_CUPTI_LATE_API: wait one flush */
};
static struct buf api_buf, gpu_buf;

/* What the fake did and was asked: FAKE_CUPTI_COUNTS. */
static struct {
	unsigned long subscribe, subscribe_refused, finalize, enable, disable;
	unsigned long flush, flush_forced, push, pop, latency;
	unsigned long kernels, memcpys, memsets, syncs, ext, api, lost;
	unsigned long buffers, refused;
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
	uint64_t begin, push_t, pop_t, ext;
	int pushed;
	uint8_t on[MAX_KINDS];      /* kinds enabled at the driver call's entry */
	int runtime_on;             /* ... and at the runtime call's */
	uint64_t stack[STACK_MAX];
	int depth;
} cur;

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

__attribute__((constructor)) static void fake_cupti_load(void)
{
	cfg.taken = (int)env_num("FAKE_CUPTI_TAKEN", 0);
	cfg.runtime = (int)env_num("FAKE_CUPTI_RUNTIME", 0);
	cfg.late_api = (int)env_num("FAKE_CUPTI_LATE_API", 0);
	cfg.no_kernels = (int)env_num("FAKE_CUPTI_NO_KERNELS", 0);
	cfg.queue_ns = env_num("FAKE_CUPTI_QUEUE_NS", 20000);
	cfg.kernel_ns = env_num("FAKE_CUPTI_KERNEL_NS", 10000);
	cfg.copy_ns = env_num("FAKE_CUPTI_COPY_NS", 5000);
	cfg.dropped = env_num("FAKE_CUPTI_DROPPED", 0);
	cfg.offset_ns = env_signed("FAKE_CUPTI_OFFSET_NS");
	cfg.drift_ppm = env_signed("FAKE_CUPTI_DRIFT_PPM");
	cfg.counts = getenv("FAKE_CUPTI_COUNTS");
	cfg.t_load = mono();
}

__attribute__((destructor)) static void fake_cupti_unload(void)
{
	FILE *f;

	if (!cfg.counts || !(f = fopen(cfg.counts, "w")))
		return;
#define P(x) fprintf(f, #x " %lu\n", n.x)
	P(subscribe); P(subscribe_refused); P(finalize); P(enable); P(disable);
	P(flush); P(flush_forced); P(push); P(pop); P(latency);
	P(kernels); P(memcpys); P(memsets); P(syncs); P(ext); P(api); P(lost);
	P(buffers); P(refused);
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
	b->held = 0;
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

static uint32_t tid(void)
{
	return (uint32_t)syscall(SYS_gettid);
}

static void put_api(CUpti_ActivityKind kind, uint64_t start, uint64_t end,
		    uint32_t corr)
{
	CUpti_ActivityAPI a = {
		.kind = kind, .start = to_cupti(start), .end = to_cupti(end),
		.processId = (uint32_t)getpid(), .threadId = tid(),
		.correlationId = corr,
	};

	if (put(&api_buf, &a, sizeof(a)) == 0)
		n.api++;
}

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
		k.queued = to_cupti(cur.push_t);
		k.submitted = to_cupti(cur.pop_t);
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
	s.start = to_cupti(cur.push_t);
	s.end = to_cupti(cur.pop_t);
	s.streamId = 7;
	s.correlationId = corr;
	if (put(&gpu_buf, &s, sizeof(s)) == 0)
		n.syncs++;
}

/* The driver call: its ext record and API record (CUPTI samples the
 * external id at the call's entry: the push came before it). */
static uint32_t driver_records(void)
{
	uint32_t corr = ++st.corr;

	if (!cur.pushed)
		return corr;
	if (cur.on[CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION] &&
	    cur.on[CUPTI_ACTIVITY_KIND_DRIVER]) {
		CUpti_ActivityExternalCorrelation e = {
			.kind = CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION,
			.externalKind = CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0,
			.externalId = cur.ext, .correlationId = corr,
		};

		if (put(&api_buf, &e, sizeof(e)) == 0)
			n.ext++;
	}
	if (cur.on[CUPTI_ACTIVITY_KIND_DRIVER])
		put_api(CUPTI_ACTIVITY_KIND_DRIVER, cur.push_t, cur.pop_t, corr);
	return corr;
}

static void call_records(void)
{
	uint32_t corr = driver_records(), gpu_corr = corr;
	uint64_t start = (cur.pushed ? cur.pop_t : mono()) + cfg.queue_ns;

	if (cfg.runtime) {
		gpu_corr = ++st.corr;
		if (cur.runtime_on)
			put_api(CUPTI_ACTIVITY_KIND_RUNTIME, cur.begin, mono(), gpu_corr);
	}
	switch (cur.op.kind) {
	case FAKE_GPU_KERNEL:
		if (cur.on[CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL] && !cfg.no_kernels)
			put_kernel(gpu_corr, start);
		break;
	case FAKE_GPU_MEMCPY:       /* copies carry the driver call's id */
		if (cur.on[CUPTI_ACTIVITY_KIND_MEMCPY])
			put_copy(corr, start);
		break;
	case FAKE_GPU_MEMSET:
		if (cur.on[CUPTI_ACTIVITY_KIND_MEMSET])
			put_set(corr, start);
		break;
	case FAKE_GPU_SYNC:
		if (cur.on[CUPTI_ACTIVITY_KIND_SYNCHRONIZATION] && cur.pushed)
			put_sync(corr);
		break;
	default:
		break;
	}
}

EXPORT void fake_cupti_begin(const struct fake_gpu_op *op)
{
	cur.active = 1;
	cur.op = *op;
	cur.begin = mono();
	cur.pushed = 0;
	memcpy(cur.on, st.enabled, sizeof(cur.on));    /* as CUPTI: at entry */
	cur.runtime_on = st.enabled[CUPTI_ACTIVITY_KIND_RUNTIME];
}

EXPORT void fake_cupti_end(void)
{
	pthread_mutex_lock(&st.lock);
	if (cur.active && st.subscribed)
		call_records();
	pthread_mutex_unlock(&st.lock);
	cur.active = 0;
}

/* ---- the CUPTI functions ---------------------------------------------------- */

EXPORT CUptiResult cuptiGetVersion(uint32_t *v)
{
	*v = CUPTI_API_VERSION;
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiGetResultString(CUptiResult r, const char **s)
{
	*s = r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED
	     ? "CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED" : "CUPTI_ERROR_FAKE";
	return CUPTI_SUCCESS;
}

static CUptiResult subscribe(CUpti_SubscriberHandle *s, char *old, size_t oldn)
{
	CUptiResult rc = CUPTI_SUCCESS;

	pthread_mutex_lock(&st.lock);
	if (cfg.taken || st.subscribed) {
		n.subscribe_refused++;
		if (old && oldn)
			snprintf(old, oldn, "fake profiler");
		rc = CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
	} else {
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
	(void)cb, (void)user;
	return subscribe(s, NULL, 0);
}

EXPORT CUptiResult cuptiSubscribe_v2(CUpti_SubscriberHandle *s, CUpti_CallbackFunc cb,
				     void *user, CUpti_SubscriberParams *p)
{
	(void)cb, (void)user;
	return subscribe(s, p ? p->oldSubscriberName : NULL, p ? p->oldSubscriberSize : 0);
}

EXPORT CUptiResult cuptiUnsubscribe(CUpti_SubscriberHandle s)
{
	(void)s;
	pthread_mutex_lock(&st.lock);
	st.subscribed = 0;
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

EXPORT CUptiResult cuptiActivityEnable(CUpti_ActivityKind kind)
{
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
	if ((unsigned)kind >= MAX_KINDS)
		return CUPTI_ERROR_INVALID_KIND;
	n.disable++;
	st.enabled[kind] = 0;
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiActivityFlushAll(uint32_t flag)
{
	pthread_mutex_lock(&st.lock);
	n.flush++;
	n.flush_forced += !!(flag & CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
	if (gpu_buf.used)
		complete(&gpu_buf);
	if (api_buf.used && (!cfg.late_api || api_buf.held))
		complete(&api_buf);
	else if (api_buf.used)
		api_buf.held = 1;           /* the next flush brings it */
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

EXPORT CUptiResult cuptiActivityPushExternalCorrelationId(CUpti_ExternalCorrelationKind k,
							  uint64_t id)
{
	if (k != CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0 || cur.depth == STACK_MAX)
		return CUPTI_ERROR_INVALID_PARAMETER;
	__atomic_fetch_add(&n.push, 1, __ATOMIC_RELAXED);
	cur.stack[cur.depth++] = id;
	if (cur.active && !cur.pushed) {
		cur.pushed = 1;
		cur.ext = id;
		cur.push_t = mono();
		memcpy(cur.on, st.enabled, sizeof(cur.on));
	}
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiActivityPopExternalCorrelationId(CUpti_ExternalCorrelationKind k,
							 uint64_t *last)
{
	if (k != CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0 || !cur.depth)
		return CUPTI_ERROR_QUEUE_EMPTY;
	__atomic_fetch_add(&n.pop, 1, __ATOMIC_RELAXED);
	cur.depth--;
	if (last)
		*last = cur.stack[cur.depth];
	if (cur.active && cur.pushed)
		cur.pop_t = mono();
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiGetTimestamp(uint64_t *ts)
{
	*ts = to_cupti(mono());
	return CUPTI_SUCCESS;
}
