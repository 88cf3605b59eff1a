/* SPDX-License-Identifier: MIT */
/*
 * contention.c - how much slower the program's own kernels ran than they
 * can: the evidence that another process on the GPU slowed it.
 *
 * A kernel of one function and one grid does the same work each time,
 * so its fast runs (the 10th percentile of its times) are what it takes
 * alone; the time its runs took beyond that, over all its time, is the
 * share of the program's kernel time lost to sharing the GPU (or to
 * throttled clocks).  A process that is the GPU's heavy user beside a
 * light one loses little: the other's few kernels slow down few of its
 * own.  Its victim, whose kernels take turns with the heavy one's, loses
 * much, and so do two heavy users of one GPU, each the other's victim.
 * Only functions run CONT_MIN_RUNS times or more count; at most
 * CONT_MAX_SHAPES (function, grid) pairs are followed.
 */
#include <stdlib.h>

#include "analyzer/diagnosis/diagnosis_internal.h"
#include "analyzer/lib/hist.h"
#include "analyzer/lib/util.h"

#define CONT_MIN_RUNS 5
#define CONT_MAX_SHAPES 4096
#define CONT_FAST 0.10              /* the quantile of the fast runs */

struct cont_shape {
	struct hist dur;
};

/* A (function, grid) pair's key: the name's string id, then a hash of
 * the grid (a rare collision only mixes two shapes' times). */
static uint64_t shape_key(uint32_t name_str, const int32_t *grid)
{
	uint32_t h = 2166136261u;

	for (int i = 0; i < 3; i++)
		h = (h ^ (uint32_t)grid[i]) * 16777619u;
	return (uint64_t)name_str << 32 | h;
}

void contention_add(struct diagnosis *d, uint32_t name_str, const int32_t *grid,
		    uint64_t ns)
{
	uint64_t key = shape_key(name_str, grid);
	struct cont_shape *s = hmap_get_int(&d->cont_shapes, key);

	if (!s) {
		if (d->cont_nshapes == CONT_MAX_SHAPES)
			return;
		s = xcalloc(1, sizeof(*s));
		hist_init(&s->dur);
		hmap_put_int(&d->cont_shapes, key, s);
		d->cont_nshapes++;
	}
	hist_add(&s->dur, ns);
}

double contention_share(const struct diagnosis *d)
{
	double total = 0, lost = 0;
	const struct cont_shape *s;
	size_t pos = 0;

	while ((s = hmap_next(&d->cont_shapes, &pos))) {
		double fast;

		if (s->dur.count < CONT_MIN_RUNS)
			continue;
		fast = (double)hist_quantile(&s->dur, CONT_FAST);
		total += (double)s->dur.total;
		if ((double)s->dur.total > fast * (double)s->dur.count)
			lost += (double)s->dur.total - fast * (double)s->dur.count;
	}
	return total > 0 ? lost / total : 0;
}

static void free_shape(void *p)
{
	struct cont_shape *s = p;

	hist_release(&s->dur);
	free(s);
}

void contention_release(struct diagnosis *d)
{
	hmap_release_values(&d->cont_shapes, free_shape);
	d->cont_nshapes = 0;
}
