/* SPDX-License-Identifier: MIT */
/*
 * ring.h - per-thread single-producer/single-consumer rings of records.
 *
 * The traced thread is the only producer of its ring and the writer thread
 * the only consumer, so a slot is taken with two loads and published with
 * one release store: no lock, no atomic read-modify-write, no system call.
 * When the ring is full the event is counted in `drops` and not recorded;
 * the traced program never waits for the writer.
 */
#ifndef GPUTRACE_PRELOAD_RING_H
#define GPUTRACE_PRELOAD_RING_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "preload/base/internal.h"

struct gt_ring {
	_Atomic uint64_t head;      /* records published (producer) */
	char pad0[56];
	_Atomic uint64_t tail;      /* records consumed (consumer) */
	char pad1[56];
	_Atomic uint64_t drops;     /* records lost because the ring was full */
	uint64_t drops_reported;    /* consumer: drops already in the dump */
	uint64_t snap;              /* consumer: head read at the cycle's start */
	uint64_t mask;              /* capacity - 1 (capacity is a power of 2) */
	size_t bytes;               /* size of the mapping */
	uint32_t tid;
	uint32_t index;             /* unique per attach: names the buffer */
	_Atomic int exited;         /* the thread is gone: drain, then reuse */
	struct gt_ring *next;       /* registry list */
	struct gt_rec recs[];
};

/*
 * Per-thread state, reached through initial-exec TLS.  What the hot path
 * reads is here, on one cache line, not behind the ring pointer: a real
 * driver's launch evicts our lines from L1 between two calls, and each
 * line reached through another (TLS -> ring -> head, tail, mask -> slot)
 * is a miss waited for in turn (test/bench/launch_cost.c measures it).
 * The producer keeps its own head and the last tail it saw; it reads the
 * shared tail only when the ring looks full, or when its head reaches
 * wake_at (see gt_ring_half).
 */
struct gt_thread {
	struct gt_rec *recs;        /* ring->recs */
	uint64_t head;              /* records published: ring->head's value */
	uint64_t tail_seen;         /* ring->tail when last read (<= the real one) */
	uint64_t mask;              /* ring->mask */
	uint64_t id_base;           /* ring->index << 40 (gt_rec_id) */
	struct gt_ring *ring;
	unsigned generation;        /* gt_mark->generation when taken */
	int busy;                   /* inside a wrapper: nested calls pass */
	int no_ring;                /* the memory budget is spent */
	uint32_t wake_at;           /* low 32 bits of the head that checks for
				     * half full next (gt_ring_half) */
} __attribute__((aligned(64)));

_Static_assert(sizeof(struct gt_thread) == 64, "gt_thread fits one cache line");

extern __thread struct gt_thread gt_self;
extern _Atomic uint64_t gt_drops_no_ring;   /* threads without a ring */

#define GT_RING_WAIT_MS 500       /* see gt_thread_attach */

/* Give the calling thread a ring; NULL (and one more drop) if none. */
struct gt_ring *gt_thread_attach(struct gt_thread *t);

/* Registry walk for the writer: first ring, or NULL. */
struct gt_ring *gt_ring_first(void);

/* Writer: forget drained rings of exited threads and keep them for reuse. */
void gt_ring_collect(void);

/*
 * Out of line, from gt_rec_commit when the head reaches wake_at: read the
 * shared tail and, if the ring is half full or more, wake the writer now
 * rather than at the end of its GPUTRACE_FLUSH_MS sleep (a futex wake: a
 * system call).  The next check is set where the ring could be half full
 * at the earliest: half a ring past the tail just read, or past the head
 * after a wake.  So a thread the writer keeps up with makes no system
 * call: it reads the tail once per half ring and goes on; one faster than
 * the period wakes the writer once per half ring.
 */
void gt_ring_half(struct gt_thread *t);

/* Fork child: the parent's rings are not ours; start over. */
void gt_ring_forget_all(void);

/*
 * Take the next free slot of the calling thread's ring, or NULL when the
 * event is not to be recorded (tracing off, nested call, ring full).
 */
gt_hot_inline struct gt_rec *gt_rec_begin(void)
{
	struct gt_thread *t = &gt_self;
	uint64_t head;

	if (unlikely(!atomic_load_explicit(&gt_active, memory_order_relaxed)))
		return NULL;
	if (unlikely(t->busy))
		return NULL;
	if (unlikely(!t->ring || t->generation !=
		     atomic_load_explicit(&gt_mark->generation, memory_order_relaxed))) {
		if (!gt_thread_attach(t))
			return NULL;
	}
	head = t->head;
	if (unlikely(head - t->tail_seen > t->mask)) {
		struct gt_ring *ring = t->ring;

		t->tail_seen = atomic_load_explicit(&ring->tail, memory_order_acquire);
		if (head - t->tail_seen > t->mask) {
			atomic_store_explicit(&ring->drops,
					      atomic_load_explicit(&ring->drops, memory_order_relaxed) + 1,
					      memory_order_relaxed);
			return NULL;
		}
	}
	t->busy = 1;
	return &t->recs[head & t->mask];
}

/*
 * The id the record taken by gt_rec_begin will have in the dump (buffer
 * index << 40 | its number in the buffer): what the GPU-side join
 * (cupti_corr.c) publishes.  Only between begin and commit.
 */
gt_hot_inline uint64_t gt_rec_id(void)
{
	return gt_self.id_base | (gt_self.head & ((1ull << 40) - 1));
}

/*
 * Publish the record taken by gt_rec_begin.  Beyond the publish, one
 * compare on the line already read, taken once per half ring at most:
 * the half-full check (gt_ring_half) is out of line.
 */
gt_hot_inline void gt_rec_commit(struct gt_rec *r, int op, int result)
{
	struct gt_thread *t = &gt_self;

	r->op = (uint16_t)op;
	r->result = (int16_t)result;
	t->head++;
	atomic_store_explicit(&t->ring->head, t->head, memory_order_release);
	if (unlikely((uint32_t)t->head == t->wake_at))
		gt_ring_half(t);
	t->busy = 0;
}

#endif /* GPUTRACE_PRELOAD_RING_H */
