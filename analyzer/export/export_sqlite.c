/* SPDX-License-Identifier: MIT */
/*
 * export_sqlite.c - --sqlite FILE: the dumps as an SQLite database, one
 * table per kind of record (docs/exports.md documents the schema).  Rows go in
 * through prepared statements inside one transaction, with the journal
 * off; values are bound, never formatted; the host events, most of the
 * rows, are inserted SQ_BATCH rows per statement (export_sqlite.h);
 * indexes and views are made once everything is in, which is faster than
 * keeping indexes up to date row by row, by one thread (the sorter's
 * worker threads cost more CPU time than they save).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/export/export.h"
#include "analyzer/lib/files.h"
#include "analyzer/lib/util.h"

#ifndef HAVE_SQLITE

int sqlite_export(const char *out, struct export_dump *d, size_t n)
{
	(void)out; (void)d; (void)n;
	error_msg("this " PROG_NAME " was built without SQLite: install "
		  "libsqlite3-dev and run make again");
	return EXIT_BADINPUT;
}

#else

#include "analyzer/export/export_sqlite.h"
#include "analyzer/pipeline/loader.h"
#include "analyzer/lib/progress.h"
#include "analyzer/lib/utf8.h"

#define EV "dump INTEGER, event_id INTEGER, tid INTEGER, t0 INTEGER, " \
	   "dur INTEGER, result INTEGER, "

/* Event tables (batch 1) are inserted SQ_BATCH rows at a time. */
static const struct { const char *name, *cols; int batch; } tables[SQ_TABLES] = {
	[SQ_DUMPS] = { "dumps", "id INTEGER PRIMARY KEY, path TEXT, pid INTEGER, "
		"start_ns INTEGER, start_realtime_ns INTEGER, offset_ns INTEGER, "
		"format_version INTEGER" },
	[SQ_PROCESSES] = { "processes", "dump INTEGER, pid INTEGER, ppid INTEGER, "
		"rank INTEGER, host TEXT, exe TEXT, command TEXT" },
	[SQ_STRINGS] = { "strings", "dump INTEGER, id INTEGER, text TEXT" },
	[SQ_OPS] = { "ops", "dump INTEGER, id INTEGER, kind TEXT, api TEXT, "
		"symbol TEXT, direction TEXT, async INTEGER, flags INTEGER" },
	[SQ_KERNELS] = { "kernels", "dump INTEGER, id INTEGER, name TEXT, "
		"demangled TEXT, symbol TEXT, handle INTEGER, version INTEGER" },
	[SQ_SHAPES] = { "shapes", "dump INTEGER, id INTEGER, function INTEGER, "
		"grid_x INTEGER, grid_y INTEGER, grid_z INTEGER, block_x INTEGER, "
		"block_y INTEGER, block_z INTEGER, shared_mem INTEGER" },
	[SQ_STREAMS] = { "streams", "dump INTEGER, id INTEGER, handle INTEGER" },
	[SQ_LAUNCHES] = { "launches", EV "stream INTEGER, op INTEGER, "
		"shape INTEGER, function INTEGER, function_version INTEGER", 1 },
	[SQ_GRAPH_LAUNCHES] = { "graph_launches", EV "stream INTEGER, op INTEGER, "
		"graph INTEGER", 1 },
	[SQ_COPIES] = { "copies", EV "stream INTEGER, op INTEGER, bytes INTEGER, "
		"src INTEGER, dst INTEGER, count INTEGER, memory TEXT, "
		"staged INTEGER, sync_pinned INTEGER, stack INTEGER", 1 },
	[SQ_MEMSETS] = { "memsets", EV "stream INTEGER, op INTEGER, "
		"bytes INTEGER, dst INTEGER", 1 },
	[SQ_SYNCS] = { "syncs", EV "stream INTEGER, op INTEGER, handle INTEGER, "
		"stack INTEGER", 1 },
	[SQ_HOST_ALLOCS] = { "host_allocs", EV "op INTEGER, bytes INTEGER, "
		"ptr INTEGER, flags INTEGER, stack INTEGER", 1 },
	[SQ_NCCL_CALLS] = { "nccl_calls", EV "stream INTEGER, op INTEGER, "
		"count INTEGER, bytes INTEGER, comm INTEGER, peer INTEGER, "
		"datatype TEXT, redop INTEGER, stack INTEGER", 1 },
	[SQ_NVTX_EVENTS] = { "nvtx_events", "dump INTEGER, event_id INTEGER, "
		"tid INTEGER, t0 INTEGER, op INTEGER, call TEXT, message INTEGER, "
		"domain INTEGER, range_id INTEGER, category INTEGER, level INTEGER", 1 },
	[SQ_OTHER_EVENTS] = { "other_events", EV "stream INTEGER, op INTEGER", 1 },
	[SQ_DROPS] = { "drops", "dump INTEGER, tid INTEGER, count INTEGER" },
	[SQ_NOTES] = { "notes", "dump INTEGER, level INTEGER, text TEXT" },
	[SQ_STACKS] = { "stacks", "dump INTEGER, id INTEGER, native INTEGER, "
		"python INTEGER" },
	[SQ_STACK_FRAMES] = { "stack_frames", "dump INTEGER, stack INTEGER, "
		"depth INTEGER, python INTEGER, pc INTEGER, file TEXT, func TEXT, "
		"line INTEGER" },
	[SQ_MODULES] = { "modules", "dump INTEGER, base INTEGER, start INTEGER, "
		"size INTEGER, path TEXT, build_id TEXT" },
	[SQ_NCCL_COMMS] = { "nccl_comms", "dump INTEGER, id INTEGER, "
		"parent INTEGER, rank INTEGER, nranks INTEGER, device INTEGER, "
		"color INTEGER, handle INTEGER, uid_hash TEXT, nccl_hash TEXT, "
		"t_ns INTEGER, nccl_version INTEGER, name TEXT, how INTEGER, "
		"plugin INTEGER" },
	[SQ_NCCL_OPS] = { "nccl_ops", "dump INTEGER, start_ns INTEGER, "
		"stop_ns INTEGER, gpu_start INTEGER, gpu_stop INTEGER, count INTEGER, "
		"seq INTEGER, comm INTEGER, peer INTEGER, func TEXT, datatype TEXT, "
		"algorithm TEXT, protocol TEXT, type TEXT, channels INTEGER, "
		"channels_timed INTEGER" },
	[SQ_NVTX_DOMAINS] = { "nvtx_domains", "dump INTEGER, id INTEGER, name TEXT" },
	[SQ_SAMPLES] = { "samples", "dump INTEGER, time_ns INTEGER, scope INTEGER, "
		"key INTEGER, status INTEGER, value INTEGER, text TEXT" },
	[SQ_ENV] = { "env", "dump INTEGER, time_ns INTEGER, scope INTEGER, "
		"key INTEGER, status INTEGER, value INTEGER, text TEXT" },
	[SQ_GPU_KERNELS] = { "gpu_kernels", "dump INTEGER, host_id INTEGER, "
		"start_ns INTEGER, end_ns INTEGER, gpu_start INTEGER, gpu_end INTEGER, "
		"queued INTEGER, submitted INTEGER, correlation INTEGER, "
		"device INTEGER, stream INTEGER, name TEXT, grid_x INTEGER, "
		"grid_y INTEGER, grid_z INTEGER, block_x INTEGER, block_y INTEGER, "
		"block_z INTEGER, graph_id INTEGER" },
	[SQ_GPU_COPIES] = { "gpu_copies", "dump INTEGER, host_id INTEGER, "
		"start_ns INTEGER, end_ns INTEGER, gpu_start INTEGER, gpu_end INTEGER, "
		"bytes INTEGER, correlation INTEGER, device INTEGER, stream INTEGER, "
		"kind TEXT, copy_kind INTEGER, src_kind INTEGER, dst_kind INTEGER, "
		"flags INTEGER" },
	[SQ_GPU_SPANS] = { "gpu_spans", "dump INTEGER, host_id INTEGER, "
		"start_ns INTEGER, end_ns INTEGER, gpu_start INTEGER, gpu_end INTEGER, "
		"correlation INTEGER, device INTEGER, stream INTEGER, kind TEXT, "
		"type INTEGER" },
	[SQ_GPU_WINDOWS] = { "gpu_windows", "dump INTEGER, seq INTEGER, "
		"start_ns INTEGER, end_ns INTEGER" },
	[SQ_CLOCK_PAIRS] = { "clock_pairs", "dump INTEGER, gpu_ns INTEGER, "
		"host_ns INTEGER, spread_ns INTEGER" },
	[SQ_HOST_SAMPLES] = { "host_samples", "dump INTEGER, event_id INTEGER, "
		"tid INTEGER, t_ns INTEGER, cpu_ns INTEGER, stack INTEGER, "
		"state TEXT, incall INTEGER", 1 },
};

static const char *const finish_sql[] = {
	"CREATE INDEX launches_t0 ON launches(t0)",
	"CREATE INDEX copies_t0 ON copies(t0)",
	"CREATE INDEX memsets_t0 ON memsets(t0)",
	"CREATE INDEX syncs_t0 ON syncs(t0)",
	"CREATE INDEX nccl_calls_t0 ON nccl_calls(t0)",
	"CREATE INDEX nvtx_events_t0 ON nvtx_events(t0)",
	"CREATE INDEX graph_launches_t0 ON graph_launches(t0)",
	"CREATE INDEX host_allocs_t0 ON host_allocs(t0)",
	"CREATE INDEX other_events_t0 ON other_events(t0)",
	"CREATE INDEX launches_function ON launches(function)",
	"CREATE INDEX kernels_name ON kernels(name)",
	"CREATE UNIQUE INDEX kernels_id ON kernels(dump, id, version)",
	"CREATE INDEX strings_id ON strings(dump, id)",
	"CREATE INDEX ops_id ON ops(dump, id)",
	"CREATE INDEX gpu_kernels_name ON gpu_kernels(name)",
	"CREATE INDEX gpu_kernels_start ON gpu_kernels(start_ns)",
	"CREATE INDEX gpu_kernels_host ON gpu_kernels(dump, host_id)",
	"CREATE INDEX gpu_copies_start ON gpu_copies(start_ns)",
	"CREATE INDEX gpu_copies_host ON gpu_copies(dump, host_id)",
	"CREATE INDEX stack_frames_stack ON stack_frames(dump, stack)",
	"CREATE INDEX samples_time ON samples(time_ns)",
	"CREATE INDEX host_samples_t ON host_samples(t_ns)",
	"CREATE VIEW kernel_launches AS SELECT l.*, k.name AS kernel, "
		"s.grid_x, s.grid_y, s.grid_z, s.block_x, s.block_y, s.block_z "
		"FROM launches l LEFT JOIN kernels k ON k.dump = l.dump AND "
		"k.id = l.function AND k.version = l.function_version LEFT JOIN shapes s ON s.dump = l.dump AND "
		"s.id = l.shape",
	"CREATE VIEW api_calls AS "
		"SELECT dump, event_id, tid, t0, dur, result, op FROM launches UNION ALL "
		"SELECT dump, event_id, tid, t0, dur, result, op FROM graph_launches UNION ALL "
		"SELECT dump, event_id, tid, t0, dur, result, op FROM copies UNION ALL "
		"SELECT dump, event_id, tid, t0, dur, result, op FROM memsets UNION ALL "
		"SELECT dump, event_id, tid, t0, dur, result, op FROM syncs UNION ALL "
		"SELECT dump, event_id, tid, t0, dur, result, op FROM host_allocs UNION ALL "
		"SELECT dump, event_id, tid, t0, dur, result, op FROM nccl_calls UNION ALL "
		"SELECT dump, event_id, tid, t0, dur, result, op FROM other_events",
};

void sq_fail(struct sq *s, const char *what)
{
	if (!s->failed)
		error_msg("cannot write '%s': %s: %s", s->path, what,
			  s->db ? sqlite3_errmsg(s->db) : "out of memory");
	s->failed = 1;
}

static int exec(struct sq *s, const char *sql)
{
	if (s->failed || sqlite3_exec(s->db, sql, NULL, NULL, NULL) == SQLITE_OK)
		return s->failed ? -1 : 0;
	sq_fail(s, sql);
	return -1;
}

struct sq_row *sq_row(struct sq *s, enum sq_table t)
{
	struct sq_tab *tb = &s->tab[t];

	if (tb->held) {
		tb->row.cells = tb->held + (size_t)tb->n * (size_t)tb->cols;
		memset(tb->row.cells, 0, sizeof(*tb->held) * (size_t)tb->cols);
	}
	return &tb->row;
}

void sq_int(struct sq_row *r, int i, int64_t v)
{
	if (r->cells) {
		r->cells[i - 1].type = SQ_INT;
		r->cells[i - 1].v = v;
	} else {
		sqlite3_bind_int64(r->st, i, v);
	}
}

/* Text from a dump is bound as valid UTF-8 (utf8.h): SQLite stores
 * what it is given, and readers (Python's sqlite3) refuse a column that
 * is not.  Held texts are the analyzer's own words. */
void sq_text(struct sq_row *r, int i, const char *str)
{
	if (r->cells) {
		r->cells[i - 1].type = str ? SQ_TEXT : SQ_NULL;
		r->cells[i - 1].text = str;
	} else if (!str) {
		sqlite3_bind_null(r->st, i);
	} else if (utf8_valid(str)) {
		sqlite3_bind_text(r->st, i, str, -1, SQLITE_TRANSIENT);
	} else {
		sqlite3_bind_text(r->st, i, utf8_copy(str), -1, free);
	}
}

static void run(struct sq *s, enum sq_table t, sqlite3_stmt *st)
{
	if (!s->failed && sqlite3_step(st) != SQLITE_DONE)
		sq_fail(s, tables[t].name);
	sqlite3_reset(st);
}

static void bind_cell(sqlite3_stmt *st, int i, const struct sq_cell *c)
{
	switch (c->type) {
	case SQ_INT:
		sqlite3_bind_int64(st, i, c->v);
		break;
	case SQ_TEXT:
		sqlite3_bind_text(st, i, c->text, -1, SQLITE_STATIC);
		break;
	default:
		sqlite3_bind_null(st, i);
	}
}

static int same_cell(const struct sq_cell *a, const struct sq_cell *b)
{
	return a->type == b->type && (a->type != SQ_INT || a->v == b->v) &&
	       (a->type != SQ_TEXT || a->text == b->text);
}

/*
 * Bind n held cells from c on into st, from parameter 1.  With bound
 * (what st holds now: bindings outlive a reset), a cell bound already is
 * skipped: most columns of consecutive events repeat (dump, thread,
 * stream, result...), and a bind costs SQLite as much as a column insert.
 */
static void bind_held(sqlite3_stmt *st, const struct sq_cell *c,
		      struct sq_cell *bound, int n)
{
	for (int i = 0; i < n; i++) {
		if (bound && same_cell(&c[i], &bound[i]))
			continue;
		bind_cell(st, i + 1, &c[i]);
		if (bound)
			bound[i] = c[i];
	}
}

/* Insert the rows held for t: one statement for a whole batch, one per
 * row for what is left at the end. */
static void flush(struct sq *s, enum sq_table t)
{
	struct sq_tab *tb = &s->tab[t];

	if (tb->n == SQ_BATCH) {
		bind_held(tb->many, tb->held, tb->bound, SQ_BATCH * tb->cols);
		run(s, t, tb->many);
	} else {
		for (int i = 0; i < tb->n; i++) {
			bind_held(tb->row.st, tb->held + (size_t)i * (size_t)tb->cols,
				  NULL, tb->cols);
			run(s, t, tb->row.st);
		}
	}
	tb->n = 0;
}

void sq_step(struct sq *s, enum sq_table t)
{
	struct sq_tab *tb = &s->tab[t];

	s->rows++;
	if (tb->held) {
		if (++tb->n == SQ_BATCH)
			flush(s, t);
		return;
	}
	run(s, t, tb->row.st);
	sqlite3_clear_bindings(tb->row.st);
}

static int columns(int t)
{
	int cols = 1;

	for (const char *c = tables[t].cols; *c; c++)
		cols += *c == ',';
	return cols;
}

/* "INSERT INTO t VALUES (?,?,...),..." with rows of one ? per column. */
static char *insert_sql(int t, int rows)
{
	size_t cols = (size_t)columns(t), len = strlen(tables[t].name) + 32;
	char *sql, *p;

	sql = xmalloc(len + (2 * cols + 2) * (size_t)rows);
	p = sql + sprintf(sql, "INSERT INTO %s VALUES ", tables[t].name);
	for (int r = 0; r < rows; r++) {
		if (r)
			*p++ = ',';
		*p++ = '(';
		for (size_t i = 0; i < cols; i++) {
			*p++ = '?';
			*p++ = i + 1 < cols ? ',' : ')';
		}
	}
	*p = '\0';
	return sql;
}

static int prepare(struct sq *s, int t, int rows, sqlite3_stmt **st)
{
	char *sql = insert_sql(t, rows);

	if (sqlite3_prepare_v2(s->db, sql, -1, st, NULL) != SQLITE_OK)
		sq_fail(s, sql);
	free(sql);
	return s->failed ? -1 : 0;
}

static int schema(struct sq *s)
{
	for (int t = 0; t < SQ_TABLES; t++) {
		char *sql = xasprintf("CREATE TABLE %s (%s)", tables[t].name,
				      tables[t].cols);
		int rc = exec(s, sql);

		free(sql);
		if (rc < 0 || prepare(s, t, 1, &s->tab[t].row.st) < 0)
			return -1;
		s->tab[t].cols = columns(t);
		if (!tables[t].batch)
			continue;
		if (prepare(s, t, SQ_BATCH, &s->tab[t].many) < 0)
			return -1;
		s->tab[t].held = xcalloc((size_t)SQ_BATCH * (size_t)s->tab[t].cols,
					 sizeof(struct sq_cell));
		s->tab[t].bound = xcalloc((size_t)SQ_BATCH * (size_t)s->tab[t].cols,
					  sizeof(struct sq_cell));
	}
	return 0;
}

/*
 * The journal off, one writer, one transaction.  8 MB of page cache, which
 * is also what SQLite sorts in memory at a time when it makes the indexes:
 * a larger cache made no index faster (the sort runs out of the CPU's
 * caches), and it bounds the peak memory whatever the size of the dumps.
 */
static int open_db(struct sq *s, const char *path)
{
	if (sqlite3_open_v2(path, &s->db, SQLITE_OPEN_READWRITE |
			    SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
		sq_fail(s, "open");
		return -1;
	}
	if (exec(s, "PRAGMA journal_mode=OFF") < 0 ||
	    exec(s, "PRAGMA synchronous=OFF") < 0 ||
	    exec(s, "PRAGMA locking_mode=EXCLUSIVE") < 0 ||
	    exec(s, "PRAGMA page_size=16384") < 0 ||
	    exec(s, "PRAGMA cache_size=-8192") < 0 ||
	    exec(s, "BEGIN") < 0)
		return -1;
	return schema(s);
}

static int load(struct sq *s, struct export_dump *d, size_t n)
{
	uint64_t done = 0;

	for (size_t i = 0; i < n && !s->failed; i++) {
		struct dump_reader *r;

		if (dump_open(&r, d[i].path) < 0) {
			error_msg("%s", dump_error(r));
			dump_close(r);
			return -1;
		}
		s->dump = (int64_t)i;
		sq_dump_row(s, &d[i], dump_header(r));
		dump_close(r);
		memset(&s->clock, 0, sizeof(s->clock));
		hmap_release(&s->shape_fn);
		hmap_release(&s->fn_version);
		if (loader_pass(d[i].path, sq_record, s, done) < 0)
			return -1;
		done += progress_file_size(d[i].path);
	}
	return s->failed ? -1 : 0;
}

static int finish(struct sq *s)
{
	for (int t = 0; t < SQ_TABLES; t++)
		flush(s, (enum sq_table)t);
	if (exec(s, "COMMIT") < 0)
		return -1;
	for (size_t i = 0; i < ARRAY_SIZE(finish_sql); i++)
		if (exec(s, finish_sql[i]) < 0)
			return -1;
	return 0;
}

static void close_db(struct sq *s)
{
	for (int t = 0; t < SQ_TABLES; t++) {
		sqlite3_finalize(s->tab[t].row.st);
		sqlite3_finalize(s->tab[t].many);
		free(s->tab[t].held);
		free(s->tab[t].bound);
	}
	if (s->db && sqlite3_close(s->db) != SQLITE_OK)
		sq_fail(s, "close");
	hmap_release(&s->shape_fn);
	hmap_release(&s->fn_version);
}

/* The database is made under a temporary name beside out (files.h):
 * out is replaced only by a whole database. */
int sqlite_export(const char *out, struct export_dump *d, size_t n)
{
	struct files_out f;
	struct sq s;
	uint64_t total = 0;
	int rc;

	if (files_out_begin(&f, out, "an SQLite database") < 0)
		return EXIT_BADINPUT;
	memset(&s, 0, sizeof(s));
	s.path = out;
	for (size_t i = 0; i < n; i++)
		total += progress_file_size(d[i].path);
	progress_begin("writing the database", total);
	rc = open_db(&s, f.tmp);
	if (rc == 0)
		rc = load(&s, d, n);
	progress_end();
	if (rc == 0)
		rc = finish(&s);
	close_db(&s);
	if (files_out_end(&f, !rc && !s.failed) < 0)
		rc = -1;
	return rc || s.failed ? EXIT_BADINPUT : 0;
}

#endif /* HAVE_SQLITE */
