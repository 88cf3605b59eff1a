/* SPDX-License-Identifier: MIT */
/*
 * cupti_records.c - CUPTI activity records into GT_CHUNK_GPU records,
 * joined to host events (writer thread only).
 *
 * Two passes over the buffers a cycle brought.  The first reads what ties
 * CUPTI's correlation ids to our ids:
 *   - an external correlation record: correlation id (of the driver call
 *     our wrapper made) -> our id, just before that call's API record;
 *   - a driver API record with such an id: the thread's last traced call;
 *   - a runtime API record that encloses that driver call on the same
 *     thread: the runtime call's correlation id -> the same id (CUPTI
 *     gives kernels launched through cudart the runtime call's id).
 * The second converts kernels, copies, memsets, syncs and graphs.  A
 * record whose id is not known yet waits (its API records may come in a
 * later buffer) until two more batches of buffers came, then is written
 * without a host id.
 */
#include <stdlib.h>
#include <string.h>

#include "include/gputrace/format.h"
#include "preload/cupti_internal.h"
#include "preload/internal.h"
#include "preload/writer.h"

#define EXT_SLOTS (1u << 18)        /* correlation id -> our id */
#define TID_SLOTS 1024              /* thread -> its last traced driver call */
#define NAME_SLOTS (1u << 14)       /* kernel names interned */
#define STAGE_MAX 512               /* records per chunk */
#define WAIT_MAX 8192               /* records waiting for their id */

struct ext_slot {
	uint32_t corr;
	uint32_t used;
	uint64_t id;
};

struct tid_slot {
	uint32_t tid;
	uint32_t used;
	uint64_t start, end, id;
};

struct name_slot {
	uint64_t hash;
	uint32_t id;
};

/* A converted record of any kind, as it waits or is staged. */
union gpu_rec {
	struct gt_gpu_kernel k;
	struct gt_gpu_copy c;
	struct gt_gpu_span s;
};

struct waiting {
	uint32_t kind;              /* enum gt_gpu_kind */
	uint32_t age;               /* batches it has waited through */
	union gpu_rec r;
};

struct stage {
	uint32_t kind;
	size_t size;
	size_t n;
	union gpu_rec r[STAGE_MAX];
};

static struct {
	struct ext_slot *ext;
	struct tid_slot tid[TID_SLOTS];
	struct name_slot *names;
	struct waiting *wait;           /* records without their id yet */
	size_t nwait;
	struct stage *stage[GT_GPU_DROPS];
	uint64_t written, lost, joined_work;
} rj;

int gt_records_init(void)
{
	static const uint32_t sizes[] = {
		[GT_GPU_KERNEL] = sizeof(struct gt_gpu_kernel),
		[GT_GPU_MEMCPY] = sizeof(struct gt_gpu_copy),
		[GT_GPU_MEMSET] = sizeof(struct gt_gpu_copy),
		[GT_GPU_SYNC] = sizeof(struct gt_gpu_span),
		[GT_GPU_GRAPH] = sizeof(struct gt_gpu_span),
	};

	if (rj.ext)
		return 0;
	rj.ext = calloc(EXT_SLOTS, sizeof(*rj.ext));
	rj.names = calloc(NAME_SLOTS, sizeof(*rj.names));
	rj.wait = calloc(WAIT_MAX, sizeof(*rj.wait));
	for (uint32_t k = GT_GPU_KERNEL; k <= GT_GPU_GRAPH; k++) {
		rj.stage[k] = calloc(1, sizeof(struct stage));
		if (!rj.stage[k])
			return -1;
		rj.stage[k]->kind = k;
		rj.stage[k]->size = sizes[k];
	}
	return rj.ext && rj.names && rj.wait ? 0 : -1;
}

/* ---- the join tables ---------------------------------------------------- */

static void ext_put(uint32_t corr, uint64_t id)
{
	struct ext_slot *s = &rj.ext[corr & (EXT_SLOTS - 1)];

	s->corr = corr;
	s->id = id;
	s->used = 1;
}

static uint64_t ext_get(uint32_t corr)
{
	const struct ext_slot *s = &rj.ext[corr & (EXT_SLOTS - 1)];

	return s->used && s->corr == corr ? s->id : 0;
}

static struct tid_slot *tid_slot(uint32_t tid)
{
	uint32_t h = (tid * 2654435761u) & (TID_SLOTS - 1);

	for (unsigned i = 0; i < 8; i++) {
		struct tid_slot *s = &rj.tid[(h + i) & (TID_SLOTS - 1)];

		if (!s->used || s->tid == tid)
			return s;
	}
	return &rj.tid[h];          /* crowded: the oldest neighbour goes */
}

static void api_record(const CUpti_ActivityAPI *a)
{
	struct tid_slot *t = tid_slot(a->threadId);
	uint64_t id;

	if (a->kind == CUPTI_ACTIVITY_KIND_DRIVER) {
		id = ext_get(a->correlationId);
		if (!id)
			return;
		*t = (struct tid_slot){ .tid = a->threadId, .used = 1,
					.start = a->start, .end = a->end, .id = id };
	} else if (t->used && t->tid == a->threadId && t->start >= a->start &&
		   t->end <= a->end && !ext_get(a->correlationId)) {
		ext_put(a->correlationId, t->id);   /* the runtime call around it */
	}
}

static void join_pass(const uint8_t *buf, size_t valid)
{
	CUpti_Activity *rec = NULL;

	while (gt_cupti.cuptiActivityGetNextRecord((uint8_t *)buf, valid, &rec) ==
	       CUPTI_SUCCESS) {
		if (rec->kind == CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION) {
			const CUpti_ActivityExternalCorrelation *e = (const void *)rec;

			if (e->externalKind == CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0)
				ext_put(e->correlationId, e->externalId);
		} else if (rec->kind == CUPTI_ACTIVITY_KIND_DRIVER ||
			   rec->kind == CUPTI_ACTIVITY_KIND_RUNTIME) {
			api_record((const CUpti_ActivityAPI *)rec);
		}
	}
}

/* ---- output --------------------------------------------------------------- */

static uint64_t fnv1a(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 1099511628211ull;
	return h | 1;               /* 0 marks a free slot */
}

static uint32_t name_id(const char *name)
{
	uint64_t h;
	uint32_t i;

	if (!name || !*name)
		return 0;
	h = fnv1a(name);
	for (i = 0; i < 16; i++) {
		struct name_slot *s = &rj.names[(h + i) & (NAME_SLOTS - 1)];

		if (s->hash == h)
			return s->id;
		if (!s->hash) {
			s->id = gt_writer_string(name, strlen(name));
			s->hash = s->id ? h : 0;
			return s->id;
		}
	}
	return 0;                   /* the table is full: unnamed */
}

static void stage_flush(struct stage *st)
{
	struct gt_gpu_header h = { .kind = st->kind, .count = (uint32_t)st->n,
				   .rec_size = (uint32_t)st->size };
	uint8_t packed[STAGE_MAX * sizeof(union gpu_rec)];

	if (!st->n)
		return;
	for (size_t i = 0; i < st->n; i++)
		memcpy(packed + i * st->size, &st->r[i], st->size);
	if (gt_writer_side_chunk(GT_CHUNK_GPU, &h, sizeof(h), packed,
				 st->n * st->size) == 0)
		rj.written += st->n;
	else
		rj.lost += st->n;
	st->n = 0;
}

static void emit(uint32_t kind, const union gpu_rec *r)
{
	struct stage *st = rj.stage[kind];

	if (r->k.host_id && kind <= GT_GPU_MEMSET)
		rj.joined_work++;
	st->r[st->n++] = *r;
	if (st->n == STAGE_MAX)
		stage_flush(st);
}

/* Write r now if its id is known, else let it wait for later buffers. */
static void emit_or_wait(uint32_t kind, union gpu_rec *r, uint32_t corr,
			 int final)
{
	r->k.host_id = ext_get(corr);   /* host_id leads every struct */
	if (r->k.host_id || final || rj.nwait == WAIT_MAX) {
		emit(kind, r);
		return;
	}
	rj.wait[rj.nwait++] = (struct waiting){ .kind = kind, .r = *r };
}

/* ---- conversion ------------------------------------------------------------ */

static void kernel(const CUpti_ActivityKernel10 *a, int final)
{
	union gpu_rec r = { .k = {
		.start = a->start, .end = a->end, .queued = a->queued,
		.submitted = a->submitted, .correlation = a->correlationId,
		.stream = a->streamId, .device = a->deviceId,
		.name_str = name_id(a->name),
		.grid = { a->gridX, a->gridY, a->gridZ },
		.block = { a->blockX, a->blockY, a->blockZ },
		.graph_id = a->graphId,
	} };

	emit_or_wait(GT_GPU_KERNEL, &r, a->correlationId, final);
}

/* Copies and peer copies: two CUPTI record types with the same fields. */
#define MEMCPY_REC(a, final)                                                   \
	do {                                                                   \
		union gpu_rec r_ = { .c = {                                    \
			.start = (a)->start, .end = (a)->end, .bytes = (a)->bytes, \
			.correlation = (a)->correlationId, .stream = (a)->streamId, \
			.device = (a)->deviceId, .copy_kind = (a)->copyKind,   \
			.src_kind = (a)->srcKind, .dst_kind = (a)->dstKind,    \
			.flags = (a)->flags,                                   \
		} };                                                           \
		emit_or_wait(GT_GPU_MEMCPY, &r_, (a)->correlationId, (final)); \
	} while (0)

static void memcpy_rec(const CUpti_ActivityMemcpy6 *a, int final)
{
	MEMCPY_REC(a, final);
}

static void memcpy_p2p(const CUpti_ActivityMemcpyPtoP4 *a, int final)
{
	MEMCPY_REC(a, final);
}

static void memset_rec(const CUpti_ActivityMemset4 *a, int final)
{
	union gpu_rec r = { .c = {
		.start = a->start, .end = a->end, .bytes = a->bytes,
		.correlation = a->correlationId, .stream = a->streamId,
		.device = a->deviceId, .dst_kind = (uint8_t)a->memoryKind,
		.flags = (uint8_t)a->flags,
	} };

	emit_or_wait(GT_GPU_MEMSET, &r, a->correlationId, final);
}

static void sync_rec(const CUpti_ActivitySynchronization2 *a, int final)
{
	union gpu_rec r = { .s = {
		.start = a->start, .end = a->end, .correlation = a->correlationId,
		.stream = a->streamId, .type = (uint32_t)a->type,
	} };

	emit_or_wait(GT_GPU_SYNC, &r, a->correlationId, final);
}

static void graph_rec(const CUpti_ActivityGraphTrace2 *a, int final)
{
	union gpu_rec r = { .s = {
		.start = a->start, .end = a->end, .correlation = a->correlationId,
		.stream = a->streamId, .device = a->deviceId, .type = a->graphId,
	} };

	emit_or_wait(GT_GPU_GRAPH, &r, a->correlationId, final);
}

static void convert_pass(const uint8_t *buf, size_t valid, int final)
{
	CUpti_Activity *rec = NULL;

	while (gt_cupti.cuptiActivityGetNextRecord((uint8_t *)buf, valid, &rec) ==
	       CUPTI_SUCCESS) {
		switch (rec->kind) {
		case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
		case CUPTI_ACTIVITY_KIND_KERNEL:
			kernel((const void *)rec, final);
			break;
		case CUPTI_ACTIVITY_KIND_MEMCPY:
			memcpy_rec((const void *)rec, final);
			break;
		case CUPTI_ACTIVITY_KIND_MEMCPY2:
			memcpy_p2p((const void *)rec, final);
			break;
		case CUPTI_ACTIVITY_KIND_MEMSET:
			memset_rec((const void *)rec, final);
			break;
		case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
			sync_rec((const void *)rec, final);
			break;
		case CUPTI_ACTIVITY_KIND_GRAPH_TRACE:
			graph_rec((const void *)rec, final);
			break;
		default:
			break;
		}
	}
}

static uint32_t correlation(const struct waiting *w)
{
	if (w->kind == GT_GPU_KERNEL)
		return w->r.k.correlation;
	return w->kind <= GT_GPU_MEMSET ? w->r.c.correlation : w->r.s.correlation;
}

/* Waiting records, after a new batch: joined now, or written without an
 * id once they waited through two batches (or at the end). */
static void retry_waiting(int final)
{
	size_t kept = 0;

	for (size_t i = 0; i < rj.nwait; i++) {
		struct waiting *w = &rj.wait[i];

		w->r.k.host_id = ext_get(correlation(w));
		if (w->r.k.host_id || final || ++w->age >= 2)
			emit(w->kind, &w->r);
		else
			rj.wait[kept++] = *w;
	}
	rj.nwait = kept;
}

void gt_records_process(struct gt_filled *f, int final)
{
	if (!rj.ext || (!f->n && !final))
		return;
	for (size_t i = 0; i < f->n; i++)
		join_pass(f->buf[i], f->valid[i]);
	retry_waiting(final);
	for (size_t i = 0; i < f->n; i++)
		convert_pass(f->buf[i], f->valid[i], final);
	for (uint32_t k = GT_GPU_KERNEL; k <= GT_GPU_GRAPH; k++)
		stage_flush(rj.stage[k]);
}

uint64_t gt_records_written(void)
{
	return rj.written;
}

uint64_t gt_records_lost(void)
{
	return rj.lost;
}

uint64_t gt_records_joined_work(void)
{
	return rj.joined_work;
}
