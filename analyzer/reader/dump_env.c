/* SPDX-License-Identifier: MIT */
/*
 * dump_env.c - check the NVTX, environment and sample chunks of a dump
 * (GT_CHUNK_NVTX, GT_CHUNK_ENV, GT_CHUNK_SAMPLE) and hand them out as
 * records.  An item list must hold exactly the items its header counts,
 * each within the chunk; unknown keys pass (the model skips them).
 */
#include <string.h>

#include "analyzer/reader/dump_internal.h"
#include "analyzer/passes/env.h"

_Static_assert(sizeof(struct gt_nvtx_def) == 16, "nvtx def layout");
_Static_assert(sizeof(struct gt_info_header) == 16, "info header layout");
_Static_assert(sizeof(struct gt_info_item) == 16, "info item layout");

int dump_parse_nvtx(struct dump_reader *r, struct dump_record *rec)
{
	if (r->ch.size < sizeof(rec->nvtx))
		return dump_corrupt(r, "nvtx record of %u bytes is too short",
				    r->ch.size);
	memcpy(&rec->nvtx, r->buf, sizeof(rec->nvtx));
	if (rec->nvtx.id == 0)
		return dump_corrupt(r, "nvtx id 0 is reserved");
	if (rec->nvtx.name_str && !dump_string(r, rec->nvtx.name_str))
		return dump_corrupt(r, "nvtx record names string %u, which is "
				    "not defined", rec->nvtx.name_str);
	return 1;
}

int dump_parse_info(struct dump_reader *r, struct dump_record *rec)
{
	const char *what = r->ch.type == GT_CHUNK_ENV ? "environment" : "sample";
	const uint8_t *pos, *end = r->buf + r->ch.size;
	struct env_item item;
	uint32_t n = 0;

	if (r->ch.size < sizeof(rec->info.h))
		return dump_corrupt(r, "%s record of %u bytes is too short", what,
				    r->ch.size);
	memcpy(&rec->info.h, r->buf, sizeof(rec->info.h));
	pos = r->buf + sizeof(rec->info.h);
	rec->info.items = pos;
	rec->info.size = (uint32_t)(end - pos);
	while (n < rec->info.h.count && env_item_next((const void **)&pos, end, &item))
		n++;
	if (n < rec->info.h.count)
		return dump_corrupt(r, "%s record: item %u of %u runs past its end",
				    what, n + 1, rec->info.h.count);
	if (pos != end)
		return dump_corrupt(r, "%s record: %zu bytes after the last item",
				    what, (size_t)(end - pos));
	return 1;
}

int env_item_next(const void **pos, const void *end, struct env_item *it)
{
	const uint8_t *p = *pos;
	struct gt_info_item raw;

	if ((size_t)((const uint8_t *)end - p) < sizeof(raw))
		return 0;
	memcpy(&raw, p, sizeof(raw));
	if (raw.len > (size_t)((const uint8_t *)end - p) - sizeof(raw))
		return 0;
	it->key = raw.key;
	it->status = raw.status;
	it->value = raw.value;
	it->len = raw.len;
	it->text = (const char *)p + sizeof(raw);
	*pos = p + sizeof(raw) + raw.len;
	return 1;
}
