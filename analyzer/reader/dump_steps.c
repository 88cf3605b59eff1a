/* SPDX-License-Identifier: MIT */
/*
 * dump_steps.c - check the chunks in which the library said where the
 * program's steps began (GT_CHUNK_STEPS) and what switching CUPTI on and
 * off for each GPU window spanned (GT_CHUNK_SWITCH), and hand them out as
 * records.  A steps chunk's deltas are checked here once, so that its
 * readers (dump_steps_next) need not check them again.
 */
#include <string.h>

#include "analyzer/reader/dump_internal.h"
#include "gputrace/varint.h"

_Static_assert(sizeof(struct gt_steps_header) == 32, "steps header layout");
_Static_assert(sizeof(struct gt_gpu_switch) == 32, "switch layout");

int dump_parse_steps(struct dump_reader *r, struct dump_record *rec)
{
	struct gt_steps_header h;
	const uint8_t *p, *end;
	uint64_t d;

	if (r->ch.size < sizeof(h))
		return dump_corrupt(r, "steps record of %u bytes is too short",
				    r->ch.size);
	memcpy(&h, r->buf, sizeof(h));
	if (!h.count || !h.seq)
		return dump_corrupt(r, "steps record with %u steps from number %llu",
				    h.count, (unsigned long long)h.seq);
	p = r->buf + sizeof(h);
	end = r->buf + r->ch.size;
	for (uint32_t i = 1; i < h.count; i++)
		if (gt_varint_get(&p, end, &d) || !d)
			return dump_corrupt(r, "steps record: step %u of %u is bad", i,
					    h.count);
	if (p != end)
		return dump_corrupt(r, "steps record: bytes after its %u steps",
				    h.count);
	rec->steps.h = h;
	rec->steps.deltas = r->buf + sizeof(h);
	rec->steps.end = end;
	return 1;
}

int dump_parse_switch(struct dump_reader *r, struct dump_record *rec)
{
	if (r->ch.size < sizeof(rec->gswitch))
		return dump_corrupt(r, "switch record of %u bytes is too short",
				    r->ch.size);
	memcpy(&rec->gswitch, r->buf, sizeof(rec->gswitch));
	if (rec->gswitch.off_ns && rec->gswitch.off_ns < rec->gswitch.attach_ns)
		return dump_corrupt(r, "switch record ends before it starts");
	return 1;
}

uint64_t dump_steps_next(const struct dump_record *rec, const uint8_t **pos,
			 uint64_t prev)
{
	uint64_t d = 0;

	if (!*pos) {
		*pos = rec->steps.deltas;
		return rec->steps.h.first_ns;
	}
	gt_varint_get(pos, rec->steps.end, &d);
	return prev + d;
}
