/* SPDX-License-Identifier: MIT */
/*
 * nvtx_internal.h - what nvtx.c, nvtx_names.c and nvtx_report.c share.
 */
#ifndef GPUTRACE_ANALYZER_NVTX_INTERNAL_H
#define GPUTRACE_ANALYZER_NVTX_INTERNAL_H

#include "analyzer/lib/hmap.h"
#include "analyzer/passes/nvtx.h"
#include "analyzer/passes/nvtx_open.h"

struct nvtx_push {
	struct nvtx_row *row;
	uint64_t t0;
	uint64_t launches;          /* the thread's, at the push */
};

struct nvtx_stack {
	struct nvtx_push *v;
	size_t n, cap;
};

struct nvtx_span {
	uint64_t t0, t1;
	struct nvtx_row *row;
};

/* A category or thread name. */
struct nvtx_name {
	char *domain;               /* categories */
	uint32_t id;                /* the category, or the OS thread id */
	int thread;                 /* a thread's name */
	char *name;
};

struct nvtx_stats {
	struct hmap rows;           /* key -> struct nvtx_row */
	struct hmap by_id;          /* domain, message, mark -> row */
	struct hmap domains;        /* id -> char * */
	struct hmap stacks;         /* tid << 32 | domain -> struct nvtx_stack */
	struct hmap launches;       /* tid -> uint64_t launches so far */
	struct hmap names;          /* kind, domain, id -> struct nvtx_name */
	struct nvtx_open open;      /* started ranges */
	struct nvtx_open ended;     /* ends seen before their start: another
	                               thread's events came first */
	struct nvtx_span *spans;
	size_t nspans, spans_cap;
	uint64_t spans_lost, unmatched, open_lost, depth_lost;
	int gpu_known;
};

/* A nvtxNameCategory or nvtxNameOsThread event (nvtx_names.c). */
void nvtx_name_event(struct nvtx_stats *s, const struct dump_reader *r,
		     const struct dump_event *ev);
/* The names, categories first then threads; free() the array only. */
struct nvtx_name **nvtx_names(const struct nvtx_stats *s, int threads,
			      size_t *n);

#endif /* GPUTRACE_ANALYZER_NVTX_INTERNAL_H */
