/* SPDX-License-Identifier: MIT */
/*
 * nccl_prof_pool.h - the collectives and point-to-point operations NCCL's
 * profiler plugin interface told us about, kept until they are done and
 * then written into the dump by the writer thread.
 *
 * NCCL calls the plugin on the thread that enqueues an operation (start,
 * then stop once it is enqueued) and on its proxy thread (each channel's
 * kernel start and end, with GPU timestamps).  Every call here is a few
 * atomic operations on a preallocated entry: no lock, no allocation, no
 * system call, so NCCL never waits for us.  An operation is done when it
 * was enqueued and every channel that started has ended; the writer
 * thread finds done entries each cycle, packs them into a
 * GT_CHUNK_NCCL_PROF chunk and frees them.
 */
#ifndef GPUTRACE_PRELOAD_NCCL_PROF_POOL_H
#define GPUTRACE_PRELOAD_NCCL_PROF_POOL_H

#include <stdint.h>

struct gt_nccl_pev;

/* What a start event says (strings are copied). */
struct gt_nccl_pev_desc {
	uint8_t type;               /* GT_NCCL_PROF_COLL or _P2P */
	uint8_t channels;           /* channels NCCL planned, 0 unknown */
	uint8_t kernel_events;      /* this plugin version sends GPU times */
	uint32_t comm;
	int32_t peer;               /* root or peer, -1 none */
	uint64_t count, seq;
	const char *func, *dtype, *algo, *proto;    /* NULL: none */
};

/* Allocate the pool and hook the writer, once; 0 or -1. */
int gt_nccl_pev_init(void);

/* A new in-flight operation, or NULL when the pool is full (counted). */
struct gt_nccl_pev *gt_nccl_pev_start(const struct gt_nccl_pev_desc *d);
/* It was enqueued. */
void gt_nccl_pev_stop(struct gt_nccl_pev *e);

/* A kernel channel of it began / ended at these GPU times. */
void gt_nccl_pev_channel_start(struct gt_nccl_pev *e, uint64_t ptimer);
void gt_nccl_pev_channel_time(struct gt_nccl_pev *e, uint64_t ptimer);
void gt_nccl_pev_channel_stop(struct gt_nccl_pev *e);

#endif /* GPUTRACE_PRELOAD_NCCL_PROF_POOL_H */
