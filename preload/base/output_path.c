/* SPDX-License-Identifier: MIT */
/*
 * output_path.c - GPUTRACE_OUTPUT templates and safe creation of the dump.
 *
 * What a field expands to comes from outside the template (the host name
 * can be set in a UTS namespace, the rank from the environment), so it
 * stays one file name part: a '/' in it, and a leading '.' (so never
 * '.' or '..'), become '_'.
 *
 * The path is made absolute when the dump is created (the program may
 * change directory later, as Hydra does).  A name that exists is never
 * overwritten: a regular file gets a numbered name beside it; a character
 * device (/dev/null) or a FIFO is written into as it is, never waited on;
 * anything else is not written.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "preload/base/output_path.h"

unsigned gt_output_rank(void)
{
	static const char *const vars[] = {
		"RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID"
	};

	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		const char *v = getenv(vars[i]);
		char *end;
		unsigned long n;

		if (!v || !*v)
			continue;
		n = strtoul(v, &end, 10);
		if (!*end)
			return (unsigned)n;
	}
	return 0;
}

int (*gt_output_hostname)(char *name, size_t len) = gethostname;

pid_t gt_output_main_pid;

/* A field as one harmless part of a file name. */
static void sanitize(char *field)
{
	char *c = field;

	for (; *c == '.'; c++)
		*c = '_';
	for (; *c; c++)
		if (*c == '/')
			*c = '_';
}

static void host_name(char *piece, size_t size)
{
	if (gt_output_hostname(piece, size - 1) || !*piece)
		strcpy(piece, "localhost");
	piece[size - 1] = 0;
}

/* path with sep and k before its extension (or at the end): ".N", "-PID". */
static int numbered(const char *path, char sep, unsigned k, char *out, size_t size)
{
	const char *slash = strrchr(path, '/');
	const char *dot = strrchr(path, '.');
	int len;

	if (!dot || (slash && dot < slash) || dot == path || (slash && dot == slash + 1))
		dot = path + strlen(path);
	len = snprintf(out, size, "%.*s%c%u%s", (int)(dot - path), path, sep, k, dot);
	return len > 0 && (size_t)len < size ? 0 : -1;
}

/* An existing character device or FIFO (/dev/null, a pipe): written into
 * as it is by whichever process, never renamed. */
static int names_stream(const char *path)
{
	struct stat st;

	return !stat(path, &st) && (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode));
}

/* A process other than the main one: "-PID" before the extension. */
static int other_process(char *out, size_t size)
{
	char base[4096];

	if (strlen(out) >= sizeof(base))
		return -1;
	strcpy(base, out);
	return numbered(base, '-', (unsigned)getpid(), out, size);
}

int gt_output_expand(const char *tmpl, char *out, size_t size)
{
	size_t n = 0;
	int per_process = 0;        /* %p or %r: one name per process (rank) */
	char piece[256];

	for (const char *p = tmpl; *p; p++) {
		const char *add = piece;

		if (*p != '%' || !p[1]) {
			piece[0] = *p;
			piece[1] = 0;
		} else {
			switch (*++p) {
			case 'p':
				snprintf(piece, sizeof(piece), "%d", (int)getpid());
				per_process = 1;
				break;
			case 'r':
				snprintf(piece, sizeof(piece), "%u", gt_output_rank());
				per_process = 1;
				break;
			case 'h': host_name(piece, sizeof(piece)); break;
			case '%': add = "%"; break;
			default: snprintf(piece, sizeof(piece), "%%%c", *p); break;
			}
			if (add == piece)
				sanitize(piece);
		}
		if (n + strlen(add) >= size)
			return -1;
		strcpy(out + n, add);
		n += strlen(add);
	}
	out[n] = 0;
	if (!n)
		return -1;
	if (!per_process && gt_output_main_pid && getpid() != gt_output_main_pid &&
	    !names_stream(out))
		return other_process(out, size);
	return 0;
}

/* path prefixed with the working directory, when relative and it fits. */
static void make_absolute(char *path, size_t size)
{
	char cwd[4096];
	size_t n;

	if (path[0] == '/' || !getcwd(cwd, sizeof(cwd)) || cwd[0] != '/')
		return;
	n = strlen(cwd);
	if (n + 1 + strlen(path) >= size)
		return;
	memmove(path + n + 1, path, strlen(path) + 1);
	memcpy(path, cwd, n);
	path[n] = '/';
}

static int is_stream(mode_t mode)
{
	return S_ISCHR(mode) || S_ISFIFO(mode);
}

/* A link into /proc (/dev/stdout, /dev/stderr): one of the program's
 * descriptors, never a place for a numbered file. */
static int names_descriptor(const char *path)
{
	char to[64];
	ssize_t n = readlink(path, to, sizeof(to) - 1);

	return n >= 6 && !memcmp(to, "/proc/", 6);
}

#define NOT_STREAM (-EEXIST)

/*
 * path exists.  A character device or a FIFO, or a link to one that root
 * or this user owns, is opened for writing as it is (a FIFO without a
 * reader fails at once: -ENXIO); returns the fd.  -ENXIO too for a link
 * into /proc to anything else (/dev/stdout when stdout is a file: the
 * program's own).  NOT_STREAM: something else, a numbered name is made.
 */
static int open_existing(const char *path)
{
	int flags = O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, fd;
	struct stat l, st;

	if (lstat(path, &l))
		return NOT_STREAM;
	if (S_ISLNK(l.st_mode)) {
		if (l.st_uid != 0 && l.st_uid != geteuid())
			return NOT_STREAM;
		if (stat(path, &st) || !is_stream(st.st_mode))
			return names_descriptor(path) ? -ENXIO : NOT_STREAM;
	} else if (is_stream(l.st_mode)) {
		flags |= O_NOFOLLOW;
	} else {
		return NOT_STREAM;
	}
	fd = open(path, flags);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !is_stream(st.st_mode)) {
		close(fd);                  /* changed meanwhile */
		return NOT_STREAM;
	}
	return fd;
}

/* Create cand, mode 0600, never through a link nor over a file: its fd
 * (path becomes cand), or -errno. */
static int create(const char *cand, char *path, size_t size)
{
	int fd = open(cand, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);

	if (fd < 0)
		return -errno;
	if (strlen(cand) >= size) {
		close(fd);
		unlink(cand);
		return -ENAMETOOLONG;
	}
	if (cand != path)
		strcpy(path, cand);
	return fd;
}

int gt_output_create(char *path, size_t size)
{
	char base[4096], cand[4096];
	int fd;

	make_absolute(path, size);
	if (strlen(path) >= sizeof(base))
		return -ENAMETOOLONG;
	strcpy(base, path);
	fd = create(path, path, size);
	if (fd == -EEXIST)
		fd = open_existing(path);   /* a device or a FIFO: as it is */
	for (unsigned k = 1; fd == NOT_STREAM && k < 1000; k++) {
		if (numbered(base, '.', k, cand, sizeof(cand)))
			return -ENAMETOOLONG;
		fd = create(cand, path, size);
	}
	return fd;
}
