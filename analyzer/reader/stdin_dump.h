/* SPDX-License-Identifier: MIT */
/*
 * stdin_dump.h - "-" for a dump: standard input, copied to a temporary
 * file first (stdin_dump.c).
 */
#ifndef GPUTRACE_ANALYZER_STDIN_DUMP_H
#define GPUTRACE_ANALYZER_STDIN_DUMP_H

/* The path of a file holding all of standard input, removed at exit;
 * dies (exit 2) if it cannot be made, or on a second call. */
const char *stdin_dump(void);
/* The name to show for a dump's path: "-" for standard input's copy. */
const char *dump_name(const char *path);

#endif /* GPUTRACE_ANALYZER_STDIN_DUMP_H */
