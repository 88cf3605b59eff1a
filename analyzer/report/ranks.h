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
 * one.  A rank's waits are the time covered by at least one of them
 * (several collectives of one step, entered one after the other, overlap:
 * their wait is counted once), given to the rank that came last.
 * Communicators are recognised across dumps by the hash of their
 * ncclUniqueId (or NCCL's commHash).  Memory: one model per dump, and the
 * collectives some ranks have entered and others not yet (the dumps are
 * read side by side).
 *
 * The job's verdict (ranks_verdict.c): the job runs at the pace of its
 * slowest rank, so its step is the longest of the ranks' steps.  With a
 * straggler: which rank, the cause its own diagnosis gives, the collective
 * the others wait in, and the job's step without its lead (per step, how
 * long after every other rank it entered).  Without one: the class the
 * slowest rank's diagnosis gives, its gain on every rank, and the job's
 * step as the slowest of the ranks' steps after the change.
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

#define RANKS_COLLECTIVES 9       /* the collectives matched (ranks_match.c) */

/* What the job as a whole is bound by (ranks_verdict.c). */
struct job_verdict {
	int have;                   /* 0: nothing to say (no common collective) */
	int rank;                   /* the straggler's index, or -1 */
	const char *cls;            /* its class key ("data_supply"), or of the
	                               slowest rank; NULL unknown */
	const char *cause;          /* "straggler", "small_collectives",
	                               "exposed_collectives", the class key */
	const char *collective;     /* what the others wait in ("all-reduce") */
	size_t job_rank;            /* the slowest rank's index: the job's step */
	uint64_t job_step_ns;       /* its step, 0 unknown */
	double gain_lo, gain_hi;    /* of the job's step */
	int have_gain;
	char text[1536];
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
	uint64_t wait_until;        /* the end of its waits so far (aligned) */
	/* its lead, in its steady steps: per step, the most it entered a
	 * collective after every other rank (ranks_match.c) */
	uint64_t lead_ns;           /* summed over the steps */
	uint64_t lead_max;          /* of the step in lead_step */
	size_t lead_step;           /* the step index + 1, 0 none yet */
	uint64_t lead_until;        /* without steps: the union of its leads */
	/* its steady steps (0 when the diagnosis found none) */
	uint64_t step_ns;           /* the program's step */
	uint64_t steady_t0, steady_t1;
	size_t steady_steps;
	uint64_t steady_colls;      /* collective calls in them */
	uint64_t steady_bytes;      /* ... their bytes */
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
	uint64_t wait_by_op[RANKS_COLLECTIVES];    /* waits, by collective */
	struct job_verdict v;       /* ranks_verdict.c */
};

/* Read the processes' dumps (at least two; family.h: each with its
 * DataLoader workers, handed to its model), each model with the parts of
 * want (LOADER_*): NULL after saying why. */
struct family;
struct ranks *ranks_load(struct family *f, size_t n, unsigned want);
void ranks_free(struct ranks *rk);

/* Internal steps of ranks_load (ranks_match.c, ranks_report.c). */
int ranks_match(struct ranks *rk);
void ranks_judge(struct ranks *rk);
void ranks_verdict(struct ranks *rk);
/* "all-reduce" for a collective of ranks_match.c's list (index). */
const char *ranks_collective_name(size_t i);
/* Its steady steps (from its diagnosis) into r (ranks_verdict.c). */
void rank_steps(struct rank_dump *r);
const char *rank_cost_name(enum rank_cost c);

void ranks_report_text(FILE *out, const struct ranks *rk, size_t top);
void ranks_report_json(FILE *out, const struct ranks *rk);

#endif /* GPUTRACE_ANALYZER_RANKS_H */
