/* SPDX-License-Identifier: MIT */
/*
 * files.h - opening the analyzer's inputs and writing its outputs.
 *
 * A FIFO named as a dump would block open() until another program opened
 * its other end, and a read of it could never be rewound for a second
 * pass: dumps must be regular files, opened with O_NONBLOCK and checked
 * with fstat before anything is read.
 *
 * Every output file goes the same way (files_out_begin/files_out_end): a
 * regular file is written under a temporary name beside it and renamed
 * over it only once complete, so that a failed export leaves what was
 * there untouched; what is not a regular file is never removed or
 * replaced.  A stream format writes straight into standard output ("-"),
 * a character device (/dev/null) or a FIFO that a program reads.
 */
#ifndef GPUTRACE_ANALYZER_FILES_H
#define GPUTRACE_ANALYZER_FILES_H

#include <stdio.h>

/* A dump to read; NULL with errno set (files_strerror() says why). */
FILE *files_open_input(const char *path);
/* strerror(err), or "not a regular file" for what the above refuses. */
const char *files_strerror(int err);

/* An output being written. */
struct files_out {
	FILE *fp;                   /* to write into; NULL: write path tmp */
	const char *name;           /* as given, for messages */
	char *dest;                 /* the file tmp replaces; NULL: straight */
	char *tmp;                  /* the temporary file beside dest */
};

/*
 * Start the output path.  file_only names an output that cannot be a
 * stream ("an SQLite database"): "-", a device or a FIFO is refused, and
 * o->fp is NULL: the format opens o->tmp by its name.  With file_only
 * NULL, "-" is standard output and a character device or a FIFO is
 * written into.  0, or -1 after saying why.
 */
int files_out_begin(struct files_out *o, const char *path,
		    const char *file_only);
/*
 * End it, closing o->fp.  ok: the temporary file takes the target's place
 * (0, or -1 after saying why).  !ok: the temporary file is removed and
 * the target is left as it was (-1).
 */
int files_out_end(struct files_out *o, int ok);

#endif /* GPUTRACE_ANALYZER_FILES_H */
