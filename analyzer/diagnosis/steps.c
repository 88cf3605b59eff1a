/* SPDX-License-Identifier: MIT */
/*
 * steps.c - the training steps and their times.  The steps the library
 * found from the marker the user named (GPUTRACE_STEP=nvtx:NAME or
 * kernel:TEXT) when it wrote them, else NVTX ranges when the program marks
 * its steps (steps_nvtx.c), else the period of the launch sequence
 * (steps_period.c).  Step i runs from its start to the next
 * step's start, so time between marked ranges (loading the next batch)
 * belongs to a step.  The first steps that are much slower than the
 * median (compilation, autotuning, allocator warm-up) are the warm-up,
 * shown apart; the rest is the steady state: mean, p50, p99, and the
 * steps beyond 3 standard deviations.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/passes/cost_internal.h"
#include "analyzer/diagnosis/diagnosis_internal.h"
#include "analyzer/diagnosis/replay_internal.h"
#include "analyzer/model/model.h"
#include "analyzer/lib/util.h"
#include "gputrace/format.h"

#define WARMUP_FACTOR 1.5       /* a first step this much slower: warm-up */

/* The q-quantile of sorted v[0..n) (nearest rank). */
static uint64_t quantile(const uint64_t *v, size_t n, double q)
{
	size_t i = (size_t)ceil(q * (double)n);

	return n ? v[i ? i - 1 : 0] : 0;
}

static uint64_t dur(const struct step_stats *s, size_t i)
{
	return s->t[i + 1] > s->t[i] ? s->t[i + 1] - s->t[i] : 0;
}

static size_t find_warmup(const struct step_stats *s, size_t n)
{
	uint64_t *v = xmalloc(n * sizeof(*v)), med;
	size_t w = 0;

	for (size_t i = 0; i < n; i++)
		v[i] = dur(s, i);
	sort_u64(v, n);
	med = quantile(v, n, 0.5);
	free(v);
	while (w < n / 2 && (double)dur(s, w) > WARMUP_FACTOR * (double)med)
		w++;
	return w;
}

static void outliers(struct step_stats *s, size_t n)
{
	double dev[ARRAY_SIZE(s->outlier_idx)] = { 0 };

	for (size_t i = s->warmup; i < n; i++) {
		double x = fabs((double)dur(s, i) - (double)s->mean);
		size_t k;

		if (!s->stddev || x <= 3.0 * (double)s->stddev)
			continue;
		s->outliers++;
		for (k = ARRAY_SIZE(dev); k > 0 && x > dev[k - 1]; k--)
			;
		if (k == ARRAY_SIZE(dev))
			continue;
		memmove(&dev[k + 1], &dev[k], (ARRAY_SIZE(dev) - k - 1) * sizeof(*dev));
		memmove(&s->outlier_idx[k + 1], &s->outlier_idx[k],
			(ARRAY_SIZE(dev) - k - 1) * sizeof(*s->outlier_idx));
		dev[k] = x;
		s->outlier_idx[k] = i;
	}
}

static void stats(struct step_stats *s)
{
	size_t n = s->nt - 1, m;
	uint64_t *v;
	double sum = 0, sq = 0;

	s->warmup = find_warmup(s, n);
	m = n - s->warmup;
	v = xmalloc(m * sizeof(*v));
	for (size_t i = 0; i < m; i++) {
		v[i] = dur(s, s->warmup + i);
		sum += (double)v[i];
	}
	s->mean = sat_from_double(sum / (double)m);
	for (size_t i = 0; i < m; i++)
		sq += ((double)v[i] - (double)s->mean) * ((double)v[i] - (double)s->mean);
	s->stddev = sat_from_double(sqrt(sq / (double)m));
	sort_u64(v, m);
	s->p50 = quantile(v, m, 0.50);
	s->p99 = quantile(v, m, 0.99);
	s->min = v[0];
	s->max = v[m - 1];
	free(v);
	sum = 0;
	for (size_t i = 0; i < s->warmup; i++)
		sum += (double)dur(s, i);
	s->warm_mean = s->warmup ? sat_from_double(sum / (double)s->warmup) : 0;
	outliers(s, n);
}

/*
 * The steps the library marked where GPUTRACE_STEP told it to: the user's
 * word wins over any guess.  The longest run of boundaries with no gap in
 * their numbers.
 */
static int marker_pick(const struct model *m, struct step_stats *s)
{
	const struct cost_stats *c = m->cost;
	size_t run = 0, len = 0, at = 0;

	if (!c || (c->source != GT_STEPS_NVTX && c->source != GT_STEPS_KERNEL))
		return 0;
	for (size_t i = 0; i < c->nb; i++) {
		run = i && c->cont[i] ? run + 1 : 1;
		if (run > len)
			len = run, at = i + 1 - run;
	}
	if (len < 3)
		return 0;
	s->capped = c->capped || len > DIAG_MAX_STEPS;
	len = len > DIAG_MAX_STEPS ? DIAG_MAX_STEPS : len;
	s->t = xmalloc(len * sizeof(*s->t));
	memcpy(s->t, c->b + at, len * sizeof(*s->t));
	s->nt = len;
	s->source = c->source == GT_STEPS_NVTX ? STEPS_NVTX : STEPS_PATTERN;
	s->name = xstrdup(c->source == GT_STEPS_NVTX ?
			  "NVTX range GPUTRACE_STEP names" :
			  "kernel GPUTRACE_STEP names");
	return 1;
}

/* A chunk of the library's steps (GT_CHUNK_STEPS): its steps and their
 * time, by the GPU calls each holds (d->lib). */
void steps_library_chunk(struct diagnosis *d, const struct dump_record *rec)
{
	const struct gt_steps_header *h = &rec->steps.h;
	struct lib_steps *l = &d->lib;
	int cont = l->bounds && h->seq == l->next_seq;
	const uint8_t *pos = NULL;
	uint64_t first, t = 0;
	size_t k = 0;

	if (!h->count)
		return;
	for (uint32_t i = 0; i < h->count; i++)
		t = dump_steps_next(rec, &pos, t);
	first = cont && l->last < h->first_ns ? l->last : h->first_ns;
	l->source = !l->bounds || l->source == h->source ? h->source : 0;
	while (k + 1 < LIB_PERIODS && l->period[k] != h->period && l->steps[k])
		k++;
	if (l->period[k] != h->period && l->steps[k])
		l->period[k] = 0;       /* the last counts every other period */
	else
		l->period[k] = h->period;
	l->steps[k] += h->count - 1 + (uint64_t)cont;
	l->ns[k] += t > first ? t - first : 0;
	l->bounds += h->count;
	l->last = t;
	l->next_seq = h->seq + h->count;
}

#define LIB_DIFFER 0.10         /* step counts further apart: a note */

/*
 * The steps the library found while the program ran (where it placed the
 * GPU windows), counted as these are: those of the pattern that lasted
 * longest (the first patterns of a run are its warm-up), and when it
 * counted steps shorter than 1 ms in groups (their calls a multiple of
 * these steps'), each group as the steps it holds.
 */
static uint64_t library_count(const struct lib_steps *l, uint32_t period)
{
	size_t k = 0;
	uint32_t p;

	for (size_t i = 1; i < LIB_PERIODS; i++)
		if (l->ns[i] > l->ns[k])
			k = i;
	p = l->period[k];
	return l->steps[k] * (period && p >= 2 * period && p % period == 0 ? p / period : 1);
}

/* The GPU calls a step of the library's longest-lasting launch pattern
 * held, or 0 (none, or of several periods). */
uint32_t steps_library_period(const struct diagnosis *d)
{
	const struct lib_steps *l = &d->lib;
	size_t k = 0;

	if (l->source != GT_STEPS_PATTERN || !l->bounds)
		return 0;
	for (size_t i = 1; i < LIB_PERIODS; i++)
		if (l->ns[i] > l->ns[k])
			k = i;
	return l->period[k];
}

/* When the library's steps of the launch pattern and these differ by
 * more than LIB_DIFFER, a note says so: its windows covered other steps. */
static void compare_library(struct model *m, const struct diagnosis *d)
{
	const struct step_stats *s = &d->steps;
	uint64_t lib, ours = s->nt - 1;
	char text[320];

	if (d->lib.source != GT_STEPS_PATTERN || s->capped || !d->lib.bounds)
		return;
	lib = library_count(&d->lib, s->source == STEPS_PATTERN ? s->period : 0);
	if ((double)(lib > ours ? lib - ours : ours - lib) <= LIB_DIFFER * (double)ours)
		return;
	snprintf(text, sizeof(text), "steps: the library found %llu steps while the "
		 "program ran, this analysis %llu (%+.0f%%): its GPU windows were "
		 "placed on other steps than these", (unsigned long long)lib,
		 (unsigned long long)ours, 100.0 * ((double)lib - (double)ours) / (double)ours);
	model_add_note(m, 0, text);
}

void steps_finish(struct model *m, struct diagnosis *d)
{
	struct step_stats *s = &d->steps, pattern = { 0 };
	int have = steps_period_pick(d, &pattern);

	if (marker_pick(m, s) ||
	    steps_nvtx_pick(d, s, have && pattern.nt > 1 ? pattern.nt - 1 : 0))
		steps_release(&pattern);
	else if (have)
		*s = pattern;
	else
		return;
	if (s->nt < 3) {                /* fewer than two steps: no statistics */
		steps_release(s);
		return;
	}
	stats(s);
	s->step = s->mean;
	compare_library(m, d);
}

#define PACE_OVER 1.10          /* the GPU's pace this much slower: its */

/*
 * The end of the first wait for all queued work (HF_DRAIN) that begins
 * after the last step began, with at most a step's calls before it (the
 * last step's, not more work's), or 0: the program's own end of its steps.
 */
static uint64_t drain_after(const struct diagnosis *d, uint64_t t, uint32_t period)
{
	const struct host_span *end = NULL;
	uint64_t calls = 0;

	for (size_t i = 0; i < d->nspans; i++) {
		const struct host_span *h = &d->spans[i];

		if (h->t0 < t)
			continue;
		if (h->cat == HC_WAIT && (h->flags & HF_DRAIN) && (!end || h->t0 < end->t0))
			end = h;
	}
	for (size_t i = 0; end && i < d->nspans; i++)
		if (d->spans[i].t0 >= t && d->spans[i].t0 < end->t0)
			calls += d->spans[i].calls;
	return end && (!period || calls <= 2ull * period) ? end->t1 : 0;
}

/*
 * The program's step is the pace of the slower side.  A loop that never
 * waits for the GPU runs ahead until the launch queue is full, and its
 * calls then take what the GPU takes; before that, and when the steps end
 * with one wait for all the work they queued, the host's steps are short
 * and say nothing of the program's pace.  Two measures of it: the time
 * from the first steady step to the end of that wait (the program's own,
 * over all its steps), and the replay's span, where GPU records time
 * every operation (its steps with the GPU work they queued).  When either
 * is longer than the host's steps (PACE_OVER), the GPU set the pace, and
 * the step is the first measure, else the second (CUPTI in the span
 * slows launches, not the GPU's work).
 */
void steps_pace(struct diagnosis *d)
{
	const struct rp_summary *r = d->replay;
	struct step_stats *s = &d->steps;
	uint64_t end, drained = 0;
	size_t n;
	int ahead = 0;

	if (!s->nt)
		return;
	if (r && r->ran && r->gpu && r->steps && r->measured) {
		s->gpu_pace = r->measured / r->steps;
		s->gpu_steps = r->steps;
		ahead = (double)r->measured > PACE_OVER * (double)r->host_span &&
			s->gpu_pace > s->mean;
	}
	end = drain_after(d, s->t[s->nt - 1], s->period);
	n = s->nt - s->warmup;  /* the last step ends when the wait does */
	if (end && n)
		drained = (end - s->t[s->warmup]) / n;
	ahead |= (double)drained > PACE_OVER * (double)s->mean;
	if (!ahead)
		return;
	s->gpu_paced = 1;
	s->drained = drained > s->mean;
	s->step = s->drained ? drained : s->gpu_pace;
}

void steps_release(struct step_stats *s)
{
	free(s->t);
	free(s->name);
	memset(s, 0, sizeof(*s));
}
