/* SPDX-License-Identifier: MIT */
/*
 * files.h - opening the analyzer's inputs and outputs without blocking.
 *
 * A FIFO named as a dump or as an output would block open() until another
 * program opened its other end, and a read of it could never be rewound
 * for a second pass.  Dumps must be regular files; outputs regular files
 * or devices (/dev/null).  Both are opened with O_NONBLOCK and checked
 * with fstat before anything is read or written.
 */
#ifndef GPUTRACE_ANALYZER_FILES_H
#define GPUTRACE_ANALYZER_FILES_H

#include <stdio.h>

/* A dump to read; NULL with errno set (files_strerror() says why). */
FILE *files_open_input(const char *path);
/* An output, created or emptied; NULL with errno set. */
FILE *files_open_output(const char *path);
/* 0 if path may be replaced by an output (absent, regular or a device). */
int files_check_output(const char *path);
/* Remove an output left unfinished: a regular file only, never a device. */
void files_remove_output(const char *path);
/* strerror(err), or "not a regular file" for what the above refuse. */
const char *files_strerror(int err);

#endif /* GPUTRACE_ANALYZER_FILES_H */
