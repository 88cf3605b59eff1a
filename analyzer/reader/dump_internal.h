/* SPDX-License-Identifier: MIT */
/*
 * dump_internal.h - the reader's state, shared by dump_reader.c (file,
 * header and chunk framing) and dump_chunks.c (chunk payloads, events).
 */
#ifndef GPUTRACE_ANALYZER_DUMP_INTERNAL_H
#define GPUTRACE_ANALYZER_DUMP_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analyzer/reader/dump_reader.h"
#include "analyzer/lib/hmap.h"
#include "analyzer/lib/util.h"

struct dump_reader {
	char *path;
	FILE *fp;
	struct gt_file_header hdr;
	char *err;                  /* set once, at the first failure */

	/* the chunk in hand */
	struct gt_chunk_header ch;
	uint64_t ch_off;            /* file offset of its header */
	uint8_t *buf;               /* its payload */
	size_t buf_cap;
	uint64_t off;               /* bytes read so far */

	/* the events chunk being unpacked */
	const uint8_t *ev_pos;
	const uint8_t *ev_end;
	const uint8_t *ev_fast_end; /* an event before it is read unchecked */
	uint32_t ev_left;
	uint32_t ev_count;
	uint32_t ev_tid;
	uint64_t ev_id;             /* the next event's: buffer << 40 | number */
	uint64_t ev_t0;             /* t0 of the previous event */

	struct hmap strings;        /* id -> char * */
	struct hmap ops;            /* id -> struct dump_op * */
	struct dump_op **op_of;     /* the same, by id below nop_of */
	size_t nop_of;
	struct dump_process proc;
	char *note;

	int seen_end;
	int ends_early;

	dump_skip_fn skip;          /* dump_skip_chunks() */
	void *skip_ctx;
};

/* Fail with "'path' is corrupt at byte N: <msg>" (N: the chunk's offset). */
int dump_corrupt(struct dump_reader *r, const char *fmt, ...) PRINTF_LIKE(2, 3);

/* Turn the chunk in hand into rec: 1, 0 to skip it, -1 on failure. */
int dump_parse_chunk(struct dump_reader *r, struct dump_record *rec);
/* The next event of the events chunk in hand: 1 or -1. */
int dump_next_event(struct dump_reader *r, struct dump_record *rec);

void dump_free_tables(struct dump_reader *r);

/* NCCL chunks (dump_nccl.c): 1 or -1, like dump_parse_chunk. */
int dump_parse_nccl_comm(struct dump_reader *r, struct dump_record *rec);
int dump_parse_nccl_prof(struct dump_reader *r, struct dump_record *rec);

/* Call stack chunks (dump_callsite.c): 1 or -1, like dump_parse_chunk. */
int dump_parse_stack(struct dump_reader *r, struct dump_record *rec);
int dump_parse_modules(struct dump_reader *r, struct dump_record *rec);

/* Steps and switching spans (dump_steps.c): 1 or -1. */
int dump_parse_steps(struct dump_reader *r, struct dump_record *rec);
int dump_parse_switch(struct dump_reader *r, struct dump_record *rec);

/* NVTX, environment and sample chunks (dump_env.c): 1 or -1. */
int dump_parse_nvtx(struct dump_reader *r, struct dump_record *rec);
int dump_parse_info(struct dump_reader *r, struct dump_record *rec);

/* GPU timeline chunks (dump_gpu.c): 1, 0 to skip, or -1. */
int dump_parse_gpu(struct dump_reader *r, struct dump_record *rec);
int dump_parse_window(struct dump_reader *r, struct dump_record *rec);
int dump_parse_clock(struct dump_reader *r, struct dump_record *rec);

#endif /* GPUTRACE_ANALYZER_DUMP_INTERNAL_H */
