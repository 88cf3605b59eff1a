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
	int regular;                /* a regular file (else a device, a pipe) */
	const char *path;
};

/* Take fd (the new dump at path; moved to a high number): 0, or -1 when
 * out of memory (then still to be closed by the caller: o->file). */
int gt_dump_out_open(struct gt_dump_out *o, int fd, const char *path);

/* 1 when o->file is still the dump (the program may close or replace
 * it). */
int gt_dump_out_ours(const struct gt_dump_out *o);

/* Append raw bytes / a whole chunk (header + payload); flushes when full. */
void gt_dump_out_raw(struct gt_dump_out *o, const void *p, size_t n);
void gt_dump_out_chunk(struct gt_dump_out *o, uint32_t type, const void *payload,
		       size_t n);
/* A chunk whose payload is two parts (a struct, then bytes). */
void gt_dump_out_chunk2(struct gt_dump_out *o, uint32_t type, const void *a,
			size_t an, const void *b, size_t bn);

/* Write what is buffered.  Returns 0, or -1 when the file cannot be
 * written (the failure is said once on stderr and the file is dropped). */
int gt_dump_out_flush(struct gt_dump_out *o);
void gt_dump_out_close(struct gt_dump_out *o);

/* Drop the buffer unwritten and close the file (if still ours): a fork
 * child, whose copy of the parent's dump is not its own. */
void gt_dump_out_forget(struct gt_dump_out *o);

#endif /* GPUTRACE_PRELOAD_DUMP_OUT_H */
