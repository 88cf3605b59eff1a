/* SPDX-License-Identifier: MIT */
/*
 * steps_period.c - training steps from the launch sequence alone.
 *
 * A training loop launches the same kernels, copies and memsets in the
 * same order every step.  Each launching thread (up to PERIOD_THREADS)
 * keeps its last PERIOD_WINDOW tokens (the kernel's function, or the
 * op of a copy, memset or graph launch) in a ring.  Every PERIOD_CHECK_EVERY
 * tokens, the prefix function of the reversed window gives, in O(window),
 * the smallest period of every suffix; the period of the longest suffix
 * that covers at least half the window and repeats three times or more is
 * the step length.  Once two checks in a row (or the last) agree on one,
 * the step's anchor is chosen: a call that, with the few calls before
 * it, occurs once per period, the one after the longest pause (usually
 * the first launch of a step).  A period made of near copies of a shorter
 * one that take alike times (a kernel that differs every other step) is
 * that many steps, and the anchor comes once per step.  Its occurrences
 * in the ring, and every later one, are the step boundaries.  A pattern
 * of a few steps that stops gives way to the next (takes).  Memory: the
 * rings, and one time per step.
 */
#include <stdlib.h>
#include <string.h>

#include "analyzer/diagnosis/diagnosis_internal.h"
#include "gputrace/period.h"
#include "analyzer/lib/util.h"

#define MIN_LOOK 24             /* the fewest calls looked at, when fewer */

/* The token at chronological position i (0 = oldest kept). */
static size_t ring_pos(const struct period_det *p, size_t i)
{
	uint64_t first = p->seen > PERIOD_WINDOW ? p->seen - PERIOD_WINDOW : 0;

	return (size_t)((first + i) % PERIOD_WINDOW);
}

static size_t ring_len(const struct period_det *p)
{
	return p->seen < PERIOD_WINDOW ? (size_t)p->seen : PERIOD_WINDOW;
}

uint32_t steps_suffix_period(const uint32_t *tok, size_t n, int32_t *pi)
{
	return gt_suffix_period(tok, n, pi);
}

static void add_bound(struct period_det *p, uint64_t t, uint64_t prev,
		      uint32_t sig)
{
	if (p->nb == DIAG_MAX_STEPS) {
		p->capped = 1;
		return;
	}
	if (p->nb == p->capb) {
		p->capb = p->capb ? p->capb * 2 : 256;
		p->bounds = xrealloc(p->bounds, p->capb * sizeof(*p->bounds));
		p->ends = xrealloc(p->ends, p->capb * sizeof(*p->ends));
		p->sig = xrealloc(p->sig, p->capb * sizeof(*p->sig));
	}
	p->sig[p->nb] = sig;
	p->ends[p->nb] = prev;
	p->bounds[p->nb++] = t;
}

/* The time of the call before chronological position i (i's own if none). */
static uint64_t call_before(const struct period_det *p, size_t i)
{
	return p->t[ring_pos(p, i ? i - 1 : i)];
}

#define MAX_GRAM 8

/* Hash of the w tokens ending at chronological position end. */
static uint64_t gram(const struct period_det *p, size_t end, uint32_t w)
{
	uint64_t h = GT_GRAM_SEED;

	for (uint32_t k = 0; k < w; k++)
		h = gt_gram_step(h, p->tok[ring_pos(p, end - k)]);
	return h;
}

/*
 * The call that starts a step: among the last `period` calls, one whose
 * w calls up to it (w = 1, 2, ... MAX_GRAM: a kernel may run several times
 * a step, the calls before it tell which time) occur once per step of sub
 * calls, at the same place in each; of those, the one after the longest
 * pauses (gt_anchor_pick_sub).  Its position in the ring, or -1.
 */
static long choose_anchor(const struct period_det *p, uint32_t period,
			  uint32_t sub, size_t skip, uint64_t *anchor, uint32_t *anchor_w)
{
	size_t len = ring_len(p) - skip, first = len - period;
	uint64_t *h = xmalloc(3 * period * sizeof(*h)), *gap = h + period;
	long at = -1;

	for (uint32_t w = 1; w <= MAX_GRAM && w <= first + 1 && at < 0; w++) {
		for (size_t i = 0; i < period; i++) {
			size_t c = first + i;

			h[i] = gram(p, c, w);
			gap[i] = c ? p->t[ring_pos(p, c)] - p->t[ring_pos(p, c - 1)] : 0;
		}
		at = gt_anchor_pick_sub(h, gap, period, sub, gap + period);
		if (at >= 0) {
			*anchor = h[at];
			*anchor_w = w;
		}
	}
	free(h);
	return at >= 0 ? (long)first + at : -1;
}

#define EVEN_OF GT_EVEN_BLOCKS  /* periods whose steps are compared */

/* gt_even_steps over the last EVEN_OF periods before ring position c. */
static int even_steps(const struct period_det *p, uint32_t period,
		      uint32_t sub, size_t c)
{
	size_t blocks = c / period < EVEN_OF ? c / period : EVEN_OF;
	size_t from = c - blocks * period;
	uint64_t *t = xmalloc((blocks * period + 1) * sizeof(*t));
	int even;

	for (size_t i = 0; i < blocks * period; i++)
		t[i] = p->t[ring_pos(p, from + i)];
	even = gt_even_steps(t, period, sub, blocks);
	free(t);
	return even;
}

/* The arguments of the calls up to chronological position i (gt_arg_sig). */
static uint32_t arg_sig(const struct period_det *p, size_t i)
{
	return gt_arg_sig(p->ah, PERIOD_WINDOW, p->seen, i);
}

/* A step starts at chronological position i: its bound. */
static void bound_at(struct period_det *p, size_t i)
{
	add_bound(p, p->t[ring_pos(p, i)], call_before(p, i), arg_sig(p, i));
	p->last_at = p->seen - ring_len(p) + i + 1;
}

/*
 * The anchor's occurrences at chronological positions from..len (the
 * oldest kept is call `first`) after the last step of a pattern before,
 * back from the newest while each comes half a period or more before the
 * next: before the loop began, the anchor's calls may come closer
 * together (a model's weights uploaded one after the other, where each
 * step's first call is its input's upload), and they are no steps; nor
 * is the last of them when more than two periods of calls follow it.
 */
static void mark_steps(struct period_det *p, size_t from, size_t len,
		       uint64_t first, uint64_t h)
{
	size_t *at = xmalloc((len - from + 1) * sizeof(*at)), n = 0, keep;

	for (size_t i = from; i < len; i++)
		if (first + i + 1 > p->last_at && gram(p, i, p->anchor_w) == h)
			at[n++] = i;
	for (keep = n; keep > 1 && 2 * (at[keep - 1] - at[keep - 2]) >= p->period; keep--)
		;
	if (keep > 1 && keep < n && at[keep] - at[keep - 1] > 2 * (size_t)p->period)
		keep++;         /* the last of those, more setup after it */
	for (size_t j = n ? keep - 1 : 0; j < n; j++)
		bound_at(p, at[j]);
	free(at);
}

/*
 * The steps, once a period is found: a step of sub calls when the period
 * is made of such steps (gt_sub_period) that take alike times, else the
 * whole period.  The anchor's occurrences in the ring after the last
 * step of a pattern before are the steps found so far.
 */
static void establish(struct period_det *p, uint32_t period, uint32_t sub,
		      size_t skip)
{
	size_t len = ring_len(p);
	uint64_t h = 0, first = p->seen - len;
	uint32_t w = 0;
	long c = sub < period ? choose_anchor(p, period, sub, skip, &h, &w) : -1;

	if (c >= 0 && even_steps(p, period, sub, (size_t)c))
		period = sub;
	else if ((c = choose_anchor(p, period, period, skip, &h, &w)) < 0)
		return;
	p->period = period;
	p->anchor = h;
	p->anchor_w = w;
	p->anchor_tok = p->tok[ring_pos(p, (size_t)c)];
	p->pattern_nb = p->nb;
	mark_steps(p, w - 1, len, first, h);
}

/*
 * The period of the newest calls: the newest may not be a whole step yet
 * (or the program's last words), so look past a few of them; and the loop
 * may have begun only lately (a long warm-up before it), so look at fewer
 * calls.  *skip gets the calls looked past.
 */
static uint32_t newest_period(const uint32_t *rev, size_t len, int32_t *pi,
			      size_t *skip, size_t *n, int fewer)
{
	static const size_t skips[] = { 0, 1, 2, 4, 8, 16 };
	uint32_t period;

	for (size_t k = 0; k < ARRAY_SIZE(skips) && skips[k] < len; k++) {
		*skip = skips[k];
		for (*n = len - *skip; *n; *n = fewer && *n >= 2 * MIN_LOOK ? *n / 2 : 0)
			if ((period = steps_suffix_period(rev + *skip, *n, pi)))
				return period;
	}
	return 0;
}

#define FEW_STEPS 8             /* a pattern this short may give way */

/*
 * Whether a period found in the newest calls (of which the newest
 * `newest` repeat it) is taken: the first one; or, when a pattern of a
 * few steps came first (a step run eagerly before it is captured in a
 * CUDA graph) and none of its steps began in those newest calls, the one
 * that followed it.
 */
static int takes(const struct period_det *p, uint32_t period, uint32_t sub,
		 uint64_t newest)
{
	if (!p->period)
		return 1;
	if (period == p->period || sub == p->period)
		return 0;
	return p->nb - p->pattern_nb < FEW_STEPS && p->last_at + newest <= p->seen;
}

/*
 * The newest calls as check() sees them, the newest first: all of them,
 * or the first n (those gt_sub_period reads).
 */
static uint32_t *reversed(const struct period_det *p, size_t len, size_t n)
{
	uint32_t *rev = xmalloc((n ? n : 1) * sizeof(*rev));

	for (size_t i = 0; i < n; i++)
		rev[i] = p->tok[ring_pos(p, len - 1 - i)];
	return rev;
}

/* The newest calls that repeat the call tp before, counted anew. */
static uint64_t run_of(const struct period_det *p, size_t len, uint32_t tp)
{
	uint64_t run = 0;

	while (run + tp < len &&
	       p->tok[ring_pos(p, len - 1 - run)] == p->tok[ring_pos(p, len - 1 - run - tp)])
		run++;
	return run;
}

/*
 * The smallest period of the whole ring when it repeats the last full
 * check's period tp three times or more (run covers it): the smallest
 * divisor of tp that the calls repeat at.  That is what the prefix
 * function finds over the whole ring, in O(tp) instead of O(ring).
 * 0 when the ring does not repeat tp.
 */
static uint32_t ring_period(const struct period_det *p, size_t len)
{
	uint32_t tp = p->tp;

	if (!tp || 3 * (size_t)tp > len || p->run + tp < len)
		return 0;
	for (uint32_t d = 1; d < tp; d++) {
		size_t i = 0;

		if (tp % d)
			continue;
		while (i < tp && p->tok[ring_pos(p, i)] == p->tok[ring_pos(p, i + d)])
			i++;
		if (i == tp)
			return d;
	}
	return tp;
}

/*
 * ring_period and the sub period of what it found, kept from the check
 * that found them while every call since repeats the call tp before: the
 * ring is then a turn of the same calls, which repeat at the same
 * periods, and one period of them holds the same near copies.
 */
static uint32_t ring_period_kept(struct period_det *p, size_t len,
				 uint32_t *sub)
{
	uint32_t period, *rev;

	if (p->kept && p->kept_tp == p->tp && p->run >= p->seen - p->kept_seen) {
		*sub = p->kept_sub;
		return p->kept;
	}
	if (!(period = ring_period(p, len)))
		return 0;
	rev = reversed(p, len, 2 * (size_t)period);
	*sub = gt_sub_period(rev, period);
	free(rev);
	p->kept = period;
	p->kept_sub = *sub;
	p->kept_tp = p->tp;
	p->kept_seen = p->seen;
	return period;
}

/* The period of the newest calls (newest_period) and its sub period. */
static uint32_t newest_of(struct period_det *p, int last, size_t *skip,
			  size_t *n, uint32_t *sub)
{
	size_t len = ring_len(p);
	uint32_t period = ring_period_kept(p, len, sub), *rev;
	int32_t *pi;

	if (period) {
		*skip = 0;
		*n = len;
		return period;
	}
	rev = reversed(p, len, len);
	pi = xmalloc(len * sizeof(*pi));
	period = newest_period(rev, len, pi, skip, n, last);
	*sub = period ? gt_sub_period(rev + *skip, period) : 0;
	free(rev);
	free(pi);
	if (period && period != p->tp) {
		p->tp = period;
		p->run = run_of(p, len, period);
	}
	return period;
}

/*
 * A period is taken once two checks in a row found it (the first checks
 * may see only the start of a step: a block of a deep model repeats), or
 * at the last check, which also looks at fewer of the newest calls.
 */
static void check(struct period_det *p, int last)
{
	size_t skip = 0, n = 0;
	uint32_t sub, period = newest_of(p, last, &skip, &n, &sub);

	steps_optimizer_scan(p);
	p->checks++;
	if (period && (period == p->cand || last) && takes(p, period, sub, skip + n / 2))
		establish(p, period, sub, skip);
	else if (period && (period == p->period || sub == p->period))
		p->agree++;
	p->cand = period;
}

/* The detector of thread tid other than the last one asked for (made if
 * new), or NULL when PERIOD_THREADS are watched already. */
struct period_det *steps_period_det(struct diagnosis *d, uint32_t tid)
{
	for (size_t i = 0; i < d->ndet; i++)
		if (d->det[i].tid == tid)
			return d->last_det = &d->det[i];
	if (d->ndet == PERIOD_THREADS)
		return NULL;
	d->det[d->ndet] = (struct period_det){ .tid = tid,
					       .anchor_tok = UINT32_MAX,
					       .opt = &d->opt_fns };
	d->det[d->ndet].tok = xmalloc(PERIOD_WINDOW * sizeof(uint32_t));
	d->det[d->ndet].ah = xmalloc(PERIOD_WINDOW);
	d->det[d->ndet].t = xmalloc(PERIOD_WINDOW * sizeof(uint64_t));
	return d->last_det = &d->det[d->ndet++];
}

/* After the token tok: a step starts at it when it ends the anchor's
 * gram half a period or more after the last step began (mark_steps);
 * every PERIOD_CHECK_EVERY tokens, the period is checked. */
void steps_period_more(struct period_det *p, uint32_t tok)
{
	if (p->period && tok == p->anchor_tok && ring_len(p) >= p->anchor_w &&
	    2 * (p->seen - p->last_at) >= p->period &&
	    gram(p, ring_len(p) - 1, p->anchor_w) == p->anchor)
		bound_at(p, ring_len(p) - 1);
	if (p->seen % PERIOD_CHECK_EVERY == 0)
		check(p, 0);
}

/*
 * The blocks a step of p holds: the arguments' cycle (gt_args_cycle) or
 * the loop's turn within it (gt_loop_turn).  Where the pauses do not
 * show where the loop turns within the cycle (gt_loop_turn finds no
 * divisor of it, or no pause stands out: on a loaded machine the
 * scheduler's stops raise every place's mean pause), one more witness
 * counts: the library, which ran the same rules over the boundaries it
 * kept while the program ran (each place's pauses summed over every
 * cycle), found a step of a divisor of the cycle, or the cycle itself
 * (lib_period GPU calls).  *lib is set when that step is taken.
 */
static size_t blocks_per_step(const struct period_det *p, uint32_t lib_period,
			      uint64_t *scratch, int *lib)
{
	size_t k = 1, turn, j;

	if (gt_args_cycle(p->sig, p->pattern_nb, p->nb, &k) != GT_ARGS_CYCLE)
		return 1;
	turn = gt_loop_turn(p->bounds, p->ends, p->pattern_nb, p->nb, k, scratch);
	if ((turn > 1 && turn < k) || !p->period || lib_period <= p->period ||
	    lib_period % p->period)
		return turn;            /* the pauses told, or no witness */
	j = lib_period / p->period;
	if (j > k || k % j || j == turn)
		return turn;
	*lib = 1;
	return j;
}

/*
 * The median step of p's boundaries (in b, *n of them): a step of k
 * blocks when the arguments come back every k (blocks_per_step), then
 * after the loop's pauses (gt_merge_pauses); *q the blocks a step holds.
 */
static uint64_t median_step(const struct period_det *p, uint32_t lib_period,
			    uint64_t *b, size_t *n, uint32_t *q, int *lib)
{
	size_t nb = p->nb, k;
	uint64_t *e = xmalloc(nb * sizeof(*e)), *v, med;
	uint64_t *scratch = xmalloc((2 * nb + 2 * GT_ARGS_MAX_COPIES) * sizeof(*scratch));

	k = blocks_per_step(p, lib_period, scratch, lib);
	memcpy(b, p->bounds, nb * sizeof(*b));
	memcpy(e, p->ends, nb * sizeof(*e));
	*q = (uint32_t)k;
	if (k > 1)
		nb = gt_every_kth(b, e, p->pattern_nb, nb, k);
	*n = nb >= 2 ? gt_merge_pauses(b, e, nb, q, scratch) : nb;
	free(e);
	free(scratch);
	if (*n < 3)
		return 0;
	v = xmalloc((*n - 1) * sizeof(*v));
	for (size_t i = 0; i + 1 < *n; i++)
		v[i] = b[i + 1] - b[i];
	med = gt_median_half(v, *n - 1);
	free(v);
	return med;
}

/* A thread's steps (median_step): boundaries, count, median. */
struct thread_steps {
	uint64_t *b, med, loop;
	size_t n;
	uint32_t q;
	int lib;
};

#define LOOP_SPREAD 4           /* steps this many medians long: a loop's */
#define LOOP_MAX_NS (UINT64_MAX / 4)    /* steps spanning longer (146 years),
					   or ending before they begin: a
					   broken clock's, no loop */

/*
 * The time p's steps looped: their span, at most LOOP_SPREAD medians a
 * step.  Where the steps came in bursts far apart (a compiler's threads
 * autotuning one kernel after another), their span says nothing of a
 * loop.  0: no loop.
 */
static uint64_t loop_time(const struct thread_steps *ts)
{
	uint64_t span = ts->n ? ts->b[ts->n - 1] - ts->b[0] : 0;
	double most = (double)LOOP_SPREAD * (double)ts->med * (double)(ts->n - 1);

	if (span > LOOP_MAX_NS)
		return 0;
	return (double)span > most ? (uint64_t)most : span;
}

/*
 * The thread whose steps are the outer loop: among those that made a
 * tenth of the calls or more, and whose steps looped half the time of
 * the longest-looping steps or more (loop_time; not a pattern that
 * stopped: autograd's thread once the step is a CUDA graph), the one with
 * the longest median step (the autograd thread repeats every backward
 * pass, the main thread every batch).
 */
int steps_period_pick(struct diagnosis *d, struct step_stats *s)
{
	struct thread_steps ts[PERIOD_THREADS] = { { 0 } };
	struct period_det *best = NULL;
	uint64_t most = 0, longest = 0;
	uint32_t q = 1, lib_period = steps_library_period(d);
	size_t k, at = 0;
	int lib = 0;

	for (size_t i = 0; i < d->ndet; i++) {
		check(&d->det[i], 1);       /* the last check */
		if (d->det[i].seen > most)
			most = d->det[i].seen;
	}
	for (size_t i = 0; i < d->ndet; i++) {
		struct period_det *p = &d->det[i];

		if (p->nb < 3 || 10 * p->seen < most)
			continue;
		ts[i].b = xmalloc(p->nb * sizeof(*ts[i].b));
		ts[i].med = median_step(p, lib_period, ts[i].b, &ts[i].n, &ts[i].q, &ts[i].lib);
		ts[i].loop = ts[i].med ? loop_time(&ts[i]) : 0;
		if (ts[i].loop > longest)
			longest = ts[i].loop;
	}
	for (size_t i = 0; i < d->ndet; i++)
		if (ts[i].med && ts[i].loop && 2 * ts[i].loop >= longest &&
		    (!best || ts[i].med > ts[at].med))
			best = &d->det[i], at = i;
	for (size_t i = 0; i < d->ndet; i++)
		if (!best || i != at)
			free(ts[i].b);
	if (!best)
		return 0;
	s->t = ts[at].b;
	s->nt = ts[at].n;
	q = ts[at].q;
	lib = ts[at].lib;
	k = steps_optimizer_merge(d, s);
	s->period = best->period * q * (uint32_t)k;
	s->capped = best->capped;
	s->source = STEPS_PATTERN;
	s->alike = s->period == 1;
	if (k > 1)
		s->name = xasprintf("optimizer steps: the optimizer's kernels once every "
				    "%zu steps of the launch pattern (%u GPU calls each on "
				    "thread %u), gradients accumulated over micro-batches: "
				    "a step is an optimizer step", k, best->period * q,
				    best->tid);
	else if (s->alike)
		s->name = xasprintf("launch pattern: one GPU call repeated on thread %u "
				    "(no other call, no cycle in its arguments): the "
				    "program's loop cannot be told from its calls, and a step "
				    "here is a call; an NVTX range or GPUTRACE_STEP marks "
				    "the loop", best->tid);
	else if (q > 1 && best->period > 1)
		s->name = xasprintf("launch pattern: %u GPU calls per step on thread %u "
				    "(%u repeats of %u calls, told apart by %s)",
				    s->period, best->tid, q, best->period,
				    lib ? "their arguments and the loop's turn the library "
					  "saw while the program ran" :
					  "their arguments or the loop's pauses");
	else
		s->name = xasprintf("launch pattern: %u GPU calls per step on thread %u",
				    s->period, best->tid);
	return 1;
}

void steps_period_release(struct diagnosis *d)
{
	for (size_t i = 0; i < d->ndet; i++) {
		free(d->det[i].tok);
		free(d->det[i].ah);
		free(d->det[i].sig);
		free(d->det[i].t);
		free(d->det[i].bounds);
		free(d->det[i].ends);
		free(d->det[i].opt_t);
	}
	d->ndet = 0;
	d->last_det = NULL;
}
