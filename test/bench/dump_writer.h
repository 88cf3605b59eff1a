/* SPDX-License-Identifier: MIT */
/*
 * dump_writer.h - what the synthetic dump generators share
 * (make_big_dump.c, make_worst_dump.c): chunks, strings, and the file
 * header with a process record.  One generator per program: the state is
 * static.
 */
#ifndef GPUTRACE_TEST_DUMP_WRITER_H
#define GPUTRACE_TEST_DUMP_WRITER_H

#include <stdio.h>
#include <string.h>

#include "include/gputrace/format.h"

static FILE *out;
static uint32_t next_string;

static void chunk(uint32_t type, const void *a, size_t an, const void *b, size_t bn)
{
	struct gt_chunk_header h = { .type = type, .size = (uint32_t)(an + bn) };

	fwrite(&h, sizeof(h), 1, out);
	fwrite(a, 1, an, out);
	if (bn)
		fwrite(b, 1, bn, out);
}

static uint32_t string(const char *s)
{
	uint32_t id = ++next_string;

	chunk(GT_CHUNK_STRING, &id, sizeof(id), s, strlen(s));
	return id;
}

static void put_str(uint8_t **p, const char *s)
{
	uint32_t n = (uint32_t)strlen(s);

	memcpy(*p, &n, 4);
	memcpy(*p + 4, s, n);
	*p += 4 + n;
}

/* The header and the process record of pid, of that rank. */
static void header_and_process_of(uint32_t pid, uint32_t rank)
{
	struct gt_file_header h = {
		.magic = GT_MAGIC, .version = GT_FORMAT_VERSION,
		.min_reader = GT_FORMAT_MIN_READER, .header_size = sizeof(h),
		.endian = GT_ENDIAN_MARK, .clock_id = GT_CLOCK_MONOTONIC,
		.start_ns = 1000000000ull, .start_realtime_ns = 1700000000000000000ull,
		.pid = pid,
	};
	struct gt_process pr = { .pid = pid, .ppid = 1, .rank = rank, .argc = 2 };
	uint8_t buf[256], *p = buf;

	fwrite(&h, sizeof(h), 1, out);
	put_str(&p, "bench-host");
	put_str(&p, "/usr/bin/python3");
	put_str(&p, "python3");
	put_str(&p, "train.py");
	chunk(GT_CHUNK_PROCESS, &pr, sizeof(pr), buf, (size_t)(p - buf));
}

#endif /* GPUTRACE_TEST_DUMP_WRITER_H */
