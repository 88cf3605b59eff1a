/* SPDX-License-Identifier: MIT */
/*
 * dump_out.c - buffered, append-only writing of chunks.  A failed write
 * (disk full, file gone) stops writing for good and is said once: the
 * traced program goes on.  The file never grows past the process's file
 * size limit (ulimit -f): the kernel would kill the program (SIGXFSZ).
 * Whole chunks are kept while they fit under it, with room left for the
 * END chunk; a chunk that does not fit, and every one after it, is
 * refused (the writer counts its events as dropped), said once.
 *
 * The dump may also be a character device (/dev/null) or a pipe, named by
 * GPUTRACE_OUTPUT (output_path.c): no size limit applies, and a pipe is
 * written without blocking: a reader that takes nothing for
 * PIPE_WAIT_MS, or is gone, stops writing (never SIGPIPE).
 *
 * The descriptor is the program's to break: it may close every one
 * (close_range) or dup2 a file of its own over ours.  So ours sits high
 * (out of the way of the lowest-free numbers open hands out) and
 * close-on-exec, and before each write fstat says whether it is still
 * the dump (device and inode as created).  If not, a regular dump is
 * opened again by its path (only if that is still the same regular file,
 * as long as we wrote it, opened without blocking: the name may be a FIFO
 * by now); else writing stops, said once.  A descriptor that is no longer
 * ours is never written to or closed.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "include/gputrace/format.h"
#include "preload/record/dump_out.h"
#include "preload/base/internal.h"

#define OUT_CAP (1u << 20)
#define FD_FLOOR 900                /* or half the descriptor limit */
#define PIPE_WAIT_MS 5000           /* a reader that takes nothing this long */
#define END_ROOM (sizeof(struct gt_chunk_header) + sizeof(struct gt_end))

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

/* RLIMIT_FSIZE in bytes; UINT64_MAX when there is none. */
static uint64_t size_limit(void)
{
	struct rlimit fs;

	return getrlimit(RLIMIT_FSIZE, &fs) == 0 && fs.rlim_cur != RLIM_INFINITY ?
	       (uint64_t)fs.rlim_cur : UINT64_MAX;
}

int gt_dump_out_open(struct gt_dump_out *o, int fd, const char *path)
{
	struct stat st;

	memset(o, 0, sizeof(*o));
	o->path = path;
	if (gt_own_take(&o->file, fd) < 0 || fstat(fd, &st))
		return -1;
	o->regular = S_ISREG(st.st_mode);
	o->limit = o->regular ? size_limit() : UINT64_MAX;
	move_high(&o->file);
	o->buf = malloc(OUT_CAP);
	o->cap = OUT_CAP;
	return o->buf ? 0 : -1;
}

/* The program closed our descriptor or put a file of its own there:
 * open the dump again by its path, if that is still the dump as we left
 * it (never waiting: a FIFO may have taken the name).  0, or -1 (writing
 * stops; the old number is left alone). */
static int reopen(struct gt_dump_out *o)
{
	struct gt_own_fd again = { .fd = -1 };
	int old = o->file.fd;
	struct stat st;

	o->file.fd = -1;
	if (!o->regular ||
	    gt_own_take(&again, open(o->path, O_WRONLY | O_NOFOLLOW | O_NONBLOCK |
				 O_NOCTTY | O_CLOEXEC)))
		goto fail;
	if (again.dev != o->file.dev || again.ino != o->file.ino ||
	    fstat(again.fd, &st) || !S_ISREG(st.st_mode) ||
	    (uint64_t)st.st_size != o->bytes_written ||
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

/* Whether writing n more bytes would pass RLIMIT_FSIZE (the program
 * may have lowered it since the dump opened). */
static int over_size_limit(struct gt_dump_out *o, size_t n)
{
	uint64_t now;

	if (!n || !o->regular)
		return 0;
	now = size_limit();
	if (now < o->limit)
		o->limit = now;
	return o->bytes_written + n > o->limit;
}

/* Milliseconds of CLOCK_MONOTONIC. */
static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* A pipe (or device) that takes nothing now: wait until it does, at most
 * PIPE_WAIT_MS since it last did.  0 when it may take more. */
static int wait_writable(struct gt_dump_out *o, int64_t since)
{
	struct pollfd p = { .fd = o->file.fd, .events = POLLOUT };
	int64_t left;

	while ((left = since + PIPE_WAIT_MS - now_ms()) > 0) {
		int r = poll(&p, 1, (int)left);

		if (r > 0 || (r < 0 && errno != EINTR))
			return 0;       /* writable, or gone: write says which */
	}
	gt_log("gputrace: '%s' has taken nothing for %d s; tracing stops here\n",
	       o->path, PIPE_WAIT_MS / 1000);
	stop(o);
	return -1;
}

int gt_dump_out_flush(struct gt_dump_out *o)
{
	size_t off = 0;
	int64_t since = 0;

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
		if (n < 0 && errno == EAGAIN && !o->regular) {
			since = since ? since : now_ms();
			if (wait_writable(o, since))
				break;
			continue;
		}
		if (n <= 0) {
			gt_log("gputrace: cannot write '%s': %s; tracing stops here\n",
			       o->path, n < 0 ? strerror(errno) : "short write");
			stop(o);
			break;
		}
		since = 0;
		off += (size_t)n;
		o->bytes_written += (uint64_t)n;
	}
	o->len = 0;
	return o->file.fd >= 0 ? 0 : -1;
}

/*
 * Whether a chunk of n bytes may still go in: under the file size limit,
 * with room left for the END chunk (end: this is it).  The first that
 * does not fit closes the dump to all but its END, said once.
 */
static int room_for(struct gt_dump_out *o, size_t n, int end)
{
	if (o->full && !end)
		return 0;
	if (o->bytes_written + o->len + n + (end ? 0 : END_ROOM) <= o->limit)
		return 1;
	if (!o->full)
		gt_log("gputrace: '%s' reached the file size limit (ulimit -f, %llu "
		       "bytes): later events are counted as dropped\n", o->path,
		       (unsigned long long)o->limit);
	o->full = 1;
	return 0;
}

uint64_t gt_dump_out_room(const struct gt_dump_out *o)
{
	uint64_t used = o->bytes_written + o->len + END_ROOM;

	return o->full || used >= o->limit ? 0 : o->limit - used;
}

int gt_dump_out_done(const struct gt_dump_out *o)
{
	return o->file.fd < 0 || o->full;
}

static void append(struct gt_dump_out *o, const void *p, size_t n)
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

void gt_dump_out_header(struct gt_dump_out *o, const void *p, size_t n)
{
	if (room_for(o, n, 0))
		append(o, p, n);
}

static int put_chunk(struct gt_dump_out *o, uint32_t type, const void *a,
		     size_t an, const void *b, size_t bn, int end)
{
	struct gt_chunk_header h = { .type = type, .size = (uint32_t)(an + bn) };

	if (!room_for(o, sizeof(h) + an + bn, end))
		return -1;
	append(o, &h, sizeof(h));
	if (an)
		append(o, a, an);
	if (bn)
		append(o, b, bn);
	return 0;
}

int gt_dump_out_chunk2(struct gt_dump_out *o, uint32_t type, const void *a,
		       size_t an, const void *b, size_t bn)
{
	return put_chunk(o, type, a, an, b, bn, 0);
}

int gt_dump_out_chunk(struct gt_dump_out *o, uint32_t type, const void *payload,
		      size_t n)
{
	return put_chunk(o, type, payload, n, NULL, 0, 0);
}

int gt_dump_out_end(struct gt_dump_out *o, uint32_t type, const void *payload,
		    size_t n)
{
	return put_chunk(o, type, payload, n, NULL, 0, 1);
}

int gt_dump_out_chunks(struct gt_dump_out *o, const uint8_t *p, size_t n)
{
	struct gt_chunk_header h;
	size_t at = 0;

	while (at + sizeof(h) <= n) {
		memcpy(&h, p + at, sizeof(h));
		if (h.size > n - at - sizeof(h) || !room_for(o, sizeof(h) + h.size, 0))
			return -1;
		append(o, p + at, sizeof(h) + h.size);
		at += sizeof(h) + h.size;
	}
	return 0;
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
