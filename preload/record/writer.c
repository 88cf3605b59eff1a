/* SPDX-License-Identifier: MIT */
/*
 * writer.c - the background path: drains every ring each GPUTRACE_FLUSH_MS
 * (sooner when a ring is half full) and packs the records into the dump
 * (format.h), then finishes the dump at exit.
 *
 * Only this thread (or the exit path, after it stopped) touches the dump
 * and the id maps, so nothing here needs a lock; the thread sleeps on a
 * futex that exit, exec and signal handlers (async-signal-safe) can wake.
 * If the dump cannot be written, records are still consumed and counted
 * as dropped, so the program never waits.
 */
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "include/gputrace/format.h"
#include "include/gputrace/varint.h"
#include "preload/record/dump_out.h"
#include "preload/record/functions.h"
#include "preload/hooks/hooks.h"
#include "preload/base/idmap.h"
#include "preload/base/output_path.h"
#include "preload/record/process_info.h"
#include "preload/record/ring.h"
#include "preload/env/sampler.h"
#include "preload/process/signals.h"
#include "preload/gpu/steps.h"
#include "preload/record/writer.h"

#define EV_CHUNK_MAX (256u << 10)   /* payload bytes per events chunk */
#define EV_REC_MAX (16 * GT_VARINT_MAX)   /* 5 common + up to 11 args */
#define EV_RELEASE 4096             /* slots handed back during a drain */
#define SHAPES_MAX 32768            /* distinct launch shapes kept, */
#define SHAPES_SPILL 8192           /* then one per kernel for the others */
#define STREAMS_MAX 8192            /* distinct streams, then one for all */
#define STREAM_OTHERS UINT64_MAX    /* the handle of the one for all */

static struct {
	atomic_int started;
	int thread_running;
	pthread_t thread;
	_Atomic int stop;
	_Atomic uint32_t wake;          /* futex: bumped to wake the thread */
	_Atomic int end_req;            /* a signal asks the thread to end */
	_Atomic int alive;              /* the thread runs writer_main */
	_Atomic int ended;              /* the END chunk is being written */
	_Atomic uint32_t end_done;      /* futex: ... and it is out */
	_Atomic uint32_t cycles;        /* futex: drains done */
	pid_t pid;                      /* the process the dump belongs to */
	uint64_t end_off;               /* exec: where the END chunk starts */
	char path[4096];
	struct gt_dump_out out;
	struct gt_idmap shapes, streams;
	uint64_t shapes_over, streams_over;   /* events past the tables */
	_Atomic uint32_t next_string;
	pthread_mutex_t side_lock;
	uint8_t *side, *side_spare;     /* chunks from other threads */
	size_t side_len, side_cap, spare_cap;
	uint64_t side_lost;
	atomic_int lazy;                /* the dump is made at its first record */
	uint64_t events, dropped, no_ring_reported;
	uint8_t ev[sizeof(struct gt_events_header) + EV_CHUNK_MAX + EV_REC_MAX];
	size_t ev_len;
	uint32_t ev_count;
	uint64_t prev_t0;
	uint32_t cur_tid;               /* the thread whose events are packed */
	_Atomic uint64_t first_work;    /* time of the first call giving the GPU work */
	_Atomic uint64_t beat;          /* when the last drain ended */
} w = { .side_lock = PTHREAD_MUTEX_INITIALIZER };

/* Set by any thread, read by the writer: each slot published with release. */
/* Parts called back by the writer thread, published atomically: each
 * cycle (cycle), and once when the dump ends (end). */
struct hooks {
	void (*_Atomic fn[GT_CYCLE_HOOKS])(int final);
	_Atomic int n;
};

static struct hooks cycle_hooks, end_hooks;
static void (*start_hook)(void);    /* gt_writer_on_start */

static uint32_t put_string(const char *s)
{
	uint32_t id = atomic_fetch_add(&w.next_string, 1) + 1;

	gt_dump_out_chunk2(&w.out, GT_CHUNK_STRING, &id, sizeof(id), s, strlen(s));
	return id;
}

/* Per-kind varints after the common five (format.h); encode() writes them. */
static uint8_t kind_nargs(uint8_t kind)
{
#define NARGS_(k, v, what) case GT_KIND_##k: return GT_ARG_##k##_N;
	switch (kind) {
	GT_EVENT_KINDS(NARGS_)
	default: return 1;
	}
#undef NARGS_
}

static void put_ops(void)
{
	uint32_t api_str[GT_OP_COUNT];

	for (int op = 0; op < GT_OP_COUNT; op++) {
		const struct gt_op_desc *d = &gt_ops[op];

		if (!d->symbol)
			continue;
		struct gt_op_info info = {
			.op = (uint16_t)op, .kind = d->kind, .direction = d->direction,
			.flags = (uint16_t)d->flags, .nargs = kind_nargs(d->kind),
		};

		api_str[op] = 0;
		for (int prev = 0; prev < op && !api_str[op]; prev++)
			if (gt_ops[prev].symbol && !strcmp(gt_ops[prev].api, d->api))
				api_str[op] = api_str[prev];
		if (!api_str[op])
			api_str[op] = put_string(d->api);
		info.api_str = api_str[op];
		info.symbol_str = put_string(d->symbol);
		gt_dump_out_chunk(&w.out, GT_CHUNK_OP, &info, sizeof(info));
	}
}

static void put_function(uint32_t id)
{
	struct gt_func_info *fi = gt_func_info(id);
	struct gt_function f = { .id = id };

	if (!fi || fi->written)
		return;
	if (atomic_load_explicit(&fi->ready, memory_order_acquire)) {
		f.handle = fi->handle;
		f.name_str = fi->name ? put_string(fi->name) : 0;
	}
	fi->written = 1;
	gt_dump_out_chunk(&w.out, GT_CHUNK_FUNCTION, &f, sizeof(f));
	gt_steps_function(id, f.name_str ? fi->name : NULL);
}

/* The id of a shape, added to the table (up to max shapes) if new. */
static uint32_t shape_lookup(struct gt_shape *s, size_t max, int *added)
{
	uint32_t key[8] = { s->function, s->shared_mem };

	_Static_assert(sizeof(key) == GT_IDMAP_KEY, "a shape is a whole key");
	memcpy(&key[2], s->grid, sizeof(s->grid));
	memcpy(&key[5], s->block, sizeof(s->block));
	return gt_idmap_get(&w.shapes, key, max, added);
}

/*
 * A launch's shape.  Past SHAPES_MAX shapes, a new one counts under its
 * kernel's shape of grid, block and shared memory 0 (one per kernel, for
 * SHAPES_SPILL kernels), so that its kernel is still known.
 */
static uint32_t shape_id(const struct gt_rec *r, uint64_t t0)
{
	struct gt_shape s = { .function = r->u.launch.func,
			      .shared_mem = r->u.launch.shared_mem };
	int added;

	memcpy(s.grid, r->u.launch.grid, sizeof(s.grid));
	memcpy(s.block, r->u.launch.block, sizeof(s.block));
	s.id = shape_lookup(&s, SHAPES_MAX, &added);
	if (unlikely(!s.id)) {
		if (!w.shapes_over++)
			gt_log("gputrace: more than %u launch shapes: further ones count "
			       "under their kernel's shape 0x0x0\n", SHAPES_MAX);
		s = (struct gt_shape){ .function = r->u.launch.func };
		s.id = shape_lookup(&s, SHAPES_MAX + SHAPES_SPILL, &added);
	}
	if (added) {
		gt_steps_new_kernel(t0);
		if (s.function)
			put_function(s.function);
		gt_dump_out_chunk(&w.out, GT_CHUNK_SHAPE, &s, sizeof(s));
	}
	return s.id;
}

/* The id of a stream, added to the table (up to max streams) if new. */
static uint32_t stream_lookup(struct gt_stream *s, size_t max)
{
	uint8_t key[GT_IDMAP_KEY] = { 0 };
	int added;

	memcpy(key, &s->handle, sizeof(s->handle));
	s->id = gt_idmap_get(&w.streams, key, max, &added);
	if (added)
		gt_dump_out_chunk(&w.out, GT_CHUNK_STREAM, s, sizeof(*s));
	return s->id;
}

/* A call's stream; past STREAMS_MAX streams, new ones share one id (its
 * handle STREAM_OTHERS). */
static uint32_t stream_id(uint64_t handle)
{
	struct gt_stream s = { .handle = handle };

	if (!handle)
		return 0;
	if (likely(stream_lookup(&s, STREAMS_MAX)))
		return s.id;
	if (!w.streams_over++)
		gt_log("gputrace: more than %u streams: further ones share one id\n",
		       STREAMS_MAX);
	s.handle = STREAM_OTHERS;
	return stream_lookup(&s, STREAMS_MAX + 1);
}

static void events_begin(const struct gt_ring *ring, uint64_t seq)
{
	struct gt_events_header h = { .tid = ring->tid,
				      .base_ns = gt_tsc_to_ns(ring->recs[seq & ring->mask].t0),
				      .buffer = ring->index, .first_seq = seq };

	memcpy(w.ev, &h, sizeof(h));
	w.cur_tid = ring->tid;
	w.ev_len = sizeof(h);
	w.ev_count = 0;
	w.prev_t0 = h.base_ns;
}

static void events_end(void)
{
	struct gt_events_header *h = (struct gt_events_header *)w.ev;

	if (!w.ev_count)
		return;
	h->count = w.ev_count;
	if (gt_dump_out_chunk(&w.out, GT_CHUNK_EVENTS, w.ev, w.ev_len))
		w.dropped += w.ev_count;        /* no room (ulimit -f) */
	else
		w.events += w.ev_count;
	w.ev_count = 0;
}

/* What the step finder sees of a copy, memset or graph launch: one token
 * per (call, size), apart from launch shapes' ids. */
static uint32_t call_token(const struct gt_rec *r, uint8_t kind)
{
	uint64_t v = kind == GT_KIND_GRAPH ? r->u.obj.handle : r->u.copy.bytes;

	v = (v ^ (v >> 29) ^ ((uint64_t)r->op << 40)) * 0x9e3779b97f4a7c15ull;
	return 0x80000000u | (uint32_t)(v >> 33);
}

/* The step finder's part of the calls that give the GPU work. */
static void steps_see(const struct gt_rec *r, const struct gt_op_desc *d, uint32_t shape,
		      uint64_t t0)
{
	uint8_t kind = d->kind;

	if (kind == GT_KIND_LAUNCH)
		gt_steps_call(w.cur_tid, shape, r->u.launch.func, (uint8_t)r->stack, t0);
	else if (kind == GT_KIND_COPY || kind == GT_KIND_SET || kind == GT_KIND_GRAPH)
		gt_steps_call(w.cur_tid, call_token(r, kind), 0, 0, t0);
	else if (kind == GT_KIND_NVTX && r->u.nvtx.msg &&
		 (d->direction == GT_NVTX_PUSH || d->direction == GT_NVTX_START))
		gt_steps_nvtx(r->u.nvtx.msg, t0);
}

/*
 * Where each argument of format.h's GT_ARGS_<KIND> comes from in a record
 * (r; LAUNCH's shape is found here, in shape, for the step finder too).
 */
#define ARG_LAUNCH_SHAPE (shape = shape_id(r, t0))
#define ARG_LAUNCH_ARGS r->stack
#define ARG_GRAPH_HANDLE r->u.obj.handle
#define ARG_COPY_BYTES r->u.copy.bytes
#define ARG_COPY_SRC r->u.copy.src
#define ARG_COPY_DST r->u.copy.dst
#define ARG_COPY_COUNT r->u.copy.count
#define ARG_COPY_MEMORY r->u.copy.memory
#define ARG_COPY_STACK r->stack
#define ARG_SET_BYTES r->u.copy.bytes
#define ARG_SET_DST r->u.copy.dst
#define ARG_SYNC_HANDLE r->u.obj.handle
#define ARG_SYNC_STACK r->stack
#define ARG_HOSTALLOC_BYTES r->u.copy.bytes
#define ARG_HOSTALLOC_PTR r->u.copy.src
#define ARG_HOSTALLOC_FLAGS r->u.copy.memory
#define ARG_HOSTALLOC_STACK r->stack
#define ARG_NCCL_COUNT r->u.nccl.count
#define ARG_NCCL_BYTES r->u.nccl.bytes
#define ARG_NCCL_COMM r->u.nccl.comm
#define ARG_NCCL_PEER r->u.nccl.peer
#define ARG_NCCL_DTYPE r->u.nccl.dtype
#define ARG_NCCL_REDOP r->u.nccl.redop
#define ARG_NCCL_STACK r->stack
#define ARG_NVTX_MSG r->u.nvtx.msg
#define ARG_NVTX_DOMAIN r->u.nvtx.domain
#define ARG_NVTX_RANGE r->u.nvtx.range
#define ARG_NVTX_CATEGORY r->u.nvtx.category
#define ARG_HOSTSAMPLE_STACK r->stack
#define ARG_HOSTSAMPLE_STATE r->u.host.state
#define ARG_HOSTSAMPLE_INCALL r->u.host.incall
#define ARG_MODULE_HANDLE r->u.obj.handle

#define ENCODE_ARG_(k, a, what) p = gt_varint_put(p, ARG_##k##_##a);
#define ENCODE_KIND_(k, v, what)                                             \
	case GT_KIND_##k:                                                    \
		GT_ARGS_##k(ENCODE_ARG_)                                     \
		break;

static void encode(const struct gt_rec *r)
{
	const struct gt_op_desc *d = &gt_ops[r->op < GT_OP_COUNT ? r->op : 0];
	uint8_t *p = w.ev + w.ev_len;
	uint64_t t0 = gt_tsc_to_ns(r->t0), t1 = gt_tsc_to_ns(r->t1);
	uint32_t shape = 0;

	if (unlikely(!atomic_load_explicit(&w.first_work, memory_order_relaxed)) &&
	    (d->kind == GT_KIND_LAUNCH || d->kind == GT_KIND_COPY ||
	     d->kind == GT_KIND_SET || d->kind == GT_KIND_GRAPH))
		atomic_store_explicit(&w.first_work, t0 ? t0 : 1, memory_order_relaxed);
	p = gt_varint_put(p, r->op);
	p = gt_varint_put(p, gt_zigzag((int64_t)(t0 - w.prev_t0)));
	if (d->kind == GT_KIND_HOSTSAMPLE) {    /* CPU time, and the handler's */
		p = gt_varint_put(p, r->u.host.cpu_ns);
		p = gt_varint_put(p, t1 > t0 ? (uint32_t)(t1 - t0 < UINT32_MAX ?
							 t1 - t0 : UINT32_MAX) : 0);
	} else {
		p = gt_varint_put(p, t1 >= t0 ? t1 - t0 : 0);
		p = gt_varint_put(p, (uint32_t)(int32_t)r->result);
	}
	p = gt_varint_put(p, stream_id(r->stream));
	switch (d->kind) {
	GT_EVENT_KINDS(ENCODE_KIND_)
	default:
		p = gt_varint_put(p, r->u.obj.handle);
		break;
	}
	steps_see(r, d, shape, t0);
	w.prev_t0 = t0;
	w.ev_len = (size_t)(p - w.ev);
	w.ev_count++;
}

static void put_drops(uint32_t tid, uint64_t count)
{
	struct gt_drops d = { .tid = tid, .count = count };

	gt_dump_out_chunk(&w.out, GT_CHUNK_DROPS, &d, sizeof(d));
	w.dropped += count;
}

/* The events chunk ends here: it is as large as a chunk gets, or one
 * more record might not fit under the file size limit. */
static int events_full(void)
{
	return w.ev_len >= EV_CHUNK_MAX ||
	       w.ev_len + EV_REC_MAX + sizeof(struct gt_chunk_header) >
	       gt_dump_out_room(&w.out);
}

/*
 * Encode a ring's records up to its snap.  The tail moves every
 * EV_RELEASE records, not only at the end: a slot is free once encoded,
 * and a long drain (a busy machine takes the CPU from this thread) then
 * does not leave a fast thread's ring full meanwhile.  Once the dump
 * takes no more (ulimit -f), the rest is counted as dropped.
 */
static void drain_ring(struct gt_ring *ring)
{
	uint64_t head = ring->snap;
	uint64_t tail = atomic_load_explicit(&ring->tail, memory_order_relaxed);
	uint64_t drops;

	if (head != tail && gt_dump_out_done(&w.out)) {
		w.dropped += head - tail;       /* the dump is gone: count only */
	} else if (head != tail) {
		events_begin(ring, tail);
		for (uint64_t i = tail; i != head; i++) {
			encode(&ring->recs[i & ring->mask]);
			if (i + 1 != head && events_full()) {
				events_end();
				if (gt_dump_out_done(&w.out)) {
					w.dropped += head - (i + 1);
					break;
				}
				events_begin(ring, i + 1);
			}
			if (((i + 1) & (EV_RELEASE - 1)) == 0)  /* encoded: reusable */
				atomic_store_explicit(&ring->tail, i + 1,
						      memory_order_release);
		}
		events_end();
	}
	atomic_store_explicit(&ring->tail, head, memory_order_release);
	drops = atomic_load_explicit(&ring->drops, memory_order_relaxed);
	if (drops != ring->drops_reported) {
		put_drops(ring->tid, drops - ring->drops_reported);
		ring->drops_reported = drops;
	}
}

__thread int gt_side_quiet __attribute__((tls_model("initial-exec")));

/* Under the lock: the side buffer at least cap bytes; 0, or -1. */
static int side_grow(size_t need)
{
	size_t cap = w.side_cap ? w.side_cap : 64u << 10;
	uint8_t *p;

	if (need <= w.side_cap)
		return 0;
	while (cap < need)
		cap *= 2;
	p = realloc(w.side, cap);
	if (!p)
		return -1;
	w.side = p;
	w.side_cap = cap;
	return 0;
}

/* A quiet chunk (gt_side_quiet): no wait, no growth, no word. */
static int side_quiet_chunk(const struct gt_chunk_header *h, const void *a,
			    size_t an, const void *b, size_t bn)
{
	size_t need = sizeof(*h) + an + bn;

	if (!atomic_load(&w.started))
		return -1;
	if (pthread_mutex_trylock(&w.side_lock))
		return GT_SIDE_AGAIN;
	if (w.side_len + need > w.side_cap) {
		pthread_mutex_unlock(&w.side_lock);
		return GT_SIDE_AGAIN;
	}
	memcpy(w.side + w.side_len, h, sizeof(*h));
	if (an)
		memcpy(w.side + w.side_len + sizeof(*h), a, an);
	if (bn)
		memcpy(w.side + w.side_len + sizeof(*h) + an, b, bn);
	w.side_len += need;
	pthread_mutex_unlock(&w.side_lock);
	return 0;
}

void gt_writer_side_reserve(size_t bytes)
{
	pthread_mutex_lock(&w.side_lock);
	if (side_grow(bytes) == 0 && w.spare_cap < bytes) {
		uint8_t *p = realloc(w.side_spare, bytes);

		if (p) {
			w.side_spare = p;
			w.spare_cap = bytes;
		}
	}
	pthread_mutex_unlock(&w.side_lock);
}

int gt_writer_side_chunk(uint32_t type, const void *a, size_t an,
			 const void *b, size_t bn)
{
	struct gt_chunk_header h = { .type = type, .size = (uint32_t)(an + bn) };
	size_t need = sizeof(h) + an + bn;
	int rc = -1;

	if (gt_side_quiet)
		return side_quiet_chunk(&h, a, an, b, bn);
	pthread_mutex_lock(&w.side_lock);
	if (!atomic_load(&w.started) || w.side_len + need > GT_SIDE_MAX) {
		w.side_lost++;
		goto out;
	}
	if (side_grow(w.side_len + need)) {
		w.side_lost++;
		goto out;
	}
	memcpy(w.side + w.side_len, &h, sizeof(h));
	if (an)
		memcpy(w.side + w.side_len + sizeof(h), a, an);
	if (bn)
		memcpy(w.side + w.side_len + sizeof(h) + an, b, bn);
	w.side_len += need;
	rc = 0;
out:
	pthread_mutex_unlock(&w.side_lock);
	if (rc)
		gt_warn_once("gputrace: side data could not be kept (%s); some "
			     "GPU or sample records are missing\n",
			     atomic_load(&w.started) ? "buffer full" : "no dump");
	return rc;
}

uint32_t gt_writer_string(const char *s, size_t len)
{
	uint32_t id = atomic_fetch_add(&w.next_string, 1) + 1;

	return gt_writer_side_chunk(GT_CHUNK_STRING, &id, sizeof(id), s, len) ? 0 : id;
}

static void hooks_add(struct hooks *h, void (*fn)(int final))
{
	int i = atomic_fetch_add(&h->n, 1);

	if (i < GT_CYCLE_HOOKS)
		atomic_store_explicit(&h->fn[i], fn, memory_order_release);
}

static void hooks_run(struct hooks *h, int final)
{
	int n = atomic_load(&h->n);

	for (int i = 0; i < n && i < GT_CYCLE_HOOKS; i++) {
		void (*fn)(int) = atomic_load_explicit(&h->fn[i], memory_order_acquire);

		if (fn)
			fn(final);
	}
}

void gt_writer_on_cycle(void (*fn)(int final))
{
	hooks_add(&cycle_hooks, fn);
}

void gt_writer_on_end(void (*fn)(int final))
{
	hooks_add(&end_hooks, fn);
}

/* Write what other threads queued; swaps buffers so they never wait long. */
static void put_side_chunks(void)
{
	uint8_t *buf;
	size_t len, cap;

	pthread_mutex_lock(&w.side_lock);
	buf = w.side;
	len = w.side_len;
	cap = w.side_cap;
	w.side = w.side_spare;
	w.side_cap = w.spare_cap;
	w.side_spare = buf;
	w.spare_cap = cap;
	w.side_len = 0;
	pthread_mutex_unlock(&w.side_lock);
	if (len)
		gt_dump_out_chunks(&w.out, buf, len);  /* what fits (ulimit -f) */
}

static int open_dump(void);

/* Whether a ring holds a record not yet drained. */
static int rings_hold_records(void)
{
	for (struct gt_ring *r = gt_ring_first(); r; r = r->next)
		if (atomic_load_explicit(&r->head, memory_order_acquire) !=
		    atomic_load_explicit(&r->tail, memory_order_relaxed))
			return 1;
	return 0;
}

/*
 * A lazy dump (gt_writer_start_lazy) is made once a ring holds a record:
 * 1 when the dump is open (made now or before), 0 while there is none to
 * write into (nothing recorded yet, or it could not be made: tracing off).
 */
static int lazy_open(void)
{
	if (!atomic_load(&w.lazy))
		return w.out.buf != NULL;
	if (!rings_hold_records())
		return 0;
	/* Lazy until the dump is open: the exit path, meeting a dump still
	 * being made, must stop this thread and end it, not leave it empty. */
	if (open_dump()) {
		atomic_store(&gt_active, 0);
		atomic_store(&w.lazy, 0);
		return 0;
	}
	atomic_store(&w.lazy, 0);
	gt_sampler_start();
	return 1;
}

/*
 * One cycle: the rings' heads are read first, then the side chunks are
 * written, then the events up to those heads: whatever another thread
 * queued before an event was published is in the dump before the event.
 */
static void drain(int final)
{
	struct gt_ring *first;
	uint64_t lost;

	if (!lazy_open())
		return;                 /* no dump (yet): side chunks wait */
	hooks_run(&cycle_hooks, final);
	/* Rings are pushed at the head only: walking from the same first ring
	 * twice meets the same rings, each with its snap.  One pushed in
	 * between (a reused ring's snap is stale) waits for the next cycle. */
	first = gt_ring_first();
	for (struct gt_ring *ring = first; ring; ring = ring->next)
		ring->snap = atomic_load_explicit(&ring->head, memory_order_acquire);
	gt_tsc_pair();              /* after the snaps: stamps lie before it */
	put_side_chunks();
	for (struct gt_ring *ring = first; ring; ring = ring->next)
		drain_ring(ring);
	lost = atomic_load(&gt_drops_no_ring);
	if (lost != w.no_ring_reported) {
		put_drops(0, lost - w.no_ring_reported);
		w.no_ring_reported = lost;
	}
	gt_ring_collect();
	gt_dump_out_flush(&w.out);
}

/* A note in the dump, at level 0. */
static void put_note(const char *text, int n)
{
	uint32_t level = 0;

	if (n > 0)
		gt_dump_out_chunk2(&w.out, GT_CHUNK_NOTE, &level, sizeof(level), text,
				   (size_t)n);
}

/* What the tables could not hold, counted, said in the dump. */
static void put_table_notes(void)
{
	char note[256];
	uint64_t unnamed = gt_func_unnamed();

	if (unnamed)
		put_note(note, snprintf(note, sizeof(note), "kernel table full: %llu "
					"launches of kernels beyond the first %u "
					"(GPUTRACE_MAX_FUNCTIONS) have no name",
					(unsigned long long)unnamed, gt_cfg.max_functions));
	if (w.shapes_over)
		put_note(note, snprintf(note, sizeof(note), "launch shape table full: "
					"%llu launches of shapes beyond the first %u "
					"count under their kernel's shape 0x0x0",
					(unsigned long long)w.shapes_over, SHAPES_MAX));
	if (w.streams_over)
		put_note(note, snprintf(note, sizeof(note), "stream table full: %llu "
					"calls on streams beyond the first %u share "
					"one stream (handle 0x%llx)",
					(unsigned long long)w.streams_over, STREAMS_MAX,
					(unsigned long long)STREAM_OTHERS));
}

/*
 * The last drain, the END chunk, the line on stderr: once per dump, by
 * the exit path, exec, or the writer thread when a signal asks.
 */
static void end_dump(void)
{
	struct gt_end end;

	if (atomic_exchange(&w.ended, 1))
		return;
	if (!lazy_open()) {                 /* nothing was recorded: no file */
		atomic_store(&w.end_done, 1);
		gt_futex_wake(&w.end_done);
		return;
	}
	drain(1);                           /* ends with a flush */
	hooks_run(&end_hooks, 1);
	put_side_chunks();                  /* what they said */
	put_table_notes();
	w.end_off = w.out.bytes_written + w.out.len;
	end = (struct gt_end){ .end_ns = gt_now(), .events = w.events,
			       .dropped = w.dropped };
	gt_dump_out_end(&w.out, GT_CHUNK_END, &end, sizeof(end));
	if (gt_dump_out_flush(&w.out) == 0)
		gt_log("gputrace: wrote %s (%llu events, %llu dropped)\n", w.path,
		       (unsigned long long)w.events, (unsigned long long)w.dropped);
	atomic_store(&w.end_done, 1);
	gt_futex_wake(&w.end_done);
}

static __thread int in_writer __attribute__((tls_model("initial-exec")));

/* Wait while *word == seen, until the monotonic time `until` (ns). */
static void wait_until(_Atomic uint32_t *word, uint32_t seen, uint64_t until)
{
	struct timespec ts = { .tv_sec = (time_t)(until / 1000000000u),
			       .tv_nsec = (long)(until % 1000000000u) };

	syscall(SYS_futex, (uint32_t *)word, FUTEX_WAIT_BITSET_PRIVATE, seen,
		&ts, NULL, FUTEX_BITSET_MATCH_ANY);
}

/*
 * Drain every flush_ms, counted from the start of the last drain (a
 * program killed outright loses what came after the last drain's start:
 * the period, plus the time one drain takes to write); woken early by
 * gt_writer_finish, a signal, a thread that needs a ring, or one whose
 * ring is half full (gt_writer_wake).
 */
static void *writer_main(void *arg)
{
	uint64_t period = (uint64_t)gt_cfg.flush_ms * 1000000u;
	uint64_t next = gt_now() + period, start;
	uint32_t seen = atomic_load(&w.wake);

	in_writer = 1;
	atomic_fetch_add(&gt_own_threads, 1);
	for (;;) {
		if (atomic_load(&w.stop))
			break;
		if (atomic_load(&w.end_req)) {
			end_dump();
			break;
		}
		wait_until(&w.wake, seen, next);
		seen = atomic_load(&w.wake);    /* a wake during the drain counts */
		if (atomic_load(&w.stop) || atomic_load(&w.end_req))
			continue;
		start = gt_now();
		drain(0);
		atomic_store(&w.beat, gt_now());
		atomic_fetch_add(&w.cycles, 1);
		gt_futex_wake(&w.cycles);
		next = start + period;
	}
	atomic_store(&w.alive, 0);
	atomic_fetch_sub(&gt_own_threads, 1);
	return NULL;
}

static void start_thread(void)
{
	sigset_t all, old;

	sigfillset(&all);                   /* signals go to the program's threads */
	pthread_sigmask(SIG_SETMASK, &all, &old);
	atomic_store(&w.beat, gt_now());    /* the stall watch counts from here */
	atomic_store(&w.alive, 1);
	w.thread_running = pthread_create(&w.thread, NULL, writer_main, NULL) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!w.thread_running) {
		atomic_store(&w.alive, 0);
		gt_log("gputrace: cannot start the writer thread; events beyond the "
		       "buffers are dropped\n");
	}
}

int gt_writer_foreign(void)
{
	return w.pid && w.pid != getpid();
}

void gt_writer_wake(void)
{
	atomic_fetch_add(&w.wake, 1);
	gt_futex_wake(&w.wake);
}

static void stop_thread(void)
{
	if (!w.thread_running || gt_writer_foreign())
		return;                 /* none, or a parent's: not here */
	atomic_store(&w.stop, 1);
	gt_writer_wake();
	pthread_join(w.thread, NULL);
	w.thread_running = 0;
	atomic_store(&w.stop, 0);
}

int gt_writer_cycle_wait(unsigned ms)
{
	uint64_t deadline = gt_now() + (uint64_t)ms * 1000000u, now;
	uint32_t want = atomic_load(&w.cycles) + 2, seen;

	if (!atomic_load(&w.alive) || in_writer)
		return -1;
	while ((int32_t)((seen = atomic_load(&w.cycles)) - want) < 0) {
		if ((now = gt_now()) >= deadline || !atomic_load(&w.alive))
			return -1;
		gt_writer_wake();
		gt_futex_wait(&w.cycles, seen,
			      (unsigned)((deadline - now) / 1000000u) + 1);
	}
	return 0;
}

int gt_writer_end_async(unsigned ms)
{
	uint64_t deadline = gt_now() + (uint64_t)ms * 1000000u, now;

	if (!atomic_load(&w.started) || !atomic_load(&w.alive) || in_writer ||
	    gt_writer_foreign())
		return atomic_load(&w.end_done) ? 0 : -1;
	atomic_store(&w.end_req, 1);
	gt_writer_wake();
	while (!atomic_load(&w.end_done) && (now = gt_now()) < deadline)
		gt_futex_wait(&w.end_done, 0,
			      (unsigned)((deadline - now) / 1000000u) + 1);
	return atomic_load(&w.end_done) ? 0 : -1;
}

static int open_dump(void)
{
	struct gt_file_header h = {
		.magic = GT_MAGIC, .version = GT_FORMAT_VERSION,
		.min_reader = GT_FORMAT_MIN_READER, .header_size = sizeof(h),
		.endian = GT_ENDIAN_MARK, .clock_id = GT_CLOCK_MONOTONIC,
		.start_ns = gt_start_ns, .start_realtime_ns = gt_start_realtime_ns,
		.pid = (uint32_t)getpid(), .run_id = gt_cfg.run_id,
	};
	int fd;

	if (gt_output_expand(gt_cfg.output, w.path, sizeof(w.path))) {
		gt_log("gputrace: GPUTRACE_OUTPUT '%s' expands to nothing usable; "
		       "tracing off\n", gt_cfg.output);
		return -1;
	}
	fd = gt_output_create(w.path, sizeof(w.path));
	if (fd == -ENXIO) {
		gt_log("gputrace: '%s' takes no writes (a FIFO no one reads, or a "
		       "descriptor that is neither a device nor a pipe); tracing "
		       "off\n", w.path);
		return -1;
	}
	if (fd < 0) {
		gt_log("gputrace: cannot create '%s': %s; tracing off\n", w.path,
		       strerror(-fd));
		return -1;
	}
	if (gt_dump_out_open(&w.out, fd, w.path)) {
		gt_own_close(&w.out.file);
		unlink(w.path);
		return -1;
	}
	gt_dump_out_header(&w.out, &h, sizeof(h));
	gt_put_process_info(&w.out);
	put_ops();
	return gt_dump_out_flush(&w.out);
}

void gt_writer_start(void)
{
	if (atomic_exchange(&w.started, 1))
		return;
	w.pid = getpid();
	if (open_dump()) {
		atomic_store(&gt_active, 0);
		return;
	}
	start_thread();
	gt_signals_arm();                   /* a dump to end: watch signals */
	if (start_hook)
		start_hook();               /* the host sampler's */
	gt_sampler_start();                 /* environment, then samples */
}

void gt_writer_start_lazy(void)
{
	if (atomic_exchange(&w.started, 1))
		return;
	w.pid = getpid();
	atomic_store(&w.lazy, 1);
	start_thread();
	gt_signals_arm();
	if (start_hook)
		start_hook();
}

void gt_writer_on_start(void (*fn)(void))
{
	start_hook = fn;
}

/* A dump to end: open, or lazy (made now if a ring holds a record). */
static int has_dump(void)
{
	return atomic_load(&w.started) && !gt_writer_foreign() &&
	       (w.out.buf || atomic_load(&w.lazy));
}

void gt_writer_finish(void)
{
	if (!has_dump())
		return;
	stop_thread();
	end_dump();
	gt_dump_out_close(&w.out);
	gt_idmap_free(&w.shapes);
	gt_idmap_free(&w.streams);
}

int gt_writer_exec_end(void)
{
	if (!has_dump() || (w.out.buf && w.out.file.fd < 0) ||
	    atomic_load(&w.ended))
		return 0;               /* no dump, or a vfork parent's */
	stop_thread();
	end_dump();
	return 1;
}

void gt_writer_exec_failed(void)
{
	int fd = w.out.file.fd;

	if (!w.out.buf && atomic_load(&w.lazy)) {  /* still none: go on */
		atomic_store(&w.end_done, 0);
		atomic_store(&w.ended, 0);
		start_thread();
		return;
	}

	if (!gt_dump_out_ours(&w.out) || ftruncate(fd, (off_t)w.end_off) ||
	    lseek(fd, (off_t)w.end_off, SEEK_SET) < 0)
		return;                 /* the dump stays as it ended */
	w.out.bytes_written = w.end_off;
	atomic_store(&w.end_done, 0);
	atomic_store(&w.ended, 0);
	start_thread();
}

void gt_writer_forget(void)
{
	if (w.out.buf)
		gt_dump_out_forget(&w.out);
	gt_idmap_free(&w.shapes);
	gt_idmap_free(&w.streams);
	memset(&w, 0, offsetof(__typeof__(w), ev));
	atomic_store(&w.first_work, 0);
	atomic_store(&w.beat, 0);
	pthread_mutex_init(&w.side_lock, NULL);
}

uint64_t gt_writer_first_work(void)
{
	return atomic_load_explicit(&w.first_work, memory_order_relaxed);
}

uint64_t gt_writer_beat(void)
{
	return atomic_load(&w.alive) ? atomic_load(&w.beat) : 0;
}
