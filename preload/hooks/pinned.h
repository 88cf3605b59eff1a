/* SPDX-License-Identifier: MIT */
/*
 * pinned.h - the registry of pinned (page-locked) host memory, and what
 * kind of memory a copy's host pointer is.
 */
#ifndef GPUTRACE_PRELOAD_PINNED_H
#define GPUTRACE_PRELOAD_PINNED_H

#include <stdint.h>

int gt_pinned_init(uint32_t capacity);

/* Record [start, start + bytes) as pinned, or forget the range at start
 * (returns its size, 0 when unknown).  Any thread; writers serialise. */
void gt_pinned_add(uint64_t start, uint64_t bytes, uint32_t flags);
uint64_t gt_pinned_remove(uint64_t start);

/* 1 when addr lies in a recorded range: lock-free, never waits long. */
int gt_pinned_contains(uint64_t addr);

/* The size of the range that starts at start, 0 when none does. */
uint64_t gt_pinned_size(uint64_t start);

/*
 * GT_MEM_* of a host-side pointer: the registry first, then the driver's
 * pointer attributes (memory pinned by other means, device, managed),
 * cached per page; GT_MEM_PAGEABLE for plain host memory.
 */
uint32_t gt_memory_kind(uint64_t addr);

#endif /* GPUTRACE_PRELOAD_PINNED_H */
