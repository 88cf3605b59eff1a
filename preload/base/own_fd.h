/* SPDX-License-Identifier: MIT */
/*
 * own_fd.h - descriptors the library opens for a moment (a /proc file to
 * read), closed only while the number still holds what was opened.
 */
#ifndef GPUTRACE_PRELOAD_OWN_FD_H
#define GPUTRACE_PRELOAD_OWN_FD_H

#include <sys/types.h>

struct gt_own_fd {
	int fd;
	dev_t dev;
	ino_t ino;
};

/* open(path, O_RDONLY | O_CLOEXEC) and what it opened; the fd or -1. */
int gt_own_open(struct gt_own_fd *o, const char *path);

/*
 * Close it, unless the program closed that number meanwhile (close_range
 * in another thread) and opened a file of its own there: closing the
 * number then would take the program's file away.
 */
void gt_own_close(struct gt_own_fd *o);

#endif /* GPUTRACE_PRELOAD_OWN_FD_H */
