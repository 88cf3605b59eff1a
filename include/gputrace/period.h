/* SPDX-License-Identifier: MIT */
/*
 * period.h - the period of a repeating call sequence, shared by the
 * library (which finds a running program's training steps to place GPU
 * windows on them) and the analyzer (which finds them again in a dump).
 *
 * A training loop makes the same GPU calls in the same order every step.
 * Given the newest calls first, the prefix function (Knuth-Morris-Pratt)
 * gives in O(n) the smallest period of every prefix; the answer is the
 * period of the longest prefix (the newest calls) that covers at least
 * half of them and repeats three times or more.  Tokens that differ every
 * other step (a kernel chosen by the batch's shape, a call made on every
 * second batch) make that period a multiple of the step; gt_sub_period
 * finds the step in it.
 */
#ifndef GPUTRACE_PERIOD_H
#define GPUTRACE_PERIOD_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/*
 * Smallest period of the longest prefix of tok[0..n) that is at least
 * n / 2 long and holds the period three times or more; 0 if none.  pi
 * is scratch space for n values.
 */
static inline uint32_t gt_suffix_period(const uint32_t *tok, size_t n, int32_t *pi)
{
	size_t k = 0;

	if (!n)
		return 0;
	pi[0] = 0;
	for (size_t i = 1; i < n; i++) {
		while (k && tok[i] != tok[k])
			k = (size_t)pi[k - 1];
		if (tok[i] == tok[k])
			k++;
		pi[i] = (int32_t)k;
	}
	for (size_t len = n; len >= 3 && 2 * len >= n; len--) {
		size_t p = len - (size_t)pi[len - 1];

		if (len >= 3 * p)
			return (uint32_t)p;
	}
	return 0;
}

/*
 * A period made of near copies of a shorter one: the smallest d that
 * divides period such that, over one period of tok (whose first
 * 2 * period tokens repeat with period), the token d calls later is the
 * same for all but a tenth of the calls; period if none.
 */
static inline uint32_t gt_sub_period(const uint32_t *tok, uint32_t period)
{
	for (uint32_t d = 1; d <= period / 2; d++) {
		uint32_t differ = 0;

		if (period % d)
			continue;
		for (uint32_t i = 0; i < period && 10 * differ <= period; i++)
			differ += tok[i] != tok[i + d];
		if (10 * differ <= period)
			return d;
	}
	return period;
}

/*
 * Whether the period / sub steps of a period take alike times: t[] holds
 * the times of blocks (at most GT_EVEN_BLOCKS) whole periods of calls in a
 * row, each beginning with a step's first call.  The span from each step's
 * first call to its last, the median over the blocks (a block that the
 * scheduler stopped in the middle of a step does not count), is within
 * half of every other (and 20 us): a period of two kinds of step (a GAN's
 * generator and discriminator) stays whole.
 */
#define GT_EVEN_BLOCKS 8

static inline uint64_t gt_median_small(uint64_t *v, size_t n)
{
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j && v[j - 1] > v[j]; j--) {
			uint64_t x = v[j];

			v[j] = v[j - 1];
			v[j - 1] = x;
		}
	return v[(n - 1) / 2];
}

static inline int gt_even_steps(const uint64_t *t, size_t period, size_t sub,
				size_t blocks)
{
	uint64_t lo = UINT64_MAX, hi = 0, span[GT_EVEN_BLOCKS], m;

	blocks = blocks < GT_EVEN_BLOCKS ? blocks : GT_EVEN_BLOCKS;
	for (size_t k = 0; k < period / sub; k++) {
		for (size_t j = 0; j < blocks; j++) {
			const uint64_t *s = t + j * period + k * sub;

			span[j] = s[sub - 1] - s[0];
		}
		m = blocks ? gt_median_small(span, blocks) : 0;
		lo = m < lo ? m : lo;
		hi = m > hi ? m : hi;
	}
	return blocks && 2 * hi <= 3 * lo + 20000;
}

/* FNV-1a step over one token: the hash of a few calls in a row. */
static inline uint64_t gt_gram_step(uint64_t h, uint32_t tok)
{
	return (h ^ tok) * 1099511628211ull;
}

#define GT_GRAM_SEED 1469598103934665603ull

static inline int gt_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* The first of the sorted v[0..n) at or after x: its index, or n. */
static inline size_t gt_lower_bound(const uint64_t *v, size_t n, uint64_t x)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* How many times h occurs in the sorted v[0..n). */
static inline size_t gt_count(const uint64_t *v, size_t n, uint64_t h)
{
	size_t lo = gt_lower_bound(v, n, h), k = 0;

	while (lo + k < n && v[lo + k] == h)
		k++;
	return k;
}

/*
 * The call that starts a step, among the last period calls, when a step
 * is sub calls (sub divides period: gt_sub_period): h[i] is the hash of
 * the few calls up to call i (gt_gram_step), gap[i] the pause before it.
 * Of the calls i < sub whose hash comes once per step, at the same place
 * in each of the period / sub steps, the one after the longest pauses;
 * its index, or -1 if none.  sorted is scratch space for period values.
 */
static inline long gt_anchor_pick_sub(const uint64_t *h, const uint64_t *gap,
				      size_t period, size_t sub, uint64_t *sorted)
{
	size_t m = period / sub;
	uint64_t best_gap = 0;
	long best = -1;

	memcpy(sorted, h, period * sizeof(*h));
	qsort(sorted, period, sizeof(*sorted), gt_cmp_u64);
	for (size_t i = 0; i < sub; i++) {
		uint64_t g = 0;
		size_t k;

		for (k = 0; k < m && h[i + k * sub] == h[i]; k++)
			g += gap[i + k * sub];
		if (k == m && gt_count(sorted, period, h[i]) == m &&
		    (best < 0 || g > best_gap))
			best = (long)i, best_gap = g;
	}
	return best;
}

/*
 * The pauses before the calls of a period, for gt_anchor_pick_sub: the
 * calls tok[first..first + period) (times t[]) are the newest period;
 * gap[i] is the pause before call first + i summed over every period
 * before it of the same calls (each capped: gt_pause_capped), not the
 * newest period's alone.  A loop's turn may come once in several periods
 * (a step of identical blocks), and the pauses of one period on a loaded
 * machine are the scheduler's as much as the loop's.
 */
#define GT_PAUSE_CAP 50000000ull /* a pause counts at most this (50 ms): the
				    scheduler stopping a busy machine's thread
				    once in a while does not make a place's
				    total or mean stand out */

static inline uint64_t gt_pause_capped(uint64_t d)
{
	return d < GT_PAUSE_CAP ? d : GT_PAUSE_CAP;
}

static inline void gt_period_gaps(const uint32_t *tok, const uint64_t *t, size_t first,
				  size_t period, uint64_t *gap)
{
	memset(gap, 0, period * sizeof(*gap));
	for (size_t at = first;; at -= period) {
		for (size_t i = 0; i < period; i++)
			if (at + i)
				gap[i] += gt_pause_capped(t[at + i] - t[at + i - 1]);
		if (at < period || memcmp(tok + at - period, tok + first,
					  period * sizeof(*tok)))
			break;
	}
}

/* The same when a step is the whole period. */
static inline long gt_anchor_pick(const uint64_t *h, const uint64_t *gap,
				  size_t period, uint64_t *sorted)
{
	return gt_anchor_pick_sub(h, gap, period, period, sorted);
}

/* ---- a step of several blocks: the arguments and the loop's pauses ---- */

/*
 * A model of identical blocks launches the same kernels block after
 * block, on other weights: the calls repeat every block, so the period
 * found above (and its anchor, once per block) is a block, but the
 * launches' arguments (format.h's GT_ARG_LAUNCH_ARGS, 7-bit hashes) come
 * back only a step later.  A loop that launches one kernel k times and
 * then pauses repeats every launch, but its step is the k launches and
 * the pause.  The functions below turn the boundaries of the blocks
 * (bounds[i]: a block's first call; ends[i]: the call before it, where
 * the block before ended; sig[i]: the arguments of the calls up to it,
 * gt_arg_sig) into steps, for the analyzer over a whole dump and for the
 * library over the boundaries it keeps; scratch space comes from the
 * caller (no allocation).
 */

/* The k-th smallest of v[0..n) (v is reordered): Hoare's quickselect. */
static inline uint64_t gt_select_u64(uint64_t *v, size_t n, size_t k)
{
	ptrdiff_t lo = 0, hi = (ptrdiff_t)n - 1, at = (ptrdiff_t)k;

	while (lo < hi) {
		uint64_t pivot = v[lo + (hi - lo) / 2];
		ptrdiff_t i = lo, j = hi;

		while (i <= j) {        /* Hoare's partition */
			while (v[i] < pivot)
				i++;
			while (v[j] > pivot)
				j--;
			if (i <= j) {
				uint64_t t = v[i];

				v[i++] = v[j];
				v[j--] = t;
			}
		}
		if (at <= j)
			hi = j;
		else if (at >= i)
			lo = i;
		else
			break;          /* between them: all equal to the pivot */
	}
	return v[k];
}

/* The element at n / 2 of v[0..n) sorted (v is reordered). */
static inline uint64_t gt_median_half(uint64_t *v, size_t n)
{
	return gt_select_u64(v, n, n / 2);
}

#define GT_SIG_CALLS 4          /* calls whose arguments mark a step */
#define GT_SIG_BITS 7           /* bits of a call's arguments in a sig */

/*
 * The arguments of the calls up to chronological position i of a ring
 * of `size` argument hashes (ah) that holds the newest of `seen` calls
 * (position 0: the oldest kept, at (seen - size) % size once full): the
 * hashes of the last GT_SIG_CALLS that have one (among the last 16
 * calls), GT_SIG_BITS bits each.  The same kernels run on other buffers
 * (the next of a model's identical layers) differ here.
 */
static inline uint32_t gt_arg_sig(const uint8_t *ah, size_t size, uint64_t seen,
				  size_t i)
{
	uint64_t first = seen > size ? seen - size : 0;
	uint32_t sig = 0;

	for (size_t k = 0, got = 0; k <= i && k < 4 * GT_SIG_CALLS && got < GT_SIG_CALLS; k++) {
		uint8_t a = ah[(size_t)((first + i - k) % size)];

		if (a)
			sig = sig << GT_SIG_BITS | a, got++;
	}
	return sig;
}

#define GT_ARGS_MAX_COPIES 256  /* copies of a block a step may hold */
#define GT_ARGS_AGREE 0.9       /* arguments equal this often: a cycle */

/* The share of the boundaries from..n whose arguments (sig) all equal
 * those k boundaries before, where both are known; -1 when fewer than two
 * whole cycles of k are known. */
static inline double gt_sig_agree(const uint32_t *sig, size_t from, size_t n, size_t k)
{
	size_t same = 0, seen = 0;

	for (size_t j = from + k; j < n; j++) {
		if (!sig[j] || !sig[j - k])
			continue;
		seen++;
		same += sig[j] == sig[j - k];
	}
	return seen >= 2 * k && seen >= 8 ? (double)same / (double)seen : -1;
}

/* What the arguments of boundaries from..n tell (gt_args_cycle). */
enum gt_args_found {
	GT_ARGS_UNKNOWN,        /* too few arguments known yet */
	GT_ARGS_SAME,           /* each block's come back the next: a step
	                           is a block */
	GT_ARGS_CYCLE,          /* they come back every *k blocks */
	GT_ARGS_MORE,           /* not in the blocks there are: more may tell */
	GT_ARGS_NONE,           /* not within GT_ARGS_MAX_COPIES blocks */
};

/* Whether the arguments of the blocks from..n come back (GT_ARGS_AGREE)
 * the next block, or only every *k blocks (the smallest such k). */
static inline enum gt_args_found gt_args_cycle(const uint32_t *sig, size_t from,
					       size_t n, size_t *k)
{
	double one = gt_sig_agree(sig, from, n, 1);
	size_t c = 1;

	if (one < 0)
		return GT_ARGS_UNKNOWN;
	if (one >= GT_ARGS_AGREE)
		return GT_ARGS_SAME;
	while (++c <= GT_ARGS_MAX_COPIES && 3 * c <= n - from &&
	       gt_sig_agree(sig, from, n, c) < GT_ARGS_AGREE)
		;
	if (c > GT_ARGS_MAX_COPIES)
		return GT_ARGS_NONE;
	if (3 * c > n - from)
		return GT_ARGS_MORE;
	*k = c;
	return GT_ARGS_CYCLE;
}

#define GT_PAUSE_OVER 2         /* a loop's turn: pauses this much longer */

/*
 * The step within a cycle of the arguments: the outer loop's turn comes
 * with a longer pause than the calls in its body.  g[r] is the mean pause
 * before each of the cycle's places r (from the call before to the
 * boundary, over boundaries from..n).  When the longest pauses come every
 * d places (each GT_PAUSE_OVER times the median place's or more), and d
 * divides the cycle, the loop turns every d places: buffers the loop
 * leaves alive from one turn to the next (its output) made the arguments
 * come back only every few turns.  The smallest such d, or the cycle.
 * When no place's pause stands out (GT_PAUSE_OVER times the median's),
 * the loop turns at every place: buffers it takes in turn (a batch from
 * one of a few pinned buffers) made the cycle, and the step is one place
 * (1).  scratch: 2 * cycle values.
 */
static inline size_t gt_loop_turn(const uint64_t *bounds, const uint64_t *ends,
				  size_t from, size_t n, size_t cycle, uint64_t *scratch)
{
	uint64_t *g = scratch, *v = scratch + cycle, med;
	size_t top = 0, d = 0;

	for (size_t r = 0; r < cycle; r++) {
		uint64_t sum = 0, cnt = 0;

		for (size_t j = from + r; j < n; j += cycle, cnt++)
			sum += gt_pause_capped(bounds[j] - ends[j]);
		g[r] = cnt ? sum / cnt : 0;
	}
	memcpy(v, g, cycle * sizeof(*g));
	med = gt_median_half(v, cycle);
	for (size_t r = 1; r < cycle; r++)
		if (g[r] > g[top])
			top = r;
	if (g[top] < GT_PAUSE_OVER * med)
		return 1;
	while (++d < cycle) {
		size_t m = d;

		if (cycle % d)
			continue;
		while (m < cycle && g[(top + m) % cycle] >= GT_PAUSE_OVER * med)
			m += d;
		if (m >= cycle)
			break;
	}
	return d;
}

/*
 * How many blocks make one step: the arguments' cycle, or the loop's turn
 * within it (gt_loop_turn); 1 when the arguments of the next block come
 * back, or none come back, or too little is known of them.  scratch:
 * 2 * GT_ARGS_MAX_COPIES values.  (The analyzer also asks the library's
 * steps where the pauses do not tell: steps_period.c.)
 */
static inline size_t gt_args_copies(const uint32_t *sig, const uint64_t *bounds,
				    const uint64_t *ends, size_t from, size_t n,
				    uint64_t *scratch)
{
	size_t k = 1;

	if (gt_args_cycle(sig, from, n, &k) != GT_ARGS_CYCLE)
		return 1;
	return gt_loop_turn(bounds, ends, from, n, k, scratch);
}

/* Of every k boundaries from..n, the place (0..k) after the longest
 * pauses (the total of b[j] - e[j]): the start of the outer loop's body. */
static inline size_t gt_kth_phase(const uint64_t *b, const uint64_t *e, size_t from,
				  size_t n, size_t k)
{
	uint64_t best = 0;
	size_t phase = 0;

	for (size_t r = 0; r < k; r++) {
		uint64_t g = 0;

		for (size_t j = from + r; j < n; j += k)
			g += b[j] - e[j];
		if (g > best)
			best = g, phase = r;
	}
	return phase;
}

/*
 * Steps of k blocks: every k-th of the boundaries b[from..n) and of their
 * calls before, e, from gt_kth_phase on, those before from kept.  Returns
 * the new count.
 */
static inline size_t gt_every_kth(uint64_t *b, uint64_t *e, size_t from, size_t n,
				  size_t k)
{
	size_t out = from;

	for (size_t j = from + gt_kth_phase(b, e, from, n, k); j < n; j += k, out++) {
		b[out] = b[j];
		e[out] = e[j];
	}
	return out;
}

#define GT_PAUSE_MIN_NS 100000  /* a pause is this long at least */

/* Whether the gap from boundary time a to the next, b, is a pause of a
 * loop whose median gap is med. */
static inline int gt_is_pause(uint64_t a, uint64_t b, uint64_t med)
{
	return b - a > 4 * med && b - a >= GT_PAUSE_MIN_NS;
}

/*
 * Whether the steps between the pauses are steps of their own: their
 * calls (from the boundary to the last call before the next one) take
 * longer than the gap to the next step.  A DataLoader whose workers,
 * started together, deliver batches in pairs makes every other step
 * wait, but each step still runs a whole batch; a kernel launched k
 * times in a row has no calls of its own between the launches.
 * scratch: 2 * nd values.
 */
static inline int gt_own_steps(const uint64_t *b, const uint64_t *e, size_t nd,
			       uint64_t med, uint64_t *scratch)
{
	uint64_t *busy = scratch, *gap = scratch + nd;
	size_t k = 0;

	for (size_t i = 0; i < nd; i++) {
		if (gt_is_pause(b[i], b[i + 1], med))
			continue;
		busy[k] = e[i + 1] > b[i] ? e[i + 1] - b[i] : 0;
		gap[k++] = b[i + 1] > e[i + 1] ? b[i + 1] - e[i + 1] : 0;
	}
	return k && gt_median_half(busy, k) > gt_median_half(gap, k);
}

/*
 * A loop that launches the same kernel k times and then pauses (loads
 * data, sleeps) repeats every launch, but its step is the k launches and
 * the pause: when pauses far longer than the median gap between the
 * boundaries b[0..n) (gt_is_pause, *med) come regularly every q > 1 of
 * them, and the boundaries between are not steps of their own
 * (gt_own_steps; e[i]: the call before b[i]), the steps start after each
 * pause.  Returns q, or 1.  scratch: 2 * n values.
 */
static inline size_t gt_pause_cycle(const uint64_t *b, const uint64_t *e, size_t n,
				    uint64_t *med, uint64_t *scratch)
{
	size_t nd = n - 1, nlong = 0, last = SIZE_MAX, same = 0, gaps = 0, q = 0;

	for (size_t i = 0; i < nd; i++)
		scratch[i] = b[i + 1] - b[i];
	*med = gt_median_half(scratch, nd);
	for (size_t i = 0; i < nd; i++) {
		if (!gt_is_pause(b[i], b[i + 1], *med))
			continue;
		nlong++;
		if (last != SIZE_MAX) {
			gaps++;
			if (!q)
				q = i - last;
			same += i - last == q;
		}
		last = i;
	}
	if (nlong < 3 || q < 2 || 10 * same < 7 * gaps || gt_own_steps(b, e, nd, *med, scratch))
		return 1;
	return q;
}

/* The steps of gt_pause_cycle: the boundaries after each pause, written
 * over b[0..n) (n >= 2); returns their count, or n when the steps are the
 * boundaries; *q multiplied by the boundaries a step holds. */
static inline size_t gt_merge_pauses(uint64_t *b, const uint64_t *e, size_t n,
				     uint32_t *q, uint64_t *scratch)
{
	uint64_t med;
	size_t every = gt_pause_cycle(b, e, n, &med, scratch), out = 0;

	if (every == 1)
		return n;
	for (size_t i = 0; i + 1 < n; i++)
		if (gt_is_pause(b[i], b[i + 1], med))
			b[out++] = b[i + 1];
	*q *= (uint32_t)every;
	return out;
}

#endif /* GPUTRACE_PERIOD_H */
