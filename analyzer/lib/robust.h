/* SPDX-License-Identifier: MIT */
/*
 * robust.h - statistics of small samples that a few extreme values do not
 * move: the median and quantiles of doubles, and an interval for the
 * median of values that come in clusters (pairs of steps from one window
 * edge share its phase of the run), by a bootstrap with a fixed seed: the
 * same values always give the same interval.
 */
#ifndef GPUTRACE_ANALYZER_ROBUST_H
#define GPUTRACE_ANALYZER_ROBUST_H

#include <stddef.h>

#define ROBUST_ROUNDS 1000      /* resamples of the bootstrap */

/* The median of v[0..n), n > 0: the mean of the two middle values when n
 * is even (v is reordered). */
double robust_median(double *v, size_t n);

/* The q-quantile of v[0..n), n > 0, 0 <= q <= 1, interpolated between the
 * two nearest ranks (v is reordered). */
double robust_quantile(double *v, size_t n, double q);

/*
 * The central `level` (0.9: from the 5th to the 95th percentile) interval
 * of the median of v, whose values come in nclust clusters: cluster c is
 * v[start[c]..start[c + 1]).  Each round draws ndraw clusters with
 * replacement, then as many values of each as it has, with replacement,
 * and takes the median of them all: a spread between the clusters widens
 * the interval, as it should, where values of one cluster are not
 * independent of each other.  ndraw = nclust for the median of v itself;
 * another ndraw, for a median of as many clusters of the same kind.
 * nclust, ndraw > 0, every cluster non-empty.
 */
void robust_median_interval(const double *v, const size_t *start, size_t nclust,
			    size_t ndraw, double level, double *lo, double *hi);

#endif /* GPUTRACE_ANALYZER_ROBUST_H */
