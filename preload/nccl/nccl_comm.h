/* SPDX-License-Identifier: MIT */
/*
 * nccl_comm.h - NCCL communicators as the dump names them: a small id per
 * ncclComm_t, its GT_CHUNK_NCCL_COMM written once, and the per-thread
 * state the NCCL wrappers and the profiler plugin share.
 */
#ifndef GPUTRACE_PRELOAD_NCCL_COMM_H
#define GPUTRACE_PRELOAD_NCCL_COMM_H

#include <stdint.h>

#include "include/gputrace/format.h"

struct gt_nccl_thread {
	int depth;                  /* inside a wrapper: nested calls pass */
	int group_depth;            /* ncclGroupStart calls not yet ended */
	uint32_t group_calls;       /* calls recorded in the open group */
	uint32_t init_comm;         /* the id a ncclCommInit* or ncclCommSplit
	                               wrapper is making, 0 outside one */
	/* what the profiler plugin's init said inside such a wrapper */
	uint64_t plugin_hash;
	uint32_t plugin_name;
	uint32_t plugin_version;
};

extern __thread struct gt_nccl_thread gt_nccl_self;

/* A new communicator id (>= 1). */
uint32_t gt_nccl_comm_new_id(void);

/*
 * The id of comm; a communicator not seen before (made before tracing
 * started, or by a call we do not trace) is registered with what NCCL
 * says of it.  0 for NULL or when the table is full.  Lock-free.
 */
uint32_t gt_nccl_comm_id(const void *comm);

/* Register comm under c->id and write its chunk (fills handle, time,
 * NCCL version). */
void gt_nccl_comm_bind(const void *comm, struct gt_nccl_comm *c);

/* comm was destroyed: a later communicator at its address is a new one. */
void gt_nccl_comm_forget(const void *comm);

/* Write a communicator chunk (fills t_ns and the NCCL version). */
void gt_nccl_comm_write(struct gt_nccl_comm *c);

/* Whether this process preloads the library (nccl_plugin_env.c): if not,
 * NCCL loaded it only as its profiler plugin, and the plugin is silent. */
int gt_nccl_plugin_allowed(void);

/* A function of the loaded NCCL (p-prefixed names first), or NULL. */
void *gt_nccl_sym(const char *name);

#endif /* GPUTRACE_PRELOAD_NCCL_COMM_H */
