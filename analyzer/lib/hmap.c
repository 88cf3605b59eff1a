/* SPDX-License-Identifier: MIT */
/*
 * hmap.c - open-addressing hash map with linear probing, kept at most half
 * full so that probes stay short.
 */
#include <stdlib.h>
#include <string.h>

#include "analyzer/lib/hmap.h"
#include "analyzer/lib/util.h"

static uint64_t hash_int(uint64_t x)
{
	/* splitmix64's finalizer */
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static uint64_t hash_str(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */

	while (*s) {
		h ^= (unsigned char)*s++;
		h *= 0x100000001b3ull;
	}
	return h;
}

void hmap_init(struct hmap *h)
{
	h->e = NULL;
	h->cap = 0;
	h->len = 0;
	h->dense = NULL;
	h->ndense = 0;
	h->last_key = 0;
	h->last_val = NULL;
}

void hmap_release(struct hmap *h)
{
	free(h->e);
	free(h->dense);
	hmap_init(h);
}

static int entry_matches(const struct hmap_entry *e, uint64_t hash,
			 uint64_t ikey, const char *skey)
{
	if (e->hash != hash)
		return 0;
	return skey ? strcmp(e->skey, skey) == 0 : e->ikey == ikey;
}

/* The slot holding the key, or the empty slot where it would go. */
static struct hmap_entry *find_slot(const struct hmap *h, uint64_t hash,
				    uint64_t ikey, const char *skey)
{
	size_t mask = h->cap - 1;
	size_t i = hash & mask;

	while (h->e[i].used && !entry_matches(&h->e[i], hash, ikey, skey))
		i = (i + 1) & mask;
	return &h->e[i];
}

static void grow(struct hmap *h)
{
	struct hmap old = *h;
	size_t i;

	h->cap = old.cap ? old.cap * 2 : 16;
	h->e = xcalloc(h->cap, sizeof(*h->e));
	for (i = 0; i < old.cap; i++) {
		struct hmap_entry *e = &old.e[i];

		if (e->used)
			*find_slot(h, e->hash, e->ikey, e->skey) = *e;
	}
	free(old.e);
}

static void *get(const struct hmap *h, uint64_t hash, uint64_t ikey,
		 const char *skey)
{
	if (!h->cap)
		return NULL;
	return find_slot(h, hash, ikey, skey)->val;
}

static void put(struct hmap *h, uint64_t hash, uint64_t ikey,
		const char *skey, void *val)
{
	struct hmap_entry *e;

	if ((h->len + 1) * 2 > h->cap)
		grow(h);
	e = find_slot(h, hash, ikey, skey);
	if (!e->used) {
		e->used = 1;
		e->hash = hash;
		e->ikey = ikey;
		h->len++;
	}
	e->skey = skey; /* the new value may own the key */
	e->val = val;
}

/* hmap_get_int() past the last value found: remembers the one found
 * (the map is const to its readers, not to itself). */
void *hmap_find_int(const struct hmap *h, uint64_t key)
{
	struct hmap *self = (struct hmap *)h;
	void *val = get(h, hash_int(key), key, NULL);

	if (val) {
		self->last_key = key;
		self->last_val = val;
	}
	return val;
}

/* Room in the dense array for key (below HMAP_DENSE). */
static void dense_reach(struct hmap *h, uint64_t key)
{
	size_t n = h->ndense ? h->ndense : 16;

	while (n <= key)
		n *= 2;
	h->dense = xrealloc(h->dense, n * sizeof(*h->dense));
	memset(h->dense + h->ndense, 0, (n - h->ndense) * sizeof(*h->dense));
	h->ndense = n;
}

void hmap_put_int(struct hmap *h, uint64_t key, void *val)
{
	put(h, hash_int(key), key, NULL, val);
	if (key < HMAP_DENSE) {
		if (key >= h->ndense)
			dense_reach(h, key);
		h->dense[key] = val;
	}
	if (h->last_key == key)
		h->last_val = val;
}

void *hmap_get_str(const struct hmap *h, const char *key)
{
	return get(h, hash_str(key), 0, key);
}

void hmap_put_str(struct hmap *h, const char *key, void *val)
{
	put(h, hash_str(key), 0, key, val);
}

void *hmap_next(const struct hmap *h, size_t *pos)
{
	while (*pos < h->cap) {
		struct hmap_entry *e = &h->e[(*pos)++];

		if (e->used && e->val)
			return e->val;
	}
	return NULL;
}

void hmap_release_values(struct hmap *h, void (*fn)(void *))
{
	size_t pos = 0;
	void *v;

	while ((v = hmap_next(h, &pos)))
		(fn ? fn : free)(v);
	hmap_release(h);
}

void **hmap_values(const struct hmap *h, size_t *n)
{
	void **v = xmalloc((h->len ? h->len : 1) * sizeof(*v));
	size_t pos = 0;
	void *val;

	*n = 0;
	while ((val = hmap_next(h, &pos)))
		v[(*n)++] = val;
	return v;
}
