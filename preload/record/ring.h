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
 *
 * busy is set while a call holds a slot: the frame address of the
 * function that took it (gt_rec_begin), with GT_NEST_QUIET when calls
 * nested inside belong to it (the runtime's driver calls).  The frame
 * tells a call nested inside it (a signal handler's, deeper on the
 * stack) from one made after it was left by a longjmp (not deeper):
 * see gt_rec_busy.
 */
struct gt_thread {
	struct gt_rec *recs;        /* ring->recs */
	uint64_t head;              /* records published: ring->head's value */
	uint64_t tail_seen;         /* ring->tail when last read (<= the real one) */
	uint64_t mask;              /* ring->mask */
	uint64_t id_base;           /* ring->index << 40 (gt_rec_id); with no
				     * ring, GT_NO_RING once none was to be had */
	struct gt_ring *ring;
	uintptr_t busy;             /* the slot's holder, 0 none (above) */
	unsigned generation;        /* gt_mark->generation when taken */
	uint32_t wake_at;           /* low 32 bits of the head that checks for
				     * half full next (gt_ring_half) */
} __attribute__((aligned(64)));

_Static_assert(sizeof(struct gt_thread) == 64, "gt_thread fits one cache line");

extern __thread struct gt_thread gt_self;
extern _Atomic uint64_t gt_drops_no_ring;   /* threads without a ring */

#define GT_RING_WAIT_MS 500       /* see gt_thread_attach */

/*
 * Give the calling thread a ring; NULL (and one more drop) if none.  From
 * gt_rec_begin with busy clear: it notices a child made without fork()
 * first, then sets busy to holder for the rest (a signal handler's call
 * meanwhile is nested), and clears it again when it returns NULL.
 */
struct gt_ring *gt_thread_attach(struct gt_thread *t, uintptr_t holder);

/*
 * The same from a signal handler (the host sampler's, on a thread it
 * samples before that thread's first traced call): no waiting for rings
 * of exited threads, no thread-exit key, nothing said; the dump is open
 * already.  NULL (nothing counted) when none is to be had.
 */
struct gt_ring *gt_thread_attach_quiet(struct gt_thread *t, uint32_t tid);

/*
 * Called on a thread right after gt_thread_attach gave it its ring (the
 * dump is open then), and when it exits, before its ring is let go: the
 * host sampler's, set once at start.
 */
void gt_ring_thread_hooks(void (*attached)(void), void (*exiting)(void));

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

/*
 * Fork child: the parent's rings are not ours; start over.  The calling
 * thread may be inside a wrapper (a signal handler forked): its ring stays
 * mapped for that wrapper to finish into, the call is counted as dropped
 * here and the flag is cleared, so that the child's own calls are traced.
 */
void gt_ring_forget_all(void);

#define GT_NO_RING 1u               /* id_base: none to be had (budget spent) */
#define GT_NEST_QUIET 1u            /* busy: nested calls pass uncounted */
#define GT_NEST_MAX 64              /* nested calls before the flag is stale */
#define GT_NEST_SLACK 128           /* bytes: see gt_rec_busy */

/* The frame address of the function gt_rec_begin and gt_rec_commit are
 * inlined into: what busy holds (always 16-byte aligned). */
#define gt_rec_frame() ((uintptr_t)__builtin_frame_address(0))

/*
 * A call found busy set (out of line, async-signal-safe, no system call):
 * 1 when this call is to take a slot after all (the flag was stale, or a
 * child made inside a wrapper started over), else 0 (nested: counted as
 * dropped, or passed uncounted under GT_NEST_QUIET).
 */
int gt_rec_busy(struct gt_thread *t, uintptr_t frame);

/* One more event lost by this thread: its ring's drops, else the count of
 * threads without a ring.  Atomic: a signal handler's call may add too. */
void gt_rec_drop(struct gt_thread *t);

/*
 * Take the next free slot of the calling thread's ring, or NULL when the
 * event is not to be recorded (tracing off, nested call, ring full).
 * nest: GT_NEST_QUIET for a call whose real function makes traced calls
 * of its own, which are part of it, else 0.  The flag is set before the
 * head is read, so that a signal handler's call from then on is seen as
 * nested, and one before it has published its record by the time the head
 * is read (the fence keeps the compiler from moving the store later).
 */
gt_hot_inline struct gt_rec *gt_rec_begin_as(uintptr_t nest)
{
	struct gt_thread *t = &gt_self;
	uintptr_t frame = gt_rec_frame();
	uint64_t head;

	if (unlikely(!atomic_load_explicit(&gt_active, memory_order_relaxed)))
		return NULL;
	if (unlikely(t->busy) && !gt_rec_busy(t, frame))
		return NULL;
	if (unlikely(!t->ring || t->generation !=
		     atomic_load_explicit(&gt_mark->generation, memory_order_relaxed))) {
		if (!gt_thread_attach(t, frame | nest))
			return NULL;
	}
	t->busy = frame | nest;
	atomic_signal_fence(memory_order_seq_cst);
	head = t->head;
	if (unlikely(head - t->tail_seen > t->mask)) {
		t->tail_seen = atomic_load_explicit(&t->ring->tail, memory_order_acquire);
		if (head - t->tail_seen > t->mask) {
			gt_rec_drop(t);
			t->busy = 0;
			return NULL;
		}
	}
	return &t->recs[head & t->mask];
}

gt_hot_inline struct gt_rec *gt_rec_begin(void)
{
	return gt_rec_begin_as(0);
}

/*
 * Whether the slot taken by gt_rec_begin is still this call's: it is not
 * when, while the real function ran, a signal handler's call took it over
 * (the flag was judged stale) or forked (the child starts over).  Then
 * the call must write no more into it: its event was counted as dropped.
 */
gt_hot_inline int gt_rec_held(void)
{
	return likely((gt_self.busy & ~(uintptr_t)GT_NEST_QUIET) == gt_rec_frame());
}

/* After a slot was found taken over: no call deeper holds the flag any
 * more (they returned, or were left), so it is cleared. */
gt_hot_inline void gt_rec_lost(void)
{
	gt_self.busy = 0;
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
 * Publish the record taken by gt_rec_begin, if still held.  Beyond the
 * publish, one compare on the line already read, taken once per half
 * ring at most: the half-full check (gt_ring_half) is out of line.
 */
gt_hot_inline void gt_rec_commit(struct gt_rec *r, int op, int result)
{
	struct gt_thread *t = &gt_self;

	if (unlikely(!gt_rec_held())) {
		gt_rec_lost();
		return;
	}
	r->op = (uint16_t)op;
	r->result = (int16_t)result;
	t->head++;
	atomic_store_explicit(&t->ring->head, t->head, memory_order_release);
	if (unlikely((uint32_t)t->head == t->wake_at))
		gt_ring_half(t);
	atomic_signal_fence(memory_order_seq_cst);
	t->busy = 0;
}

#endif /* GPUTRACE_PRELOAD_RING_H */
