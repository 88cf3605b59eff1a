/* SPDX-License-Identifier: MIT */
/*
 * test_dump.h - pieces of dumps that the analyzer's unit tests build by
 * hand with the structs of format.h: the file header, a string's payload.
 */
#ifndef GPUTRACE_TEST_DUMP_H
#define GPUTRACE_TEST_DUMP_H

#include <stdint.h>
#include <string.h>

#include "gputrace/format.h"

/* A valid file header of process pid, started at start_ns. */
static inline void test_dump_header(struct gt_file_header *h, uint32_t pid,
				    uint64_t start_ns)
{
	memset(h, 0, sizeof(*h));
	memcpy(h->magic, GT_MAGIC, 8);
	h->version = GT_FORMAT_VERSION;
	h->min_reader = GT_FORMAT_MIN_READER;
	h->header_size = sizeof(*h);
	h->endian = GT_ENDIAN_MARK;
	h->clock_id = GT_CLOCK_MONOTONIC;
	h->start_ns = start_ns;
	h->pid = pid;
}

/* A GT_CHUNK_STRING payload into p (room for 4 + strlen(s)): its size. */
static inline size_t test_dump_string(uint8_t *p, uint32_t id, const char *s)
{
	memcpy(p, &id, 4);
	memcpy(p + 4, s, strlen(s));
	return 4 + strlen(s);
}

#endif /* GPUTRACE_TEST_DUMP_H */
