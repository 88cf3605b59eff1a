/* SPDX-License-Identifier: MIT */
/*
 * cupti_internal.h - what the CUPTI files share: the loaded functions, the
 * activity buffers (cupti_buffers.c) and the conversion of their records
 * into dump records (cupti_records.c).  All of it runs on the writer
 * thread, except the two buffer callbacks, which CUPTI calls from any
 * thread.
 */
#ifndef GPUTRACE_PRELOAD_CUPTI_INTERNAL_H
#define GPUTRACE_PRELOAD_CUPTI_INTERNAL_H

#include <stdint.h>

#include "preload/gpu/cupti_api.h"

extern struct gt_cupti_api gt_cupti;        /* valid once loaded */

/* ---- cupti_buffers.c -------------------------------------------------- */

#define GT_BUFFERS_MAX 64

/* How many buffers of how many bytes; may_refuse: CUPTI is new enough
 * to take a NULL buffer (API version 27 on), else more are allocated. */
void gt_buffers_config(unsigned count, size_t bytes, int may_refuse);

void CUPTIAPI gt_buffer_requested(uint8_t **buf, size_t *size, size_t *max);
void CUPTIAPI gt_buffer_completed(CUcontext ctx, uint32_t stream,
				  uint8_t *buf, size_t size, size_t valid);

/* Completed buffers handed over, oldest first. */
struct gt_filled {
	uint8_t *buf[GT_BUFFERS_MAX * 2];
	size_t valid[GT_BUFFERS_MAX * 2];
	size_t n;
};

/* Take the completed buffers; give them back after reading them. */
void gt_buffers_take(struct gt_filled *f);
void gt_buffers_give_back(struct gt_filled *f);

/* Totals so far: buffers refused, records CUPTI said it dropped, buffers
 * lost because the hand-over queue was full. */
uint64_t gt_buffers_refused(void);
uint64_t gt_buffers_dropped(void);
uint64_t gt_buffers_lost(void);

/* A forked child: nothing here is ours any more. */
void gt_buffers_forget(void);

/* ---- cupti_corr.c ------------------------------------------------------ */

/* The table of correlation ids -> events: 0, or -1 (out of memory). */
int gt_corr_init(void);
/* A window opens: per-thread state of the last one is stale. */
void gt_corr_new_window(void);
/* CUPTI's API callback (runtime and driver domains). */
void CUPTIAPI gt_corr_on_api(void *user, CUpti_CallbackDomain domain,
			     CUpti_CallbackId cbid, const void *data);
/* Around a traced call's real call (cupti.c): forget the last driver
 * call's id; then publish the ids the call had for event id. */
void gt_corr_begin(void);
void gt_corr_end(uint64_t id, unsigned cls);
/* The event of a GPU record with correlation id corr (cls: 0 kernels,
 * copies, memsets and graphs, 1 waits), or 0. */
uint64_t gt_corr_get(uint32_t corr, unsigned cls);

/* ---- cupti_records.c -------------------------------------------------- */

/* Turn the buffers' records into GT_CHUNK_GPU chunks; final: no record
 * waits for a later cycle. */
void gt_records_process(struct gt_filled *f, int final);
/* Records written, and those that could not be; kernel, copy and memset
 * records joined to a host event (what the window's work brought). */
uint64_t gt_records_written(void);
uint64_t gt_records_joined_work(void);
uint64_t gt_records_lost(void);
/* Allocate the join tables: 0, or -1 (out of memory). */
int gt_records_init(void);

#endif /* GPUTRACE_PRELOAD_CUPTI_INTERNAL_H */
