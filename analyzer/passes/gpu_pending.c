/* SPDX-License-Identifier: MIT */
/*
 * gpu_pending.c - a bounded table of items waiting for their other half,
 * by host event id: open addressing (linear probing, deletion by
 * backward shift), at most half full, plus a ring of ids in arrival order.
 * The table starts small and doubles while the ring fills, up to the cap
 * it was made with; then, when the ring is full, its oldest entry goes:
 * if that item is still waiting it is evicted (the caller counts it), so
 * memory never grows past the cap whatever the number of events.
 */
#include <stdlib.h>
#include <string.h>

#include "analyzer/passes/gpu_internal.h"
#include "analyzer/lib/util.h"

static size_t hash(uint64_t id, size_t cap)
{
	id ^= id >> 33;
	id *= 0xff51afd7ed558ccdull;
	id ^= id >> 33;
	return (size_t)id & (cap - 1);
}

#define FIRST_CAP 1024u

void gpu_pending_init(struct gpu_pending *p, size_t cap)
{
	memset(p, 0, sizeof(*p));
	p->max = cap;                       /* a power of two */
	p->cap = cap < FIRST_CAP ? cap : FIRST_CAP;
	p->slot = xcalloc(p->cap, sizeof(*p->slot));
	p->fifo = xcalloc(p->cap / 2, sizeof(*p->fifo));
}

/* Slot of id, or of the empty slot where it would go. */
static size_t find(const struct gpu_pending *p, uint64_t id)
{
	size_t i = hash(id, p->cap);

	while (p->slot[i].id && p->slot[i].id != id)
		i = (i + 1) & (p->cap - 1);
	return i;
}

struct gpu_item *gpu_pending_get(struct gpu_pending *p, uint64_t id)
{
	size_t i;

	if (!p->slot || !id || !p->count)
		return NULL;
	i = find(p, id);
	return p->slot[i].id ? &p->slot[i] : NULL;
}

void gpu_pending_del(struct gpu_pending *p, uint64_t id)
{
	size_t i, j, home;

	if (!p->slot || !id)
		return;
	i = find(p, id);
	if (!p->slot[i].id)
		return;
	p->slot[i].id = 0;
	p->count--;
	for (j = (i + 1) & (p->cap - 1); p->slot[j].id; j = (j + 1) & (p->cap - 1)) {
		home = hash(p->slot[j].id, p->cap);
		/* move j back into the hole at i unless its home lies in (i, j] */
		if ((j > i && (home <= i || home > j)) ||
		    (j < i && (home <= i && home > j))) {
			p->slot[i] = p->slot[j];
			p->slot[j].id = 0;
			i = j;
		}
	}
}

/* Twice the slots and the ring: items rehashed, the ring's order kept. */
static void grow(struct gpu_pending *p)
{
	struct gpu_pending old = *p;
	size_t ring = old.cap / 2;

	p->cap = old.cap * 2;
	p->slot = xcalloc(p->cap, sizeof(*p->slot));
	p->fifo = xcalloc(p->cap / 2, sizeof(*p->fifo));
	for (size_t i = 0; i < old.cap; i++)
		if (old.slot[i].id)
			p->slot[find(p, old.slot[i].id)] = old.slot[i];
	for (size_t i = 0; i < old.len; i++)
		p->fifo[i] = old.fifo[(old.head + i) % ring];
	p->head = 0;
	free(old.slot);
	free(old.fifo);
}

int gpu_pending_put(struct gpu_pending *p, const struct gpu_item *it,
		    struct gpu_item *evicted)
{
	size_t ring, i;
	int out = 0;

	if (!p->slot || !it->id)
		return 0;
	if (p->len == p->cap / 2 && p->cap < p->max)
		grow(p);
	ring = p->cap / 2;
	if (p->len == ring) {               /* the oldest arrival goes */
		uint64_t old = p->fifo[p->head];
		struct gpu_item *o = gpu_pending_get(p, old);

		p->head = (p->head + 1) % ring;
		p->len--;
		if (o) {
			*evicted = *o;
			gpu_pending_del(p, old);
			p->evicted++;
			out = 1;
		}
	}
	i = find(p, it->id);
	if (!p->slot[i].id)
		p->count++;
	p->slot[i] = *it;
	p->fifo[(p->head + p->len++) % ring] = it->id;
	return out;
}

void gpu_pending_drain(struct gpu_pending *p,
		       void (*fn)(struct gpu_item *it, void *arg), void *arg)
{
	for (size_t i = 0; p->slot && p->count && i < p->cap; i++) {
		if (!p->slot[i].id)
			continue;
		fn(&p->slot[i], arg);
		p->slot[i].id = 0;
		p->count--;
	}
	p->count = p->len = p->head = 0;
}

void gpu_pending_release(struct gpu_pending *p)
{
	free(p->slot);
	free(p->fifo);
	memset(p, 0, sizeof(*p));
}
