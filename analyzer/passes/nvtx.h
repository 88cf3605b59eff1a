/* SPDX-License-Identifier: MIT */
/*
 * nvtx.h - NVTX ranges in a dump: per range name (and domain), calls,
 * wall time, kernels launched inside and GPU busy time inside; marks by
 * name; category and thread names.
 *
 * A pushed range ends at the next pop of its domain on its thread; a
 * started range at the end with its id, on any thread.  Memory grows with
 * distinct names, threads and ranges open at once, and with the ranges
 * kept for GPU busy time (at most NVTX_MAX_SPANS), not with events.
 */
#ifndef GPUTRACE_ANALYZER_NVTX_H
#define GPUTRACE_ANALYZER_NVTX_H

#include <stdint.h>
#include <stdio.h>

#include "analyzer/reader/dump_reader.h"
#include "analyzer/lib/json.h"
#include "analyzer/model/model.h"

#define NVTX_MAX_SPANS (1u << 20)   /* range instances kept for GPU time */
#define NVTX_MAX_OPEN (1u << 20)    /* started ranges open at once */
#define NVTX_MAX_DEPTH 4096         /* pushes open on one thread */

struct nvtx_row {
	char *key;
	char *name;                 /* the message ("<unnamed>" if none) */
	char *domain;               /* "" for the default domain */
	uint32_t category;          /* of its first call */
	int mark;                   /* a mark: calls only */
	uint64_t calls;             /* ranges closed (marks: marks) */
	uint64_t total_ns, max_ns;
	uint64_t kernels;           /* launches inside, by its thread */
	uint64_t gpu_ns;            /* GPU busy inside (nvtx_finish) */
	uint64_t unclosed;          /* still open at the end of the dump */
};

/*
 * GPU busy time (union over devices, host clock) within [t0, t1], called
 * in no particular order of t0: what the GPU timeline gives nvtx_finish
 * when the dump has GPU records (gpu_busy_between).
 */
typedef uint64_t (*nvtx_busy_fn)(const struct model *m, uint64_t t0,
				 uint64_t t1);

/* Account for a record of the dump (model.c calls it for each). */
void nvtx_add(struct model *m, const struct dump_reader *r,
	      const struct dump_record *rec);
/* Close the books: open ranges, GPU busy time (busy: NULL when the dump
 * has no GPU records). */
void nvtx_finish(struct model *m, nvtx_busy_fn busy);
void nvtx_release(struct model *m);

/* Range rows (marks apart), most wall time first; free() the array. */
struct nvtx_row **nvtx_rows(const struct model *m, int marks, size_t *n);
/* Whether GPU busy time inside ranges is known (GPU records present). */
int nvtx_gpu_known(const struct model *m);

void nvtx_report_text(FILE *out, const struct model *m, size_t top);
/* "nvtx": [...], "nvtx_marks": [...], "nvtx_names": {...} */
void nvtx_report_json(struct json *j, const struct model *m);

#endif /* GPUTRACE_ANALYZER_NVTX_H */
