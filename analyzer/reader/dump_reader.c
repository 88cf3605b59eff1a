/* SPDX-License-Identifier: MIT */
/*
 * dump_reader.c - open a dump, check its file header, and cut the rest into
 * chunks.  A chunk cut short by the end of the file means the dump ends
 * early, like one without an end record: what came before is still good.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/reader/dump_internal.h"
#include "analyzer/reader/stdin_dump.h"
#include "analyzer/lib/files.h"

_Static_assert(sizeof(struct gt_file_header) == 64, "file header layout");
_Static_assert(sizeof(struct gt_chunk_header) == 8, "chunk header layout");

#define HEADER_SIZE_MAX 4096    /* room for new header fields, no more */

static int fail(struct dump_reader *r, char *msg)
{
	if (!r->err)
		r->err = msg;
	else
		free(msg);
	return -1;
}

static int not_dump(struct dump_reader *r, const char *why)
{
	return fail(r, xasprintf("'%s' is not a gputrace dump (%s)", r->path,
				 why));
}

int dump_corrupt(struct dump_reader *r, const char *fmt, ...)
{
	va_list ap;
	char *why;

	va_start(ap, fmt);
	if (vasprintf(&why, fmt, ap) < 0)
		die("out of memory");
	va_end(ap);
	fail(r, xasprintf("'%s' is corrupt at byte %llu: %s", r->path,
			  (unsigned long long)r->ch_off, why));
	free(why);
	return -1;
}

/* Read up to n bytes; returns how many came, or -1 on a read error. */
static long read_some(struct dump_reader *r, void *buf, size_t n)
{
	size_t got = fread(buf, 1, n, r->fp);

	if (got < n && ferror(r->fp))
		return fail(r, xasprintf("cannot read '%s': %s", r->path,
					 strerror(errno)));
	r->off += got;
	return (long)got;
}

static int check_header(struct dump_reader *r, long got)
{
	const struct gt_file_header *h = &r->hdr;

	if (got == 0)
		return not_dump(r, "empty file");
	if (got < (long)sizeof(h->magic) || memcmp(h->magic, GT_MAGIC, 8))
		return not_dump(r, "bad magic");
	if (got < (long)sizeof(*h))
		return not_dump(r, "truncated header");
	if (h->endian == __builtin_bswap32(GT_ENDIAN_MARK))
		return not_dump(r, "big-endian dumps are not supported");
	if (h->endian != GT_ENDIAN_MARK)
		return not_dump(r, "bad byte-order mark");
	if (h->header_size < sizeof(*h) || h->header_size > HEADER_SIZE_MAX)
		return not_dump(r, "bad header size");
	if (h->version == 0)
		return not_dump(r, "bad version");
	if (h->min_reader > GT_FORMAT_VERSION)
		return fail(r, xasprintf("'%s' needs a newer gputrace-analyze "
					 "(it needs format reader %u, this is "
					 "%u)", r->path, h->min_reader,
					 GT_FORMAT_VERSION));
	return 0;
}

/* Skip header fields newer than ours. */
static int skip_header_rest(struct dump_reader *r)
{
	size_t extra = r->hdr.header_size - sizeof(r->hdr);
	uint8_t skip[HEADER_SIZE_MAX];
	long got = read_some(r, skip, extra);

	if (got < 0)
		return -1;
	if ((size_t)got < extra)
		return not_dump(r, "truncated header");
	return 0;
}

int dump_open(struct dump_reader **rp, const char *path)
{
	struct dump_reader *r = xcalloc(1, sizeof(*r));
	long got;

	*rp = r;
	r->path = xstrdup(dump_name(path));
	hmap_init(&r->strings);
	hmap_init(&r->ops);
	r->fp = files_open_input(path);
	if (!r->fp)
		return fail(r, xasprintf("cannot open '%s': %s", path,
					 files_strerror(errno)));
	got = read_some(r, &r->hdr, sizeof(r->hdr));
	if (got < 0 || check_header(r, got) < 0)
		return -1;
	return skip_header_rest(r);
}

/* After the end record the file must end too. */
static int expect_eof(struct dump_reader *r)
{
	uint8_t byte;
	long got;

	r->ch_off = r->off;
	got = read_some(r, &byte, 1);
	if (got < 0)
		return -1;
	if (got)
		return dump_corrupt(r, "data after the end record");
	return 0;
}

/* Pass over the payload of the chunk in hand if the caller does not want
 * it (dump_skip_chunks): 1 when passed over. */
static int skipped(struct dump_reader *r)
{
	if (!r->skip || !r->skip(r->skip_ctx, r->ch_off, r->ch.type) ||
	    fseeko(r->fp, (off_t)r->ch.size, SEEK_CUR) < 0)
		return 0;
	r->off += r->ch.size;
	return 1;
}

/* Read the next chunk into r->ch and r->buf: 1, 0 at the end, -1, or 2
 * when it was passed over. */
static int read_chunk(struct dump_reader *r)
{
	long got;

	if (r->seen_end)
		return expect_eof(r);
	r->ch_off = r->off;
	got = read_some(r, &r->ch, sizeof(r->ch));
	if (got < 0)
		return -1;
	if (got < (long)sizeof(r->ch)) {
		r->ends_early = 1;
		return 0;
	}
	if (r->ch.size > GT_CHUNK_MAX)
		return dump_corrupt(r, "chunk of %u bytes is over the limit "
				    "(%u)", r->ch.size, GT_CHUNK_MAX);
	if (skipped(r))
		return 2;
	if (r->ch.size > r->buf_cap || !r->buf) {  /* never NULL: parsers add to it */
		free(r->buf);
		r->buf = xmalloc(r->ch.size ? r->ch.size : 1);
		r->buf_cap = r->ch.size;
	}
	got = read_some(r, r->buf, r->ch.size);
	if (got < 0)
		return -1;
	if ((size_t)got < r->ch.size) {
		r->ends_early = 1;
		return 0;
	}
	return 1;
}

/* The next record of a new chunk (out of line: dump_next stays small for
 * the events of the chunk in hand). */
static NOINLINE int next_chunk(struct dump_reader *r, struct dump_record *rec)
{
	int rc;

	for (;;) {
		rc = read_chunk(r);
		if (rc == 2)
			continue;
		if (rc <= 0)
			return rc;
		rec->offset = r->ch_off;
		rc = dump_parse_chunk(r, rec);
		if (rc)
			return rc;
	}
}

int dump_next(struct dump_reader *r, struct dump_record *rec)
{
	if (r->err)
		return -1;
	if (r->ev_left)
		return dump_next_event(r, rec);
	return next_chunk(r, rec);
}

void dump_skip_events(struct dump_reader *r)
{
	r->ev_left = 0;
}

void dump_skip_chunks(struct dump_reader *r, dump_skip_fn skip, void *ctx)
{
	r->skip = skip;
	r->skip_ctx = ctx;
}

void dump_close(struct dump_reader *r)
{
	if (!r)
		return;
	if (r->fp)
		fclose(r->fp);
	dump_free_tables(r);
	free(r->buf);
	free(r->err);
	free(r->path);
	free(r);
}

const char *dump_error(const struct dump_reader *r)
{
	return r->err ? r->err : "no error";
}

const struct gt_file_header *dump_header(const struct dump_reader *r)
{
	return &r->hdr;
}

int dump_ends_early(const struct dump_reader *r)
{
	return r->ends_early;
}

const char *dump_string(const struct dump_reader *r, uint32_t id)
{
	return hmap_get_int(&r->strings, id);
}
