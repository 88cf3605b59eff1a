/* SPDX-License-Identifier: MIT */
/*
 * nccl_call.h - what the NCCL wrappers of nccl.def record, and the
 * per-thread state they share with the profiler plugin.
 *
 * A wrapper fills a struct gt_nccl_call on its stack around the real call
 * and takes a ring slot only afterwards: NCCL makes driver calls inside
 * (launches, copies), and those are recorded as events of their own.  A
 * nested NCCL call (ncclBcast calling ncclBroadcast, ncclCommInitAll
 * opening a group) passes through unrecorded.  No lock, no allocation:
 * only the first call seen on a communicator registers it (nccl_comm.c).
 */
#ifndef GPUTRACE_PRELOAD_NCCL_CALL_H
#define GPUTRACE_PRELOAD_NCCL_CALL_H

#include <nccl.h>
#include <stddef.h>
#include <stdint.h>

#include "include/gputrace/format.h"
#include "preload/stack/callsite.h"
#include "preload/base/internal.h"
#include "preload/nccl/nccl_comm.h"
#include "preload/record/ring.h"

struct gt_nccl_call {
	uint64_t t0, t1;
	uint64_t stream;
	uint64_t count, bytes;
	uint32_t comm;              /* set-up calls: the communicator made */
	uint32_t peer;              /* + 1, 0 none */
	uint32_t redop;             /* + 1, 0 none */
	uint8_t dtype;              /* + 1, 0 none */
	uint32_t parent;            /* ncclCommSplit: the comm split */
	int32_t color;
	uint64_t uid_hash;          /* ncclCommInitRank*: hash of the id */
};

/* Bytes of one element of an ncclDataType_t, 0 if unknown. */
static inline uint64_t gt_nccl_type_size(int dt)
{
	static const uint8_t size[] = { 1, 1, 4, 4, 8, 8, 2, 4, 8, 2, 1, 1 };

	return dt >= 0 && (size_t)dt < sizeof(size) ? size[dt] : 0;
}

/* A collective or point-to-point call; root and op are -1 when none. */
static inline void gt_nccl_coll(struct gt_nccl_call *c, size_t n, int dt,
				int op, int root, ncclComm_t comm,
				cudaStream_t s)
{
	c->count = n;
	c->bytes = (uint64_t)n * gt_nccl_type_size(dt);
	c->dtype = dt >= 0 && dt < 255 ? (uint8_t)(dt + 1) : 0;
	c->redop = op >= 0 ? (uint32_t)op + 1 : 0;
	c->peer = root >= 0 ? (uint32_t)root + 1 : 0;
	c->comm = gt_nccl_comm_id(comm);
	c->stream = (uint64_t)(uintptr_t)s;
	if (gt_nccl_self.group_depth)
		gt_nccl_self.group_calls++;
}

static inline void gt_nccl_group_pre(struct gt_nccl_call *c)
{
	(void)c;
}

static inline void gt_nccl_group_start_post(ncclResult_t res)
{
	if (res == ncclSuccess)
		gt_nccl_self.group_depth++;
}

/* Closing the outermost group: how many calls it held. */
static inline void gt_nccl_group_end_post(struct gt_nccl_call *c,
					  ncclResult_t res)
{
	(void)res;
	if (gt_nccl_self.group_depth > 0 && --gt_nccl_self.group_depth == 0) {
		c->count = gt_nccl_self.group_calls;
		gt_nccl_self.group_calls = 0;
	}
}

/* Enter a wrapper: 0 when the call is not to be recorded. */
static inline int gt_nccl_enter(void)
{
	if (unlikely(!atomic_load_explicit(&gt_active, memory_order_relaxed)))
		return 0;
	if (gt_nccl_self.depth)
		return 0;
	gt_nccl_self.depth = 1;
	return 1;
}

/* Leave it: the call becomes one event, if a ring slot is to be had. */
static inline void gt_nccl_leave(const struct gt_nccl_call *c, int op,
				 ncclResult_t res)
{
	struct gt_rec *r;

	gt_nccl_self.depth = 0;
	r = gt_rec_begin();
	if (!r)
		return;
	r->t0 = c->t0;
	r->t1 = c->t1;
	r->stream = c->stream;
	r->u.nccl.count = c->count;
	r->u.nccl.bytes = c->bytes;
	r->u.nccl.comm = c->comm;
	r->u.nccl.peer = c->peer;
	r->u.nccl.redop = c->redop;
	r->u.nccl.dtype = c->dtype;
	r->stack = gt_callsite_capture();
	gt_rec_commit(r, op, res);
}

/* ---- communicator set-up (nccl_comm.c) ---- */

void gt_nccl_init_pre(struct gt_nccl_call *c, int nranks, int rank,
		      const ncclUniqueId *id, int new_id);
void gt_nccl_init_post(struct gt_nccl_call *c, ncclResult_t res,
		       ncclComm_t *newcomm, int how, const ncclConfig_t *config);
void gt_nccl_init_all_post(struct gt_nccl_call *c, ncclResult_t res,
			   ncclComm_t *comms, int ndev, const int *devlist);
void gt_nccl_split_pre(struct gt_nccl_call *c, ncclComm_t comm, int color);
void gt_nccl_split_post(struct gt_nccl_call *c, ncclResult_t res,
			ncclComm_t *newcomm, const ncclConfig_t *config);
void gt_nccl_comm_pre(struct gt_nccl_call *c, ncclComm_t comm);
void gt_nccl_comm_gone(struct gt_nccl_call *c, ncclResult_t res,
		       ncclComm_t comm);

#endif /* GPUTRACE_PRELOAD_NCCL_CALL_H */
