/* SPDX-License-Identifier: MIT */
/*
 * nccl_prof_pool.c - in-flight NCCL operations seen by the profiler plugin
 * (see nccl_prof_pool.h), and their trip into the dump.
 *
 * Entries live in one array allocated at the first plugin init.  A start
 * claims a free entry with a compare-and-swap, trying a few from a
 * rotating cursor, so a freed entry is reused late and a late kernel
 * event meant for it finds it free (and is dropped) rather than counted
 * against another operation.  Only the writer thread frees entries.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "include/gputrace/format.h"
#include "preload/base/internal.h"
#include "preload/nccl/nccl_prof_pool.h"
#include "preload/record/writer.h"

#define POOL 8192                   /* operations in flight at once */
#define PROBES 64                   /* entries a start tries */
#define BATCH 256                   /* records per chunk */
#define NO_KERNEL_NS 1000000000ull  /* no channel event ever: done after 1 s */
#define GRACE_NS 10000000000ull     /* channels missing: done after 10 s */

enum { FREE, LIVE, STOPPED };

struct gt_nccl_pev {
	_Atomic uint32_t state;
	uint8_t type, channels, kernel_events;
	uint32_t comm;
	int32_t peer;
	uint64_t count, seq, start_ns;
	uint64_t stop_ns;               /* written before state = STOPPED */
	_Atomic uint64_t gpu_start, gpu_stop;
	_Atomic uint32_t ch_started, ch_stopped;
	char func[16], dtype[16], algo[16], proto[8];
};

static struct gt_nccl_pev *pool;
static _Atomic uint64_t cursor;
static _Atomic uint64_t lost;           /* starts that found no entry */
static _Atomic int channels_seen;       /* any kernel channel event yet */
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void copy_str(char *dst, size_t n, const char *s)
{
	size_t i = 0;

	for (; s && s[i] && i + 1 < n; i++)
		dst[i] = s[i];
	dst[i] = 0;
}

struct gt_nccl_pev *gt_nccl_pev_start(const struct gt_nccl_pev_desc *d)
{
	uint64_t at = atomic_fetch_add_explicit(&cursor, 1, memory_order_relaxed);

	if (!pool)
		return NULL;
	for (int i = 0; i < PROBES; i++) {
		struct gt_nccl_pev *e = &pool[(at + (uint64_t)i) % POOL];
		uint32_t expected = FREE;

		if (!atomic_compare_exchange_strong(&e->state, &expected, LIVE))
			continue;
		e->type = d->type;
		e->channels = d->channels;
		e->kernel_events = d->kernel_events;
		e->comm = d->comm;
		e->peer = d->peer;
		e->count = d->count;
		e->seq = d->seq;
		e->stop_ns = 0;
		atomic_store_explicit(&e->gpu_start, UINT64_MAX, memory_order_relaxed);
		atomic_store_explicit(&e->gpu_stop, 0, memory_order_relaxed);
		atomic_store_explicit(&e->ch_started, 0, memory_order_relaxed);
		atomic_store_explicit(&e->ch_stopped, 0, memory_order_relaxed);
		copy_str(e->func, sizeof(e->func), d->func);
		copy_str(e->dtype, sizeof(e->dtype), d->dtype);
		copy_str(e->algo, sizeof(e->algo), d->algo);
		copy_str(e->proto, sizeof(e->proto), d->proto);
		e->start_ns = gt_now();
		return e;
	}
	atomic_fetch_add_explicit(&lost, 1, memory_order_relaxed);
	return NULL;
}

void gt_nccl_pev_stop(struct gt_nccl_pev *e)
{
	e->stop_ns = gt_now();
	atomic_store_explicit(&e->state, STOPPED, memory_order_release);
}

void gt_nccl_pev_channel_start(struct gt_nccl_pev *e, uint64_t ptimer)
{
	uint64_t old = atomic_load_explicit(&e->gpu_start, memory_order_relaxed);

	if (atomic_load_explicit(&e->state, memory_order_acquire) == FREE)
		return;
	while (ptimer < old &&
	       !atomic_compare_exchange_weak(&e->gpu_start, &old, ptimer))
		;
	atomic_fetch_add_explicit(&e->ch_started, 1, memory_order_release);
	if (!atomic_load_explicit(&channels_seen, memory_order_relaxed))
		atomic_store(&channels_seen, 1);
}

void gt_nccl_pev_channel_time(struct gt_nccl_pev *e, uint64_t ptimer)
{
	uint64_t old = atomic_load_explicit(&e->gpu_stop, memory_order_relaxed);

	while (ptimer > old &&
	       !atomic_compare_exchange_weak(&e->gpu_stop, &old, ptimer))
		;
}

void gt_nccl_pev_channel_stop(struct gt_nccl_pev *e)
{
	if (atomic_load_explicit(&e->state, memory_order_acquire) != FREE)
		atomic_fetch_add_explicit(&e->ch_stopped, 1, memory_order_release);
}

/* ---- the writer thread's side ---- */

static struct {
	unsigned generation;            /* string ids die with a fork */
	size_t n;
	char text[64][16];
	uint32_t id[64];
} strings;

/* The string id of s, written the first time (writer thread only). */
static uint32_t string_id(const char *s)
{
	unsigned gen = atomic_load(&gt_mark->generation);
	size_t i;

	if (!*s)
		return 0;
	if (strings.generation != gen) {
		strings.generation = gen;
		strings.n = 0;
	}
	for (i = 0; i < strings.n; i++)
		if (!strcmp(strings.text[i], s))
			return strings.id[i];
	if (strings.n == 64)
		return gt_writer_string(s, strlen(s));
	copy_str(strings.text[i], sizeof(strings.text[i]), s);
	strings.id[i] = gt_writer_string(s, strlen(s));
	strings.n++;
	return strings.id[i];
}

static int is_done(struct gt_nccl_pev *e, uint64_t now, int final)
{
	uint32_t stopped = atomic_load_explicit(&e->ch_stopped, memory_order_acquire);
	uint32_t started = atomic_load_explicit(&e->ch_started, memory_order_acquire);
	uint64_t age = now > e->stop_ns ? now - e->stop_ns : 0;

	if (final || !e->kernel_events)
		return 1;
	if (started != stopped)
		return age > 6 * GRACE_NS;
	if (stopped && stopped >= e->channels)
		return 1;
	if (!atomic_load(&channels_seen))
		return age > NO_KERNEL_NS;
	return age > GRACE_NS;
}

static void to_record(struct gt_nccl_pev *e, struct gt_nccl_prof *p)
{
	uint64_t gs = atomic_load(&e->gpu_start), ge = atomic_load(&e->gpu_stop);
	uint32_t timed = atomic_load(&e->ch_stopped);

	*p = (struct gt_nccl_prof){
		.start_ns = e->start_ns, .stop_ns = e->stop_ns,
		.gpu_start = timed && ge >= gs ? gs : 0,
		.gpu_stop = timed && ge >= gs ? ge : 0,
		.count = e->count, .seq = e->seq, .comm = e->comm,
		.peer = e->peer, .type = e->type, .channels = e->channels,
		.channels_timed = (uint8_t)(timed > 255 ? 255 : timed),
	};
	p->func_str = string_id(e->func);
	p->dtype_str = string_id(e->dtype);
	p->algo_str = string_id(e->algo);
	p->proto_str = string_id(e->proto);
}

static void put_batch(struct gt_nccl_prof *recs, uint32_t n)
{
	struct gt_nccl_prof_header h = { .count = n, .size = sizeof(*recs) };

	if (n)
		gt_writer_side_chunk(GT_CHUNK_NCCL_PROF, &h, sizeof(h), recs,
				     n * sizeof(*recs));
}

/* Each cycle: write what is done, free its entries. */
static void on_cycle(int final)
{
	static struct gt_nccl_prof recs[BATCH];
	uint64_t now = gt_now();
	uint32_t n = 0;

	for (size_t i = 0; i < POOL; i++) {
		struct gt_nccl_pev *e = &pool[i];

		if (atomic_load_explicit(&e->state, memory_order_acquire) != STOPPED ||
		    !is_done(e, now, final))
			continue;
		to_record(e, &recs[n++]);
		atomic_store_explicit(&e->state, FREE, memory_order_release);
		if (n == BATCH) {
			put_batch(recs, n);
			n = 0;
		}
	}
	put_batch(recs, n);
	if (atomic_load(&lost))
		gt_warn_once("gputrace: more than %d NCCL operations in flight; "
			     "the profiler plugin's data for some is lost\n", POOL);
}

static void pool_alloc(void)
{
	pool = calloc(POOL, sizeof(*pool));
	if (!pool) {
		gt_log("gputrace: out of memory for the NCCL profiler plugin\n");
		return;
	}
	gt_writer_on_cycle(on_cycle);
}

int gt_nccl_pev_init(void)
{
	pthread_once(&once, pool_alloc);
	return pool ? 0 : -1;
}
