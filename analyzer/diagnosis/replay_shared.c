/* SPDX-License-Identifier: MIT */
/*
 * replay_shared.c - the kernels' durations without the other process
 * that shared the GPU, from what the run shows.
 *
 * Time-sliced with another process, a kernel runs as long as it would
 * alone plus the slices the other process got meanwhile.  Runs of one
 * shape (function and grid) are otherwise alike, so:
 *
 *   - a shape whose median run is within ALONE_SPREAD of its fast runs
 *     (10th percentile) mostly ran alone: its median is its time alone;
 *     its slowed runs (HIT_FACTOR and more) count how often a slice came,
 *     and what they lost, how long a slice is;
 *   - unless its fast runs are as long as a slice: such a kernel never
 *     fits between two, and all its runs are slowed alike;
 *   - those shapes give the stretch: their total time over their time
 *     alone, the other process's slices per unit of this one's work;
 *   - a shape that never ran alone (longer than the slices) takes its
 *     mean over that stretch, at most its fast runs.
 *
 * How sure: the stretch rests on the slowed runs counted, h of them; the
 * band takes its relative error as 1 / sqrt(h).  Without a shape that
 * ran alone, each shape's fast runs are the point, its median and its
 * fastest run the band's ends, and the band says why it is wide.
 */
#include <math.h>
#include <stdlib.h>

#include "analyzer/diagnosis/replay_fix.h"
#include "analyzer/lib/robust.h"
#include "analyzer/lib/util.h"

#define MIN_RUNS 5              /* runs of a shape to tell its spread */
#define ALONE_SPREAD 1.15       /* median within this of the fast runs */
#define HIT_FACTOR 1.5          /* a run this much slower was sliced */

struct run {
	uint32_t shape;
	uint64_t dur;
};

/* What the runs of one shape say. */
struct shape_stat {
	uint32_t shape;
	size_t n;
	uint64_t fast, median, min;
	double mean;
	int alone;              /* its median ran alone */
};

struct stretch {
	double total, alone;    /* time of the shapes that ran alone, and
				   what it would be alone */
	size_t hits;            /* their runs slowed by a slice */
	double known, all;      /* kernel time of shapes that ran alone, of
				   all shapes */
};

static int by_shape_dur(const void *a, const void *b)
{
	const struct run *x = a, *y = b;

	if (x->shape != y->shape)
		return x->shape < y->shape ? -1 : 1;
	return x->dur < y->dur ? -1 : x->dur > y->dur;
}

static struct run *kernel_runs(const struct rp_graph *g, size_t *n)
{
	struct run *v = xmalloc((g->nops + 1) * sizeof(*v));

	*n = 0;
	for (size_t i = 0; i < g->nops; i++)
		if (g->ops[i].kind == RO_KERNEL && g->ops[i].shape && g->ops[i].dur)
			v[(*n)++] = (struct run){ g->ops[i].shape, g->ops[i].dur };
	qsort(v, *n, sizeof(*v), by_shape_dur);
	return v;
}

static void stat_of(const struct run *v, size_t n, struct shape_stat *s)
{
	double sum = 0;

	for (size_t i = 0; i < n; i++)
		sum += (double)v[i].dur;
	s->shape = v[0].shape;
	s->n = n;
	s->min = v[0].dur;
	s->fast = v[n / 10].dur;
	s->median = v[n / 2].dur;
	s->mean = sum / (double)n;
	s->alone = n >= MIN_RUNS && s->median <= ALONE_SPREAD * (double)s->fast;
}

/*
 * The other process's slice: the median time a slowed run of a shape
 * that mostly ran alone lost (its time less its median); 0 when no run
 * was slowed.  A shape whose fast runs are this long or longer cannot
 * run between two slices: its runs are all slowed alike, and its median
 * is no time alone (a long matrix product beside a process that
 * computes without pause).
 */
static uint64_t slice_of(const struct run *v, const struct shape_stat *s,
			 size_t ns)
{
	double *lost = NULL;
	size_t n = 0, cap = 0;
	uint64_t slice;

	for (size_t k = 0, a = 0; k < ns; a += s[k].n, k++) {
		for (size_t i = a; s[k].alone && i < a + s[k].n; i++) {
			if (v[i].dur <= HIT_FACTOR * (double)s[k].median)
				continue;
			if (n == cap)
				lost = xrealloc(lost, (cap = cap ? 2 * cap : 64) * sizeof(*lost));
			lost[n++] = (double)(v[i].dur - s[k].median);
		}
	}
	slice = n ? (uint64_t)robust_median(lost, n) : 0;
	free(lost);
	return slice;
}

/* What the shapes that ran alone say of the stretch. */
static void add_stretch(const struct run *v, const struct shape_stat *s,
			struct stretch *st)
{
	double sum = s->mean * (double)s->n;

	st->all += sum;
	if (!s->alone)
		return;
	st->known += sum;
	st->total += sum;
	st->alone += (double)s->n * (double)s->median;
	for (size_t i = 0; i < s->n; i++)
		st->hits += v[i].dur > HIT_FACTOR * (double)s->median;
}

/* The shapes' statistics, sorted by shape; *n of them. */
static struct shape_stat *shape_stats(const struct rp_graph *g, size_t *n,
				      struct stretch *st)
{
	size_t nr, a = 0;
	struct run *v = kernel_runs(g, &nr);
	struct shape_stat *s = xcalloc(nr + 1, sizeof(*s));
	uint64_t slice;

	*n = 0;
	while (a < nr) {
		size_t b = a;

		while (b < nr && v[b].shape == v[a].shape)
			b++;
		stat_of(&v[a], b - a, &s[(*n)++]);
		a = b;
	}
	slice = slice_of(v, s, *n);
	a = 0;
	for (size_t k = 0; k < *n; a += s[k].n, k++) {
		if (slice && s[k].fast >= slice)
			s[k].alone = 0;
		add_stretch(&v[a], &s[k], st);
	}
	free(v);
	return s;
}

static const struct shape_stat *find(const struct shape_stat *s, size_t n,
				     uint32_t shape)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (s[mid].shape == shape)
			return &s[mid];
		if (s[mid].shape < shape)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* A shape's time alone for the figure `end`; stretch 0: not known. */
static double alone_time(const struct shape_stat *s, double stretch,
			 enum rp_end end)
{
	double d;

	if (s->alone)
		return (double)s->median;
	if (stretch <= 0)
		return end == RP_LOW ? (double)s->median :
		       end == RP_HIGH ? (double)s->min : (double)s->fast;
	d = s->mean / stretch;
	return d < (double)s->fast ? d : (double)s->fast;
}

/* The stretch for the figure `end` (its counting error), 0 unknown. */
static double stretch_of(const struct stretch *st, enum rp_end end)
{
	double x, err;

	if (st->alone <= 0 || !st->hits)
		return 0;
	x = st->total / st->alone - 1;
	err = 1 / sqrt((double)st->hits);
	err = err > 1 ? 1 : err;
	return 1 + x * (end == RP_LOW ? 1 - err : end == RP_HIGH ? 1 + err : 1);
}

static void say_how_sure(struct rp_fix_result *r, const struct stretch *st,
			 double stretch)
{
	double known = st->all > 0 ? st->known / st->all : 0;

	if (stretch > 0) {
		fix_assume(r, "kernels as long as alone: %.0f%% of the kernel time "
			   "in shapes that mostly ran alone (their median), the "
			   "rest their mean over the %.2fx those were slowed by "
			   "(%zu runs slowed: +-%.0f%%)", 100 * known, stretch,
			   st->hits, 100 / sqrt((double)st->hits));
		return;
	}
	fix_assume(r, "kernels as long as their fastest tenth of runs (no shape "
		   "ran alone in most runs)");
	snprintf(r->wide, sizeof(r->wide), "no kernel shape ran alone in most "
		 "of its runs: their time alone lies between their fastest run "
		 "and their median");
}

int fix_unshared(struct edit *ed, enum rp_end end, struct rp_fix_result *r)
{
	struct stretch st = { 0 };
	size_t n;
	struct shape_stat *s = shape_stats(ed->g, &n, &st);
	double stretch = stretch_of(&st, end);
	int changed = 0;

	for (size_t i = 0; i < ed->g->nops; i++) {
		const struct rp_op *op = &ed->g->ops[i];
		const struct shape_stat *x = op->kind == RO_KERNEL && op->shape ?
					     find(s, n, op->shape) : NULL;
		double d = x ? alone_time(x, stretch, end) : 0;

		if (!x || d >= (double)op->dur)
			continue;
		fix_writable(ed)->ops[i].dur = sat_from_double(d);
		changed = 1;
	}
	if (changed && end == RP_POINT)
		say_how_sure(r, &st, stretch_of(&st, RP_POINT));
	free(s);
	return changed;
}
