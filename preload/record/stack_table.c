/* SPDX-License-Identifier: MIT */
/*
 * stack_table.c - the lock-free id table of stack_table.h.
 *
 * Open addressing with linear probing over a power-of-two array of slots,
 * twice as many as ids.  A slot is claimed by a compare-and-swap of its
 * hash from 0; the owner copies the words into the arena (a bump pointer),
 * publishes, then stores the id with release order.  A reader that finds
 * the hash waits for the id with acquire order (briefly: only a thread
 * that met the same new stack at the same moment ever waits), then
 * compares the words.  A publish that could not be done now (the host
 * sampler's, in a signal handler, which never waits for the writer's
 * lock) leaves the slot with its words and id, marked AGAIN: the next
 * thread to meet those words claims it (BUSY) and publishes again.
 */
#include <string.h>
#include <sys/mman.h>

#include "preload/base/internal.h"
#include "preload/record/stack_table.h"

#define ID_FAILED UINT32_MAX        /* claimed, but cannot be named */
#define ID_AGAIN (1u << 31)         /* | id: to be published again */
#define ID_BUSY (1u << 30)          /* | id: being published again */
#define MAX_PROBES 256
#define MAX_SPINS (1u << 20)        /* a few ms, then give up on this one */

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield" ::: "memory");
#endif
}

uint64_t gt_dedup_hash(const uint64_t *words, uint32_t len)
{
	uint64_t h = 0x9e3779b97f4a7c15ull ^ len;

	for (uint32_t i = 0; i < len; i++) {
		h = (h ^ words[i]) * 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	return h ? h : 1;
}

int gt_dedup_init(struct gt_dedup *t, uint32_t max_ids, uint64_t arena_words,
		  gt_dedup_publish publish)
{
	uint64_t slots = 16;
	size_t slot_bytes;
	void *p;

	memset(t, 0, sizeof(*t));
	while (slots < (uint64_t)max_ids * 2)
		slots <<= 1;
	slot_bytes = slots * sizeof(struct gt_dedup_slot);
	t->map_bytes = slot_bytes + arena_words * sizeof(uint64_t);
	p = mmap(NULL, t->map_bytes, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return -1;
	t->slots = p;
	t->mask = slots - 1;
	t->max_ids = max_ids;
	t->arena = (uint64_t *)((char *)p + slot_bytes);
	t->arena_words = arena_words;
	t->publish = publish;
	return 0;
}

void gt_dedup_clear(struct gt_dedup *t)
{
	if (!t->slots)
		return;
	memset(t->slots, 0, (t->mask + 1) * sizeof(struct gt_dedup_slot));
	atomic_store(&t->next_id, 0);
	atomic_store(&t->arena_used, 0);
}

/* Say what id means (its words are in place) and show it: the id, or
 * AGAIN | id when that must wait, or FAILED.  Returns the id or 0. */
static uint32_t publish(struct gt_dedup *t, struct gt_dedup_slot *s,
			uint32_t id, void *arg)
{
	int rc = t->publish ? t->publish(id, s->words, s->len, arg) : 0;

	if (rc > 0) {
		atomic_store_explicit(&s->id, ID_AGAIN | id, memory_order_release);
		return 0;
	}
	if (rc < 0)
		atomic_fetch_add(&t->lost, 1);
	atomic_store_explicit(&s->id, rc ? ID_FAILED : id, memory_order_release);
	return rc ? 0 : id;
}

/* The slot is ours: copy the words, then publish the new id. */
static uint32_t fill(struct gt_dedup *t, struct gt_dedup_slot *s,
		     const uint64_t *words, uint32_t len, void *arg)
{
	uint64_t at = atomic_fetch_add(&t->arena_used, len);
	uint32_t id = 0;

	if (at + len <= t->arena_words) {
		id = atomic_fetch_add(&t->next_id, 1) + 1;
		if (id <= t->max_ids) {
			memcpy(t->arena + at, words, len * sizeof(*words));
			s->words = t->arena + at;
			s->len = len;
			return publish(t, s, id, arg);
		}
	}
	atomic_fetch_add(&t->lost, 1);
	atomic_store_explicit(&s->id, ID_FAILED, memory_order_release);
	return 0;
}

/* A slot left AGAIN: claim it and publish again; 0 if another has it. */
static uint32_t again(struct gt_dedup *t, struct gt_dedup_slot *s, uint32_t id,
		      void *arg)
{
	if (!atomic_compare_exchange_strong(&s->id, &id, (id & ~ID_AGAIN) | ID_BUSY))
		return 0;
	return publish(t, s, id & ~ID_AGAIN, arg);
}

static uint32_t wait_id(struct gt_dedup_slot *s)
{
	uint32_t id;

	for (uint32_t spins = 0; spins < MAX_SPINS; spins++) {
		id = atomic_load_explicit(&s->id, memory_order_acquire);
		if (id && (id == ID_FAILED || !(id & ID_BUSY)))
			return id;
		cpu_relax();
	}
	return 0;
}

static int same(const struct gt_dedup_slot *s, const uint64_t *words,
		uint32_t len)
{
	return s->words && s->len == len &&
	       !memcmp(s->words, words, len * sizeof(*words));
}

uint32_t gt_dedup_get(struct gt_dedup *t, const uint64_t *words, uint32_t len,
		      void *arg)
{
	return gt_dedup_get_within(t, words, len, arg, t->max_ids);
}

uint32_t gt_dedup_get_within(struct gt_dedup *t, const uint64_t *words,
			     uint32_t len, void *arg, uint32_t below)
{
	uint64_t h = gt_dedup_hash(words, len);

	for (uint64_t i = 0; i <= t->mask && i < MAX_PROBES; i++) {
		struct gt_dedup_slot *s = &t->slots[(h + i) & t->mask];
		uint64_t cur = atomic_load_explicit(&s->hash, memory_order_acquire);
		uint32_t id;

		if (cur == 0 && atomic_load_explicit(&t->next_id, memory_order_relaxed) >= below) {
			if (below >= t->max_ids)    /* full: lost */
				atomic_fetch_add(&t->lost, 1);
			return 0;           /* new, and not to be added */
		}
		if (cur == 0 && atomic_compare_exchange_strong(&s->hash, &cur, h))
			return fill(t, s, words, len, arg);
		if (cur != h)
			continue;
		id = wait_id(s);
		if (!id)
			return 0;           /* its owner is slow: no id this time */
		if (!same(s, words, len))
			continue;
		if (id == ID_FAILED)
			return 0;
		return id & ID_AGAIN ? again(t, s, id, arg) : id;
	}
	atomic_fetch_add(&t->lost, 1);
	return 0;
}
