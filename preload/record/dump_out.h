/* SPDX-License-Identifier: MIT */
/*
 * dump_out.h - buffered chunk output to the dump file (writer thread only).
 */
#ifndef GPUTRACE_PRELOAD_DUMP_OUT_H
#define GPUTRACE_PRELOAD_DUMP_OUT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "preload/base/own_fd.h"

struct gt_dump_out {
	struct gt_own_fd file;      /* the dump as created; fd -1 once
				       writing failed */
	uint8_t *buf;
	size_t len, cap;
	uint64_t bytes_written;
	uint64_t limit;             /* RLIMIT_FSIZE; UINT64_MAX: none */
	int regular;                /* a regular file (else a device, a pipe) */
	int full;                   /* a chunk did not fit: only END goes in */
	const char *path;
};

/* Take fd (the new dump at path; moved to a high number): 0, or -1 when
 * out of memory (then still to be closed by the caller: o->file). */
int gt_dump_out_open(struct gt_dump_out *o, int fd, const char *path);

/* 1 when o->file is still the dump (the program may close or replace
 * it). */
int gt_dump_out_ours(const struct gt_dump_out *o);

/*
 * Append the file header / a whole chunk (header + payload); the buffer
 * is flushed when full.  A chunk goes in only while it fits under the
 * file size limit with room for the END chunk: 0, or -1 (refused, as is
 * every later one but the END; said once).
 */
void gt_dump_out_header(struct gt_dump_out *o, const void *p, size_t n);
int gt_dump_out_chunk(struct gt_dump_out *o, uint32_t type, const void *payload,
		      size_t n);
/* A chunk whose payload is two parts (a struct, then bytes). */
int gt_dump_out_chunk2(struct gt_dump_out *o, uint32_t type, const void *a,
		       size_t an, const void *b, size_t bn);
/* The END chunk, into the room kept for it. */
int gt_dump_out_end(struct gt_dump_out *o, uint32_t type, const void *payload,
		    size_t n);
/* Whole chunks (header + payload each) laid end to end in p: each that
 * fits, in order, until one does not (-1). */
int gt_dump_out_chunks(struct gt_dump_out *o, const uint8_t *p, size_t n);

/* Bytes a chunk (header included) may take now under the file size
 * limit, the END chunk's room kept (no limit: about 2^64). */
uint64_t gt_dump_out_room(const struct gt_dump_out *o);

/* 1 when nothing more but the END goes in (writing failed, or full). */
int gt_dump_out_done(const struct gt_dump_out *o);

/* Write what is buffered.  Returns 0, or -1 when the file cannot be
 * written (the failure is said once on stderr and the file is dropped). */
int gt_dump_out_flush(struct gt_dump_out *o);
void gt_dump_out_close(struct gt_dump_out *o);

/* Drop the buffer unwritten and close the file (if still ours): a fork
 * child, whose copy of the parent's dump is not its own. */
void gt_dump_out_forget(struct gt_dump_out *o);

#endif /* GPUTRACE_PRELOAD_DUMP_OUT_H */
