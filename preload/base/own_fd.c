/* SPDX-License-Identifier: MIT */
/*
 * own_fd.c - short-lived descriptors of the library's threads (see
 * own_fd.h): the program may close every descriptor at any moment and
 * reuse the numbers, so ours are closed only while they are still ours.
 */
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "preload/base/own_fd.h"

int gt_own_open(struct gt_own_fd *o, const char *path)
{
	struct stat st;

	o->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (o->fd >= 0 && fstat(o->fd, &st) == 0) {
		o->dev = st.st_dev;
		o->ino = st.st_ino;
	} else if (o->fd >= 0) {
		close(o->fd);
		o->fd = -1;
	}
	return o->fd;
}

void gt_own_close(struct gt_own_fd *o)
{
	struct stat st;

	if (o->fd >= 0 && fstat(o->fd, &st) == 0 && st.st_dev == o->dev &&
	    st.st_ino == o->ino)
		close(o->fd);
	o->fd = -1;
}
