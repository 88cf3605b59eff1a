/* SPDX-License-Identifier: MIT */
/*
 * stdin_dump.c - a dump given as "-" is read from standard input.  The
 * reader and the exports open a dump more than once (its header, then its
 * records, at times twice), so standard input is first copied to a
 * temporary file.  The file is removed at once and read back through
 * /proc/self/fd, so that nothing is left behind even when the analyzer is
 * killed (by SIGPIPE under "| head", say); without /proc, it is removed
 * at exit.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyzer/reader/stdin_dump.h"
#include "analyzer/lib/util.h"

static char *tmp_path;          /* the file's name, until removed */
static char *read_path;         /* what the reader opens */

static void remove_tmp(void)
{
	if (tmp_path)
		unlink(tmp_path);
}

/* Copy fd 0 to fd out: 0, or -1 with errno set. */
static int copy_stdin(int out)
{
	char buf[1 << 16];
	ssize_t n;

	while ((n = read(0, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		for (ssize_t done = 0, w; done < n; done += w)
			if ((w = write(out, buf + done, (size_t)(n - done))) < 0)
				return -1;
	}
	return 0;
}

static const char *tmp_dir(void)
{
	const char *d = getenv("TMPDIR");

	return d && *d ? d : "/tmp";
}

/* Name the copy through its descriptor (kept open), the file removed. */
static void hide(int fd)
{
	char *p = xasprintf("/proc/self/fd/%d", fd);

	if (access(p, R_OK) == 0 && unlink(tmp_path) == 0) {
		free(tmp_path);
		tmp_path = NULL;
		read_path = p;
	} else {
		free(p);
		read_path = tmp_path;
	}
}

const char *stdin_dump(void)
{
	int fd;

	if (read_path)
		die("standard input ('-') can be read only once");
	if (isatty(0))
		die("no dump on standard input ('-'): it is a terminal");
	tmp_path = xasprintf("%s/gputrace-stdin-XXXXXX", tmp_dir());
	fd = mkstemp(tmp_path);
	if (fd < 0)
		die("cannot make a temporary file in '%s': %s", tmp_dir(),
		    strerror(errno));
	atexit(remove_tmp);
	if (copy_stdin(fd) < 0)
		die("cannot copy standard input to '%s': %s", tmp_path,
		    strerror(errno));
	hide(fd);
	return read_path;
}

const char *dump_name(const char *path)
{
	return read_path && !strcmp(path, read_path) ? "-" : path;
}
