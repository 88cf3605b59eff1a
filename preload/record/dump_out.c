/* SPDX-License-Identifier: MIT */
/*
 * dump_out.c - buffered, append-only writing of chunks.  A failed write
 * (disk full, file gone) stops writing for good and is said once: the
 * traced program goes on.  The file never grows past the process's file
 * size limit (ulimit -f): the kernel would kill the program (SIGXFSZ).
 *
 * The descriptor is the program's to break: it may close every one
 * (close_range) or dup2 a file of its own over ours.  So ours sits high
 * (out of the way of the lowest-free numbers open hands out) and
 * close-on-exec, and before each write fstat says whether it is still
 * the dump (device and inode as created).  If not, the dump is opened
 * again by its path (only if that is still the same file, as long as we
 * wrote it); else writing stops, said once.  A descriptor that is no
 * longer ours is never written to or closed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "include/gputrace/format.h"
#include "preload/record/dump_out.h"
#include "preload/base/internal.h"

#define OUT_CAP (1u << 20)
#define FD_FLOOR 900                /* or half the descriptor limit */

/* The file moved to a high number (close-on-exec), if it can be. */
static void move_high(struct gt_own_fd *f)
{
	struct rlimit rl;
	rlim_t floor = FD_FLOOR;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur / 2 < floor)
		floor = rl.rlim_cur / 2;
	gt_own_move(f, (int)floor);
}

int gt_dump_out_ours(const struct gt_dump_out *o)
{
	return gt_own_still(&o->file);
}

int gt_dump_out_open(struct gt_dump_out *o, int fd, const char *path)
{
	memset(o, 0, sizeof(*o));
	o->path = path;
	if (gt_own_take(&o->file, fd) < 0)
		return -1;
	move_high(&o->file);
	o->buf = malloc(OUT_CAP);
	o->cap = OUT_CAP;
	return o->buf ? 0 : -1;
}

/* The program closed our descriptor or put a file of its own there:
 * open the dump again by its path, if that is still the dump as we left
 * it.  0, or -1 (writing stops; the old number is left alone). */
static int reopen(struct gt_dump_out *o)
{
	struct gt_own_fd again;
	int old = o->file.fd;
	struct stat st;

	o->file.fd = -1;
	if (gt_own_take(&again, open(o->path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC)))
		goto fail;
	if (again.dev != o->file.dev || again.ino != o->file.ino ||
	    fstat(again.fd, &st) || (uint64_t)st.st_size != o->bytes_written ||
	    lseek(again.fd, (off_t)o->bytes_written, SEEK_SET) < 0)
		goto fail;
	move_high(&again);
	o->file = again;
	gt_log("gputrace: the program closed or replaced descriptor %d, the "
	       "dump's; '%s' opened again\n", old, o->path);
	return 0;
fail:
	gt_own_close(&again);
	gt_log("gputrace: the program closed or replaced descriptor %d, the "
	       "dump's, and '%s' cannot be opened again; tracing stops here\n",
	       old, o->path);
	return -1;
}

/* Stop writing; close the descriptor only if it is still ours. */
static void stop(struct gt_dump_out *o)
{
	gt_own_close(&o->file);
}

/* Whether writing n more bytes would pass RLIMIT_FSIZE. */
static int over_size_limit(const struct gt_dump_out *o, size_t n)
{
	struct rlimit fs;

	return n && getrlimit(RLIMIT_FSIZE, &fs) == 0 && fs.rlim_cur != RLIM_INFINITY &&
	       o->bytes_written + n > (uint64_t)fs.rlim_cur;
}

int gt_dump_out_flush(struct gt_dump_out *o)
{
	size_t off = 0;

	if (o->file.fd >= 0 && over_size_limit(o, o->len)) {
		gt_log("gputrace: cannot write '%s': the file size limit (ulimit -f) "
		       "is reached; tracing stops here\n", o->path);
		stop(o);
	}
	if (o->file.fd >= 0 && o->len && !gt_dump_out_ours(o))
		reopen(o);

	while (o->file.fd >= 0 && off < o->len) {
		ssize_t n = gt_write(o->file.fd, o->buf + off, o->len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			gt_log("gputrace: cannot write '%s': %s; tracing stops here\n",
			       o->path, n < 0 ? strerror(errno) : "short write");
			stop(o);
			break;
		}
		off += (size_t)n;
		o->bytes_written += (uint64_t)n;
	}
	o->len = 0;
	return o->file.fd >= 0 ? 0 : -1;
}

void gt_dump_out_raw(struct gt_dump_out *o, const void *p, size_t n)
{
	const uint8_t *src = p;

	while (n) {
		size_t room = o->cap - o->len, k = n < room ? n : room;

		memcpy(o->buf + o->len, src, k);
		o->len += k;
		src += k;
		n -= k;
		if (o->len == o->cap)
			gt_dump_out_flush(o);
	}
}

void gt_dump_out_chunk2(struct gt_dump_out *o, uint32_t type, const void *a,
			size_t an, const void *b, size_t bn)
{
	struct gt_chunk_header h = { .type = type, .size = (uint32_t)(an + bn) };

	gt_dump_out_raw(o, &h, sizeof(h));
	if (an)
		gt_dump_out_raw(o, a, an);
	if (bn)
		gt_dump_out_raw(o, b, bn);
}

void gt_dump_out_chunk(struct gt_dump_out *o, uint32_t type, const void *payload,
		       size_t n)
{
	gt_dump_out_chunk2(o, type, payload, n, NULL, 0);
}

void gt_dump_out_forget(struct gt_dump_out *o)
{
	stop(o);
	free(o->buf);
	o->buf = NULL;
}

void gt_dump_out_close(struct gt_dump_out *o)
{
	gt_dump_out_flush(o);
	gt_dump_out_forget(o);
}
