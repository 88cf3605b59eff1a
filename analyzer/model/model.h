/* SPDX-License-Identifier: MIT */
/*
 * model.h - what a dump says, aggregated while it streams by: one row per
 * kernel, graph, copy class, memset class and wait api, plus the process
 * and the totals.  Memory grows with distinct kernels, ops, shapes and
 * threads, never with the number of events.
 */
#ifndef GPUTRACE_ANALYZER_MODEL_H
#define GPUTRACE_ANALYZER_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "analyzer/reader/dump_reader.h"
#include "analyzer/lib/hist.h"
#include "analyzer/lib/hmap.h"

enum row_kind {
	ROW_KERNEL,     /* by raw kernel symbol: launch overhead */
	ROW_GRAPH,      /* by CUgraphExec: launch overhead */
	ROW_COPY,       /* by (api, direction, async): host time */
	ROW_SET,        /* by (api, async): host time */
	ROW_SYNC,       /* by api: time waited */
	ROW_COPYCLASS,  /* copies by (direction, host memory, async) */
	ROW_HOSTMEM,    /* pinned host memory calls by api */
	ROW_KINDS,
};

struct row {                    /* cache-line aligned (row_new()) */
	struct hist hist;       /* per-call host time; first: a launch
				   touches only its first line */
	char *name;             /* demangled kernel, graph handle, or api */
	char *symbol;           /* kernels: the raw symbol, "" if unknown */
	char *key;              /* what the row is found by */
	uint64_t handle;        /* graphs */
	uint8_t direction;      /* copies: enum gt_direction */
	int async;              /* copies and sets: GT_OPF_ASYNC */
	uint8_t memory;         /* copies: GT_MEM_* of the host side */
	int release;            /* pinned host memory: frees, unregisters */
	uint64_t calls;         /* calls, total_ns and max_ns of the rows
				   with a histogram (kernels, graphs, waits):
				   from it, once the dump is read */
	uint64_t bytes;         /* copies and sets */
	uint64_t total_ns;      /* sum of the calls' host time */
	uint64_t max_ns;
	struct row_gpu *gpu;    /* GPU records joined to it (gpu.c), or NULL */
};

#define MODEL_NOTES 16          /* notes kept; more are only counted */

struct model_note {
	uint32_t level;
	char *text;
};

struct model {
	uint32_t format_version;
	uint64_t start_ns;
	uint32_t pid;
	uint32_t ppid;
	uint32_t rank;          /* UINT32_MAX: not known */
	char *host;             /* "" when the dump has no process record */
	char *exe;
	char *command;          /* argv joined by spaces */
	const char *path;       /* the dump, to read again; NULL: cannot */

	uint64_t events;
	uint64_t dropped;       /* valid after pipeline_finish() */
	uint64_t wall_ns;       /* valid after pipeline_finish() */
	int ends_early;
	size_t threads;
	size_t streams;
	struct model_note notes[MODEL_NOTES];
	size_t nr_notes;        /* all notes, kept or not */

	/* internal */
	uint64_t drops_sum, last_t1, end_ns, end_dropped;
	int have_end;
	uint32_t last_tid;
	struct hmap rows[ROW_KINDS];
	struct row *copy_class[16 * 16 * 2];    /* rows[ROW_COPYCLASS] by
						   direction, memory, async */
	struct hmap functions;  /* id -> struct model_fn */
	uint64_t fn_gen;        /* function definitions so far */
	struct hmap shapes;     /* id -> struct shape_ref */
	struct hmap op_rows;    /* op id -> struct row (copies, sets, syncs) */
	struct hmap tids;
	struct hmap stream_ids;
	struct memory_stats *memory;    /* memory.c */
	struct nccl_stats *nccl;        /* nccl.c */
	struct nvtx_stats *nvtx;        /* nvtx.c */
	struct env_stats *env;          /* env.c, env_samples.c */
	struct callsites *callsites;    /* callsite.c */
	struct framework *framework;    /* framework.c */
	struct gpu_stats *gpu;          /* gpu.c */
	struct diagnosis *diag;         /* diagnosis.c */
	struct cost_stats *cost;        /* cost.c */
	struct timeline *timeline;      /* timeline.c: NULL, not asked for */
	struct hostsamples *hostsamples;        /* hostsample.c */
	struct model **workers;         /* the DataLoader workers' (forked
					   children without CUDA calls), read
					   with it: their own models, released
					   with it (pipeline_release) */
	size_t nworkers;
	struct row *ev_row;     /* the row of the event just added, or NULL:
				   for the passes after the model's own */
};

/*
 * The model's own tables (rows, ops, shapes, functions, threads, notes):
 * the first stage of the pipeline (pipeline.c), which runs the passes
 * around it.
 */
void model_init(struct model *m, const struct gt_file_header *h);
/* Account for one record; r resolves string ids. */
void model_core_add(struct model *m, const struct dump_reader *r,
		    const struct dump_record *rec);
/* Compute the totals once the dump is read (before the passes finish). */
void model_core_finish(struct model *m, int ends_early);
/* A note, after the dump's own (a pass's finding about the dump). */
void model_add_note(struct model *m, uint32_t level, const char *text);
void model_core_release(struct model *m);

/*
 * The rows of one kind, most costly first (total time, then name); free()
 * the array, not the rows.  *n gets their number.
 */
struct row **model_rows(const struct model *m, enum row_kind kind, size_t *n);

/* "HtoD", "DtoH", "DtoD", "HtoH", "PtoP" or "other". */
const char *direction_name(uint8_t direction);

/* "pinned", "pageable", "device", "managed" or "unknown". */
const char *memory_name(uint8_t memory);

#endif /* GPUTRACE_ANALYZER_MODEL_H */
