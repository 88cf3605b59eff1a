/* SPDX-License-Identifier: MIT */
/*
 * launcher.c - the gputrace command:
 *
 *   gputrace record [-o TEMPLATE] [--gpu MODE] [--] PROGRAM ARGS...
 *   gputrace run    [-o TEMPLATE] [--gpu MODE] [--] PROGRAM ARGS...
 *   gputrace analyze ARGS...          (gputrace-analyze ARGS...)
 *
 * record runs the program with libgputrace.so added to LD_PRELOAD,
 * GPUTRACE_OUTPUT set to an absolute template and GPUTRACE_GPU to MODE,
 * then lists the dumps its processes wrote and ends as the program ended.
 * run does the same, then prints the report on those dumps.
 *
 * Exit status: the program's (or its signal), 2 for bad usage or when
 * the library or the analyzer cannot be found, the analyzer's when it
 * fails after run.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "analyzer/cmd/launcher.h"

#ifndef GT_VERSION
#define GT_VERSION "unknown"
#endif

#define DEFAULT_TEMPLATE "gputrace-%h-%p.bin"

struct record_opts {
	const char *output;     /* -o, else GPUTRACE_OUTPUT, else the default */
	const char *gpu;        /* --gpu, or NULL: the library's default */
	char **argv;            /* the program and its arguments */
};

static const char usage_text[] =
	"usage: " LAUNCHER_NAME " record [-o TEMPLATE] [--gpu MODE] [--] PROGRAM [ARGS...]\n"
	"       " LAUNCHER_NAME " run [-o TEMPLATE] [--gpu MODE] [--] PROGRAM [ARGS...]\n"
	"       " LAUNCHER_NAME " analyze [gputrace-analyze options] DUMP...\n"
	"\n"
	"    record        run PROGRAM traced by libgputrace.so, then list its dumps\n"
	"    run           record, then print the report on the dumps\n"
	"    analyze       the same as gputrace-analyze (see gputrace-analyze --help)\n"
	"\n"
	"    -o, --output TEMPLATE  where each process writes its dump (GPUTRACE_OUTPUT):\n"
	"                  %p pid, %r rank, %h host, %% a percent sign\n"
	"                  (default " DEFAULT_TEMPLATE " in this folder)\n"
	"    --gpu MODE    GPU timing through CUPTI (GPUTRACE_GPU): windows, all or off\n"
	"    -h, --help    show this help\n"
	"    --version     show the version\n";

void launcher_msg(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs(LAUNCHER_NAME ": ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static __attribute__((noreturn)) void usage(int status)
{
	fputs(usage_text, status ? stderr : stdout);
	exit(status);
}

static void check_gpu_mode(const char *mode)
{
	if (!strcmp(mode, "windows") || !strcmp(mode, "all") || !strcmp(mode, "off"))
		return;
	launcher_msg("--gpu takes windows, all or off, not '%s'", mode);
	exit(LAUNCHER_EXIT_USAGE);
}

static void parse_record(int argc, char **argv, struct record_opts *o)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "gpu", required_argument, NULL, 'g' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "+o:h", longopts, NULL)) != -1) {
		if (c == 'o')
			o->output = optarg;
		else if (c == 'g')
			check_gpu_mode(o->gpu = optarg);
		else
			usage(c == 'h' ? 0 : LAUNCHER_EXIT_USAGE);
	}
	if (optind >= argc) {
		launcher_msg("no program to run");
		usage(LAUNCHER_EXIT_USAGE);
	}
	o->argv = argv + optind;
}

/* The template made absolute (relative to this folder): a program that
 * changes its folder still writes where gputrace looks. */
static char *absolute_template(const char *tmpl)
{
	char cwd[PATH_MAX], *out;

	if (tmpl[0] == '/' || !getcwd(cwd, sizeof(cwd)))
		return strdup(tmpl);
	out = malloc(strlen(cwd) + strlen(tmpl) + 2);
	if (out)
		sprintf(out, "%s/%s", cwd, tmpl);
	return out;
}

/*
 * Is lib, or another copy of the library, already one of the entries of
 * LD_PRELOAD (colon or space separated)?  Two copies in one process leave
 * the second inert: the one already there traces (said for another copy).
 */
static int preloaded(const char *list, const char *lib)
{
	char entry[PATH_MAX];

	while (*list) {
		size_t n = strcspn(list, ": ");

		if (n && n < sizeof(entry)) {
			memcpy(entry, list, n);
			entry[n] = 0;
			if (!strcmp(entry, lib))
				return 1;
			if (launcher_is_lib_copy(entry)) {
				launcher_msg("LD_PRELOAD has a copy of the library already, "
					     "'%s': that one traces", entry);
				return 1;
			}
		}
		list += n + (list[n] != 0);
	}
	return 0;
}

/* LD_PRELOAD with the library first, what was there kept after it. */
static int add_preload(const char *lib)
{
	const char *old = getenv("LD_PRELOAD");
	char *val;
	int rc;

	if (!old || !*old)
		return setenv("LD_PRELOAD", lib, 1);
	if (preloaded(old, lib))
		return 0;
	val = malloc(strlen(lib) + strlen(old) + 2);
	if (!val)
		return -1;
	sprintf(val, "%s:%s", lib, old);
	rc = setenv("LD_PRELOAD", val, 1);
	free(val);
	return rc;
}

/* This run's id: random, never 0 (the library writes it in each dump). */
static uint64_t new_run_id(void)
{
	uint64_t id = 0;

	if (getrandom(&id, sizeof(id), 0) != (ssize_t)sizeof(id)) {
		struct timespec t;

		clock_gettime(CLOCK_REALTIME, &t);
		id = ((uint64_t)getpid() << 40) ^ (uint64_t)t.tv_sec << 20 ^ (uint64_t)t.tv_nsec;
	}
	return id ? id : 1;
}

/* Set the environment the program runs in; the absolute template, or NULL. */
static char *set_env(const struct record_opts *o, uint64_t run_id)
{
	char lib[PATH_MAX], id[24];
	const char *tmpl = o->output ? o->output : getenv("GPUTRACE_OUTPUT");
	char *abs;

	if (launcher_find_lib(lib, sizeof(lib))) {
		launcher_msg("cannot find libgputrace.so beside this program, in "
			     "../lib or in '%s/lib'", GT_PREFIX);
		return NULL;
	}
	snprintf(id, sizeof(id), "%016llx", (unsigned long long)run_id);
	abs = absolute_template(tmpl && *tmpl ? tmpl : DEFAULT_TEMPLATE);
	if (!abs || add_preload(lib) || setenv("GPUTRACE_OUTPUT", abs, 1) ||
	    setenv("GPUTRACE_RUN_ID", id, 1) ||
	    (o->gpu && setenv("GPUTRACE_GPU", o->gpu, 1))) {
		launcher_msg("cannot set the environment of '%s'", o->argv[0]);
		free(abs);
		return NULL;
	}
	return abs;
}

static void print_dumps(const struct launcher_files *dumps, const char *tmpl)
{
	if (!dumps->n && !launcher_folder_exists(tmpl))
		launcher_msg("no dump was written: no folder '%.*s' exists (the "
			     "library makes none; gputrace makes the folder of "
			     "the program it starts only)",
			     (int)(strrchr(tmpl, '/') - tmpl), tmpl);
	else if (!dumps->n)
		launcher_msg("no dump was written (no CUDA call was traced, or "
			     "the library said above why it could not write)");
	for (size_t i = 0; i < dumps->n; i++)
		launcher_msg("dump %s", dumps->names[i]);
}

static void restore_preload(char *old)
{
	if (old)
		setenv("LD_PRELOAD", old, 1);
	else
		unsetenv("LD_PRELOAD");
	free(old);
}

/* Run the program traced; its wait status (-1: not run), dumps in dumps. */
static int record(int argc, char **argv, struct launcher_files *dumps)
{
	struct record_opts o = { NULL, NULL, NULL };
	uint64_t run_id = new_run_id();
	char *tmpl, *old_preload;
	int status;

	parse_record(argc, argv, &o);
	old_preload = getenv("LD_PRELOAD") ? strdup(getenv("LD_PRELOAD")) : NULL;
	tmpl = set_env(&o, run_id);
	if (!tmpl)
		exit(LAUNCHER_EXIT_USAGE);
	status = launcher_run_child(o.argv, tmpl);
	restore_preload(old_preload);   /* the analyzer (run) is not traced */
	launcher_files_matching(tmpl, dumps);
	launcher_files_of_run(dumps, run_id);
	print_dumps(dumps, tmpl);
	free(tmpl);
	return status;
}

/* argv for the analyzer: its path, then args (nargs of them), NULL. */
static char **analyzer_argv(char *path, char **args, size_t nargs)
{
	char **av = calloc(nargs + 2, sizeof(char *));

	if (!av) {
		launcher_msg("out of memory");
		exit(LAUNCHER_EXIT_USAGE);
	}
	av[0] = path;
	memcpy(av + 1, args, nargs * sizeof(char *));
	return av;
}

static int find_analyzer(char *path, size_t size)
{
	if (launcher_find_analyzer(path, size) == 0)
		return 0;
	launcher_msg("cannot find gputrace-analyze beside this program or in "
		     "'%s/bin'", GT_PREFIX);
	return -1;
}

static int cmd_analyze(int argc, char **argv)
{
	char path[PATH_MAX];

	if (find_analyzer(path, sizeof(path)))
		return LAUNCHER_EXIT_USAGE;
	execv(path, analyzer_argv(path, argv + 1, (size_t)argc - 1));
	launcher_msg("cannot run '%s': %m", path);
	return LAUNCHER_EXIT_USAGE;
}

/*
 * s as one word of a POSIX shell command: as it is when it holds only
 * characters no shell treats specially, else in single quotes (a quote in
 * it as '\''), so that pasting the command runs nothing the name holds.
 */
static char *shell_quoted(const char *s)
{
	static const char plain[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				    "0123456789_-+=./:,@%";
	size_t quotes = 0;
	char *out, *p;

	if (*s && !s[strspn(s, plain)])
		return strdup(s);
	for (const char *c = s; *c; c++)
		quotes += *c == '\'';
	out = malloc(strlen(s) + 3 * quotes + 3);
	if (!out)
		return NULL;
	p = out;
	*p++ = '\'';
	for (const char *c = s; *c; c++) {
		if (*c == '\'') {
			memcpy(p, "'\\''", 4);
			p += 4;
		} else {
			*p++ = *c;
		}
	}
	strcpy(p, "'");
	return out;
}

static int cmd_record(int argc, char **argv)
{
	struct launcher_files dumps;
	int status = record(argc, argv, &dumps);
	char *quoted = dumps.n == 1 ? shell_quoted(dumps.names[0]) : NULL;

	if (quoted)
		launcher_msg("report: " LAUNCHER_NAME " analyze %s", quoted);
	else if (dumps.n > 1)
		launcher_msg("report: " LAUNCHER_NAME " analyze DUMP... (one per process)");
	free(quoted);
	launcher_files_release(&dumps);
	launcher_exit_like(status);
}

/* record, then the analyzer's report on the dumps; the program's status
 * unless the report fails. */
static int cmd_run(int argc, char **argv)
{
	char path[PATH_MAX];
	struct launcher_files dumps;
	char **av;
	int status, report;

	if (find_analyzer(path, sizeof(path)))
		return LAUNCHER_EXIT_USAGE;
	status = record(argc, argv, &dumps);
	if (!dumps.n)
		launcher_exit_like(status);
	av = analyzer_argv(path, dumps.names, dumps.n);
	report = launcher_run_child(av, NULL);
	free(av);
	launcher_files_release(&dumps);
	if (report != 0)
		launcher_exit_like(report);
	launcher_exit_like(status);
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "";

	if (!strcmp(cmd, "record"))
		return cmd_record(argc - 1, argv + 1);
	if (!strcmp(cmd, "run"))
		return cmd_run(argc - 1, argv + 1);
	if (!strcmp(cmd, "analyze"))
		return cmd_analyze(argc - 1, argv + 1);
	if (!strcmp(cmd, "--version")) {
		printf(LAUNCHER_NAME " " GT_VERSION "\n");
		return 0;
	}
	if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help"))
		usage(0);
	if (*cmd)
		launcher_msg("unknown command '%s'", cmd);
	usage(LAUNCHER_EXIT_USAGE);
}
