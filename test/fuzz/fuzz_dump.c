/* SPDX-License-Identifier: MIT */
/*
 * fuzz_dump.c - the libFuzzer target (make fuzz, make fuzz-long): any
 * bytes, read as a dump by gputrace-analyze itself in one output mode,
 * chosen by FUZZ_TARGET: text, json, trace, sqlite, html, diff (the input
 * against itself), ranks (the input as two ranks), folded (its host
 * samples' collapsed stacks), or all (every one of
 * them on each input; the default).  test/fuzz/mutate.c mutates inputs
 * chunk by chunk.
 *
 * analyzer/cmd/main.c is compiled with main renamed (-Dmain=gt_analyzer_main)
 * and run as the command would be, on a memory file holding the input, so
 * whatever the analyzer does with a dump is fuzzed, exports included.  A
 * crash, a sanitizer report, a leak, an allocation over -malloc_limit_mb,
 * a run over -timeout or an exit() (the analyzer must return 2, not die)
 * fails the run.
 */
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#ifdef HAVE_SQLITE
#include "test/fuzz/sqlite_mem.h"
#endif

int gt_analyzer_main(int argc, char **argv);

enum target { T_TEXT, T_JSON, T_TRACE, T_SQLITE, T_HTML, T_DIFF, T_RANKS,
	      T_FOLDED, T_ALL };

static const char *const names[] = {
	"text", "json", "trace", "sqlite", "html", "diff", "ranks", "folded",
	"all",
};

static enum target target = T_ALL;
static char path[64], db[64], dir[] = "/dev/shm/gt-fuzz-XXXXXX";

static void cleanup(void)
{
	unlink(db);
	rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *env = getenv("FUZZ_TARGET");
	int fd = memfd_create("dump", 0);

	(void)argc, (void)argv;
	for (int t = 0; env && t <= T_ALL; t++)
		if (!strcmp(env, names[t]))
			target = (enum target)t;
	if (env && strcmp(env, names[target])) {
		fprintf(stderr, "fuzz_dump: FUZZ_TARGET='%s' is not one of "
			"text json trace sqlite html diff ranks folded all\n", env);
		exit(1);
	}
	if (fd < 0 || !mkdtemp(dir))
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	snprintf(db, sizeof(db), "%s/out.db", dir);
	atexit(cleanup);
#ifdef HAVE_SQLITE
	if (fuzz_sqlite_mem() < 0)
		abort();
#endif
	return 0;
}

static void run(char *a1, char *a2, char *a3, char *a4)
{
	char prog[] = "gputrace-analyze";
	char *argv[] = { prog, a1, a2, a3, a4, NULL };
	int argc = 1;

	while (argv[argc])
		argc++;
	optind = 0;                     /* getopt starts over */
	gt_analyzer_main(argc, argv);
}

static void run_target(enum target t)
{
	char json[] = "--json", top[] = "--top=0", trace[] = "--trace";
	char sqlite[] = "--sqlite", html[] = "--html", diff[] = "--diff";
	char folded[] = "--folded";
	char null[] = "/dev/null";

	switch (t) {
	case T_TEXT: run(top, path, NULL, NULL); break;
	case T_JSON: run(json, path, NULL, NULL); break;
	case T_TRACE: run(trace, null, path, NULL); break;
	case T_SQLITE: run(sqlite, db, path, NULL); break;   /* on tmpfs */
	case T_HTML: run(html, null, path, NULL); break;
	case T_DIFF: run(diff, json, path, path); break;
	case T_RANKS: run(json, path, path, NULL); break;
	case T_FOLDED: run(folded, null, path, NULL); break;
	default: break;
	}
}

/* SQLite's memory is outside LeakSanitizer's sight (sqlite_mem.c): a
 * run must give back every block it took. */
static void check_sqlite_blocks(void)
{
#ifdef HAVE_SQLITE
	static size_t before = SIZE_MAX;
	size_t now = fuzz_sqlite_blocks();

	if (before != SIZE_MAX && now != before) {
		fprintf(stderr, "fuzz_dump: the run left %zd blocks of SQLite "
			"memory in use (a connection or statement not closed)\n",
			(ssize_t)(now - before));
		abort();
	}
	before = now;
#endif
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd = atoi(path + strlen("/proc/self/fd/"));

	if (ftruncate(fd, 0) || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	if (target != T_ALL) {
		run_target(target);
	} else {
		for (int t = 0; t < T_ALL; t++)
			run_target((enum target)t);
	}
	check_sqlite_blocks();
	return 0;
}
