/* SPDX-License-Identifier: MIT */
/*
 * cupti.c - the CUPTI session: load, subscribe, enable and disable the
 * activity kinds, flush, detach; and the push and pop of external
 * correlation ids that the wrappers make inside a window.
 *
 * Only one CUPTI subscriber may exist in a process (CUDA 13).  When
 * another tool holds it (torch.profiler, nsys, compute-sanitizer) or
 * CUPTI cannot be loaded, the state says so and tracing stays host-only;
 * nothing here ever fails the program.  The slow paths take a mutex: the
 * first attach can come from a program thread (before CUDA initializes),
 * the rest from the writer thread.
 */
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "include/gputrace/format.h"
#include "preload/gpu/cupti.h"
#include "preload/gpu/cupti_internal.h"
#include "preload/base/dl.h"
#include "preload/gpu/gpu_window.h"
#include "preload/base/internal.h"
#include "preload/record/writer.h"

struct gt_cupti_api gt_cupti;
atomic_int gt_gpu_on;
static atomic_uint inflight;        /* wrappers between push and pop */
static _Atomic uint64_t work_pushed; /* records the window's work brings */
static atomic_int uncounted;        /* a graph was launched in the window */
static uint64_t work_base;          /* gt_records_joined_work at opening */
/*
 * A call counts the records its work brings only while every activity
 * kind is on: from after the last enable to before the first disable.
 * Ids are pushed a little longer on both sides (the join must not miss a
 * call that records), but a call there may bring no record, and counting
 * it would keep the window's drain waiting, CUPTI attached, to the next
 * window (about 1 us more per launch meanwhile).  counted_inflight lets
 * the disable wait for the counted calls still inside the driver.
 */
static atomic_int counting;
static atomic_uint counted_inflight;
/* The counted calls that put work on the GPU the window may still take
 * (gt_cupti_limit_calls): the last wakes the writer, which closes it. */
static atomic_llong calls_left;
#define CALLS_UNBOUNDED (LLONG_MAX / 2)
#define COUNTED 0x80000000u         /* in a token: the call was counted */
#define COUNTED_WAIT_NS 100000000ull /* at most, before the kinds go off */

static struct {
	pthread_mutex_t lock;
	int loaded;                 /* 1 loaded, -1 could not be */
	int subscribed;
	int enabled;
	int latency_asked;
	int latency_unsafe;         /* left off: this CUPTI can deadlock */
	int forgotten;              /* a forked child */
	int graph_trace;            /* graph runs whole while enabled */
	uint32_t state;             /* enum gt_cupti_state, 0 = not yet */
	uint32_t version;
	const char *why;
	char holder[CUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN * 2];
	CUpti_SubscriberHandle sub;
} cs = { .lock = PTHREAD_MUTEX_INITIALIZER, .why = "" };

/* What the activity API records, in the order they are enabled (the
 * join needs no API records: cupti_corr.c). */
static const CUpti_ActivityKind kinds[] = {
	CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,  /* never KERNEL: it serializes */
	CUPTI_ACTIVITY_KIND_MEMCPY,
	CUPTI_ACTIVITY_KIND_MEMCPY2,
	CUPTI_ACTIVITY_KIND_MEMSET,
	CUPTI_ACTIVITY_KIND_SYNCHRONIZATION,
};
#define NKINDS (sizeof(kinds) / sizeof(kinds[0]))

/* The token of a call that puts work on the GPU: its work counted only
 * while counting (the in-flight count goes up first: a disable that saw
 * none in flight cannot miss this call's count). */
static unsigned count_work(unsigned work)
{
	if (!work)
		return 1;
	atomic_fetch_add(&counted_inflight, 1);
	if (!atomic_load(&counting)) {
		atomic_fetch_sub(&counted_inflight, 1);
		return 1;
	}
	if (atomic_fetch_sub_explicit(&calls_left, 1, memory_order_relaxed) == 1)
		gt_writer_wake();
	if (work == GT_GPU_UNCOUNTED) {
		atomic_store_explicit(&uncounted, 1, memory_order_relaxed);
		return COUNTED | 1;
	}
	atomic_fetch_add_explicit(&work_pushed, work, memory_order_relaxed);
	return COUNTED | (work + 1);
}

/* Counting off; then wait (bounded) for the counted calls still inside
 * the driver, whose records the kinds must stay on for. */
static void stop_counting(void)
{
	uint64_t t0 = gt_now();
	struct timespec ts = { 0, 20000 };

	atomic_store(&counting, 0);
	while (atomic_load(&counted_inflight) && gt_now() - t0 < COUNTED_WAIT_NS)
		nanosleep(&ts, NULL);
}

unsigned gt_cupti_begin(unsigned work)
{
	atomic_fetch_add(&inflight, 1);
	if (!atomic_load(&gt_gpu_on)) {     /* closed meanwhile */
		atomic_fetch_sub(&inflight, 1);
		return 0;
	}
	gt_corr_begin();
	return count_work(work);
}

void gt_cupti_end(unsigned token, int failed, uint64_t id, unsigned cls)
{
	unsigned work = (token & ~COUNTED) - 1;

	if (!failed)
		gt_corr_end(id, cls);
	else if (work)                      /* no records will come */
		atomic_fetch_sub_explicit(&work_pushed, work, memory_order_relaxed);
	if (token & COUNTED)
		atomic_fetch_sub(&counted_inflight, 1);
	atomic_fetch_sub(&inflight, 1);
}

void gt_cupti_limit_calls(uint64_t n)
{
	atomic_store(&calls_left, n && n < CALLS_UNBOUNDED ? (long long)n : CALLS_UNBOUNDED);
}

int gt_cupti_calls_spent(void)
{
	return atomic_load(&calls_left) <= 0;
}

void gt_cupti_work_reset(void)
{
	atomic_store(&work_pushed, 0);
	atomic_store(&uncounted, 0);
	work_base = gt_records_joined_work();
}

int gt_cupti_work_done(void)
{
	return !atomic_load(&uncounted) &&
	       gt_records_joined_work() - work_base >= atomic_load(&work_pushed);
}

uint64_t gt_cupti_work_missing(void)
{
	uint64_t got = gt_records_joined_work() - work_base;
	uint64_t want = atomic_load(&work_pushed);

	return want > got ? want - got : 0;
}

unsigned gt_cupti_inflight(void)
{
	return atomic_load(&inflight);
}

static const char *result_string(CUptiResult rc)
{
	const char *s = NULL;

	if (gt_cupti.cuptiGetResultString)
		gt_cupti.cuptiGetResultString(rc, &s);
	return s ? s : "unknown CUPTI error";
}

static int load(void)
{
	const char *why = "";

	if (cs.loaded)
		return cs.loaded > 0 ? 0 : -1;
	if (gt_cupti_load(&gt_cupti, &why) || gt_records_init() || gt_corr_init()) {
		cs.loaded = -1;
		cs.state = GT_CUPTI_MISSING;
		cs.why = *why ? why : "out of memory";
		return -1;
	}
	cs.loaded = 1;
	if (gt_cupti.cuptiGetVersion(&cs.version) != CUPTI_SUCCESS)
		cs.version = 0;
	gt_buffers_config(gt_gpu_cfg.buffers, gt_gpu_cfg.buffer_bytes,
			  cs.version >= 27);
	gt_debug("gputrace: cupti: %s, API version %u\n", gt_cupti.path,
		 cs.version);
	return 0;
}

static CUptiResult subscribe_call(void)
{
	CUpti_SubscriberParams p = {
		.structSize = CUpti_SubscriberParams_STRUCT_SIZE,
		.subscriberName = "gputrace",
		.oldSubscriberName = cs.holder,
		.oldSubscriberSize = sizeof(cs.holder),
	};

	cs.holder[0] = '\0';
	if (gt_cupti.cuptiSubscribe_v2)
		return gt_cupti.cuptiSubscribe_v2(&cs.sub, gt_corr_on_api, NULL, &p);
	return gt_cupti.cuptiSubscribe(&cs.sub, gt_corr_on_api, NULL);
}

/*
 * Launch latency timestamps (queued, submitted) by default only where
 * CUPTI is safe with them: before CUDA 13.4 Update 1 a launch that
 * allocates a CUPTI device buffer can deadlock (CUPTI's release notes).
 * On the H200 with CUPTI 13.0 a launch-bound PyTorch loop with them on
 * hung after about 146000 kernels, twice (GPUTRACE_GPU=all; windows,
 * without them, never did); GPUTRACE_CUPTI_LATENCY=1 asks for them
 * anyway.
 */
#define LATENCY_SAFE_VERSION 130401

static int latency_wanted(void)
{
	if (gt_gpu_cfg.latency >= 0)
		return gt_gpu_cfg.latency;
	if (cs.version < LATENCY_SAFE_VERSION)
		cs.latency_unsafe = 1;
	return !cs.latency_unsafe;
}

int gt_cupti_latency_unsafe(void)
{
	return cs.latency_unsafe;
}

static int subscribe(void)
{
	CUptiResult rc = subscribe_call();

	if (rc == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
		cs.state = GT_CUPTI_TAKEN;
		cs.why = "another tool holds CUPTI";
		return -1;
	}
	if (rc != CUPTI_SUCCESS) {
		cs.state = GT_CUPTI_FAILED;
		cs.why = result_string(rc);
		return -1;
	}
	if (!cs.latency_asked && latency_wanted() &&
	    gt_cupti.cuptiActivityEnableLatencyTimestamps)
		gt_cupti.cuptiActivityEnableLatencyTimestamps(1);
	cs.latency_asked = 1;
	rc = gt_cupti.cuptiActivityRegisterCallbacks(gt_buffer_requested,
						     gt_buffer_completed);
	if (rc != CUPTI_SUCCESS) {
		gt_cupti.cuptiUnsubscribe(cs.sub);
		cs.state = GT_CUPTI_FAILED;
		cs.why = result_string(rc);
		return -1;
	}
	cs.subscribed = 1;
	cs.state = GT_CUPTI_ON;
	gt_end_in_exit_handlers();
	return 0;
}

/*
 * The writer thread's calls into CUPTI, under cs.lock, named while they
 * run: when one never returns, the sampler says which (gt_cupti_calling).
 */
static _Atomic(const char *) calling;

static void enter(const char *what)
{
	pthread_mutex_lock(&cs.lock);
	atomic_store(&calling, what);
}

static void leave(void)
{
	atomic_store(&calling, NULL);
	pthread_mutex_unlock(&cs.lock);
}

const char *gt_cupti_calling(void)
{
	return atomic_load(&calling);
}

/*
 * Loading and subscribing run libcupti's constructors and set-up, which
 * take glibc's locks (the loader's, the exit handlers'): no fork
 * meanwhile (dl_guard.c), or a child inherits them held and hangs.
 */
int gt_cupti_attach(void)
{
	int rc = 0;

	enter("cuptiSubscribe");
	if (cs.forgotten || !gt_gpu_cfg.cupti || gt_gpu_cfg.mode == GT_GPU_MODE_OFF) {
		cs.state = GT_CUPTI_OFF;
		rc = -1;
	} else if (!cs.subscribed) {
		rc = -1;
		if (!gt_dl_enter()) {
			rc = load() || subscribe() ? -1 : 0;
			gt_dl_leave();
		}
	}
	leave();
	return rc;
}

/*
 * The API callbacks that name each call's correlation ids: only for the
 * calls that can put work on the GPU or wait for it (by CUPTI's names of
 * them), since every callback costs host time on its call; the whole
 * domains where CUPTI cannot name its callbacks.
 */
#define CBIDS_MAX 1024

static struct {
	int listed;                 /* 1 listed, -1 cannot be: whole domains */
	uint16_t n[2];
	uint16_t id[2][CBIDS_MAX];
} cb;

static const CUpti_CallbackDomain domains[2] = {
	CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_CB_DOMAIN_DRIVER_API,
};

static int gpu_work_name(const char *name)
{
	static const char *const words[] = {
		"Launch", "Memcpy", "Memset", "Synchronize", "Wait",
	};

	for (size_t i = 0; name && i < sizeof(words) / sizeof(words[0]); i++)
		if (strstr(name, words[i]))
			return 1;
	return 0;
}

static void list_callbacks(void)
{
	static const uint32_t sizes[2] = {
		CUPTI_RUNTIME_TRACE_CBID_SIZE, CUPTI_DRIVER_TRACE_CBID_SIZE,
	};

	cb.listed = -1;
	if (!gt_cupti.cuptiEnableCallback || !gt_cupti.cuptiGetCallbackName)
		return;
	for (int d = 0; d < 2; d++) {
		for (uint32_t id = 1; id < sizes[d] && cb.n[d] < CBIDS_MAX; id++) {
			const char *name = NULL;

			if (gt_cupti.cuptiGetCallbackName(domains[d], id, &name) ==
			    CUPTI_SUCCESS && gpu_work_name(name))
				cb.id[d][cb.n[d]++] = (uint16_t)id;
		}
	}
	if (cb.n[0] && cb.n[1])
		cb.listed = 1;
}

static CUptiResult callbacks(uint32_t on)
{
	CUptiResult rc = CUPTI_SUCCESS;

	if (!cb.listed)
		list_callbacks();
	for (int d = 0; d < 2 && rc == CUPTI_SUCCESS; d++) {
		if (cb.listed < 0) {
			rc = gt_cupti.cuptiEnableDomain(on, cs.sub, domains[d]);
			continue;
		}
		for (uint16_t i = 0; i < cb.n[d] && rc == CUPTI_SUCCESS; i++)
			rc = gt_cupti.cuptiEnableCallback(on, cs.sub, domains[d],
							  cb.id[d][i]);
	}
	return rc;                  /* on failure the caller turns all off */
}

static void disable_kinds(size_t n)
{
	while (n--)
		gt_cupti.cuptiActivityDisable(kinds[n]);
	if (cs.graph_trace)
		gt_cupti.cuptiActivityDisable(CUPTI_ACTIVITY_KIND_GRAPH_TRACE);
}

int gt_cupti_enable(int graphs_whole)
{
	CUptiResult rc = CUPTI_SUCCESS;
	size_t i;

	enter("cuptiActivityEnable");
	if (!cs.subscribed || cs.forgotten) {
		leave();
		return -1;
	}
	/* The join first: a call that records must have its ids (cupti.h). */
	gt_corr_new_window();
	rc = callbacks(1);
	if (rc == CUPTI_SUCCESS)
		atomic_store(&gt_gpu_on, 1);
	cs.graph_trace = rc == CUPTI_SUCCESS &&     /* old CUPTI: nodes */
			 (gt_gpu_cfg.graph_trace || graphs_whole) &&
			 gt_cupti.cuptiActivityEnable(CUPTI_ACTIVITY_KIND_GRAPH_TRACE) ==
			 CUPTI_SUCCESS;
	for (i = 0; rc == CUPTI_SUCCESS && i < NKINDS; i++) {
		rc = gt_cupti.cuptiActivityEnable(kinds[i]);
		if (rc != CUPTI_SUCCESS && kinds[i] == CUPTI_ACTIVITY_KIND_MEMCPY2)
			rc = CUPTI_SUCCESS;
	}
	if (rc != CUPTI_SUCCESS) {
		if (i)
			disable_kinds(i - 1);
		atomic_store(&gt_gpu_on, 0);
		callbacks(0);
		cs.why = result_string(rc);
		gt_warn_once("gputrace: CUPTI would not record kernels (%s); GPU "
			     "timing is off\n", cs.why);
	} else {
		cs.enabled = 1;
		atomic_store(&counting, 1);
	}
	leave();
	return cs.enabled ? 0 : -1;
}

/* Kinds off first, then the join: no record of a call without its ids. */
void gt_cupti_disable(void)
{
	enter("cuptiActivityDisable");
	stop_counting();
	if (cs.enabled && !cs.forgotten)
		disable_kinds(NKINDS);
	cs.enabled = 0;
	leave();
}

void gt_cupti_ids_off(void)
{
	atomic_store(&gt_gpu_on, 0);
	enter("cuptiEnableCallback");
	if (cs.subscribed && !cs.forgotten)
		callbacks(0);
	leave();
}

void gt_cupti_flush(int forced)
{
	enter("cuptiActivityFlushAll");
	if (cs.subscribed && !cs.forgotten)
		gt_cupti.cuptiActivityFlushAll(forced ? CUPTI_ACTIVITY_FLAG_FLUSH_FORCED : 0);
	leave();
}

void gt_cupti_detach(void)
{
	enter("cuptiFinalize");
	if (cs.subscribed && !cs.enabled && !cs.forgotten) {
		gt_cupti.cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
		if (!gt_dl_enter()) {       /* its teardown: as at the attach */
			gt_cupti.cuptiFinalize();
			gt_dl_leave();
		}
		cs.subscribed = 0;
	}
	leave();
}

uint64_t gt_cupti_now(void)
{
	uint64_t ts = 0;

	if (cs.subscribed && !cs.forgotten &&
	    gt_cupti.cuptiGetTimestamp(&ts) != CUPTI_SUCCESS)
		ts = 0;
	return ts;
}

void gt_cupti_waiting(void)
{
	pthread_mutex_lock(&cs.lock);
	if (!cs.state)
		cs.state = GT_CUPTI_WAITING;
	pthread_mutex_unlock(&cs.lock);
}

uint32_t gt_cupti_state(void)
{
	return cs.state;
}

uint32_t gt_cupti_version(void)
{
	return cs.version;
}

const char *gt_cupti_path(void)
{
	return cs.loaded > 0 ? gt_cupti.path : "";
}

const char *gt_cupti_holder(void)
{
	return cs.holder;
}

const char *gt_cupti_why(void)
{
	return cs.why;
}

void gt_cupti_forget(void)
{
	pthread_mutex_init(&cs.lock, NULL);
	cs.forgotten = 1;
	cs.subscribed = 0;
	cs.enabled = 0;
	cs.state = GT_CUPTI_OFF;
	cs.why = "a forked child";
	atomic_store(&gt_gpu_on, 0);
	atomic_store(&inflight, 0);
	atomic_store(&counting, 0);
	atomic_store(&counted_inflight, 0);
	gt_buffers_forget();
}
