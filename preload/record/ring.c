/* SPDX-License-Identifier: MIT */
/*
 * ring.c - giving threads their rings, within the memory budget, and taking
 * them back when threads exit.
 *
 * A thread gets its ring at its first traced call (mmap, outside the steady
 * state).  Rings are pushed on a list that only grows at its head (CAS);
 * the writer thread is the only one that walks it and the only one that
 * unlinks, which it does for drained rings of exited threads (never the
 * head, so a concurrent push cannot race; the head itself is unlinked with
 * a CAS, which a concurrent push makes fail).  Unlinked rings wait on a
 * free list, under a mutex that only thread start and the writer take.
 * When the memory budget is spent and rings of exited threads wait to be
 * taken back, a starting thread has the writer run a cycle at once (at
 * most GT_RING_WAIT_MS, once per thread) rather than going without.
 * A thread whose ring fills faster than the writer's period wakes it when
 * the ring is half full (gt_ring_half).
 */
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "preload/process/fork.h"
#include "preload/record/ring.h"
#include "preload/record/writer.h"

__thread struct gt_thread gt_self __attribute__((tls_model("initial-exec")));
_Atomic uint64_t gt_drops_no_ring;

static _Atomic(struct gt_ring *) ring_list;
static _Atomic uint64_t ring_bytes_used;
static _Atomic uint32_t ring_index;
static pthread_mutex_t free_lock = PTHREAD_MUTEX_INITIALIZER;
static struct gt_ring *free_list;
static atomic_int exited_pending;   /* rings of exited threads not yet free */
static pthread_key_t exit_key;
static pthread_once_t exit_key_once = PTHREAD_ONCE_INIT;
static int exit_key_made;
static void (*on_attached)(void), (*on_exiting)(void);    /* gt_ring_thread_hooks */

static void thread_exited(void *arg)
{
	struct gt_ring *ring = arg;

	if (on_exiting)
		on_exiting();
	atomic_fetch_add(&exited_pending, 1);
	atomic_store_explicit(&ring->exited, 1, memory_order_release);
	gt_self.ring = NULL;
	gt_self.recs = NULL;
}

static void make_exit_key(void)
{
	exit_key_made = pthread_key_create(&exit_key, thread_exited) == 0;
}

static struct gt_ring *ring_from_free_list(void)
{
	struct gt_ring *ring;

	pthread_mutex_lock(&free_lock);
	ring = free_list;
	if (ring)
		free_list = ring->next;
	pthread_mutex_unlock(&free_lock);
	return ring;
}

/* A new ring within the budget; NULL with *no_memory set when mmap
 * failed, clear when the budget is spent. */
static struct gt_ring *ring_map(int *no_memory)
{
	uint64_t cap = gt_cfg.thread_buffer_bytes / sizeof(struct gt_rec);
	size_t bytes, records;
	struct gt_ring *ring;

	while (cap & (cap - 1))             /* round down to a power of 2 */
		cap &= cap - 1;
	if (cap < 2)
		cap = 2;
	records = cap * sizeof(struct gt_rec); /* the budget counts these */
	bytes = sizeof(*ring) + records;
	if (atomic_fetch_add(&ring_bytes_used, records) + records > gt_cfg.buffer_bytes) {
		atomic_fetch_sub(&ring_bytes_used, records);
		return NULL;
	}
	ring = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (ring == MAP_FAILED) {
		atomic_fetch_sub(&ring_bytes_used, records);
		*no_memory = 1;
		return NULL;
	}
	ring->mask = cap - 1;
	ring->bytes = bytes;
	return ring;
}

static void ring_push(struct gt_ring *ring)
{
	struct gt_ring *head = atomic_load(&ring_list);

	do {
		ring->next = head;
	} while (!atomic_compare_exchange_weak(&ring_list, &head, ring));
}

/* A new ring becomes the thread's (tid): pushed for the writer. */
static void ring_give(struct gt_thread *t, struct gt_ring *ring, uint32_t tid)
{
	atomic_store(&ring->head, 0);
	atomic_store(&ring->tail, 0);
	atomic_store(&ring->drops, 0);
	ring->drops_reported = 0;
	atomic_store(&ring->exited, 0);
	ring->tid = tid;
	ring->index = atomic_fetch_add(&ring_index, 1) + 1;
	ring_push(ring);
	t->recs = ring->recs;
	t->head = 0;
	t->tail_seen = 0;
	t->mask = ring->mask;
	t->id_base = (uint64_t)ring->index << 40;
	t->wake_at = (uint32_t)((ring->mask + 1) / 2);
	t->ring = ring;
}

struct gt_ring *gt_thread_attach(struct gt_thread *t, uintptr_t holder)
{
	unsigned gen;
	struct gt_ring *ring;
	int no_memory = 0;

	gt_fork_notice();                   /* a child made without fork() */
	if (!atomic_load(&gt_active))       /* ... that is not traced */
		return NULL;
	t->busy = holder;
	atomic_signal_fence(memory_order_seq_cst);
	gen = atomic_load(&gt_mark->generation);
	if (t->generation != gen) {         /* first call, or forked child */
		t->generation = gen;
		t->ring = NULL;
		t->id_base = 0;
	}
	if (t->id_base == GT_NO_RING)
		goto no_ring;
	ring = ring_from_free_list();
	if (!ring)
		ring = ring_map(&no_memory);
	if (!ring && atomic_load(&exited_pending) &&
	    gt_writer_cycle_wait(GT_RING_WAIT_MS) == 0)
		ring = ring_from_free_list();   /* exited threads' rings, taken back */
	if (!ring) {
		t->id_base = GT_NO_RING;
		if (no_memory)
			gt_warn_once("gputrace: no memory for a thread's buffer: "
				     "its events are counted as dropped\n");
		else
			gt_warn_once("gputrace: GPUTRACE_BUFFER_MB is spent: events "
				     "of further threads are counted as dropped\n");
		goto no_ring;
	}
	pthread_once(&exit_key_once, make_exit_key);
	pthread_setspecific(exit_key, ring);
	ring_give(t, ring, (uint32_t)syscall(SYS_gettid));
	gt_writer_start();
	if (on_attached)
		on_attached();
	return ring;
no_ring:
	atomic_fetch_add_explicit(&gt_drops_no_ring, 1, memory_order_relaxed);
	gt_writer_start();
	t->busy = 0;
	return NULL;
}

/*
 * In a signal handler, busy clear: so the free list's lock is held, if at
 * all, by another thread (the writer, or one in gt_thread_attach), which
 * lets it go.  No key: the ring is not taken back if the thread exits
 * while the process goes on (the main thread's pthread_exit).
 */
struct gt_ring *gt_thread_attach_quiet(struct gt_thread *t, uint32_t tid)
{
	unsigned gen = atomic_load(&gt_mark->generation);
	struct gt_ring *ring;
	int no_memory = 0;

	if (!gen || !atomic_load(&gt_active) || t->busy)
		return NULL;
	if (t->generation != gen) {
		t->generation = gen;
		t->ring = NULL;
		t->id_base = 0;
	}
	if (t->id_base == GT_NO_RING)
		return NULL;
	t->busy = gt_rec_frame();
	atomic_signal_fence(memory_order_seq_cst);
	ring = ring_from_free_list();
	if (!ring)
		ring = ring_map(&no_memory);
	if (ring)
		ring_give(t, ring, tid);
	else
		t->id_base = GT_NO_RING;
	atomic_signal_fence(memory_order_seq_cst);
	t->busy = 0;
	return ring;
}

void gt_ring_thread_hooks(void (*attached)(void), void (*exiting)(void))
{
	on_attached = attached;
	on_exiting = exiting;
}

void gt_rec_drop(struct gt_thread *t)
{
	if (t->ring && t->generation == atomic_load(&gt_mark->generation))
		atomic_fetch_add_explicit(&t->ring->drops, 1, memory_order_relaxed);
	else
		atomic_fetch_add_explicit(&gt_drops_no_ring, 1, memory_order_relaxed);
}

/*
 * How many nested calls met the same holder of the same slot (the same
 * busy with the same head): past GT_NEST_MAX the holder is taken to be
 * gone, left by a longjmp to a frame above it while later calls are made
 * deeper (a signal handler makes a few calls, and its wrapper then
 * publishes and clears the flag).  Only on this path: not on the hot one.
 */
static __thread struct {
	uintptr_t busy;
	uint64_t head;
	unsigned calls;
} nested __attribute__((tls_model("initial-exec")));

static int nested_too_long(const struct gt_thread *t)
{
	if (nested.busy != t->busy || nested.head != t->head) {
		nested.busy = t->busy;
		nested.head = t->head;
		nested.calls = 0;
	}
	return ++nested.calls > GT_NEST_MAX;
}

/*
 * The holder is this thread's, from a call that has not returned.  A call
 * nested inside it runs deeper on the stack, below the holder's whole
 * frame (a signal handler's, under the kernel's signal frame, or one the
 * real function makes), so a call at the holder's frame or about there is
 * not nested: the holder was left by a longjmp (a watchdog's, out of a
 * hung call), and would keep every later call of the thread out.  "About
 * there": a call from the same function as the holder's sits up to
 * GT_NEST_SLACK lower when more of its arguments go on the stack (a
 * launch's); the runtime's calls (GT_NEST_QUIET), whose driver calls are
 * nested in them right below, get no slack.  The holder's call is counted
 * as dropped, and the flag taken over.  Should the judgement be wrong (a
 * handler on an alternate stack above this one), the holder finds its
 * slot taken when it returns (gt_rec_held) and writes no more into it.
 */
int gt_rec_busy(struct gt_thread *t, uintptr_t frame)
{
	uintptr_t holder = t->busy & ~(uintptr_t)GT_NEST_QUIET;
	uintptr_t reach = t->busy & GT_NEST_QUIET ? holder : holder - GT_NEST_SLACK;

	gt_fork_notice();                   /* a child made inside a wrapper */
	if (!t->busy)
		return 1;
	if (frame < reach && !nested_too_long(t)) {
		if (!(t->busy & GT_NEST_QUIET))
			gt_rec_drop(t);
		return 0;
	}
	gt_rec_drop(t);
	t->busy = 0;
	return 1;
}

/*
 * wake_at keeps 32 bits of the head: with a ring of more than 2^32
 * records it can also match 2^32 records early, which costs one more read
 * of the tail and no wake (the ring is not half full then).
 */
__attribute__((noinline, cold)) void gt_ring_half(struct gt_thread *t)
{
	uint64_t half = (t->mask + 1) / 2;
	uint64_t tail = atomic_load_explicit(&t->ring->tail, memory_order_acquire);

	t->tail_seen = tail;
	if (t->head - tail < half) {
		t->wake_at = (uint32_t)(tail + half);
		return;
	}
	t->wake_at = (uint32_t)(t->head + half);
	gt_writer_wake();
}

struct gt_ring *gt_ring_first(void)
{
	return atomic_load_explicit(&ring_list, memory_order_acquire);
}

static int ring_done(struct gt_ring *ring)
{
	return atomic_load_explicit(&ring->exited, memory_order_acquire) &&
	       atomic_load(&ring->head) == atomic_load(&ring->tail) &&
	       atomic_load(&ring->drops) == ring->drops_reported;
}

static void ring_free(struct gt_ring *ring)
{
	pthread_mutex_lock(&free_lock);
	ring->next = free_list;
	free_list = ring;
	pthread_mutex_unlock(&free_lock);
	atomic_fetch_sub(&exited_pending, 1);
}

void gt_ring_collect(void)
{
	struct gt_ring *prev = gt_ring_first(), *ring;

	if (prev && ring_done(prev) &&
	    atomic_compare_exchange_strong(&ring_list, &prev, prev->next)) {
		ring_free(prev);        /* the head: unless a push came first */
		prev = gt_ring_first();
	}
	if (!prev)
		return;
	while ((ring = prev->next) != NULL) {
		if (!ring_done(ring)) {
			prev = ring;
			continue;
		}
		prev->next = ring->next;
		ring_free(ring);
	}
}

void gt_ring_forget_all(void)
{
	struct gt_ring *ring = atomic_load(&ring_list), *next;
	struct gt_ring *held = gt_self.busy ? gt_self.ring : NULL;

	for (; ring; ring = next) {
		next = ring->next;
		if (ring != held)
			munmap(ring, ring->bytes);
	}
	for (ring = free_list; ring; ring = next) {
		next = ring->next;
		munmap(ring, ring->bytes);
	}
	atomic_store(&ring_list, NULL);
	free_list = NULL;
	if (exit_key_made)                      /* not our ring any more */
		pthread_setspecific(exit_key, NULL);
	atomic_store(&ring_bytes_used, 0);
	atomic_store(&gt_drops_no_ring, gt_self.busy ? 1 : 0);
	atomic_store(&exited_pending, 0);
	pthread_mutex_init(&free_lock, NULL);
	gt_self.busy = 0;                       /* the child's calls are traced */
	gt_self.ring = NULL;
	gt_self.recs = NULL;
}
