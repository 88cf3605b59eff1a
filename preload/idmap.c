/* SPDX-License-Identifier: MIT */
/*
 * idmap.c - open-addressing map from fixed-size keys to small ids.
 */
#include <stdlib.h>
#include <string.h>

#include "preload/idmap.h"

static uint64_t hash_key(const uint8_t *k)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (int i = 0; i < GT_IDMAP_KEY; i++)
		h = (h ^ k[i]) * 0x100000001b3ull;
	return h;
}

static struct gt_idmap_ent *find(struct gt_idmap_ent *ents, size_t cap,
				 const uint8_t *key)
{
	size_t i = hash_key(key) & (cap - 1);

	while (ents[i].id && memcmp(ents[i].key, key, GT_IDMAP_KEY))
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

uint32_t gt_idmap_get(struct gt_idmap *m, const void *key, int *added)
{
	struct gt_idmap_ent *e;

	*added = 0;
	if ((m->used + 1) * 2 > m->cap && grow(m))
		return 0;
	e = find(m->ents, m->cap, key);
	if (e->id)
		return e->id;
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
