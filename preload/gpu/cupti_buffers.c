/* SPDX-License-Identifier: MIT */
/*
 * cupti_buffers.c - CUPTI's activity buffers: a bounded pool that CUPTI
 * fills, and a queue that hands the filled ones to the writer thread.
 *
 * CUPTI asks for a buffer and gives it back filled from its own worker
 * thread or from inside cuptiActivityFlushAll; both callbacks only take a
 * mutex for a few stores.  When every buffer is out, CUPTI gets none and
 * drops records, which it counts (cuptiActivityGetNumDroppedRecords);
 * CUPTI older than API version 27 may crash on a refused buffer, so for
 * those a buffer is allocated instead.  Each buffer is its own allocation
 * so that a buffer another CUPTI client is handed (if one replaced our
 * callbacks) can be freed by it without harm.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "preload/gpu/cupti_internal.h"
#include "preload/base/internal.h"

static struct {
	pthread_mutex_t lock;
	unsigned count;             /* buffers the pool may hold */
	size_t bytes;
	int may_refuse;
	unsigned made;              /* allocated so far, at most count */
	uint8_t *free[GT_BUFFERS_MAX];
	unsigned nfree;
	struct gt_filled filled;
	uint64_t refused, lost;
	_Atomic uint64_t dropped;
} bp = { .lock = PTHREAD_MUTEX_INITIALIZER, .count = 8, .bytes = 4u << 20 };

void gt_buffers_config(unsigned count, size_t bytes, int may_refuse)
{
	pthread_mutex_lock(&bp.lock);
	bp.count = count < 2 ? 2 : count > GT_BUFFERS_MAX ? GT_BUFFERS_MAX : count;
	bp.bytes = bytes;
	bp.may_refuse = may_refuse;
	pthread_mutex_unlock(&bp.lock);
}

static uint8_t *buffer_new(void)
{
	return aligned_alloc(8, bp.bytes);
}

void CUPTIAPI gt_buffer_requested(uint8_t **buf, size_t *size, size_t *max)
{
	uint8_t *b = NULL;

	pthread_mutex_lock(&bp.lock);
	if (bp.nfree) {
		b = bp.free[--bp.nfree];
	} else if (bp.made < bp.count) {
		b = buffer_new();
		bp.made += b != NULL;
	} else if (!bp.may_refuse) {
		b = buffer_new();       /* beyond the pool: freed when back */
	}
	if (!b)
		bp.refused++;
	pthread_mutex_unlock(&bp.lock);
	*buf = b;
	*size = b ? bp.bytes : 0;
	*max = 0;                   /* as many records as fit */
}

void CUPTIAPI gt_buffer_completed(CUcontext ctx, uint32_t stream,
				  uint8_t *buf, size_t size, size_t valid)
{
	size_t dropped = 0;
	int queued = 0;

	(void)size;
	if (gt_cupti.cuptiActivityGetNumDroppedRecords &&
	    gt_cupti.cuptiActivityGetNumDroppedRecords(ctx, stream, &dropped) ==
	    CUPTI_SUCCESS && dropped)
		atomic_fetch_add(&bp.dropped, dropped);
	if (!buf)
		return;
	pthread_mutex_lock(&bp.lock);
	if (bp.filled.n < sizeof(bp.filled.buf) / sizeof(bp.filled.buf[0])) {
		bp.filled.buf[bp.filled.n] = buf;
		bp.filled.valid[bp.filled.n++] = valid;
		queued = 1;
	} else {
		bp.lost++;
	}
	pthread_mutex_unlock(&bp.lock);
	if (!queued)
		free(buf);
}

void gt_buffers_take(struct gt_filled *f)
{
	pthread_mutex_lock(&bp.lock);
	*f = bp.filled;
	bp.filled.n = 0;
	pthread_mutex_unlock(&bp.lock);
}

void gt_buffers_give_back(struct gt_filled *f)
{
	pthread_mutex_lock(&bp.lock);
	for (size_t i = 0; i < f->n; i++) {
		if (bp.nfree < bp.made && bp.nfree < GT_BUFFERS_MAX)
			bp.free[bp.nfree++] = f->buf[i];
		else
			free(f->buf[i]);    /* one made beyond the pool */
	}
	pthread_mutex_unlock(&bp.lock);
	f->n = 0;
}

uint64_t gt_buffers_refused(void)
{
	uint64_t n;

	pthread_mutex_lock(&bp.lock);
	n = bp.refused;
	pthread_mutex_unlock(&bp.lock);
	return n;
}

uint64_t gt_buffers_dropped(void)
{
	return atomic_load(&bp.dropped);
}

uint64_t gt_buffers_lost(void)
{
	uint64_t n;

	pthread_mutex_lock(&bp.lock);
	n = bp.lost;
	pthread_mutex_unlock(&bp.lock);
	return n;
}

void gt_buffers_forget(void)
{
	pthread_mutex_init(&bp.lock, NULL);
	bp.filled.n = 0;
	bp.nfree = 0;
	bp.made = 0;
}
