/* SPDX-License-Identifier: MIT */
/*
 * pinned.c - pinned host ranges in a sorted array under a sequence lock.
 *
 * Copies look ranges up on the hot path, so readers never lock: they read
 * the sequence number, binary-search the array with atomic loads, and try
 * again if a writer was at work meanwhile.  The array is allocated once at
 * start (GPUTRACE_MAX_PINNED ranges) and never moves, so a reader racing a
 * writer reads stale numbers, never freed memory.  Writers (pinned
 * allocations and frees, which are slow driver calls anyway) take turns
 * on a flag.
 *
 * Pointers the registry does not know are asked of the driver
 * (cuPointerGetAttributes) once per page and registry version.
 */
#include <cuda.h>
#include <cudaTypedefs.h>
#include <sched.h>
#include <stdlib.h>

#include "include/gputrace/format.h"
#include "preload/base/internal.h"
#include "preload/hooks/pinned.h"
#include "preload/hooks/procaddr.h"

struct range {
	_Atomic uint64_t start;
	_Atomic uint64_t end;
};

static struct range *ranges;
static uint32_t capacity;
static _Atomic uint32_t count;
static _Atomic uint64_t seq;        /* odd while a writer is at work */
static atomic_flag writing = ATOMIC_FLAG_INIT;

#define CACHE_SIZE 4096             /* pages; direct-mapped */
static _Atomic uint64_t cache[CACHE_SIZE];

int gt_pinned_init(uint32_t cap)
{
	ranges = calloc(cap, sizeof(*ranges));
	capacity = ranges ? cap : 0;
	return ranges ? 0 : -1;
}

static void write_begin(void)
{
	while (atomic_flag_test_and_set_explicit(&writing, memory_order_acquire))
		sched_yield();
	atomic_store_explicit(&seq, atomic_load_explicit(&seq, memory_order_relaxed) + 1,
			      memory_order_relaxed);
	atomic_thread_fence(memory_order_release);
}

static void write_end(void)
{
	atomic_store_explicit(&seq, atomic_load_explicit(&seq, memory_order_relaxed) + 1,
			      memory_order_release);
	atomic_flag_clear_explicit(&writing, memory_order_release);
}

/* First index whose start is > addr (reader or writer). */
static uint32_t upper_bound(uint32_t n, uint64_t addr)
{
	uint32_t lo = 0, hi = n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (atomic_load_explicit(&ranges[mid].start, memory_order_relaxed) <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void set_range(uint32_t i, uint64_t start, uint64_t end)
{
	atomic_store_explicit(&ranges[i].start, start, memory_order_relaxed);
	atomic_store_explicit(&ranges[i].end, end, memory_order_relaxed);
}

void gt_pinned_add(uint64_t start, uint64_t bytes, uint32_t flags)
{
	uint32_t n, i;

	(void)flags;
	if (!ranges || !start || !bytes)
		return;
	write_begin();
	n = atomic_load_explicit(&count, memory_order_relaxed);
	if (n == capacity) {
		write_end();
		gt_warn_once("gputrace: more than %u pinned ranges (GPUTRACE_MAX_PINNED): "
			     "further ones are classified through the driver\n", capacity);
		return;
	}
	i = upper_bound(n, start);
	if (i && atomic_load_explicit(&ranges[i - 1].start, memory_order_relaxed) == start) {
		set_range(i - 1, start, start + bytes);  /* seen twice: runtime, driver */
		write_end();
		return;
	}
	for (uint32_t k = n; k > i; k--)
		set_range(k, atomic_load_explicit(&ranges[k - 1].start, memory_order_relaxed),
			  atomic_load_explicit(&ranges[k - 1].end, memory_order_relaxed));
	set_range(i, start, start + bytes);
	atomic_store_explicit(&count, n + 1, memory_order_relaxed);
	write_end();
}

uint64_t gt_pinned_remove(uint64_t start)
{
	uint32_t n, i;
	uint64_t size = 0;

	if (!ranges || !start)
		return 0;
	write_begin();
	n = atomic_load_explicit(&count, memory_order_relaxed);
	i = upper_bound(n, start);
	if (i && atomic_load_explicit(&ranges[i - 1].start, memory_order_relaxed) == start) {
		size = atomic_load_explicit(&ranges[i - 1].end, memory_order_relaxed) - start;
		for (uint32_t k = i - 1; k + 1 < n; k++)
			set_range(k, atomic_load_explicit(&ranges[k + 1].start, memory_order_relaxed),
				  atomic_load_explicit(&ranges[k + 1].end, memory_order_relaxed));
		atomic_store_explicit(&count, n - 1, memory_order_relaxed);
	}
	write_end();
	return size;
}

/*
 * The range holding addr, read consistently: its start and end, or 0 and 0.
 * Readers retry when a writer was at work meanwhile; they never block it.
 */
static void find_range(uint64_t addr, uint64_t *start, uint64_t *end)
{
	uint64_t s1, s2;

	do {
		uint32_t n, i;

		while ((s1 = atomic_load_explicit(&seq, memory_order_acquire)) & 1)
			sched_yield();
		n = atomic_load_explicit(&count, memory_order_relaxed);
		if (n > capacity)
			n = capacity;
		i = upper_bound(n, addr);
		*start = i ? atomic_load_explicit(&ranges[i - 1].start, memory_order_relaxed) : 0;
		*end = i ? atomic_load_explicit(&ranges[i - 1].end, memory_order_relaxed) : 0;
		atomic_thread_fence(memory_order_acquire);
		s2 = atomic_load_explicit(&seq, memory_order_relaxed);
	} while (s1 != s2);
	if (addr >= *end)
		*start = *end = 0;
}

int gt_pinned_contains(uint64_t addr)
{
	uint64_t start, end;

	if (!ranges)
		return 0;
	find_range(addr, &start, &end);
	return end != 0;
}

uint64_t gt_pinned_size(uint64_t start)
{
	uint64_t s, e;

	if (!ranges || !start)
		return 0;
	find_range(start, &s, &e);
	return s == start ? e - s : 0;
}

/* What the driver says about a pointer it may know; GT_MEM_UNKNOWN if it
 * cannot say. */
static uint32_t driver_kind(uint64_t addr)
{
	static _Atomic(PFN_cuPointerGetAttributes_v7000) get_attrs;
	PFN_cuPointerGetAttributes_v7000 fn = atomic_load(&get_attrs);
	CUpointer_attribute attrs[2] = { CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
					 CU_POINTER_ATTRIBUTE_IS_MANAGED };
	unsigned int type = 0;
	int managed = 0;
	void *data[2] = { &type, &managed };

	if (!fn) {
		fn = gt_driver_proc("cuPointerGetAttributes", 7000);
		if (!fn)
			return GT_MEM_UNKNOWN;
		atomic_store(&get_attrs, fn);
	}
	if (fn(2, attrs, data, (CUdeviceptr)addr) != CUDA_SUCCESS)
		return GT_MEM_UNKNOWN;
	if (managed)
		return GT_MEM_MANAGED;
	if (type == CU_MEMORYTYPE_DEVICE || type == CU_MEMORYTYPE_ARRAY)
		return GT_MEM_DEVICE;
	return type == CU_MEMORYTYPE_HOST ? GT_MEM_PINNED : GT_MEM_PAGEABLE;
}

uint32_t gt_memory_kind(uint64_t addr)
{
	uint64_t page = addr >> 12, version, entry, slot;
	uint32_t kind;

	if (!addr)
		return GT_MEM_UNKNOWN;
	if (gt_pinned_contains(addr))
		return GT_MEM_PINNED;
	version = (atomic_load_explicit(&seq, memory_order_relaxed) >> 1) & 0xff;
	slot = (page ^ (page >> 12)) & (CACHE_SIZE - 1);
	entry = atomic_load_explicit(&cache[slot], memory_order_relaxed);
	if (entry && entry >> 16 == page && ((entry >> 8) & 0xff) == version)
		return (uint32_t)(entry & 0xf);
	kind = driver_kind(addr);
	if (kind != GT_MEM_UNKNOWN)
		atomic_store_explicit(&cache[slot], page << 16 | version << 8 | kind,
				      memory_order_relaxed);
	return kind;
}
