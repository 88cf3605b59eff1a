/* SPDX-License-Identifier: MIT */
/*
 * export_sqlite.c - --sqlite FILE: the dumps as an SQLite database, one
 * table per kind of record (docs/exports.md documents the schema).  Rows go in
 * through prepared statements inside one transaction, with the journal
 * off; indexes and views are made once everything is in, which is
 * faster than keeping indexes up to date row by row.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyzer/export.h"
#include "analyzer/files.h"
#include "analyzer/util.h"

#ifndef HAVE_SQLITE

int sqlite_export(const char *out, struct export_dump *d, size_t n)
{
	(void)out; (void)d; (void)n;
	error_msg("this " PROG_NAME " was built without SQLite: install "
		  "libsqlite3-dev and run make again");
	return EXIT_BADINPUT;
}

#else

#include "analyzer/export_sqlite.h"
#include "analyzer/progress.h"

#define EV "dump INTEGER, event_id INTEGER, tid INTEGER, t0 INTEGER, " \
	   "dur INTEGER, result INTEGER, "

static const struct { const char *name, *cols; } tables[SQ_TABLES] = {
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
		"shape INTEGER, function INTEGER, function_version INTEGER" },
	[SQ_GRAPH_LAUNCHES] = { "graph_launches", EV "stream INTEGER, op INTEGER, "
		"graph INTEGER" },
	[SQ_COPIES] = { "copies", EV "stream INTEGER, op INTEGER, bytes INTEGER, "
		"src INTEGER, dst INTEGER, count INTEGER, memory TEXT, "
		"staged INTEGER, sync_pinned INTEGER, stack INTEGER" },
	[SQ_MEMSETS] = { "memsets", EV "stream INTEGER, op INTEGER, "
		"bytes INTEGER, dst INTEGER" },
	[SQ_SYNCS] = { "syncs", EV "stream INTEGER, op INTEGER, handle INTEGER, "
		"stack INTEGER" },
	[SQ_HOST_ALLOCS] = { "host_allocs", EV "op INTEGER, bytes INTEGER, "
		"ptr INTEGER, flags INTEGER, stack INTEGER" },
	[SQ_NCCL_CALLS] = { "nccl_calls", EV "stream INTEGER, op INTEGER, "
		"count INTEGER, bytes INTEGER, comm INTEGER, peer INTEGER, "
		"datatype TEXT, redop INTEGER, stack INTEGER" },
	[SQ_NVTX_EVENTS] = { "nvtx_events", "dump INTEGER, event_id INTEGER, "
		"tid INTEGER, t0 INTEGER, op INTEGER, call TEXT, message INTEGER, "
		"domain INTEGER, range_id INTEGER, category INTEGER, level INTEGER" },
	[SQ_OTHER_EVENTS] = { "other_events", EV "stream INTEGER, op INTEGER" },
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
	"CREATE INDEX stack_frames_stack ON stack_frames(dump, stack)",
	"CREATE INDEX samples_time ON samples(time_ns)",
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

void sq_int(sqlite3_stmt *st, int i, int64_t v)
{
	sqlite3_bind_int64(st, i, v);
}

void sq_text(sqlite3_stmt *st, int i, const char *str)
{
	if (str)
		sqlite3_bind_text(st, i, str, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, i);
}

void sq_blob(sqlite3_stmt *st, int i, const void *p, int n)
{
	sqlite3_bind_blob(st, i, p, n, SQLITE_TRANSIENT);
}

void sq_step(struct sq *s, enum sq_table t)
{
	sqlite3_stmt *st = s->ins[t];

	if (!s->failed && sqlite3_step(st) != SQLITE_DONE)
		sq_fail(s, tables[t].name);
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	s->rows++;
}

/* "INSERT INTO t VALUES (?,?,...)" with one ? per column. */
static char *insert_sql(int t)
{
	size_t cols = 1, len = strlen(tables[t].name) + 32;
	char *sql, *p;

	for (const char *c = tables[t].cols; *c; c++)
		cols += *c == ',';
	sql = xmalloc(len + 2 * cols);
	p = sql + sprintf(sql, "INSERT INTO %s VALUES (", tables[t].name);
	for (size_t i = 0; i < cols; i++) {
		*p++ = '?';
		*p++ = i + 1 < cols ? ',' : ')';
	}
	*p = '\0';
	return sql;
}

static int schema(struct sq *s)
{
	for (int t = 0; t < SQ_TABLES; t++) {
		char *sql = xasprintf("CREATE TABLE %s (%s)", tables[t].name,
				      tables[t].cols);
		int rc = exec(s, sql);

		free(sql);
		if (rc < 0)
			return -1;
		sql = insert_sql(t);
		if (sqlite3_prepare_v2(s->db, sql, -1, &s->ins[t], NULL) != SQLITE_OK)
			sq_fail(s, sql);
		free(sql);
		if (s->failed)
			return -1;
	}
	return 0;
}

static int open_db(struct sq *s, const char *path)
{
	s->path = path;
	if (files_check_output(path) < 0 ||
	    (unlink(path) < 0 && errno != ENOENT)) {
		error_msg("cannot replace '%s': %s", path, files_strerror(errno));
		s->failed = 1;
		return -1;
	}
	if (sqlite3_open_v2(path, &s->db, SQLITE_OPEN_READWRITE |
			    SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
		sq_fail(s, "open");
		return -1;
	}
	if (exec(s, "PRAGMA journal_mode=OFF") < 0 ||
	    exec(s, "PRAGMA synchronous=OFF") < 0 ||
	    exec(s, "PRAGMA locking_mode=EXCLUSIVE") < 0 ||
	    exec(s, "PRAGMA page_size=16384") < 0 ||
	    exec(s, "PRAGMA cache_size=-32768") < 0 ||
	    exec(s, "PRAGMA threads=2") < 0 ||
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
		if (export_pass(d[i].path, sq_record, s, done) < 0)
			return -1;
		done += progress_file_size(d[i].path);
	}
	return s->failed ? -1 : 0;
}

static int finish(struct sq *s)
{
	if (exec(s, "COMMIT") < 0)
		return -1;
	for (size_t i = 0; i < ARRAY_SIZE(finish_sql); i++)
		if (exec(s, finish_sql[i]) < 0)
			return -1;
	return 0;
}

static void close_db(struct sq *s)
{
	for (int t = 0; t < SQ_TABLES; t++)
		sqlite3_finalize(s->ins[t]);
	if (s->db && sqlite3_close(s->db) != SQLITE_OK)
		sq_fail(s, "close");
	hmap_release(&s->shape_fn);
	hmap_release(&s->fn_version);
}

int sqlite_export(const char *out, struct export_dump *d, size_t n)
{
	struct sq s;
	uint64_t total = 0;
	int rc;

	memset(&s, 0, sizeof(s));
	for (size_t i = 0; i < n; i++)
		total += progress_file_size(d[i].path);
	progress_begin("writing the database", total);
	rc = open_db(&s, out);
	if (rc == 0)
		rc = load(&s, d, n);
	progress_end();
	if (rc == 0)
		rc = finish(&s);
	close_db(&s);
	if ((rc || s.failed) && s.db)
		files_remove_output(out);
	return rc || s.failed ? EXIT_BADINPUT : 0;
}

#endif /* HAVE_SQLITE */
