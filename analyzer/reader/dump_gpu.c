/* SPDX-License-Identifier: MIT */
/*
 * dump_gpu.c - check and decode the GPU timeline chunks: GPU records
 * (GT_CHUNK_GPU), windows (GT_CHUNK_WINDOW) and clock pairs
 * (GT_CHUNK_CLOCK).  Records may be longer than the structs we know,
 * never shorter; the count must fill the chunk exactly.
 */
#include <string.h>

#include "analyzer/reader/dump_internal.h"

_Static_assert(sizeof(struct gt_gpu_header) == 16, "gpu header layout");
_Static_assert(sizeof(struct gt_gpu_kernel) == 88, "gpu kernel layout");
_Static_assert(sizeof(struct gt_gpu_copy) == 48, "gpu copy layout");
_Static_assert(sizeof(struct gt_gpu_span) == 40, "gpu span layout");
_Static_assert(sizeof(struct gt_gpu_state) == 32, "gpu state layout");
_Static_assert(sizeof(struct gt_gpu_drops) == 32, "gpu drops layout");
_Static_assert(sizeof(struct gt_gpu_window) == 24, "window layout");
_Static_assert(sizeof(struct gt_clock_pair) == 24, "clock pair layout");

/* The smallest record of a kind we know, 0 for a kind we do not. */
static size_t kind_size(uint32_t kind)
{
	switch (kind) {
	case GT_GPU_KERNEL:
		return sizeof(struct gt_gpu_kernel);
	case GT_GPU_MEMCPY:
	case GT_GPU_MEMSET:
		return sizeof(struct gt_gpu_copy);
	case GT_GPU_SYNC:
	case GT_GPU_GRAPH:
		return sizeof(struct gt_gpu_span);
	case GT_GPU_STATE:
		return sizeof(struct gt_gpu_state);
	case GT_GPU_DROPS:
		return sizeof(struct gt_gpu_drops);
	default:
		return 0;
	}
}

int dump_parse_gpu(struct dump_reader *r, struct dump_record *rec)
{
	struct gt_gpu_header h;
	size_t payload, min;

	if (r->ch.size < sizeof(h))
		return dump_corrupt(r, "gpu record of %u bytes is too short",
				    r->ch.size);
	memcpy(&h, r->buf, sizeof(h));
	payload = r->ch.size - sizeof(h);
	min = kind_size(h.kind);
	if (!min)
		return 0;               /* a newer kind: skip it */
	if (h.rec_size < min)
		return dump_corrupt(r, "gpu records of kind %u are %u bytes, "
				    "need %zu", h.kind, h.rec_size, min);
	if ((uint64_t)h.count * h.rec_size != payload)
		return dump_corrupt(r, "gpu chunk claims %u records of %u bytes "
				    "in %zu bytes", h.count, h.rec_size, payload);
	rec->gpu.h = h;
	rec->gpu.recs = r->buf + sizeof(h);
	return 1;
}

int dump_parse_window(struct dump_reader *r, struct dump_record *rec)
{
	if (r->ch.size < sizeof(rec->window))
		return dump_corrupt(r, "window record of %u bytes is too short",
				    r->ch.size);
	memcpy(&rec->window, r->buf, sizeof(rec->window));
	if (rec->window.end_ns && rec->window.end_ns < rec->window.start_ns)
		return dump_corrupt(r, "window ends before it starts");
	return 1;
}

int dump_parse_clock(struct dump_reader *r, struct dump_record *rec)
{
	if (r->ch.size < sizeof(rec->clock))
		return dump_corrupt(r, "clock record of %u bytes is too short",
				    r->ch.size);
	memcpy(&rec->clock, r->buf, sizeof(rec->clock));
	return 1;
}
