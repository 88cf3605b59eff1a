/* SPDX-License-Identifier: MIT */
/*
 * ranks.h - several dumps of one job at once (torchrun ranks, DataLoader
 * workers): a summary per rank, their clocks aligned, and stragglers.
 *
 * Clocks: dumps of one host share CLOCK_MONOTONIC and need nothing.
 * Dumps of several hosts are first put on the first host's clock through
 * the CLOCK_REALTIME reading each header has, then aligned on the
 * collectives: for each collective, the earliest rank of each host to
 * enter it is taken to enter when the earliest of the first host does
 * (the median over the first 1024 collectives).
 *
 * Stragglers: the k-th collective of a communicator is the same
 * operation in every rank of it (NCCL requires it).  For each, the rank
 * that entered it last made every other wait from its own entry to that
 * one; the waits are summed per rank.  Communicators are recognised
 * across dumps by the hash of their ncclUniqueId (or NCCL's commHash).
 * Memory: one model per dump, and the collectives some ranks have
 * entered and others not yet (the dumps are read side by side).
 */
#ifndef GPUTRACE_ANALYZER_RANKS_H
#define GPUTRACE_ANALYZER_RANKS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analyzer/export/export.h"
#include "analyzer/model/model.h"

enum rank_cost {
	COST_OUTSIDE,               /* host work between CUDA calls */
	COST_SYNC,                  /* waiting for the GPU */
	COST_COPY,                  /* copies (host time) */
	COST_LAUNCH,                /* kernel and graph launches */
	COST_HOSTMEM,               /* pinned memory calls */
	COST_NCCL,                  /* NCCL calls (host time) */
	COST_GPU,                   /* GPU busy (GPU records) */
	COST_KINDS,
};

struct rank_dump {
	struct model *m;            /* its own allocation: never moves */
	uint32_t rank;              /* as shown: the process's, else its
	                               largest communicator's, else index */
	/* stragglers */
	uint64_t colls;             /* matched collectives it was in */
	uint64_t last;              /* ... that it entered last */
	uint64_t waited_ns;         /* it waited for the last one */
	uint64_t caused_ns;         /* others waited for it */
	/* the thread that makes its collectives */
	int have_tid;
	uint32_t coll_tid;
	uint64_t first_coll, last_coll, traced, traced_at_last;
	uint64_t cost[COST_KINDS];  /* ranks_report.c */
	int cost_known[COST_KINDS];
};

struct ranks {
	size_t n;                   /* dumps read */
	size_t skipped;             /* dumps that could not be read */
	struct rank_dump *r;        /* by rank */
	struct export_dump *dumps;  /* the same order, for the exports */
	size_t hosts;
	char clock[160];            /* how the clocks were aligned */
	uint64_t matched;           /* collectives matched across ranks */
	uint64_t unmatched;         /* entered by some ranks only */
	size_t groups;              /* communicators in several dumps */
	uint64_t wait_ns;           /* all waits at collectives */
	int slow;                   /* the straggler's index, or -1 */
	int why;                    /* its top cost (enum rank_cost), -1 */
	char finding[1024];         /* "" when there is none */
};

/* Read the dumps (at least two), each model with the parts of want
 * (LOADER_*): NULL after saying why. */
struct ranks *ranks_load(char **paths, size_t n, unsigned want);
void ranks_free(struct ranks *rk);

/* Internal steps of ranks_load (ranks_match.c, ranks_report.c). */
int ranks_match(struct ranks *rk);
void ranks_judge(struct ranks *rk);
const char *rank_cost_name(enum rank_cost c);

void ranks_report_text(FILE *out, const struct ranks *rk, size_t top);
void ranks_report_json(FILE *out, const struct ranks *rk);

#endif /* GPUTRACE_ANALYZER_RANKS_H */
