/* SPDX-License-Identifier: MIT */
/*
 * sqlite_mem.c - SQLite's memory for the fuzzer (test/fuzz/fuzz_dump.c).
 *
 * Debian's SQLite is built without its lookaside allocator, so each of the
 * thousands of small allocations it makes to create the export's schema
 * went through the sanitizer's malloc: most of the time of a --sqlite run,
 * and the reason that mode was five times slower to fuzz than the others.
 * SQLite's memory is not the analyzer's, so here it comes from free lists
 * of power-of-two blocks (SQLITE_CONFIG_MALLOC) instead; the analyzer's
 * own allocations stay with the sanitizer, and the export code runs as
 * it does in the command.
 *
 * What the sanitizer saw of that memory is still seen: a free block is
 * poisoned, so the analyzer reading a row or a message that SQLite has
 * freed is a use after free; and fuzz_sqlite_blocks() counts the blocks
 * in use, so that the target can fail a run that leaves a connection or a
 * statement open (a leak LeakSanitizer no longer sees).  Blocks over
 * 64 KiB come from malloc.  This file is built without the fuzzer's
 * coverage: its branches are not the analyzer's.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <sanitizer/asan_interface.h>
#include <sqlite3.h>

#include "test/fuzz/sqlite_mem.h"

#define MIN_SHIFT 4                     /* the smallest block: 16 bytes */
#define CLASSES 13                      /* 16 B to 64 KiB */
#define ARENA_BYTES (4u << 20)          /* blocks are cut from these */

/* In front of each block; next links the free ones. */
struct hdr {
	size_t cls;
	union {
		size_t size;            /* a block from malloc: its size */
		struct hdr *next;       /* a free block: the next one */
	};
};

static struct hdr *free_list[CLASSES];
static char *arena, *arena_end;
static size_t in_use;
static bool busy;               /* a spin lock: SQLite's sorter may use threads */

static size_t class_bytes(size_t cls)
{
	return (size_t)1 << (cls + MIN_SHIFT);
}

static size_t class_of(size_t n)
{
	size_t cls;

	if (n <= class_bytes(0))
		return 0;
	cls = 64 - __builtin_clzl(n - 1) - MIN_SHIFT;
	return cls < CLASSES ? cls : CLASSES;
}

static void lock(void)
{
	while (__atomic_test_and_set(&busy, __ATOMIC_ACQUIRE))
		;
}

static void unlock(void)
{
	__atomic_clear(&busy, __ATOMIC_RELEASE);
}

static struct hdr *cut(size_t cls)
{
	size_t len = sizeof(struct hdr) + class_bytes(cls);
	struct hdr *h;

	if ((size_t)(arena_end - arena) < len) {
		arena = mmap(NULL, ARENA_BYTES, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (arena == MAP_FAILED)
			return NULL;
		arena_end = arena + ARENA_BYTES;
	}
	h = (struct hdr *)arena;
	arena += len;
	return h;
}

static struct hdr *take(size_t cls)
{
	struct hdr *h = free_list[cls];

	if (h)
		free_list[cls] = h->next;
	else
		h = cut(cls);
	return h;
}

static void *mem_malloc(int n)
{
	size_t want = n > 0 ? (size_t)n : 1, cls = class_of(want);
	struct hdr *h;

	if (cls == CLASSES) {
		h = malloc(sizeof(*h) + want);
		if (h)
			h->size = want;
	} else {
		lock();
		h = take(cls);
		unlock();
	}
	if (!h)
		return NULL;
	h->cls = cls;
	__sync_fetch_and_add(&in_use, 1);
	ASAN_UNPOISON_MEMORY_REGION(h + 1, cls == CLASSES ? want : class_bytes(cls));
	return h + 1;
}

static void mem_free(void *p)
{
	struct hdr *h = (struct hdr *)p - 1;

	if (!p)
		return;
	__sync_fetch_and_sub(&in_use, 1);
	if (h->cls == CLASSES) {
		free(h);
		return;
	}
	ASAN_POISON_MEMORY_REGION(p, class_bytes(h->cls));
	lock();
	h->next = free_list[h->cls];
	free_list[h->cls] = h;
	unlock();
}

static int mem_size(void *p)
{
	struct hdr *h = (struct hdr *)p - 1;

	if (!p)
		return 0;
	return (int)(h->cls == CLASSES ? h->size : class_bytes(h->cls));
}

static void *mem_realloc(void *p, int n)
{
	size_t old = (size_t)mem_size(p);
	void *q;

	if (n > 0 && (size_t)n <= old && class_of((size_t)n) < CLASSES)
		return p;
	q = mem_malloc(n);
	if (q && p)
		memcpy(q, p, old < (size_t)n ? old : (size_t)n);
	if (q)
		mem_free(p);
	return q;
}

static int mem_roundup(int n)
{
	size_t cls = class_of(n > 0 ? (size_t)n : 1);

	return cls == CLASSES ? (n + 7) & ~7 : (int)class_bytes(cls);
}

static int mem_init(void *unused)
{
	(void)unused;
	return SQLITE_OK;
}

static void mem_shutdown(void *unused)
{
	(void)unused;
}

int fuzz_sqlite_mem(void)
{
	static const sqlite3_mem_methods methods = {
		mem_malloc, mem_free, mem_realloc, mem_size, mem_roundup,
		mem_init, mem_shutdown, NULL,
	};

	if (sqlite3_config(SQLITE_CONFIG_MALLOC, &methods) != SQLITE_OK ||
	    sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0) != SQLITE_OK)
		return -1;
	return sqlite3_initialize() == SQLITE_OK ? 0 : -1;
}

size_t fuzz_sqlite_blocks(void)
{
	return __atomic_load_n(&in_use, __ATOMIC_SEQ_CST);
}
