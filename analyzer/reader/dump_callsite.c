/* SPDX-License-Identifier: MIT */
/*
 * dump_callsite.c - check the call stack chunks of a dump (GT_CHUNK_STACK
 * and GT_CHUNK_MODULES) and hand them out as records.  Frames and modules
 * must fit in the chunk (it may be longer, never shorter) and may name
 * only strings already defined.
 */
#include <string.h>

#include "analyzer/reader/dump_internal.h"

_Static_assert(sizeof(struct gt_stack) == 8, "stack layout");
_Static_assert(sizeof(struct gt_pyframe) == 16, "python frame layout");
_Static_assert(sizeof(struct gt_module) == 64, "module layout");

#define MODULES_HEAD 8              /* uint32_t count, uint32_t reserved */

static int bad_ref(struct dump_reader *r, uint32_t id, const char *what)
{
	if (id == 0 || dump_string(r, id))
		return 0;
	return dump_corrupt(r, "%s names string %u, which is not defined",
			    what, id);
}

int dump_parse_stack(struct dump_reader *r, struct dump_record *rec)
{
	struct gt_stack h;
	const uint8_t *py;
	size_t need;

	if (r->ch.size < sizeof(h))
		return dump_corrupt(r, "stack record of %u bytes is too short",
				    r->ch.size);
	memcpy(&h, r->buf, sizeof(h));
	if (h.id == 0)
		return dump_corrupt(r, "stack id 0 is reserved");
	need = sizeof(h) + (size_t)h.native * sizeof(uint64_t) +
	       (size_t)h.python * sizeof(struct gt_pyframe);
	if (r->ch.size < need)
		return dump_corrupt(r, "stack record: %u native and %u python "
				    "frames in %u bytes", h.native, h.python,
				    r->ch.size);
	py = r->buf + sizeof(h) + (size_t)h.native * sizeof(uint64_t);
	for (uint32_t i = 0; i < h.python; i++) {
		struct gt_pyframe f;

		memcpy(&f, py + i * sizeof(f), sizeof(f));
		if (bad_ref(r, f.file_str, "stack record") < 0 ||
		    bad_ref(r, f.func_str, "stack record") < 0)
			return -1;
	}
	rec->stack.id = h.id;
	rec->stack.native = h.native;
	rec->stack.python = h.python;
	rec->stack.pcs = r->buf + sizeof(h);
	rec->stack.frames = py;
	return 1;
}

int dump_parse_modules(struct dump_reader *r, struct dump_record *rec)
{
	uint32_t count;

	if (r->ch.size < MODULES_HEAD)
		return dump_corrupt(r, "modules record of %u bytes is too short",
				    r->ch.size);
	memcpy(&count, r->buf, sizeof(count));
	if (count > (r->ch.size - MODULES_HEAD) / sizeof(struct gt_module))
		return dump_corrupt(r, "modules record: %u modules in %u bytes",
				    count, r->ch.size);
	for (uint32_t i = 0; i < count; i++) {
		struct gt_module m;

		memcpy(&m, r->buf + MODULES_HEAD + i * sizeof(m), sizeof(m));
		if (m.build_id_len > sizeof(m.build_id))
			return dump_corrupt(r, "module %u: build id of %u bytes",
					    i, m.build_id_len);
		if (bad_ref(r, m.path_str, "modules record") < 0)
			return -1;
	}
	rec->modules.mods = r->buf + MODULES_HEAD;
	rec->modules.count = count;
	return 1;
}
