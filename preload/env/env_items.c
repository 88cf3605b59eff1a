/* SPDX-License-Identifier: MIT */
/*
 * env_items.c - the item lists of GT_CHUNK_ENV and GT_CHUNK_SAMPLE.
 * Items past the buffer are left out (a chunk holds a few hundred bytes).
 */
#include <string.h>

#include "preload/env/env_items.h"
#include "preload/base/internal.h"
#include "preload/env/nvml_api.h"
#include "preload/record/writer.h"

#define TEXT_MAX 255

void gt_items_begin(struct gt_items *it, uint32_t scope)
{
	it->h = (struct gt_info_header){ .time_ns = gt_now(), .scope = scope };
	it->len = 0;
}

static void add(struct gt_items *it, uint16_t key, uint16_t status, int64_t v,
		const char *s, size_t n)
{
	struct gt_info_item item = { .key = key, .status = status,
				     .len = (uint32_t)n, .value = v };

	if (it->len + sizeof(item) + n > sizeof(it->buf))
		return;
	memcpy(it->buf + it->len, &item, sizeof(item));
	if (n)
		memcpy(it->buf + it->len + sizeof(item), s, n);
	it->len += sizeof(item) + n;
	it->h.count++;
}

void gt_items_num(struct gt_items *it, uint16_t key, int64_t v)
{
	add(it, key, GT_INFO_OK, v, NULL, 0);
}

void gt_items_text(struct gt_items *it, uint16_t key, int64_t v, const char *s)
{
	add(it, key, GT_INFO_OK, v, s, strnlen(s, TEXT_MAX));
}

void gt_items_fail(struct gt_items *it, uint16_t key, uint16_t status,
		   int64_t code)
{
	add(it, key, status, code, NULL, 0);
}

void gt_items_nvml(struct gt_items *it, uint16_t key, int rc, int64_t v)
{
	switch (rc) {
	case GT_NVML_SUCCESS:
		gt_items_num(it, key, v);
		break;
	case GT_NVML_ERROR_NOT_SUPPORTED:
		gt_items_fail(it, key, GT_INFO_NOT_SUPPORTED, rc);
		break;
	case GT_NVML_ERROR_NO_PERMISSION:
		gt_items_fail(it, key, GT_INFO_NO_PERMISSION, rc);
		break;
	case GT_NVML_ERROR_FUNCTION_NOT_FOUND:
		gt_items_fail(it, key, GT_INFO_MISSING, rc);
		break;
	default:
		gt_items_fail(it, key, GT_INFO_FAILED, rc);
		break;
	}
}

int gt_items_put(struct gt_items *it, uint32_t chunk_type)
{
	return gt_writer_side_chunk(chunk_type, &it->h, sizeof(it->h), it->buf,
				    it->len);
}
