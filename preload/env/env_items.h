/* SPDX-License-Identifier: MIT */
/*
 * env_items.h - building GT_CHUNK_ENV and GT_CHUNK_SAMPLE payloads: a
 * header and a list of keyed items (format.h), in a fixed buffer.
 */
#ifndef GPUTRACE_PRELOAD_ENV_ITEMS_H
#define GPUTRACE_PRELOAD_ENV_ITEMS_H

#include <stddef.h>
#include <stdint.h>

#include "include/gputrace/format.h"

#define GT_ITEMS_BYTES 8192

struct gt_items {
	struct gt_info_header h;
	size_t len;                 /* bytes used in buf */
	uint8_t buf[GT_ITEMS_BYTES];
};

void gt_items_begin(struct gt_items *it, uint32_t scope);
/* A number (status GT_INFO_OK). */
void gt_items_num(struct gt_items *it, uint16_t key, int64_t v);
/* A text, cut at 255 bytes. */
void gt_items_text(struct gt_items *it, uint16_t key, int64_t v, const char *s);
/* A fact that could not be had: status and the error code. */
void gt_items_fail(struct gt_items *it, uint16_t key, uint16_t status,
		   int64_t code);
/* An NVML answer: the number when rc is success, else the failure. */
void gt_items_nvml(struct gt_items *it, uint16_t key, int rc, int64_t v);
/* Hand the chunk to the writer (side chunk); 0 or -1. */
int gt_items_put(struct gt_items *it, uint32_t chunk_type);

#endif /* GPUTRACE_PRELOAD_ENV_ITEMS_H */
