/* SPDX-License-Identifier: MIT */
/*
 * idmap.c - open-addressing map from fixed-size keys to small ids: linear
 * probing in a table kept at most half full, ids handed out in the order
 * keys are first seen (the hash decides slots, never ids).  The caller
 * bounds each lookup's map: a key beyond `max` is refused, so the table
 * never grows past the first power of two above twice that.
 */
#include <stdlib.h>
#include <string.h>

#include "preload/base/idmap.h"

_Static_assert(GT_IDMAP_KEY % 8 == 0, "keys are read as 64-bit words");

static uint64_t word(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));   /* keys need not be aligned */
	return v;
}

/*
 * The key read as four 64-bit words, each folded in with a multiply and
 * an xor-shift (the multiplier is 2^64 / golden ratio, odd): four
 * multiplies instead of one per byte.  The last xor-shift brings the high
 * bits, where a multiply leaves its mixing, down to the low bits that
 * pick the slot.
 */
static uint64_t hash_key(const uint8_t *k)
{
	uint64_t h = 0;

	for (int i = 0; i < GT_IDMAP_KEY; i += 8) {
		h = (h ^ word(k + i)) * 0x9e3779b97f4a7c15ull;
		h ^= h >> 29;
	}
	return h ^ (h >> 32);
}

static int key_equal(const uint8_t *a, const uint8_t *b)
{
	uint64_t diff = 0;

	for (int i = 0; i < GT_IDMAP_KEY; i += 8)
		diff |= word(a + i) ^ word(b + i);
	return diff == 0;
}

static struct gt_idmap_ent *find(struct gt_idmap_ent *ents, size_t cap,
				 const uint8_t *key)
{
	size_t i = hash_key(key) & (cap - 1);

	while (ents[i].id && !key_equal(ents[i].key, key))
		i = (i + 1) & (cap - 1);
	return &ents[i];
}

static int grow(struct gt_idmap *m)
{
	size_t cap = m->cap ? m->cap * 2 : 256;
	struct gt_idmap_ent *ents = calloc(cap, sizeof(*ents));

	if (!ents)
		return -1;
	for (size_t i = 0; i < m->cap; i++)
		if (m->ents[i].id)
			*find(ents, cap, m->ents[i].key) = m->ents[i];
	free(m->ents);
	m->ents = ents;
	m->cap = cap;
	return 0;
}

uint32_t gt_idmap_get(struct gt_idmap *m, const void *key, size_t max, int *added)
{
	struct gt_idmap_ent *e;

	*added = 0;
	if (m->used < max && (m->used + 1) * 2 > m->cap && grow(m))
		return 0;
	if (!m->cap)
		return 0;
	e = find(m->ents, m->cap, key);
	if (e->id || m->used >= max)
		return e->id;               /* there, or 0: not there, and full */
	memcpy(e->key, key, GT_IDMAP_KEY);
	e->id = ++m->next_id;
	m->used++;
	*added = 1;
	return e->id;
}

void gt_idmap_free(struct gt_idmap *m)
{
	free(m->ents);
	memset(m, 0, sizeof(*m));
}
