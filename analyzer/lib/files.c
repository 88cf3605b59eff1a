/* SPDX-License-Identifier: MIT */
/*
 * files.c - opening dumps and outputs without blocking on a FIFO
 * (files.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyzer/lib/files.h"

/* errno for a kind of file refused here; open() gives it for none */
#define NOT_REGULAR EMEDIUMTYPE

static int output_kind_ok(mode_t mode)
{
	return S_ISREG(mode) || S_ISCHR(mode);
}

/* Make fd blocking again and wrap it; NULL (fd closed) on failure. */
static FILE *wrap(int fd, const char *mode)
{
	int flags = fcntl(fd, F_GETFL);
	FILE *fp;

	if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) < 0) {
		close(fd);
		return NULL;
	}
	fp = fdopen(fd, mode);
	if (!fp)
		close(fd);
	return fp;
}

/* Close fd and fail with err. */
static FILE *refuse(int fd, int err)
{
	close(fd);
	errno = err;
	return NULL;
}

FILE *files_open_input(const char *path)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	struct stat st;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) < 0)
		return refuse(fd, errno);
	if (!S_ISREG(st.st_mode))
		return refuse(fd, S_ISDIR(st.st_mode) ? EISDIR : NOT_REGULAR);
	return wrap(fd, "rb");
}

int files_check_output(const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return errno == ENOENT ? 0 : -1;
	if (output_kind_ok(st.st_mode))
		return 0;
	errno = S_ISDIR(st.st_mode) ? EISDIR : NOT_REGULAR;
	return -1;
}

FILE *files_open_output(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_NONBLOCK | O_CLOEXEC, 0666);
	struct stat st;

	if (fd < 0) {
		if (errno == ENXIO)     /* a FIFO nobody reads */
			errno = NOT_REGULAR;
		return NULL;
	}
	if (fstat(fd, &st) < 0)
		return refuse(fd, errno);
	if (!output_kind_ok(st.st_mode))
		return refuse(fd, NOT_REGULAR);
	if (S_ISREG(st.st_mode) && ftruncate(fd, 0) < 0)
		return refuse(fd, errno);
	return wrap(fd, "w");
}

void files_remove_output(const char *path)
{
	struct stat st;

	if (lstat(path, &st) == 0 && S_ISREG(st.st_mode))
		unlink(path);
}

const char *files_strerror(int err)
{
	return err == NOT_REGULAR ? "not a regular file" : strerror(err);
}
