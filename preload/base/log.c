/* SPDX-License-Identifier: MIT */
/*
 * log.c - one line on stderr, formatted on the stack and written with one
 * write(2), errno preserved: usable from any thread at any time.
 *
 * None of the library's writes may raise SIGPIPE: a quiet program whose
 * stderr reader has gone (prog 2>&1 | head) would die of it at exit,
 * when the dump's last line is written.  SIGPIPE is blocked around the
 * write, and one that the write left pending is taken back with
 * sigtimedwait, unless one was pending already (the program's own).
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#include "preload/base/internal.h"

static void pipe_set(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGPIPE);
}

static int pipe_pending(void)
{
	sigset_t pending;

	return sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE);
}

void gt_nopipe_begin(struct gt_nopipe *g)
{
	sigset_t pipe;

	pipe_set(&pipe);
	pthread_sigmask(SIG_BLOCK, &pipe, &g->old);
	g->had = pipe_pending();
}

void gt_nopipe_end(struct gt_nopipe *g)
{
	static const struct timespec now;
	sigset_t pipe;
	int saved = errno;

	pipe_set(&pipe);
	if (!g->had && pipe_pending())
		sigtimedwait(&pipe, NULL, &now);
	pthread_sigmask(SIG_SETMASK, &g->old, NULL);
	errno = saved;
}

ssize_t gt_write(int fd, const void *buf, size_t n)
{
	struct gt_nopipe g;
	ssize_t rc;

	gt_nopipe_begin(&g);
	rc = write(fd, buf, n);
	gt_nopipe_end(&g);
	return rc;
}

void gt_log(const char *fmt, ...)
{
	char buf[512];
	int saved = errno, n;
	va_list ap;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(buf) - 1)
		n = sizeof(buf) - 1;
	if (n > 0 && gt_write(STDERR_FILENO, buf, (size_t)n) < 0)
		(void)0;
	errno = saved;
}
