/* SPDX-License-Identifier: MIT */
/*
 * main.c - gputrace-analyze: the options, and which command (cmd.h) runs
 * on the dumps given: the report of one dump, its outputs, several ranks,
 * or two runs compared.  The work is in the commands (cmd_*.c).
 *
 * Exit status: 0 on success (also for a dump that ends early, and for
 * several dumps of which some could not be read: those are left out with
 * a warning), 2 for bad usage, options that do not apply together, or no
 * dump that can be read.
 */
#include <errno.h>
#include <getopt.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/cmd/cmd.h"
#include "analyzer/export/export.h"
#include "analyzer/pipeline/loader.h"
#include "analyzer/report/report.h"
#include "analyzer/reader/stdin_dump.h"
#include "analyzer/lib/symbol_path.h"
#include "analyzer/lib/util.h"

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
	char **symbols;         /* --symbols DIR, in the order given */
	size_t nsymbols;
	struct export_opts ex;  /* export.h: --trace, --sqlite, --html... */
};

static const char usage_text[] =
	"usage: " PROG_NAME " [--json | [--top N] [--wide]] DUMP\n"
	"       " PROG_NAME " [--json] DIR | DUMP DUMP...   (several ranks)\n"
	"       " PROG_NAME " --trace OUT.json [--from S] [--to S] [--steps N..M] DUMP...\n"
	"       " PROG_NAME " --sqlite OUT.db DUMP...\n"
	"       " PROG_NAME " --html OUT.html DUMP...\n"
	"       " PROG_NAME " --folded OUT.txt DUMP...\n"
	"       " PROG_NAME " --diff [--json | [--top N] [--wide]] BEFORE AFTER\n"
	"    DUMP '-' reads the dump from standard input.\n"
	"\n"
	"    --json        print one JSON object instead of the text report\n"
	"    --top N       rows per table in the text report (default 20, "
	"0 = all)\n"
	"    --wide        cut nothing: whole kernel names, no width limit (else\n"
	"                  the report fits the terminal, COLUMNS, or 100 columns\n"
	"                  in a file or a pipe; kernel names shortened)\n"
	"    --symbols DIR look for the programs and libraries that ran in DIR\n"
	"                  (by build id, then by file name) to name native\n"
	"                  frames; may be given again (also GPUTRACE_SYMBOL_PATH)\n"
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
	enum { OPT_JSON = 256, OPT_TOP, OPT_VERSION, OPT_WIDE, OPT_SYMBOLS };
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, OPT_JSON },
		{ "top", required_argument, NULL, OPT_TOP },
		{ "wide", no_argument, NULL, OPT_WIDE },
		{ "symbols", required_argument, NULL, OPT_SYMBOLS },
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
		case OPT_SYMBOLS:
			o->symbols = xrealloc(o->symbols, (o->nsymbols + 1) *
					      sizeof(*o->symbols));
			o->symbols[o->nsymbols++] = optarg;
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

/* Which command the options and the processes found ask for. */
static int dispatch(const struct export_opts *o, struct family *f, size_t n)
{
	if (o->have_top && n > 1) {
		error_msg("--top applies to the report of one dump or to --diff");
		return EXIT_BADINPUT;
	}
	if (n == 1 && !export_wanted(o))
		return cmd_report(o, f);
	if (n == 1)
		return cmd_export(o, f);
	return cmd_ranks(o, f, n);
}

/* --diff: two dumps as given, workers or not. */
static int diff(const struct export_opts *o, char **v, size_t count)
{
	if (count != 2) {
		error_msg("--diff compares two dumps, not %zu", count);
		return EXIT_BADINPUT;
	}
	return cmd_diff(o, v[0], v[1]);
}

static int run(const struct options *o)
{
	size_t count;
	char **v = loader_find_dumps(o->paths, o->npaths, &count);
	struct family *f;
	size_t n;
	int rc;

	if (!v)
		return EXIT_BADINPUT;
	if (o->ex.diff) {
		rc = diff(&o->ex, v, count);
	} else {
		f = loader_families(v, count, &n);
		rc = n ? dispatch(&o->ex, f, n) : EXIT_BADINPUT;
		loader_free_families(f, n);
	}
	loader_free_dumps(v, count);
	return rc;
}

/*
 * The diagnosis grows, sorts and copies arrays of a few MB, again and
 * again: from the heap, where freed memory is taken again, rather than
 * from pages mapped anew and zeroed by the kernel each time (half the
 * system time of a report).  Not for the timelines, which stream with
 * little memory, nor for SQLite, whose own allocations would then stay
 * resident.
 */
static void keep_freed_memory(const struct options *o)
{
#ifdef M_MMAP_THRESHOLD
	if (o->ex.sqlite || o->ex.trace || o->ex.perfetto)
		return;
	mallopt(M_MMAP_THRESHOLD, 32 << 20);
	mallopt(M_TRIM_THRESHOLD, 64 << 20);
#endif
}

int main(int argc, char **argv)
{
	struct options o = { .top = DEFAULT_TOP };
	int status;

	parse_options(argc, argv, &o);
	keep_freed_memory(&o);
	symbol_path_init(o.symbols, o.nsymbols, getenv("GPUTRACE_SYMBOL_PATH"));
	o.ex.json = o.json;
	o.ex.top = o.top;
	if (export_check(&o.ex) < 0)
		return EXIT_BADINPUT;
	report_set_width(o.ex.wide ? 0 : report_terminal_width());
	status = run(&o);
	symbol_path_release();
	free(o.symbols);
	if (fflush(stdout) || ferror(stdout)) {
		error_msg("cannot write the report: %s", strerror(errno));
		return EXIT_BADINPUT;
	}
	return status;
}
