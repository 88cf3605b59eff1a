/* SPDX-License-Identifier: MIT */
/*
 * fakenccl.c - a fake libnccl.so.2 built from the real nccl.h: the calls
 * gputrace interposes, exported as NCCL exports them (weak ncclX, strong
 * alias pncclX), with groups that hold work until ncclGroupEnd, and a
 * profiler plugin driven as NCCL drives one (fake_prof.c).  Each launched
 * operation also asks the (fake) driver about its stream, as NCCL's
 * launches reach the driver from inside its calls.
 *
 * Settings (read at load): FAKE_NCCL_CALL_NS host time of each call,
 * FAKE_NCCL_GPU_NS and FAKE_NCCL_CHANNELS the kernel time per channel and
 * channels per collective the plugin is told, FAKE_NCCL_PROFILER_MAX the
 * newest plugin version looked for, FAKE_NCCL_COUNTS where the call
 * counts go at exit ("api calls" lines).
 */
#include <cuda.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "test/fake_nccl/fake_nccl.h"

#define FN_API(ret, name, params)                                            \
	__attribute__((visibility("default"), alias(#name))) ret p##name params; \
	__attribute__((visibility("default"), weak)) ret name params

#define QUEUE_MAX 256

struct fake_nccl_settings fn_cfg = { .gpu_ns = 50000, .channels = 2, .prof_max = 5 };

static const char *const apis[] = {
	"ncclGetVersion", "ncclGetUniqueId", "ncclCommInitRank",
	"ncclCommInitRankConfig", "ncclCommInitAll", "ncclCommSplit",
	"ncclCommDestroy", "ncclCommAbort", "ncclCommCount", "ncclCommUserRank",
	"ncclCommCuDevice", "ncclAllReduce", "ncclBroadcast", "ncclBcast",
	"ncclReduce", "ncclAllGather", "ncclReduceScatter", "ncclAlltoAll",
	"ncclGather", "ncclScatter", "ncclSend", "ncclRecv", "ncclGroupStart",
	"ncclGroupEnd",
};
static atomic_ulong counts[sizeof(apis) / sizeof(apis[0])];

static __thread int group_depth;
static __thread struct fake_task queue[QUEUE_MAX];
static __thread void *queue_stream[QUEUE_MAX];
static __thread int queued;

void fn_count(const char *api)
{
	for (size_t i = 0; i < sizeof(apis) / sizeof(apis[0]); i++)
		if (!strcmp(apis[i], api))
			atomic_fetch_add(&counts[i], 1);
}

void fn_spin(uint64_t ns)
{
	struct timespec a, b;

	if (!ns)
		return;
	clock_gettime(CLOCK_MONOTONIC, &a);
	do
		clock_gettime(CLOCK_MONOTONIC, &b);
	while ((uint64_t)(b.tv_sec - a.tv_sec) * 1000000000u + (uint64_t)b.tv_nsec -
	       (uint64_t)a.tv_nsec < ns);
}

static uint64_t env_u64(const char *name, uint64_t def)
{
	const char *s = getenv(name);

	return s && *s ? strtoull(s, NULL, 10) : def;
}

__attribute__((constructor)) static void fn_load(void)
{
	fn_cfg.call_ns = env_u64("FAKE_NCCL_CALL_NS", 0);
	fn_cfg.gpu_ns = env_u64("FAKE_NCCL_GPU_NS", fn_cfg.gpu_ns);
	fn_cfg.channels = (int)env_u64("FAKE_NCCL_CHANNELS", (uint64_t)fn_cfg.channels);
	fn_cfg.prof_max = (int)env_u64("FAKE_NCCL_PROFILER_MAX", (uint64_t)fn_cfg.prof_max);
}

__attribute__((destructor)) static void fn_report(void)
{
	const char *path = getenv("FAKE_NCCL_COUNTS");
	FILE *f;

	fp_flush();
	if (!path || !(f = fopen(path, "w")))
		return;
	for (size_t i = 0; i < sizeof(apis) / sizeof(apis[0]); i++)
		fprintf(f, "%s %lu\n", apis[i], atomic_load(&counts[i]));
	fclose(f);
}

static int comm_ok(const struct ncclComm *c)
{
	return c && c->magic == FAKE_COMM_MAGIC;
}

/* Launch tasks now: the plugin hears of them, the driver is asked. */
static void launch(const struct fake_task *t, void *const *streams, int n)
{
	for (int i = 0; i < n; i++)
		if (streams[i])
			cuStreamQuery((CUstream)streams[i]);
	fp_launch(t, n);
}

static ncclResult_t enqueue(const char *api, const char *func, int p2p,
			    size_t count, ncclDataType_t dt, int root,
			    ncclComm_t comm, cudaStream_t s)
{
	struct fake_task t = { p2p, func, count, dt, root, comm };
	void *stream = (void *)s;

	fn_count(api);
	if (!comm_ok(comm) || (int)dt < 0 || dt >= ncclNumTypes)
		return ncclInvalidArgument;
	fn_spin(fn_cfg.call_ns);
	if (!p2p)
		comm->seq++;
	if (!group_depth) {
		launch(&t, &stream, 1);
		return ncclSuccess;
	}
	if (queued == QUEUE_MAX)
		return ncclInvalidUsage;
	queue_stream[queued] = stream;
	queue[queued++] = t;
	return ncclSuccess;
}

FN_API(ncclResult_t, ncclAllReduce, (const void *sb, void *rb, size_t n, ncclDataType_t dt,
				     ncclRedOp_t op, ncclComm_t comm, cudaStream_t s))
{
	(void)sb, (void)rb, (void)op;
	return enqueue("ncclAllReduce", "AllReduce", 0, n, dt, -1, comm, s);
}

FN_API(ncclResult_t, ncclBroadcast, (const void *sb, void *rb, size_t n, ncclDataType_t dt,
				     int root, ncclComm_t comm, cudaStream_t s))
{
	(void)sb, (void)rb;
	return enqueue("ncclBroadcast", "Broadcast", 0, n, dt, root, comm, s);
}

/* As in NCCL: through the public symbol, so an interposer sees it nested. */
FN_API(ncclResult_t, ncclBcast, (void *b, size_t n, ncclDataType_t dt, int root,
				 ncclComm_t comm, cudaStream_t s))
{
	fn_count("ncclBcast");
	return ncclBroadcast(b, b, n, dt, root, comm, s);
}

FN_API(ncclResult_t, ncclReduce, (const void *sb, void *rb, size_t n, ncclDataType_t dt,
				  ncclRedOp_t op, int root, ncclComm_t comm, cudaStream_t s))
{
	(void)sb, (void)rb, (void)op;
	return enqueue("ncclReduce", "Reduce", 0, n, dt, root, comm, s);
}

FN_API(ncclResult_t, ncclAllGather, (const void *sb, void *rb, size_t n, ncclDataType_t dt,
				     ncclComm_t comm, cudaStream_t s))
{
	(void)sb, (void)rb;
	return enqueue("ncclAllGather", "AllGather", 0, n, dt, -1, comm, s);
}

FN_API(ncclResult_t, ncclReduceScatter, (const void *sb, void *rb, size_t n,
					 ncclDataType_t dt, ncclRedOp_t op,
					 ncclComm_t comm, cudaStream_t s))
{
	(void)sb, (void)rb, (void)op;
	return enqueue("ncclReduceScatter", "ReduceScatter", 0, n, dt, -1, comm, s);
}

FN_API(ncclResult_t, ncclAlltoAll, (const void *sb, void *rb, size_t n, ncclDataType_t dt,
				    ncclComm_t comm, cudaStream_t s))
{
	(void)sb, (void)rb;
	return enqueue("ncclAlltoAll", "AlltoAll", 0, n, dt, -1, comm, s);
}

FN_API(ncclResult_t, ncclGather, (const void *sb, void *rb, size_t n, ncclDataType_t dt,
				  int root, ncclComm_t comm, cudaStream_t s))
{
	(void)sb, (void)rb;
	return enqueue("ncclGather", "Gather", 0, n, dt, root, comm, s);
}

FN_API(ncclResult_t, ncclScatter, (const void *sb, void *rb, size_t n, ncclDataType_t dt,
				   int root, ncclComm_t comm, cudaStream_t s))
{
	(void)sb, (void)rb;
	return enqueue("ncclScatter", "Scatter", 0, n, dt, root, comm, s);
}

FN_API(ncclResult_t, ncclSend, (const void *sb, size_t n, ncclDataType_t dt, int peer,
				ncclComm_t comm, cudaStream_t s))
{
	(void)sb;
	return enqueue("ncclSend", "Send", 1, n, dt, peer, comm, s);
}

FN_API(ncclResult_t, ncclRecv, (void *rb, size_t n, ncclDataType_t dt, int peer,
				ncclComm_t comm, cudaStream_t s))
{
	(void)rb;
	return enqueue("ncclRecv", "Recv", 1, n, dt, peer, comm, s);
}

FN_API(ncclResult_t, ncclGroupStart, (void))
{
	fn_count("ncclGroupStart");
	group_depth++;
	return ncclSuccess;
}

FN_API(ncclResult_t, ncclGroupEnd, (void))
{
	fn_count("ncclGroupEnd");
	if (group_depth == 0)
		return ncclInvalidUsage;
	fn_spin(fn_cfg.call_ns);
	if (--group_depth == 0 && queued) {
		launch(queue, queue_stream, queued);
		queued = 0;
	}
	return ncclSuccess;
}
