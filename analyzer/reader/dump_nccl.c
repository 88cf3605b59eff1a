/* SPDX-License-Identifier: MIT */
/*
 * dump_nccl.c - check the NCCL chunks of a dump (GT_CHUNK_NCCL_COMM and
 * GT_CHUNK_NCCL_PROF) and hand them out as records.  Like every chunk,
 * they may be longer than the structs we know, never shorter, and may
 * name only strings already defined.
 */
#include <string.h>

#include "analyzer/reader/dump_internal.h"

_Static_assert(sizeof(struct gt_nccl_comm) == 72, "nccl comm layout");
_Static_assert(sizeof(struct gt_nccl_prof) == 80, "nccl prof layout");
_Static_assert(sizeof(struct gt_nccl_prof_header) == 8, "nccl prof header");

static int bad_ref(struct dump_reader *r, uint32_t id, const char *what)
{
	if (id == 0 || dump_string(r, id))
		return 0;
	return dump_corrupt(r, "%s names string %u, which is not defined",
			    what, id);
}

int dump_parse_nccl_comm(struct dump_reader *r, struct dump_record *rec)
{
	if (r->ch.size < sizeof(rec->nccl_comm))
		return dump_corrupt(r, "nccl communicator record of %u bytes is "
				    "too short", r->ch.size);
	memcpy(&rec->nccl_comm, r->buf, sizeof(rec->nccl_comm));
	if (rec->nccl_comm.id == 0)
		return dump_corrupt(r, "nccl communicator id 0 is reserved");
	return bad_ref(r, rec->nccl_comm.name_str, "nccl communicator") < 0 ? -1 : 1;
}

int dump_parse_nccl_prof(struct dump_reader *r, struct dump_record *rec)
{
	struct gt_nccl_prof_header h;
	size_t room;

	if (r->ch.size < sizeof(h))
		return dump_corrupt(r, "nccl profiler record of %u bytes is too "
				    "short", r->ch.size);
	memcpy(&h, r->buf, sizeof(h));
	room = r->ch.size - sizeof(h);
	if (h.size < sizeof(struct gt_nccl_prof) || h.count > room / h.size ||
	    room != (size_t)h.count * h.size)
		return dump_corrupt(r, "nccl profiler record: %u records of %u "
				    "bytes in %zu bytes", h.count, h.size, room);
	for (uint32_t i = 0; i < h.count; i++) {
		struct gt_nccl_prof p;

		memcpy(&p, r->buf + sizeof(h) + (size_t)i * h.size, sizeof(p));
		if (bad_ref(r, p.func_str, "nccl profiler record") < 0 ||
		    bad_ref(r, p.dtype_str, "nccl profiler record") < 0 ||
		    bad_ref(r, p.algo_str, "nccl profiler record") < 0 ||
		    bad_ref(r, p.proto_str, "nccl profiler record") < 0)
			return -1;
	}
	rec->nccl_prof.recs = r->buf + sizeof(h);
	rec->nccl_prof.count = h.count;
	rec->nccl_prof.size = h.size;
	return 1;
}
