/* SPDX-License-Identifier: MIT */
/*
 * nvtx_open.h - started NVTX ranges waiting for their end, by range id:
 * an open-addressing table that also deletes, so it holds only the ranges
 * open at once (hmap never forgets a key).
 */
#ifndef GPUTRACE_ANALYZER_NVTX_OPEN_H
#define GPUTRACE_ANALYZER_NVTX_OPEN_H

#include <stddef.h>
#include <stdint.h>

struct nvtx_row;

struct nvtx_start {
	uint64_t id;                /* 0: free slot */
	struct nvtx_row *row;
	uint64_t t0;
	uint64_t launches;          /* the starting thread's, at the start */
	uint32_t tid;
};

struct nvtx_open {
	struct nvtx_start *v;
	size_t cap;                 /* a power of two, or 0 */
	size_t len;
};

/* Add s (s->id != 0, not already there); 0, or -1 when at max entries. */
int nvtx_open_put(struct nvtx_open *o, const struct nvtx_start *s, size_t max);
/* Take the range with this id out into *s: 1, or 0 if it is not open. */
int nvtx_open_take(struct nvtx_open *o, uint64_t id, struct nvtx_start *s);
/* The next open range from *pos, or NULL. */
const struct nvtx_start *nvtx_open_next(const struct nvtx_open *o, size_t *pos);
void nvtx_open_release(struct nvtx_open *o);

#endif /* GPUTRACE_ANALYZER_NVTX_OPEN_H */
