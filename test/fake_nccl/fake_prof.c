/* SPDX-License-Identifier: MIT */
/*
 * fake_prof.c - the fake NCCL's side of the profiler plugin interface,
 * driven as NCCL 2.23+ drives it: the library NCCL_PROFILER_PLUGIN names
 * is dlopened at the first communicator and searched for
 * ncclProfiler_v<FAKE_NCCL_PROFILER_MAX> down to _v1; init() runs per
 * communicator; a launch starts a collective or p2p event per task (v5
 * first opens a Coll/P2p API event, which a plugin may ignore), stops
 * them once "enqueued", then a proxy thread reports each kernel channel
 * (v4 and up, if asked for) with GPU timestamps: channel c starts at
 * base + 100 c ns and runs FAKE_NCCL_GPU_NS.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "preload/nccl/nccl_profiler_abi.h"
#include "test/fake_nccl/fake_nccl.h"

#define JOBS 4096

struct job {
	void *ctx, *parent;
	int channel;
	uint64_t start, stop;
};

static struct {
	pthread_once_t once;
	int version;                /* 0: no plugin */
	const void *plugin;
	int mask;
	pthread_mutex_t lock;
	pthread_cond_t wake, idle;
	struct job jobs[JOBS];
	unsigned head, tail;        /* tail: next to run */
	int busy, running;
	pthread_t proxy;
} fp = { .once = PTHREAD_ONCE_INIT, .lock = PTHREAD_MUTEX_INITIALIZER,
	 .wake = PTHREAD_COND_INITIALIZER, .idle = PTHREAD_COND_INITIALIZER };

static const char *const type_names[] = { "ncclInt8", "ncclUint8", "ncclInt32",
	"ncclUint32", "ncclInt64", "ncclUint64", "ncclFloat16", "ncclFloat32",
	"ncclFloat64", "ncclBfloat16", "ncclFloat8e4m3", "ncclFloat8e5m2" };
static const char *const v1_funcs[] = { "Broadcast", "Reduce", "AllGather",
	"ReduceScatter", "AllReduce", "SendRecv", "Send", "Recv" };

#define V1(p) ((const struct gt_ncclp_v1 *)(p))
#define V4(p) ((const struct gt_ncclp_v4 *)(p))
#define V5(p) ((const struct gt_ncclp_v5 *)(p))

static void *proxy_main(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&fp.lock);
	for (;;) {
		struct job j;
		union gt_ncclp_state_args a = { .kernel_ch = { 0 } };
		struct gt_ncclp_descr_v5 d5 = { .type = GT_NCCLP_KERNEL_CH };
		struct gt_ncclp_descr_v4 d4 = { .type = GT_NCCLP_KERNEL_CH };
		void *h = NULL;

		while (fp.head == fp.tail)
			pthread_cond_wait(&fp.wake, &fp.lock);
		j = fp.jobs[fp.tail % JOBS];
		fp.busy = 1;
		pthread_mutex_unlock(&fp.lock);
		d5.parent = d4.parent = j.parent;
		d5.kernel_ch.channel = d4.kernel_ch.channel = (uint8_t)j.channel;
		d5.kernel_ch.ptimer = d4.kernel_ch.ptimer = j.start;
		V1(fp.plugin)->start_event(j.ctx, &h, fp.version >= 5 ? (void *)&d5
								 : (void *)&d4);
		a.kernel_ch.ptimer = j.stop;
		if (h) {
			V1(fp.plugin)->record_state(h, GT_NCCLP_STATE_KERNEL_CH_STOP, &a);
			V1(fp.plugin)->stop_event(h);
		}
		pthread_mutex_lock(&fp.lock);
		fp.tail++;
		fp.busy = 0;
		if (fp.head == fp.tail)
			pthread_cond_broadcast(&fp.idle);
	}
	return NULL;
}

static void load(void)
{
	const char *name = getenv("NCCL_PROFILER_PLUGIN");
	char sym[32];
	void *lib;

	if (!name || !*name || !strcasecmp(name, "none"))
		return;
	lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
	if (!lib)
		return;
	for (int v = fn_cfg.prof_max; v >= 1 && !fp.plugin; v--) {
		snprintf(sym, sizeof(sym), "ncclProfiler_v%d", v);
		if ((fp.plugin = dlsym(lib, sym)))
			fp.version = v;
	}
	if (fp.plugin && pthread_create(&fp.proxy, NULL, proxy_main, NULL) == 0)
		fp.running = 1;
}

void fp_comm_init(struct ncclComm *c, const char *name)
{
	int mask = 0, rc;

	pthread_once(&fp.once, load);
	if (!fp.plugin)
		return;
	if (fp.version >= 5)
		rc = V5(fp.plugin)->init(&c->prof_ctx, c->hash, &mask, name, 1,
					 c->nranks, c->rank, NULL);
	else if (fp.version == 4)
		rc = V4(fp.plugin)->init(&c->prof_ctx, &mask, name, c->hash, 1,
					 c->nranks, c->rank, NULL);
	else
		rc = V1(fp.plugin)->init(&c->prof_ctx, &mask);
	if (rc)
		c->prof_ctx = NULL;
	else
		fp.mask = mask;             /* one mask for all, as in NCCL */
}

void fp_comm_fini(struct ncclComm *c)
{
	if (fp.plugin && c->prof_ctx)
		V1(fp.plugin)->finalize(c->prof_ctx);
	c->prof_ctx = NULL;
}

static uint8_t func_enum(const char *func)
{
	for (uint8_t i = 0; i < sizeof(v1_funcs) / sizeof(v1_funcs[0]); i++)
		if (!strcmp(v1_funcs[i], func))
			return i;
	return 255;
}

/* The descriptor of a task for the loaded version, in *buf. */
static void *describe(const struct fake_task *t, void *buf)
{
	const char *dt = type_names[t->datatype];
	int type = t->p2p ? GT_NCCLP_P2P : GT_NCCLP_COLL;
	uint8_t ch = t->p2p ? 1 : (uint8_t)fn_cfg.channels;

	if (fp.version >= 4) {
		struct gt_ncclp_coll_v4 coll = { t->comm->seq, t->func, NULL, NULL,
			t->count, t->root, dt, ch, 8, "Ring", "Simple", NULL };
		struct gt_ncclp_p2p_v4 p2p = { t->func, NULL, dt, t->count, t->root,
					       ch, NULL };
		struct gt_ncclp_descr_v5 *d5 = buf;
		struct gt_ncclp_descr_v4 *d4 = buf;

		if (fp.version >= 5) {
			*d5 = (struct gt_ncclp_descr_v5){ .type = (uint64_t)type,
							  .rank = t->comm->rank };
			if (t->p2p) d5->p2p = p2p; else d5->coll = coll;
		} else {
			*d4 = (struct gt_ncclp_descr_v4){ .type = (uint8_t)type,
							  .rank = t->comm->rank };
			if (t->p2p) d4->p2p = p2p; else d4->coll = coll;
		}
		return buf;
	}
	if (fp.version >= 2) {
		struct gt_ncclp_p2p_v2 p2p = { NULL, t->comm->hash, t->func, NULL, dt,
					       t->count, t->root };
		struct gt_ncclp_descr_v3 *d3 = buf;
		struct gt_ncclp_descr_v2 *d2 = buf;

		if (fp.version == 3) {
			*d3 = (struct gt_ncclp_descr_v3){ .type = (uint8_t)type };
			if (t->p2p) d3->p2p = p2p;
			else d3->coll = (struct gt_ncclp_coll_v3){ NULL, t->comm->hash,
				t->comm->seq, t->func, NULL, NULL, t->count, t->root,
				dt, ch, 8, "Ring", "Simple" };
		} else {
			*d2 = (struct gt_ncclp_descr_v2){ .type = (uint8_t)type };
			if (t->p2p) d2->p2p = p2p;
			else d2->coll = (struct gt_ncclp_coll_v2){ NULL, t->comm->hash,
				t->comm->seq, t->func, NULL, NULL, t->count, t->root,
				dt, 0, ch, 8, "Ring", "Simple" };
		}
		return buf;
	}
	struct gt_ncclp_descr_v1 *d1 = buf;

	*d1 = (struct gt_ncclp_descr_v1){ .type = (uint8_t)type };
	if (t->p2p)
		d1->p2p = (struct gt_ncclp_p2p_v1){ NULL, t->comm->hash,
			func_enum(t->func), NULL, (uint8_t)t->datatype, t->count,
			t->root };
	else
		d1->coll = (struct gt_ncclp_coll_v1){ NULL, t->comm->hash,
			t->comm->seq, func_enum(t->func), NULL, NULL, t->count,
			t->root, (uint8_t)t->datatype, 0, 0, ch, 8, 1, 2, 0, 0 };
	return buf;
}

/* v5: the API event a plugin may take or ignore (NULL handle). */
static void api_event(const struct fake_task *t)
{
	struct gt_ncclp_descr_v5 d = { .type = t->p2p ? GT_NCCLP_P2P_API
						      : GT_NCCLP_COLL_API };
	void *h = NULL;

	V1(fp.plugin)->start_event(t->comm->prof_ctx, &h, &d);
	if (h)
		V1(fp.plugin)->stop_event(h);
}

static uint64_t gpu_clock(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void queue_channels(void *ctx, void *parent, int p2p)
{
	int n = p2p ? 1 : fn_cfg.channels;
	uint64_t base = gpu_clock();

	pthread_mutex_lock(&fp.lock);
	for (int c = 0; c < n && fp.head - fp.tail < JOBS; c++) {
		uint64_t start = base + 100u * (uint64_t)c;

		fp.jobs[fp.head++ % JOBS] = (struct job){ ctx, parent, c, start,
							  start + fn_cfg.gpu_ns };
	}
	pthread_cond_signal(&fp.wake);
	pthread_mutex_unlock(&fp.lock);
}

void fp_launch(const struct fake_task *tasks, int n)
{
	union { struct gt_ncclp_descr_v5 v5; struct gt_ncclp_descr_v1 v1;
		struct gt_ncclp_descr_v2 v2; } buf;
	void *h[256] = { 0 };

	if (!fp.plugin || n > 256)
		return;
	for (int i = 0; i < n; i++) {
		if (!tasks[i].comm->prof_ctx)
			continue;
		if (fp.version >= 5)
			api_event(&tasks[i]);
		V1(fp.plugin)->start_event(tasks[i].comm->prof_ctx, &h[i],
					   describe(&tasks[i], &buf));
	}
	for (int i = 0; i < n; i++)         /* enqueued */
		if (h[i])
			V1(fp.plugin)->stop_event(h[i]);
	for (int i = 0; i < n; i++)
		if (tasks[i].comm->prof_ctx && fp.version >= 4 &&
		    (fp.mask & GT_NCCLP_KERNEL_CH))
			queue_channels(tasks[i].comm->prof_ctx, h[i], tasks[i].p2p);
}

void fp_flush(void)
{
	if (!fp.running)
		return;
	pthread_mutex_lock(&fp.lock);
	while (fp.head != fp.tail || fp.busy)
		pthread_cond_wait(&fp.idle, &fp.lock);
	pthread_mutex_unlock(&fp.lock);
}
