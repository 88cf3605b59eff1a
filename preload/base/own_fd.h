/* SPDX-License-Identifier: MIT */
/*
 * own_fd.h - the library's descriptors (a /proc file read for a moment,
 * the dump), closed only while the number still holds what was opened:
 * the program may close every descriptor (close_range in another thread)
 * and open a file of its own under the same number at any moment.
 */
#ifndef GPUTRACE_PRELOAD_OWN_FD_H
#define GPUTRACE_PRELOAD_OWN_FD_H

#include <sys/types.h>

struct gt_own_fd {
	int fd;                     /* -1: none */
	dev_t dev;                  /* what it held when taken */
	ino_t ino;
};

/* open(path, O_RDONLY | O_CLOEXEC) and what it opened; the fd or -1. */
int gt_own_open(struct gt_own_fd *o, const char *path);

/* Take fd, just opened: 0, or -1 (fstat failed; o->fd is fd all the
 * same, closed by gt_own_close only if fstat works again). */
int gt_own_take(struct gt_own_fd *o, int fd);

/* 1 while o->fd still holds the file taken. */
int gt_own_still(const struct gt_own_fd *o);

/* Close it if it is still ours (gt_own_still); o->fd becomes -1. */
void gt_own_close(struct gt_own_fd *o);

/* Move it to the lowest free number from floor (close-on-exec), out of
 * the way of the numbers open() hands out: 0, or -1 (left where it was,
 * perhaps no longer ours). */
int gt_own_move(struct gt_own_fd *o, int floor);

#endif /* GPUTRACE_PRELOAD_OWN_FD_H */
