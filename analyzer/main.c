/* SPDX-License-Identifier: MIT */
/*
 * main.c - gputrace-analyze: read a dump written by libgputrace.so and
 * report where the host time of CUDA calls went.  Options and dispatch
 * only; the work is in dump_reader, model and report_*.
 *
 * Exit status: 0 on success (also for a dump that ends early, and for
 * several dumps of which some could not be read: those are left out with
 * a warning), 2 for bad usage, options that do not apply together, or no
 * dump that can be read.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/dump_reader.h"
#include "analyzer/export.h"
#include "analyzer/model.h"
#include "analyzer/pipeline.h"
#include "analyzer/progress.h"
#include "analyzer/report.h"
#include "analyzer/stdin_dump.h"
#include "analyzer/util.h"

#define DEFAULT_TOP 20

#ifndef GT_VERSION
#define GT_VERSION "unknown"   /* the Makefile gives VERSION */
#endif

struct options {
	int json;
	size_t top;
	const char *path;
	char **paths;           /* every DUMP (or folder) given */
	int npaths;
	struct export_opts ex;  /* export.h: --trace, --sqlite, --html... */
};

static const char usage_text[] =
	"usage: " PROG_NAME " [--json | [--top N] [--wide]] DUMP\n"
	"       " PROG_NAME " [--json] DIR | DUMP DUMP...   (several ranks)\n"
	"       " PROG_NAME " --trace OUT.json [--from S] [--to S] [--steps N..M] DUMP...\n"
	"       " PROG_NAME " --sqlite OUT.db DUMP...\n"
	"       " PROG_NAME " --html OUT.html DUMP...\n"
	"       " PROG_NAME " --diff [--json | [--top N] [--wide]] BEFORE AFTER\n"
	"    DUMP '-' reads the dump from standard input.\n"
	"\n"
	"    --json        print one JSON object instead of the text report\n"
	"    --top N       rows per table in the text report (default 20, "
	"0 = all)\n"
	"    --wide        cut nothing: whole kernel names, no width limit (else\n"
	"                  tables fit the terminal; a file or a pipe gets no\n"
	"                  width limit, kernels under their short names)\n"
	EXPORT_USAGE
	"    -h, --help    show this help\n"
	"    --version     show the version and the dump format it reads\n";

static NORETURN void usage(int status)
{
	fputs(usage_text, status ? stderr : stdout);
	exit(status);
}

static size_t parse_top(const char *arg)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(arg, &end, 10);
	if (!*arg || *end || errno || arg[0] == '-') {
		error_msg("--top needs a number of rows, not '%s'", arg);
		usage(EXIT_BADINPUT);
	}
	return v;
}

static void parse_options(int argc, char **argv, struct options *o)
{
	enum { OPT_JSON = 256, OPT_TOP, OPT_VERSION, OPT_WIDE };
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, OPT_JSON },
		{ "top", required_argument, NULL, OPT_TOP },
		{ "wide", no_argument, NULL, OPT_WIDE },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, OPT_VERSION },
		EXPORT_LONGOPTS
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_JSON:
			o->json = 1;
			break;
		case OPT_WIDE:
			o->ex.wide = 1;
			break;
		case OPT_TOP:
			o->top = parse_top(optarg);
			o->ex.have_top = 1;
			break;
		case 'h':
			usage(0);
		case OPT_VERSION:
			printf(PROG_NAME " " GT_VERSION " (reads dump format %d)\n",
			       GT_FORMAT_VERSION);
			exit(0);
		default:
			if (export_option(c, optarg, &o->ex) == 0)
				break;
			usage(EXIT_BADINPUT);
		}
	}
	if (optind >= argc)
		usage(EXIT_BADINPUT);
	for (int i = optind; i < argc; i++)
		if (!strcmp(argv[i], "-"))
			argv[i] = (char *)stdin_dump();
	o->path = argv[optind];
	o->paths = argv + optind;
	o->npaths = argc - optind;
}

/* Stream the dump into m; 0 or -1 (reported). */
static int read_dump(struct dump_reader *r, struct model *m)
{
	struct dump_record rec;
	int rc;

	while ((rc = dump_next(r, &rec)) > 0) {
		progress_tick(rec.offset);
		pipeline_add(m, r, &rec);
	}
	progress_end();
	if (rc < 0) {
		error_msg("%s", dump_error(r));
		return -1;
	}
	pipeline_finish(m, dump_ends_early(r));
	return 0;
}

static int analyze(const struct options *o)
{
	struct dump_reader *r;
	struct model m;
	int rc = -1;

	if (dump_open(&r, o->path) < 0) {
		error_msg("%s", dump_error(r));
		dump_close(r);
		return EXIT_BADINPUT;
	}
	model_init(&m, dump_header(r));
	m.path = o->path;
	progress_begin("reading", progress_file_size(o->path));
	if (read_dump(r, &m) == 0) {
		if (m.ends_early)
			warning_msg("'%s' ends early (no end record): the "
				    "program did not finish tracing",
				    dump_name(o->path));
		if (o->json)
			report_json(stdout, &m);
		else
			report_text(stdout, &m, &(struct report_opts){ o->top });
		rc = 0;
	}
	pipeline_release(&m);
	dump_close(r);
	return rc ? EXIT_BADINPUT : 0;
}

int main(int argc, char **argv)
{
	struct options o = { 0, DEFAULT_TOP, NULL, NULL, 0, { 0 } };
	int status;

	parse_options(argc, argv, &o);
	o.ex.json = o.json;
	o.ex.top = o.top;
	if (export_check(&o.ex) < 0)
		return EXIT_BADINPUT;
	report_set_width(o.ex.wide ? 0 : report_terminal_width(), o.ex.wide);
	if (export_wanted(&o.ex) || o.npaths != 1 || export_is_folder(o.path))
		status = export_main(&o.ex, o.paths, o.npaths);
	else
		status = analyze(&o);
	if (fflush(stdout) || ferror(stdout)) {
		error_msg("cannot write the report: %s", strerror(errno));
		return EXIT_BADINPUT;
	}
	return status;
}
