/* SPDX-License-Identifier: MIT */
/*
 * export.h - the outputs beyond the text and JSON reports: the Perfetto
 * timeline (--trace, --perfetto), the SQLite database (--sqlite), the HTML report
 * (--html), the host samples' collapsed stacks (--folded), several dumps
 * at once (ranks.h) and the comparison of two
 * runs (--diff, diff.h).  main.c parses the options into export_opts and
 * hands the dumps to a command (cmd.h).
 */
#ifndef GPUTRACE_ANALYZER_EXPORT_H
#define GPUTRACE_ANALYZER_EXPORT_H

#include <stddef.h>
#include <stdint.h>

#include "analyzer/reader/dump_reader.h"
#include "analyzer/model/model.h"

struct export_opts {
	const char *trace;          /* --trace FILE */
	const char *perfetto;       /* --perfetto FILE */
	const char *sqlite;         /* --sqlite FILE */
	const char *html;           /* --html FILE */
	const char *folded;         /* --folded FILE */
	int diff;                   /* --diff BEFORE AFTER */
	int json;                   /* --json */
	size_t top;                 /* --top */
	int have_top;               /* --top given */
	int wide;                   /* --wide: nothing cut, whole kernel names */
	int have_from, have_to;     /* --from S, --to S (from the start) */
	uint64_t from_ns, to_ns;
	int have_steps;             /* --steps N..M */
	uint64_t step_first, step_last;
};

/* One dump among those exported together. */
struct export_dump {
	const char *path;
	uint32_t index;             /* its place among the dumps, from 0 */
	uint32_t trace_pid;         /* the pid the timeline shows it under */
	int64_t offset_ns;          /* added to its times: clock alignment */
	uint64_t t_from, t_to;      /* what to write, in its own clock */
	uint64_t start_ns;          /* its header's start */
	uint32_t rank;              /* UINT32_MAX: not known */
	char *label;                /* "rank 3", or the file name */
};

/* The command-line options of the exports (main.c's getopt_long). */
enum {
	EXPORT_OPT_TRACE = 512, EXPORT_OPT_SQLITE, EXPORT_OPT_HTML,
	EXPORT_OPT_DIFF, EXPORT_OPT_FROM, EXPORT_OPT_TO, EXPORT_OPT_STEPS,
	EXPORT_OPT_PERFETTO, EXPORT_OPT_FOLDED,
};

#define EXPORT_LONGOPTS \
	{ "trace", required_argument, NULL, EXPORT_OPT_TRACE }, \
	{ "perfetto", required_argument, NULL, EXPORT_OPT_PERFETTO }, \
	{ "sqlite", required_argument, NULL, EXPORT_OPT_SQLITE }, \
	{ "html", required_argument, NULL, EXPORT_OPT_HTML }, \
	{ "folded", required_argument, NULL, EXPORT_OPT_FOLDED }, \
	{ "diff", no_argument, NULL, EXPORT_OPT_DIFF }, \
	{ "from", required_argument, NULL, EXPORT_OPT_FROM }, \
	{ "to", required_argument, NULL, EXPORT_OPT_TO }, \
	{ "steps", required_argument, NULL, EXPORT_OPT_STEPS },

#define EXPORT_USAGE \
	"    --trace OUT   write a Chrome trace (ui.perfetto.dev, chrome://tracing)\n" \
	"    --perfetto OUT  the same timeline in Perfetto's protobuf format\n" \
	"    --from S, --to S  only seconds S.. or ..S from the start (timelines)\n" \
	"    --steps N..M  only steps N to M (timelines; needs step detection)\n" \
	"    --sqlite OUT  write an SQLite database, one table per record kind\n" \
	"    --html OUT    write a self-contained HTML report\n" \
	"    --folded OUT  write the host samples' collapsed stacks (flamegraph.pl,\n" \
	"                  speedscope): \"root;...;leaf count\", a line per stack\n" \
	"                  (OUT is replaced once complete; - is standard output,\n" \
	"                  but for --sqlite)\n" \
	"    --diff        compare two dumps: BEFORE AFTER\n"

/* An export option: 0, or -1 after saying what is wrong. */
int export_option(int opt, const char *arg, struct export_opts *o);
/* Reject options that do not apply together: 0, or -1 after saying which. */
int export_check(const struct export_opts *o);
/* Whether path is a folder (of dumps). */
int export_is_folder(const char *path);

/* Whether o asks for an output (or --diff), not a report. */
int export_wanted(const struct export_opts *o);
/* The window to write (--from/--to/--steps), in each of the n dumps' own
 * clock (the steps from m0, the first dump's model): 0, or -1 (said). */
int export_set_window(const struct export_opts *o, struct export_dump *d,
		      size_t n, const struct model *m0);

/* The outputs (export_trace.c, export_sqlite.c, html.c): exit status. */
int trace_export(const char *out, struct export_dump *d, size_t n,
		 const struct export_opts *o);
int perfetto_export(const char *out, struct export_dump *d, size_t n,
		    const struct export_opts *o);
int sqlite_export(const char *out, struct export_dump *d, size_t n);
/* The host samples of the n models (each with its workers) as collapsed
 * stacks (export_folded.c). */
int folded_export(const char *out, struct model *const *m, size_t n);

#endif /* GPUTRACE_ANALYZER_EXPORT_H */
