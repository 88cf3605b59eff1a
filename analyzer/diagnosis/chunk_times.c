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
					       a.hi > b.hi ? a.hi : b.hi };
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
	c->e[c->n++] = (struct chunk_time){ off, t, t };
	c->last_off = off;
}

/*
 * Whether every event of the chunk at off, read whole before (not the
 * last one, where the first read may have stopped), starts outside
 * [lo, hi) and at most `until`.  *at is a cursor: offsets asked must not
 * decrease.
 */
int chunk_times_outside(const struct chunk_times *c, size_t *at, uint64_t off,
			uint64_t lo, uint64_t hi, uint64_t until)
{
	const struct chunk_time *e;

	if (!c->n || off >= c->last_off || off < c->e[0].off)
		return 0;
	while (*at + 1 < c->n && c->e[*at + 1].off <= off)
		(*at)++;
	e = &c->e[*at];
	return (e->hi < lo || e->lo >= hi) && e->hi <= until;
}

void chunk_times_release(struct chunk_times *c)
{
	free(c->e);
	memset(c, 0, sizeof(*c));
}
