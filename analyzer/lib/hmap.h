/* SPDX-License-Identifier: MIT */
/*
 * hmap.h - a small open-addressing hash map from an integer or a string to
 * a pointer.  One map uses one kind of key.  String keys are not copied:
 * the caller keeps them alive as long as the entry (usually the value
 * holds its own key).  There is no removal; store NULL to forget a value.
 * An integer map also keeps the values of keys below HMAP_DENSE in an
 * array (ids the dump hands out from 1: shapes, ops), and remembers the
 * last value found for a larger key (a thread's state, event by event).
 */
#ifndef GPUTRACE_ANALYZER_HMAP_H
#define GPUTRACE_ANALYZER_HMAP_H

#include <stddef.h>
#include <stdint.h>

#include "analyzer/lib/util.h"

struct hmap_entry {
	uint64_t hash;
	uint64_t ikey;
	const char *skey;
	void *val;
	int used;
};

struct hmap {
	struct hmap_entry *e;
	size_t cap;                 /* a power of two, or 0 */
	size_t len;                 /* entries in use */
	void **dense;               /* values of keys below ndense */
	size_t ndense;
	uint64_t last_key;          /* the last integer key found ... */
	void *last_val;             /* ... and its value, NULL: none */
};

#define HMAP_INIT { NULL, 0, 0, NULL, 0, 0, NULL }
#define HMAP_DENSE 4096

void hmap_init(struct hmap *h);
/* Frees the table, not the keys or values. */
void hmap_release(struct hmap *h);
/* Each non-NULL value through fn (NULL: free()), then the table. */
void hmap_release_values(struct hmap *h, void (*fn)(void *));

void *hmap_find_int(const struct hmap *h, uint64_t key);

/* Inline in every caller: a dense key is two loads (a launch's shape is
 * looked up in three passes). */
static ALWAYS_INLINE void *hmap_get_int(const struct hmap *h, uint64_t key)
{
	if (key < HMAP_DENSE)
		return key < h->ndense ? h->dense[key] : NULL;
	if (h->last_val && h->last_key == key)
		return h->last_val;
	return hmap_find_int(h, key);
}
void hmap_put_int(struct hmap *h, uint64_t key, void *val);
void *hmap_get_str(const struct hmap *h, const char *key);
void hmap_put_str(struct hmap *h, const char *key, void *val);

/*
 * Iterate: start with *pos = 0; returns the next entry's value (NULL values
 * are skipped), or NULL at the end.
 */
void *hmap_next(const struct hmap *h, size_t *pos);

/* The non-NULL values in a new array (free() it); *n gets their number. */
void **hmap_values(const struct hmap *h, size_t *n);

#endif /* GPUTRACE_ANALYZER_HMAP_H */
