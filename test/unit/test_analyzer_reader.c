/* SPDX-License-Identifier: MIT */
/*
 * test_analyzer_reader.c - the dump reader on dumps built here with the
 * structs of format.h: records in order, events decoded to absolute
 * times, early ends, and rejection of broken input.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyzer/reader/dump_reader.h"
#include "gputrace/varint.h"
#include "test/unit/test_dump.h"

struct dump_buf {
	uint8_t data[4096];
	size_t len;
};

static void put(struct dump_buf *b, const void *p, size_t n)
{
	assert_true(b->len + n <= sizeof(b->data));
	memcpy(b->data + b->len, p, n);
	b->len += n;
}

static void put_chunk(struct dump_buf *b, uint32_t type, const void *p,
		      size_t n)
{
	struct gt_chunk_header ch = { type, (uint32_t)n };

	put(b, &ch, sizeof(ch));
	put(b, p, n);
}

static void put_header(struct dump_buf *b)
{
	struct gt_file_header h;

	test_dump_header(&h, 77, 1000);
	put(b, &h, sizeof(h));
}

static void put_string(struct dump_buf *b, uint32_t id, const char *s)
{
	uint8_t p[256];

	put_chunk(b, GT_CHUNK_STRING, p, test_dump_string(p, id, s));
}

/* Header, string 1, sync op 1 and copy op 2. */
static void put_prologue(struct dump_buf *b)
{
	struct gt_op_info sync = { .op = 1, .kind = GT_KIND_SYNC, .nargs = 1,
				   .api_str = 1, .symbol_str = 1 };
	struct gt_op_info copy = { .op = 2, .kind = GT_KIND_COPY,
				   .direction = GT_DIR_HTOD, .flags = GT_OPF_ASYNC,
				   .nargs = 4, .api_str = 2, .symbol_str = 2 };

	put_header(b);
	put_string(b, 1, "cuCtxSynchronize");
	put_string(b, 2, "cuMemcpyHtoDAsync");
	put_chunk(b, GT_CHUNK_OP, &sync, sizeof(sync));
	put_chunk(b, GT_CHUNK_OP, &copy, sizeof(copy));
}

/* An events chunk of tid 9, base 5000, from n varints. */
static void put_events(struct dump_buf *b, uint32_t count,
		       const uint64_t *v, size_t n)
{
	struct gt_events_header eh = { .tid = 9, .count = count, .base_ns = 5000 };
	uint8_t p[1024], *q = p + sizeof(eh);
	size_t i;

	memcpy(p, &eh, sizeof(eh));
	for (i = 0; i < n; i++)
		q = gt_varint_put(q, v[i]);
	put_chunk(b, GT_CHUNK_EVENTS, p, (size_t)(q - p));
}

static char *write_tmp(const struct dump_buf *b)
{
	char *path = strdup("/tmp/gt-reader-XXXXXX");
	int fd;

	assert_non_null(path);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, b->data, b->len), (ssize_t)b->len);
	close(fd);
	return path;
}

/* Read the whole dump; returns dump_next's last result. */
static int read_all(const struct dump_buf *b, struct dump_record *recs,
		    int max, int *n, char *err, int *early)
{
	struct dump_reader *r;
	char *path = write_tmp(b);
	int rc = dump_open(&r, path);

	for (*n = 0; rc == 0 && *n < max; (*n)++) {
		rc = dump_next(r, &recs[*n]);
		if (rc <= 0)
			break;
		rc = 0;
	}
	if (rc < 0)
		snprintf(err, 256, "%s", dump_error(r));
	*early = dump_ends_early(r);
	dump_close(r);
	unlink(path);
	free(path);
	return rc;
}

static void test_events_decoded(void **state)
{
	/* sync t0 5100 dur 50; copy t0 5050 (dt0 -50) of 4096 bytes */
	const uint64_t v[] = {
		1, gt_zigzag(100), 50, 0, 3, 0xabc,
		2, gt_zigzag(-50), 7, 1, 0, 4096, 10, 20, 1,
	};
	struct gt_end end = { 9000, 2, 0 };
	struct dump_record recs[16];
	struct dump_buf b = { .len = 0 };
	char err[256] = "";
	int n, early;

	(void)state;
	put_prologue(&b);
	put_events(&b, 2, v, sizeof(v) / sizeof(v[0]));
	put_chunk(&b, GT_CHUNK_END, &end, sizeof(end));
	assert_int_equal(read_all(&b, recs, 16, &n, err, &early), 0);
	assert_string_equal(err, "");
	assert_int_equal(n, 7);
	assert_false(early);
	assert_int_equal(recs[4].type, DUMP_EVENT);
	assert_int_equal(recs[4].event.tid, 9);
	assert_int_equal(recs[4].event.t0, 5100);
	assert_int_equal(recs[4].event.t1, 5150);
	assert_int_equal(recs[4].event.stream, 3);
	assert_int_equal(recs[4].event.arg[GT_ARG_SYNC_HANDLE], 0xabc);
	assert_int_equal(recs[5].event.t0, 5050);
	assert_int_equal(recs[5].event.result, 1);
	assert_int_equal(recs[5].event.arg[GT_ARG_COPY_BYTES], 4096);
	assert_int_equal(recs[5].event.arg[GT_ARG_COPY_COUNT], 1);
	assert_int_equal(recs[6].type, DUMP_END);
	assert_int_equal(recs[6].end.end_ns, 9000);
}

/* A chunk of n sync events of buffer 3 from first: dt0 10, then durations
 * and arguments of one to ten bytes. */
static void put_numbered(struct dump_buf *b, uint64_t first, uint32_t n)
{
	struct gt_events_header eh = { .tid = 9, .count = n, .base_ns = 5000,
				       .buffer = 3, .first_seq = first };
	uint8_t p[2048], *q = p + sizeof(eh);

	memcpy(p, &eh, sizeof(eh));
	for (uint32_t k = 0; k < n; k++) {
		q = gt_varint_put(q, 1);
		q = gt_varint_put(q, gt_zigzag(10));
		q = gt_varint_put(q, 1ull << (k % 20));
		q = gt_varint_put(q, 0);
		q = gt_varint_put(q, 0);
		q = gt_varint_put(q, k % 11 == 10 ? UINT64_MAX : 1ull << (k * 7 % 64));
	}
	put_chunk(b, GT_CHUNK_EVENTS, p, (size_t)(q - p));
}

/* Events far from a chunk's end and near it read the same; ids count up
 * in 40 bits, wrapping within the buffer's. */
static void test_event_ids(void **state)
{
	const uint64_t wrap = (1ull << 40) - 20;
	struct dump_record recs[96];
	struct dump_buf b = { .len = 0 };
	char err[256] = "";
	int n, early;

	(void)state;
	put_prologue(&b);
	put_numbered(&b, 5, 40);
	put_numbered(&b, wrap, 40);
	assert_int_equal(read_all(&b, recs, 96, &n, err, &early), 0);
	assert_string_equal(err, "");
	assert_int_equal(n, 84);
	for (int k = 0; k < 80; k++) {
		const struct dump_event *ev = &recs[4 + k].event;
		uint64_t seq = k < 40 ? 5ull + k : (wrap + k - 40) & ((1ull << 40) - 1);
		int i = k % 40;

		assert_int_equal(recs[4 + k].type, DUMP_EVENT);
		assert_int_equal(ev->id, 3ull << 40 | seq);
		assert_int_equal(ev->t0, 5000 + 10 * (i + 1));
		assert_int_equal(ev->dur, 1ull << (i % 20));
		assert_int_equal(ev->arg[0], i % 11 == 10 ? UINT64_MAX
						      : 1ull << (i * 7 % 64));
	}
}

static void test_ends_early(void **state)
{
	const uint64_t v[] = { 1, 0, 50, 0, 0, 0 };
	struct dump_record recs[16];
	struct dump_buf b = { .len = 0 };
	char err[256] = "";
	int n, early;

	(void)state;
	put_prologue(&b);
	put_events(&b, 1, v, 6);
	put_events(&b, 1, v, 6);
	b.len -= 3;                     /* cut the second events chunk */
	assert_int_equal(read_all(&b, recs, 16, &n, err, &early), 0);
	assert_int_equal(n, 5);         /* 2 strings, 2 ops, 1 event */
	assert_true(early);
}

/* The first events chunk asked about is passed over, no other. */
static int skip_first_events(void *ctx, uint64_t offset, uint32_t type)
{
	uint64_t *first = ctx;

	if (type != GT_CHUNK_EVENTS || (*first && *first != offset))
		return 0;
	*first = offset;
	return 1;
}

static void test_skip_chunks(void **state)
{
	const uint64_t a[] = { 1, 0, 50, 0, 0, 0 }, c[] = { 1, 0, 70, 0, 0, 0 };
	struct gt_end end = { 9000, 2, 0 };
	struct dump_buf b = { .len = 0 };
	struct dump_record rec;
	struct dump_reader *r;
	uint64_t first = 0, durs = 0;
	char *path;
	int rc, n = 0;

	(void)state;
	put_prologue(&b);
	put_events(&b, 1, a, 6);
	put_events(&b, 1, c, 6);
	put_chunk(&b, GT_CHUNK_END, &end, sizeof(end));
	path = write_tmp(&b);
	assert_int_equal(dump_open(&r, path), 0);
	dump_skip_chunks(r, skip_first_events, &first);
	while ((rc = dump_next(r, &rec)) > 0) {
		n++;
		if (rec.type == DUMP_EVENT)
			durs = durs * 1000 + rec.event.dur;
	}
	assert_int_equal(rc, 0);
	assert_int_equal(n, 6);         /* 2 strings, 2 ops, 1 event, end */
	assert_int_equal(durs, 70);     /* the second chunk's event only */
	assert_true(first > 0);
	assert_false(dump_ends_early(r));
	dump_close(r);
	unlink(path);
	free(path);
}

static void expect_error(struct dump_buf *b, const char *msg)
{
	struct dump_record recs[16];
	char err[256] = "";
	int n, early;

	assert_int_equal(read_all(b, recs, 16, &n, err, &early), -1);
	if (!strstr(err, msg))
		fail_msg("'%s' does not say '%s'", err, msg);
}

static void test_bad_magic(void **state)
{
	struct dump_buf b = { .len = 0 };

	(void)state;
	put_header(&b);
	b.data[0] = 'X';
	expect_error(&b, "is not a gputrace dump (bad magic)");
}

static void test_newer_format(void **state)
{
	struct dump_buf b = { .len = 0 };
	uint16_t min_reader = GT_FORMAT_VERSION + 1;

	(void)state;
	put_header(&b);
	memcpy(b.data + offsetof(struct gt_file_header, min_reader),
	       &min_reader, 2);
	expect_error(&b, "needs a newer gputrace-analyze");
}

static void test_unknown_op(void **state)
{
	const uint64_t v[] = { 3, 0, 50, 0, 0, 0 };
	struct dump_buf b = { .len = 0 };

	(void)state;
	put_prologue(&b);
	put_events(&b, 1, v, 6);
	expect_error(&b, "event uses op 3, which is not defined");
}

static void test_count_mismatch(void **state)
{
	const uint64_t v[] = { 1, 0, 50, 0, 0, 0, 1, 0, 50, 0, 0, 0 };
	struct dump_buf b = { .len = 0 };

	(void)state;
	put_prologue(&b);
	put_events(&b, 1, v, 12);
	expect_error(&b, "6 bytes after the last event");
}

static void test_chunk_too_big(void **state)
{
	struct gt_chunk_header ch = { GT_CHUNK_NOTE, GT_CHUNK_MAX + 1 };
	struct dump_buf b = { .len = 0 };

	(void)state;
	put_header(&b);
	put(&b, &ch, sizeof(ch));
	expect_error(&b, "over the limit");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_events_decoded),
		cmocka_unit_test(test_event_ids),
		cmocka_unit_test(test_ends_early),
		cmocka_unit_test(test_skip_chunks),
		cmocka_unit_test(test_bad_magic),
		cmocka_unit_test(test_newer_format),
		cmocka_unit_test(test_unknown_op),
		cmocka_unit_test(test_count_mismatch),
		cmocka_unit_test(test_chunk_too_big),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
