/* SPDX-License-Identifier: MIT */
/*
 * export_sqlite.h - what export_sqlite.c (the database, its schema and
 * statements) and export_sqlite_rows.c (one row per record) share.
 * Built only where SQLite is (HAVE_SQLITE, found by the Makefile).
 */
#ifndef GPUTRACE_ANALYZER_EXPORT_SQLITE_H
#define GPUTRACE_ANALYZER_EXPORT_SQLITE_H

#include <sqlite3.h>
#include <stdint.h>

#include "analyzer/reader/dump_reader.h"
#include "analyzer/export/export.h"
#include "analyzer/passes/gpu_internal.h"
#include "analyzer/lib/hmap.h"

/* The insert statements, one per table (export_sqlite.c names them). */
enum sq_table {
	SQ_DUMPS, SQ_STRINGS, SQ_OPS, SQ_KERNELS, SQ_SHAPES, SQ_STREAMS,
	SQ_LAUNCHES, SQ_GRAPH_LAUNCHES, SQ_COPIES, SQ_MEMSETS, SQ_SYNCS,
	SQ_HOST_ALLOCS, SQ_NCCL_CALLS, SQ_NVTX_EVENTS, SQ_OTHER_EVENTS,
	SQ_DROPS, SQ_NOTES, SQ_STACKS, SQ_STACK_FRAMES, SQ_MODULES,
	SQ_NCCL_COMMS, SQ_NCCL_OPS, SQ_NVTX_DOMAINS, SQ_SAMPLES, SQ_ENV,
	SQ_GPU_KERNELS, SQ_GPU_COPIES, SQ_GPU_SPANS, SQ_GPU_WINDOWS,
	SQ_CLOCK_PAIRS, SQ_PROCESSES, SQ_HOST_SAMPLES,
	SQ_TABLES,
};

/* A value held for a batched insert: NULL, an integer or a static text. */
struct sq_cell {
	int64_t v;
	const char *text;
	enum { SQ_NULL, SQ_INT, SQ_TEXT } type;
};

/* The row being filled: bound at once (st), or held (cells, batched). */
struct sq_row {
	sqlite3_stmt *st;
	struct sq_cell *cells;
};

/*
 * The insert of a table.  The tables of host events are batched: their
 * rows are held and inserted SQ_BATCH at a time by one statement, which
 * costs SQLite far less per row; their text values must be static: the
 * analyzer's own words, never a dump's (sq_text repairs the others).
 */
#define SQ_BATCH 32

struct sq_tab {
	struct sq_row row;
	sqlite3_stmt *many;         /* batched: INSERT of SQ_BATCH rows */
	struct sq_cell *held;       /* batched: SQ_BATCH rows of cells */
	struct sq_cell *bound;      /* batched: what many has bound now */
	int cols, n;                /* n: rows held */
};

struct sq {
	sqlite3 *db;
	const char *path;
	struct sq_tab tab[SQ_TABLES];
	int failed;                 /* an error was said */
	int64_t dump;               /* the dump being loaded */
	uint64_t rows;              /* since the last commit */
	struct hmap shape_fn;       /* shape id -> function id + 1 */
	struct hmap fn_version;     /* function id -> definitions so far */
	struct gpu_clock clock;
};

/* Start a row of table t. */
struct sq_row *sq_row(struct sq *s, enum sq_table t);
/* Column i (from 1) of the row; a column not set is NULL. */
void sq_int(struct sq_row *r, int i, int64_t v);
void sq_text(struct sq_row *r, int i, const char *s);
/* End the row of t: inserted, or held for the batch. */
void sq_step(struct sq *s, enum sq_table t);
/* Say the database's last error once. */
void sq_fail(struct sq *s, const char *what);

/* One record into its table (export_sqlite_rows.c). */
void sq_record(void *ctx, const struct dump_reader *r,
	       const struct dump_record *rec);
void sq_dump_row(struct sq *s, const struct export_dump *d,
		 const struct gt_file_header *h);

#endif /* GPUTRACE_ANALYZER_EXPORT_SQLITE_H */
