/* SPDX-License-Identifier: MIT */
/*
 * stack_table.h - a lock-free set of word arrays that gives each distinct
 * array a small id: call stacks, and the Python code objects named in them.
 *
 * Finding an array already in the set is a hash, a few loads and a compare,
 * with no lock, allocation or system call.  The first thread to bring a new
 * array copies it into the table's arena and runs the table's publish
 * function (which writes what the id stands for into the dump) before the
 * id becomes visible to anyone, so an event that names the id is always
 * recorded after its definition.  Nothing is ever removed; a full table
 * answers 0.
 */
#ifndef GPUTRACE_PRELOAD_STACK_TABLE_H
#define GPUTRACE_PRELOAD_STACK_TABLE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

struct gt_dedup_slot {
	_Atomic uint64_t hash;      /* 0: free */
	_Atomic uint32_t id;        /* 0 while its owner fills it */
	uint32_t len;               /* words */
	const uint64_t *words;      /* in the arena */
};

/* What a new id stands for, written where it must be (0), or -1: then
 * the array is remembered as one that cannot be named (id 0), or
 * GT_DEDUP_AGAIN: not now (id 0 this time; the next gt_dedup_get of the
 * same array publishes it again). */
#define GT_DEDUP_AGAIN 1
typedef int (*gt_dedup_publish)(uint32_t id, const uint64_t *words,
				uint32_t len, void *arg);

struct gt_dedup {
	struct gt_dedup_slot *slots;
	uint64_t mask;              /* slots - 1 */
	uint32_t max_ids;           /* ids given out at most */
	_Atomic uint32_t next_id;
	uint64_t *arena;
	uint64_t arena_words;
	_Atomic uint64_t arena_used;
	_Atomic uint64_t lost;      /* arrays that found no room */
	size_t map_bytes;
	gt_dedup_publish publish;
};

/*
 * Map room for max_ids arrays of arena_words words in all (untouched pages
 * cost nothing).  0, or -1 when the memory cannot be had.
 */
int gt_dedup_init(struct gt_dedup *t, uint32_t max_ids, uint64_t arena_words,
		  gt_dedup_publish publish);

/* The id of words[0..len), 1..max_ids, or 0 when the table is full. */
uint32_t gt_dedup_get(struct gt_dedup *t, const uint64_t *words, uint32_t len,
		      void *arg);

/* The same, but a new array is added only while fewer than `below` ids
 * were given out (0 otherwise, not counted as lost): a part of the table
 * stays for the other users. */
uint32_t gt_dedup_get_within(struct gt_dedup *t, const uint64_t *words,
			     uint32_t len, void *arg, uint32_t below);

/* Forget every array (fork child, one thread). */
void gt_dedup_clear(struct gt_dedup *t);

uint64_t gt_dedup_hash(const uint64_t *words, uint32_t len);

#endif /* GPUTRACE_PRELOAD_STACK_TABLE_H */
