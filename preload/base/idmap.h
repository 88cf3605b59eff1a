/* SPDX-License-Identifier: MIT */
/*
 * idmap.h - small ids for fixed-size keys (launch shapes, stream handles),
 * used by the writer thread only (not thread-safe; allocates).
 */
#ifndef GPUTRACE_PRELOAD_IDMAP_H
#define GPUTRACE_PRELOAD_IDMAP_H

#include <stddef.h>
#include <stdint.h>

#define GT_IDMAP_KEY 32             /* key bytes; shorter keys are padded */

struct gt_idmap_ent {
	uint8_t key[GT_IDMAP_KEY];
	uint32_t id;                /* 0 = empty */
};

struct gt_idmap {
	struct gt_idmap_ent *ents;
	size_t cap;                 /* power of 2 */
	size_t used;
	uint32_t next_id;           /* ids start at 1 */
};

/*
 * The id of key (GT_IDMAP_KEY bytes), adding it when new (*added = 1) if
 * the map holds fewer than max keys.  Returns 0 when the key is new and
 * the map already holds max keys, or when memory runs out.  A map whose
 * lookups never pass more than max holds at most the first power of two
 * above 2 * max entries of sizeof(struct gt_idmap_ent) bytes.
 */
uint32_t gt_idmap_get(struct gt_idmap *m, const void *key, size_t max, int *added);
void gt_idmap_free(struct gt_idmap *m);

#endif /* GPUTRACE_PRELOAD_IDMAP_H */
