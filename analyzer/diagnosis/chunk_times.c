/* SPDX-License-Identifier: MIT */
/*
 * chunk_times.c - when the events of each part of the dump happened, so
 * that a second read (the replay's) can drop the events chunks that hold
 * nothing of the span it wants without unpacking them.
 *
 * The first read gives each events chunk's offset and its events' times;
 * an entry covers the chunks from its offset to the next entry's, with
 * the earliest and latest start of their events.  When the table is full,
 * neighbours merge two by two: the table keeps its size (CT_MAX entries)
 * at any dump size, and covers more chunks per entry.
 */
#include <stdlib.h>
#include <string.h>

#include "analyzer/diagnosis/diagnosis_internal.h"
#include "analyzer/lib/util.h"

#define CT_MAX 4096

static void halve(struct chunk_times *c)
{
	for (size_t i = 0; i < c->n / 2; i++) {
		struct chunk_time a = c->e[2 * i], b = c->e[2 * i + 1];

		c->e[i] = (struct chunk_time){ a.off, a.lo < b.lo ? a.lo : b.lo,
					       a.hi > b.hi ? a.hi : b.hi,
					       a.unordered | b.unordered };
	}
	if (c->n % 2)
		c->e[c->n / 2] = c->e[c->n - 1];
	c->n = c->n / 2 + c->n % 2;
}

/* The first event of the next events chunk (chunk_times_add). */
void chunk_times_new(struct chunk_times *c, uint64_t off, uint64_t t)
{
	if (!c->e)
		c->e = xmalloc(CT_MAX * sizeof(*c->e));
	if (c->n == CT_MAX)
		halve(c);
	c->last = &c->e[c->n++];
	*c->last = (struct chunk_time){ off, t, t, 0 };
	c->last_off = off;
}

/* The entry of the chunk at off, read whole before (not the last one,
 * where the first read may have stopped); NULL if none.  *at is a
 * cursor: offsets asked must not decrease. */
static inline const struct chunk_time *entry_of(const struct chunk_times *c,
						size_t *at, uint64_t off)
{
	if (!c->n || off >= c->last_off || off < c->e[0].off)
		return NULL;
	while (*at + 1 < c->n && c->e[*at + 1].off <= off)
		(*at)++;
	return &c->e[*at];
}

/* Whether every event of the chunk at off starts outside [lo, hi) and at
 * most `until`. */
int chunk_times_outside(const struct chunk_times *c, size_t *at, uint64_t off,
			uint64_t lo, uint64_t hi, uint64_t until)
{
	const struct chunk_time *e = entry_of(c, at, off);

	return e && (e->hi < lo || e->lo >= hi) && e->hi <= until;
}

/* Whether the events of the chunk at off come in order of start and none
 * starts after `until`: those after one that starts at t start at t or
 * later, and at most `until`. */
int chunk_times_in_order(const struct chunk_times *c, size_t *at, uint64_t off,
			 uint64_t until)
{
	const struct chunk_time *e = entry_of(c, at, off);

	return e && !e->unordered && e->hi <= until;
}

void chunk_times_release(struct chunk_times *c)
{
	free(c->e);
	memset(c, 0, sizeof(*c));
}
