/* SPDX-License-Identifier: MIT */
/*
 * own_fd.c - the library's descriptors (see own_fd.h): the program may
 * close every descriptor at any moment and reuse the numbers, so ours are
 * closed only while they are still ours.
 */
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "preload/base/own_fd.h"

int gt_own_take(struct gt_own_fd *o, int fd)
{
	struct stat st;

	o->fd = fd;
	o->dev = 0;
	o->ino = 0;
	if (fd < 0 || fstat(fd, &st))
		return -1;
	o->dev = st.st_dev;
	o->ino = st.st_ino;
	return 0;
}

int gt_own_open(struct gt_own_fd *o, const char *path)
{
	if (gt_own_take(o, open(path, O_RDONLY | O_CLOEXEC)) < 0 && o->fd >= 0) {
		close(o->fd);       /* just opened, fstat failed: still ours */
		o->fd = -1;
	}
	return o->fd;
}

int gt_own_still(const struct gt_own_fd *o)
{
	struct stat st;

	return o->fd >= 0 && fstat(o->fd, &st) == 0 && st.st_dev == o->dev &&
	       st.st_ino == o->ino;
}

void gt_own_close(struct gt_own_fd *o)
{
	if (gt_own_still(o))
		close(o->fd);
	o->fd = -1;
}

/* The copy at the high number is checked too: when the program replaced
 * ours just before, it copied the program's file, which is not kept. */
int gt_own_move(struct gt_own_fd *o, int floor)
{
	struct gt_own_fd high = *o;

	if (o->fd < 0 || o->fd >= floor)
		return 0;
	high.fd = fcntl(o->fd, F_DUPFD_CLOEXEC, floor);
	if (high.fd < 0)
		return -1;
	if (!gt_own_still(&high)) {
		close(high.fd);     /* made here a moment ago */
		return -1;
	}
	gt_own_close(o);
	*o = high;
	return 0;
}
