/* SPDX-License-Identifier: MIT */
/*
 * mutate.c - the structure-aware half of the fuzzer: libFuzzer's custom
 * mutator and cross-over, chunk by chunk over the dump format
 * (include/gputrace/format.h: a file header, then {type, size} chunks).
 *
 * A byte-level mutation of a dump mostly breaks a chunk's size and is
 * refused at once.  Here an input is cut into its header, its whole
 * chunks and the bytes after them, and one of these is done to it:
 * truncate at a chunk boundary, drop, duplicate (up to 64 copies: a
 * redefinition storm), move or splice chunks, put a boundary value in a
 * size, count or payload field, a time near 2^64 in a timestamp field,
 * another type in a type field, or libFuzzer's own byte mutation inside
 * one payload with the size kept right.  Sizes stay consistent unless the
 * mutation is of the size field itself, so the reader gets past the
 * chunk it mutated.  One mutation in eight is libFuzzer's, on the whole
 * input, for what it learns from comparisons.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "gputrace/format.h"

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);

#define HDR sizeof(struct gt_file_header)
#define CH sizeof(struct gt_chunk_header)
#define MAX_CHUNKS 8192
#define SCRATCH (4u << 20)          /* above any -max_len used */
#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

struct piece {
	size_t off, len;            /* a whole chunk, its header included */
};

struct layout {
	const uint8_t *data;
	size_t head;                /* the file header's bytes */
	size_t n;
	struct piece c[MAX_CHUNKS];
	size_t tail_off, tail_len;  /* bytes after the last whole chunk */
};

static struct layout la, lb;
static uint8_t scratch[SCRATCH];
static uint64_t rng;

static uint64_t rnd(uint64_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return n ? rng % n : 0;
}

static uint32_t get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static void put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

static void put64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

static void parse(struct layout *l, const uint8_t *data, size_t size)
{
	size_t off = size < HDR ? size : HDR;

	l->data = data;
	l->head = off;
	l->n = 0;
	while (off + CH <= size && l->n < MAX_CHUNKS) {
		uint64_t len = CH + (uint64_t)get32(data + off + 4);

		if (len > size - off)
			break;
		l->c[l->n].off = off;
		l->c[l->n++].len = len;
		off += len;
	}
	l->tail_off = off;
	l->tail_len = size - off;
}

/* The output being built in scratch. */
struct out {
	size_t n, max;
	int full;
};

static void emit(struct out *o, const uint8_t *p, size_t len)
{
	if (o->full || len > o->max - o->n) {
		o->full = 1;
		return;
	}
	memcpy(scratch + o->n, p, len);
	o->n += len;
}

static void emit_chunk(struct out *o, const struct layout *l, size_t i)
{
	emit(o, l->data + l->c[i].off, l->c[i].len);
}

static void emit_head(struct out *o, const struct layout *l)
{
	emit(o, l->data, l->head);
}

static void emit_tail(struct out *o, const struct layout *l)
{
	emit(o, l->data + l->tail_off, l->tail_len);
}

/* Copy scratch back to data: the new size, or 0 if it did not fit. */
static size_t commit(const struct out *o, uint8_t *data)
{
	if (o->full || !o->n)
		return 0;
	memcpy(data, scratch, o->n);
	return o->n;
}

/* ---- whole-chunk mutations -------------------------------------------- */

static size_t truncate_at(const struct layout *l, size_t size)
{
	size_t k = rnd(l->n + 1);
	size_t at = k < l->n ? l->c[k].off : l->tail_off;

	if (rnd(4) == 0 && k < l->n)    /* inside the chunk, now and then */
		at += rnd(l->c[k].len);
	return at && at < size ? at : 0;
}

/* The chunks again, without chunk skip, with copies of chunk k before
 * chunk at (l->n: at the end). */
static size_t rebuild(const struct layout *l, uint8_t *data, size_t max,
		      size_t skip, size_t k, size_t at, size_t copies)
{
	struct out o = { 0, max, 0 };

	emit_head(&o, l);
	for (size_t i = 0; i <= l->n; i++) {
		if (i == at)
			for (size_t c = 0; c < copies; c++)
				emit_chunk(&o, l, k);
		if (i < l->n && i != skip)
			emit_chunk(&o, l, i);
	}
	emit_tail(&o, l);
	return commit(&o, data);
}

static size_t drop(const struct layout *l, uint8_t *data, size_t max)
{
	return rebuild(l, data, max, rnd(l->n), 0, 0, 0);
}

static size_t duplicate(const struct layout *l, uint8_t *data, size_t max)
{
	size_t copies = rnd(4) ? 1 : 1 + rnd(64);

	return rebuild(l, data, max, SIZE_MAX, rnd(l->n), rnd(l->n + 1), copies);
}

static size_t move(const struct layout *l, uint8_t *data, size_t max)
{
	size_t k = rnd(l->n);

	return rebuild(l, data, max, k, k, rnd(l->n + 1), 1);
}

/* ---- field mutations, in place ----------------------------------------- */

static uint64_t boundary(int wide)
{
	static const uint64_t v[] = {
		0, 1, 2, 0x7f, 0x80, 0xff, 0x100, 0xffff, 0x10000,
		0x7fffffff, 0x80000000, 0xfffffffe, 0xffffffff,
		0x100000000ull, GT_CHUNK_MAX, GT_CHUNK_MAX + 1,
		0x7fffffffffffffffull, 0x8000000000000000ull,
		0xffffffff6e58e219ull, 0xfffffffffffffff0ull, UINT64_MAX,
	};
	uint64_t x = v[rnd(ARRAY_LEN(v))];

	return wide ? x : (uint32_t)x;
}

static uint64_t huge_time(void)
{
	static const uint64_t v[] = {
		0, 1, 0xffffffff6e58e219ull, 0x8000000000000000ull,
		0x7fffffffffffffffull, UINT64_MAX, UINT64_MAX - 1,
		UINT64_MAX - 1000000000ull, 1ull << 62,
	};

	return rnd(3) ? v[rnd(ARRAY_LEN(v))] : UINT64_MAX - rnd(1ull << 40);
}

static size_t set_size(const struct layout *l, uint8_t *data, size_t size)
{
	const struct piece *c = &l->c[rnd(l->n)];
	uint32_t len = (uint32_t)(c->len - CH);
	uint32_t v[] = { 0, len - 1, len + 1, len * 2, 0xffffffffu,
			 GT_CHUNK_MAX, GT_CHUNK_MAX + 1 };

	put32(data + c->off + 4, v[rnd(ARRAY_LEN(v))]);
	return size;
}

static size_t set_type(const struct layout *l, uint8_t *data, size_t size)
{
	const struct piece *c = &l->c[rnd(l->n)];

	put32(data + c->off, rnd(8) ? (uint32_t)(1 + rnd(GT_CHUNK_NCCL_PROF + 1))
				    : (uint32_t)boundary(0));
	return size;
}

/* A boundary value at an aligned place in a payload (counts, ids, sizes). */
static size_t set_field(const struct layout *l, uint8_t *data, size_t size)
{
	const struct piece *c = &l->c[rnd(l->n)];
	size_t plen = c->len - CH, at;
	int wide = rnd(2);

	if (plen < 4)
		return 0;
	if (wide && plen >= 8) {
		at = 8 * rnd(plen / 8);
		put64(data + c->off + CH + at, boundary(1));
	} else {
		at = 4 * rnd(plen / 4);
		put32(data + c->off + CH + at, (uint32_t)boundary(0));
	}
	return size;
}

/* Where a chunk type keeps a time, as offsets in its payload. */
static size_t time_field(uint32_t type, const uint8_t *p, size_t plen)
{
	uint32_t recsz;

	switch (type) {
	case GT_CHUNK_EVENTS:
		return 8;               /* base_ns */
	case GT_CHUNK_END: case GT_CHUNK_SAMPLE: case GT_CHUNK_ENV:
		return 0;
	case GT_CHUNK_CLOCK: case GT_CHUNK_WINDOW:
		return 8 * rnd(2);
	case GT_CHUNK_NCCL_COMM:
		return 48;
	case GT_CHUNK_GPU: case GT_CHUNK_NCCL_PROF:
		recsz = plen >= 16 ? get32(p + (type == GT_CHUNK_GPU ? 8 : 4)) : 0;
		if (!recsz || recsz > plen)
			return 8;
		return (type == GT_CHUNK_GPU ? 16 : 8) +
		       recsz * rnd(plen / recsz) + 8 * rnd(3);
	default:
		return 8 * rnd(plen / 8 + 1);
	}
}

static size_t set_time(const struct layout *l, uint8_t *data, size_t size)
{
	const struct piece *c = &l->c[rnd(l->n)];
	uint8_t *p = data + c->off + CH;
	size_t plen = c->len - CH;
	size_t at = time_field(get32(data + c->off), p, plen);

	if (at + 8 > plen)
		return 0;
	put64(p + at, huge_time());
	return size;
}

/* Varints of an events chunk: a continuation bit, an over-long one. */
static size_t set_varint(const struct layout *l, uint8_t *data, size_t size)
{
	const struct piece *c = &l->c[rnd(l->n)];
	size_t plen = c->len - CH, hdr = sizeof(struct gt_events_header);
	uint8_t *p = data + c->off + CH;

	if (get32(data + c->off) != GT_CHUNK_EVENTS || plen <= hdr)
		return 0;
	switch (rnd(3)) {
	case 0:
		p[hdr + rnd(plen - hdr)] |= 0x80;
		break;
	case 1:
		p[hdr + rnd(plen - hdr)] = (uint8_t)rnd(256);
		break;
	default:
		put32(p + 4, (uint32_t)boundary(0));   /* count */
		break;
	}
	return size;
}

static size_t set_header(uint8_t *data, size_t size)
{
	static const size_t at[] = { 8, 10, 12, 16, 20, 24, 32, 40 };
	size_t i = at[rnd(ARRAY_LEN(at))];

	if (size < HDR)
		return 0;
	if (i >= 24)
		put64(data + i, rnd(2) ? huge_time() : boundary(1));
	else if (i < 12)
		memcpy(data + i, &(uint16_t){ (uint16_t)boundary(0) }, 2);
	else
		put32(data + i, (uint32_t)boundary(0));
	return size;
}

/* libFuzzer's byte mutation inside one payload; the size follows it. */
static size_t in_payload(const struct layout *l, uint8_t *data, size_t size,
			 size_t max)
{
	const struct piece *c = &l->c[rnd(l->n)];
	size_t plen = c->len - CH, room = max - size, after;
	size_t cap = plen + (room < 256 ? room : 256);
	struct out o = { 0, max, 0 };

	if (c->off + CH + cap > SCRATCH)
		return 0;
	emit(&o, data, c->off + CH);
	memcpy(scratch + o.n, data + c->off + CH, plen);
	plen = LLVMFuzzerMutate(scratch + o.n, plen, cap);
	put32(scratch + c->off + 4, (uint32_t)plen);
	o.n += plen;
	after = c->off + c->len;
	emit(&o, data + after, size - after);
	return commit(&o, data);
}

static size_t mutate_chunks(const struct layout *l, uint8_t *data,
			    size_t size, size_t max)
{
	switch (rnd(12)) {
	case 0: return truncate_at(l, size);
	case 1: return drop(l, data, max);
	case 2: return duplicate(l, data, max);
	case 3: return move(l, data, max);
	case 4: return set_size(l, data, size);
	case 5: return set_type(l, data, size);
	case 6: case 7: return set_field(l, data, size);
	case 8: return set_time(l, data, size);
	case 9: return set_varint(l, data, size);
	case 10: return set_header(data, size);
	default: return in_payload(l, data, size, max);
	}
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size,
			       unsigned int seed)
{
	size_t n = 0;

	rng = seed * 0x9e3779b97f4a7c15ull + 1;
	if (max_size > SCRATCH)
		max_size = SCRATCH;
	parse(&la, data, size);
	for (int tries = 0; tries < 4 && !n && la.n && rnd(8); tries++)
		n = mutate_chunks(&la, data, size, max_size);
	return n ? n : LLVMFuzzerMutate(data, size, max_size);
}

/* Chunks of the second input spliced among those of the first. */
size_t LLVMFuzzerCustomCrossOver(const uint8_t *d1, size_t s1,
				 const uint8_t *d2, size_t s2, uint8_t *out,
				 size_t max_out, unsigned int seed)
{
	struct out o = { 0, max_out < SCRATCH ? max_out : SCRATCH, 0 };
	size_t at, from, to;

	rng = seed * 0x9e3779b97f4a7c15ull + 7;
	parse(&la, d1, s1);
	parse(&lb, d2, s2);
	if (!lb.n)
		return 0;
	at = rnd(la.n + 1);
	from = rnd(lb.n);
	to = from + 1 + rnd(lb.n - from);
	emit_head(&o, &la);
	for (size_t i = 0; i <= la.n; i++) {
		if (i == at)
			for (size_t k = from; k < to; k++)
				emit_chunk(&o, &lb, k);
		if (i < la.n)
			emit_chunk(&o, &la, i);
	}
	return commit(&o, out);
}
