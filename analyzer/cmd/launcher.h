/* SPDX-License-Identifier: MIT */
/*
 * launcher.h - the gputrace command: runs a program with libgputrace.so
 * preloaded (record), then reports on what it wrote (run), or hands over
 * to gputrace-analyze (analyze).  launcher.c parses the command line,
 * launcher_find.c finds the library and the analyzer, launcher_dumps.c
 * finds the dumps a run wrote, launcher_child.c runs the program.
 */
#ifndef GPUTRACE_ANALYZER_LAUNCHER_H
#define GPUTRACE_ANALYZER_LAUNCHER_H

#include <stddef.h>
#include <stdint.h>

#define LAUNCHER_NAME "gputrace"
#define LAUNCHER_EXIT_USAGE 2      /* bad usage, nothing to run or analyze */

#if defined(__GNUC__)
#define LAUNCHER_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define LAUNCHER_PRINTF(f, a)
#endif

/* "gputrace: <msg>" on stderr. */
void launcher_msg(const char *fmt, ...) LAUNCHER_PRINTF(1, 2);

/*
 * Where this program's file is, and the library and analyzer beside it
 * (the build folder), in ../lib/ and beside it (an installed tree), or
 * under the prefix it was built for.  Each returns 0, or -1 when none is
 * found; out gets an absolute path.
 */
int launcher_find_lib(char *out, size_t size);
int launcher_find_analyzer(char *out, size_t size);

/* Whether the LD_PRELOAD entry path is a copy of libgputrace.so: named
 * libgputrace*.so*, or a file exporting the function every copy exports. */
int launcher_is_lib_copy(const char *path);

/* A sorted list of file names. */
struct launcher_files {
	char **names;
	size_t n;
};

/*
 * The files that GPUTRACE_OUTPUT template tmpl can name (any pid, rank or
 * host, the ".N" the library adds instead of overwriting, the "-PID" of a
 * process other than the one started).
 */
void launcher_files_matching(const char *tmpl, struct launcher_files *out);
/* Whether a folder that the folder part of tmpl can name exists (1 when
 * it cannot be told). */
int launcher_folder_exists(const char *tmpl);
/* Keep only the dumps whose header holds run_id (GPUTRACE_RUN_ID). */
void launcher_files_of_run(struct launcher_files *f, uint64_t run_id);
void launcher_files_release(struct launcher_files *f);

/*
 * Run argv (searched in PATH) and wait for it: SIGINT, SIGTERM, SIGHUP and
 * SIGQUIT sent to this process are passed on to it (a terminal's own,
 * which the program gets directly, are not sent twice).  With a template
 * (the program to trace), the child first makes the folder its dump goes
 * to and sets GPUTRACE_RUN_PID to its pid: its dump takes the template's
 * name.  Returns the wait status, or -1 when it could not be started.
 */
int launcher_run_child(char **argv, const char *tmpl);
/* Exit as the program did: with its status, or of its signal. */
void launcher_exit_like(int status) __attribute__((noreturn));

#endif /* GPUTRACE_ANALYZER_LAUNCHER_H */
