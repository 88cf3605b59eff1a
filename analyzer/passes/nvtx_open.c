/* SPDX-License-Identifier: MIT */
/*
 * nvtx_open.c - the table of started NVTX ranges: linear probing, with
 * deletion by shifting the entries after a removed one back into place.
 */
#include <stdlib.h>
#include <string.h>

#include "analyzer/passes/nvtx_open.h"
#include "analyzer/lib/util.h"

static size_t slot(uint64_t id, size_t cap)
{
	id ^= id >> 33;
	id *= 0xff51afd7ed558ccdull;
	id ^= id >> 33;
	return (size_t)id & (cap - 1);
}

static void grow(struct nvtx_open *o)
{
	struct nvtx_open bigger = { xcalloc(o->cap ? o->cap * 2 : 64,
					    sizeof(struct nvtx_start)),
				    o->cap ? o->cap * 2 : 64, 0 };

	for (size_t i = 0; i < o->cap; i++)
		if (o->v[i].id)
			nvtx_open_put(&bigger, &o->v[i], SIZE_MAX);
	free(o->v);
	*o = bigger;
}

int nvtx_open_put(struct nvtx_open *o, const struct nvtx_start *s, size_t max)
{
	size_t i;

	if (o->len >= max)
		return -1;
	if ((o->len + 1) * 2 > o->cap)
		grow(o);
	for (i = slot(s->id, o->cap); o->v[i].id; i = (i + 1) & (o->cap - 1))
		;
	o->v[i] = *s;
	o->len++;
	return 0;
}

int nvtx_open_take(struct nvtx_open *o, uint64_t id, struct nvtx_start *s)
{
	size_t i, j, k;

	if (!o->cap || !id)
		return 0;
	for (i = slot(id, o->cap); o->v[i].id != id; i = (i + 1) & (o->cap - 1))
		if (!o->v[i].id)
			return 0;
	*s = o->v[i];
	o->len--;
	/* shift back the entries that probed past slot i */
	for (j = (i + 1) & (o->cap - 1); o->v[j].id; j = (j + 1) & (o->cap - 1)) {
		k = slot(o->v[j].id, o->cap);
		if ((j > i && (k <= i || k > j)) || (j < i && k <= i && k > j)) {
			o->v[i] = o->v[j];
			i = j;
		}
	}
	memset(&o->v[i], 0, sizeof(o->v[i]));
	return 1;
}

const struct nvtx_start *nvtx_open_next(const struct nvtx_open *o, size_t *pos)
{
	for (; *pos < o->cap; (*pos)++)
		if (o->v[*pos].id)
			return &o->v[(*pos)++];
	return NULL;
}

void nvtx_open_release(struct nvtx_open *o)
{
	free(o->v);
	memset(o, 0, sizeof(*o));
}
