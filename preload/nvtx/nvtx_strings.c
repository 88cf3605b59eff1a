/* SPDX-License-Identifier: MIT */
/*
 * nvtx_strings.c - NVTX messages to string ids without locks: a fixed
 * open-addressing table keyed by the message's content.
 *
 * The steady state of an NVTX call is a hash of the message and one probe
 * or a few; the first time a message is seen it is copied (malloc) and
 * later written to the dump by the recording thread, before the event
 * that uses it is committed.  The table is allocated once, at the first
 * InitializeInjectionNvtx2, and never freed or resized.
 */
#include <stdlib.h>
#include <string.h>
#include <sched.h>

#include "preload/base/internal.h"
#include "preload/nvtx/nvtx.h"
#include "preload/record/writer.h"

static struct gt_nvtx_str *table;
static atomic_uint used;

int gt_nvtx_tables_init(void)
{
	table = calloc(GT_NVTX_STRINGS, sizeof(*table));
	return table ? 0 : -1;
}

/* FNV-1a, never 0 (0 marks a free slot). */
static uint64_t hash(const char *s, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 0x100000001b3ull;
	}
	return h ? h : 1;
}

/* Wait for the thread that took the slot to publish its copy. */
static const char *slot_text(struct gt_nvtx_str *e)
{
	const char *t;

	while (!(t = atomic_load_explicit(&e->text, memory_order_acquire)))
		sched_yield();
	return t;
}

/* Fill a slot this thread just took.  Allocation failure leaves "". */
static void slot_fill(struct gt_nvtx_str *e, const char *s, size_t len)
{
	char *copy = malloc(len + 1);

	if (copy) {
		memcpy(copy, s, len);
		copy[len] = 0;
	}
	e->len = copy ? (uint32_t)len : 0;
	atomic_store_explicit(&e->text, copy ? copy : "", memory_order_release);
}

struct gt_nvtx_str *gt_nvtx_intern(const char *s, size_t len)
{
	uint64_t h, k;
	size_t i, n;

	if (unlikely(!table))
		return NULL;
	if (len > GT_NVTX_TEXT_MAX)
		len = GT_NVTX_TEXT_MAX;
	h = hash(s, len);
	for (i = h & (GT_NVTX_STRINGS - 1), n = 0; n < GT_NVTX_STRINGS;
	     i = (i + 1) & (GT_NVTX_STRINGS - 1), n++) {
		struct gt_nvtx_str *e = &table[i];

		k = atomic_load_explicit(&e->hash, memory_order_acquire);
		if (k == 0 && atomic_load_explicit(&used, memory_order_relaxed) >=
			      GT_NVTX_MAX_TEXTS)
			break;                  /* not there, and no room */
		if (k == 0 && atomic_compare_exchange_strong(&e->hash, &k, h)) {
			atomic_fetch_add_explicit(&used, 1, memory_order_relaxed);
			slot_fill(e, s, len);
			return e;
		}
		if (k == h) {
			const char *t = slot_text(e);

			if (e->len == len && !memcmp(t, s, len))
				return e;
		}
	}
	gt_warn_once("gputrace: more than %u distinct NVTX messages; further "
		     "ones are recorded without a name\n", GT_NVTX_MAX_TEXTS);
	return NULL;
}

uint32_t gt_nvtx_str_id(struct gt_nvtx_str *e)
{
	uint64_t g = atomic_load_explicit(&e->gid, memory_order_acquire);
	uint64_t gen = atomic_load_explicit(&gt_mark->generation, memory_order_relaxed);
	uint32_t id;

	if (likely(g >> 32 == gen))
		return (uint32_t)g;
	id = gt_writer_string(slot_text(e), e->len);
	if (id)                 /* a racing thread may win: both ids are valid */
		atomic_compare_exchange_strong(&e->gid, &g, gen << 32 | id);
	return id;
}

/* emit_nvtx's suffixes: what follows them differs at every call. */
static const char *const suffixes[] = { ", seq = ", ", stashed seq = ",
					", op_id = ", ", sizes = " };

size_t gt_nvtx_name_len(const char *s, size_t len)
{
	for (size_t i = 0; i + 2 < len; i++) {
		if (s[i] != ',' || s[i + 1] != ' ')
			continue;
		for (size_t k = 0; k < sizeof(suffixes) / sizeof(*suffixes); k++) {
			size_t n = strlen(suffixes[k]);

			if (len - i >= n && !memcmp(s + i, suffixes[k], n))
				return i;
		}
	}
	return len;
}

/* One code point as UTF-8; 0 when it does not fit. */
static size_t put_utf8(uint32_t c, char *p, size_t room)
{
	if (c > 0x10ffff || (c >= 0xd800 && c < 0xe000))
		c = 0xfffd;
	if (c < 0x80 && room >= 1) {
		p[0] = (char)c;
		return 1;
	}
	if (c < 0x800 && room >= 2) {
		p[0] = (char)(0xc0 | c >> 6);
		p[1] = (char)(0x80 | (c & 0x3f));
		return 2;
	}
	if (c < 0x10000 && room >= 3) {
		p[0] = (char)(0xe0 | c >> 12);
		p[1] = (char)(0x80 | (c >> 6 & 0x3f));
		p[2] = (char)(0x80 | (c & 0x3f));
		return 3;
	}
	if (c >= 0x10000 && room >= 4) {
		p[0] = (char)(0xf0 | c >> 18);
		p[1] = (char)(0x80 | (c >> 12 & 0x3f));
		p[2] = (char)(0x80 | (c >> 6 & 0x3f));
		p[3] = (char)(0x80 | (c & 0x3f));
		return 4;
	}
	return 0;
}

size_t gt_nvtx_utf8(const wchar_t *w, char *buf, size_t cap)
{
	size_t len = 0, n;

	for (; w && *w; w++) {
		n = put_utf8((uint32_t)*w, buf + len, cap - len);
		if (!n)
			break;
		len += n;
	}
	return len;
}
