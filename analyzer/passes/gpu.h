/* SPDX-License-Identifier: MIT */
/*
 * gpu.h - the GPU timeline in a dump (CUPTI records joined to host
 * events): GPU time and queue delay per kernel, GPU time and bandwidth
 * per copy class, GPU busy time per device within the windows that had
 * GPU timing.  Memory is bounded: records are folded into rows as they
 * stream by; host events wait for their GPU records in bounded tables.
 */
#ifndef GPUTRACE_ANALYZER_GPU_H
#define GPUTRACE_ANALYZER_GPU_H

#include <stdint.h>
#include <stdio.h>

#include "analyzer/reader/dump_reader.h"
#include "analyzer/lib/hist.h"
#include "analyzer/lib/json.h"
#include "analyzer/model/model.h"

/* What a row (kernel, graph, copy, memset) gets from joined GPU records. */
struct row_gpu {
	uint64_t calls;             /* GPU records joined to the row */
	uint64_t total_ns;          /* their GPU time */
	uint64_t bytes;             /* copies and sets */
	uint64_t mismatch;          /* copies: CUPTI's host memory kind is
	                               not the one the host side found */
	struct hist dur;            /* GPU time per record */
	struct hist queue;          /* kernels: host launch return -> GPU start */
};

/* Account for a record of the dump (model.c calls it for each). */
void gpu_add(struct model *m, const struct dump_reader *r,
	     const struct dump_record *rec);
/* A host event and the row it was counted in (row may be NULL). */
void gpu_add_event(struct model *m, const struct dump_reader *r,
		   const struct dump_event *ev, struct row *row);
/* Close the books (before nvtx_finish, which asks for busy time). */
void gpu_finish(struct model *m);
/* GPU busy time (union over devices) between two host times, once
 * finished; whether the dump has GPU records to give it. */
uint64_t gpu_busy_between(const struct model *m, uint64_t t0, uint64_t t1);
int gpu_has_records(const struct model *m);
/* GPU windows were asked for, and the run ended before the first opened. */
int gpu_no_window_yet(const struct model *m);
void gpu_release(struct model *m);
void gpu_row_free(struct row_gpu *g);

/* GPU keys of a row of the JSON tables: kernels always, graphs, copies
 * and sets when GPU records were joined to them. */
void gpu_row_json(struct json *j, const struct row *r, enum row_kind kind);
/* The GPU timeline's keys inside the "gpu" object. */
void gpu_report_json(struct json *j, const struct model *m);
void gpu_report_text(FILE *out, const struct model *m, size_t top);
/* The rows of kind with GPU records, most GPU time first (none: *n 0);
 * free() it. */
struct row **gpu_rows_by_time(const struct model *m, enum row_kind kind,
			      size_t *n);

#endif /* GPUTRACE_ANALYZER_GPU_H */
