/* SPDX-License-Identifier: MIT */
/*
 * cupti_records.c - CUPTI activity records into GT_CHUNK_GPU records,
 * joined to host events (writer thread only).
 *
 * The join itself is cupti_corr.c's: each record's correlation id names
 * the host event that caused it.  A record whose id is not known yet
 * (its call has not returned when the buffer came) waits until two more
 * batches of buffers came, then is written without a host id.
 */
#include <stdlib.h>
#include <string.h>

#include "include/gputrace/format.h"
#include "preload/gpu/cupti_internal.h"
#include "preload/base/internal.h"
#include "preload/record/writer.h"

#define NAME_SLOTS (1u << 14)       /* kernel names interned */
#define STAGE_MAX 512               /* records per chunk */
#define WAIT_MAX 8192               /* records waiting for their id */

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
	int ready;
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

	if (rj.ready)
		return 0;
	rj.names = calloc(NAME_SLOTS, sizeof(*rj.names));
	rj.wait = calloc(WAIT_MAX, sizeof(*rj.wait));
	for (uint32_t k = GT_GPU_KERNEL; k <= GT_GPU_GRAPH; k++) {
		rj.stage[k] = calloc(1, sizeof(struct stage));
		if (!rj.stage[k])
			return -1;
		rj.stage[k]->kind = k;
		rj.stage[k]->size = sizes[k];
	}
	rj.ready = rj.names && rj.wait;
	return rj.ready ? 0 : -1;
}

/* GPUTRACE_DEBUG=3: the first records, as CUPTI gave them (for finding
 * why records do not join on a new CUDA version). */
static void debug_record(const CUpti_Activity *rec)
{
	static unsigned shown;
	const CUpti_ActivityKernel10 *k = (const void *)rec;
	const CUpti_ActivityMemcpy6 *c = (const void *)rec;

	if (gt_cfg.debug < 3 || shown++ >= 200)
		return;
	if (rec->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)
		gt_log("cupti rec kernel corr=%u %llu..%llu joins %#llx\n",
		       k->correlationId, (unsigned long long)k->start,
		       (unsigned long long)k->end,
		       (unsigned long long)gt_corr_get(k->correlationId, 0));
	else if (rec->kind == CUPTI_ACTIVITY_KIND_MEMCPY)
		gt_log("cupti rec memcpy corr=%u bytes=%llu joins %#llx\n",
		       c->correlationId, (unsigned long long)c->bytes,
		       (unsigned long long)gt_corr_get(c->correlationId, 0));
	else
		gt_log("cupti rec kind=%d\n", (int)rec->kind);
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
	r->k.host_id = gt_corr_get(corr, kind == GT_GPU_SYNC); /* leads every struct */
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
		debug_record(rec);
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

		w->r.k.host_id = gt_corr_get(correlation(w), w->kind == GT_GPU_SYNC);
		if (w->r.k.host_id || final || ++w->age >= 2)
			emit(w->kind, &w->r);
		else
			rj.wait[kept++] = *w;
	}
	rj.nwait = kept;
}

void gt_records_process(struct gt_filled *f, int final)
{
	if (!rj.ready || (!f->n && !final))
		return;
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
