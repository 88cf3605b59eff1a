/* SPDX-License-Identifier: MIT */
/*
 * dump_out.c - buffered, append-only writing of chunks.  A failed write
 * (disk full, file gone) stops writing for good and is said once: the
 * traced program goes on.  The file never grows past the process's file
 * size limit (ulimit -f): the kernel would kill the program (SIGXFSZ).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "include/gputrace/format.h"
#include "preload/dump_out.h"
#include "preload/internal.h"

#define OUT_CAP (1u << 20)

int gt_dump_out_open(struct gt_dump_out *o, int fd, const char *path)
{
	memset(o, 0, sizeof(*o));
	o->buf = malloc(OUT_CAP);
	o->cap = OUT_CAP;
	o->fd = fd;
	o->path = path;
	return o->buf ? 0 : -1;
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

	if (o->fd >= 0 && over_size_limit(o, o->len)) {
		gt_log("gputrace: cannot write '%s': the file size limit (ulimit -f) "
		       "is reached; tracing stops here\n", o->path);
		close(o->fd);
		o->fd = -1;
	}

	while (o->fd >= 0 && off < o->len) {
		ssize_t n = write(o->fd, o->buf + off, o->len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			gt_log("gputrace: cannot write '%s': %s; tracing stops here\n",
			       o->path, n < 0 ? strerror(errno) : "short write");
			close(o->fd);
			o->fd = -1;
			break;
		}
		off += (size_t)n;
		o->bytes_written += (uint64_t)n;
	}
	o->len = 0;
	return o->fd >= 0 ? 0 : -1;
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

void gt_dump_out_close(struct gt_dump_out *o)
{
	gt_dump_out_flush(o);
	if (o->fd >= 0)
		close(o->fd);
	o->fd = -1;
	free(o->buf);
	o->buf = NULL;
}
