/* SPDX-License-Identifier: MIT */
/*
 * steps_optimizer.c - the optimizer's step, the marker of a training
 * iteration.  A loop that accumulates gradients over micro-batches runs
 * forward and backward once per micro-batch and the optimizer once per
 * iteration: its launch pattern repeats every micro-batch, but the
 * program's step is the iteration.  The optimizer's kernels (foreach,
 * multi-tensor, Adam, SGD...: diag_optimizer_kernel) are known by their
 * function's name as its record comes (steps_function).  Each thread's
 * detector looks for their calls among those it kept since it last
 * looked (steps_optimizer_scan, at each of its checks), and keeps the
 * time of the first call of each optimizer step: calls of the optimizer
 * fewer than OPT_GAP calls apart are one step.  When the steps of the
 * launch pattern mostly hold no optimizer step, one coming every k >= 2
 * of them (steps_optimizer_merge), a step is k of them: from the first
 * boundary after an optimizer step to the first after the next.
 */
#include <stdlib.h>
#include <string.h>

#include "analyzer/diagnosis/diagnosis_internal.h"
#include "analyzer/lib/util.h"
#include "gputrace/period.h"

#define OPT_GAP 256             /* calls between two optimizer steps, at least */
#define OPT_MIN_STEPS 3         /* optimizer steps to go by, at least */
#define OPT_PRESENT ((void *)1)

void steps_function(struct diagnosis *d, const struct dump_reader *r,
		    const struct gt_function *f)
{
	const char *name = f->name_str ? dump_string(r, f->name_str) : NULL;
	uint32_t tok = f->id & 0x3fffffffu;     /* its launches' token */

	if (diag_optimizer_kernel(name))
		hmap_put_int(&d->opt_fns, tok, OPT_PRESENT);
	else if (hmap_get_int(&d->opt_fns, tok))
		hmap_put_int(&d->opt_fns, tok, NULL);  /* defined again */
}

static void add_opt_step(struct period_det *p, uint64_t t)
{
	if (p->nopt == p->capopt) {
		p->capopt = p->capopt ? 2 * p->capopt : 64;
		p->opt_t = xrealloc(p->opt_t, p->capopt * sizeof(*p->opt_t));
	}
	p->opt_t[p->nopt++] = t;
}

void steps_optimizer_scan(struct period_det *p)
{
	uint64_t c = p->seen > PERIOD_WINDOW && p->opt_scanned < p->seen - PERIOD_WINDOW ?
		     p->seen - PERIOD_WINDOW : p->opt_scanned;

	if (!p->opt || !p->opt->len)
		c = p->seen;
	for (; c < p->seen; c++) {
		size_t at = (size_t)(c % PERIOD_WINDOW);

		if (!hmap_get_int(p->opt, p->tok[at]))
			continue;
		if (!p->opt_last || c + 1 - p->opt_last > OPT_GAP)
			add_opt_step(p, p->t[at]);
		p->opt_last = c + 1;
	}
	p->opt_scanned = p->seen;
}

/* The thread whose calls hold the most optimizer steps, or NULL. */
static const struct period_det *optimizer_thread(const struct diagnosis *d)
{
	const struct period_det *best = NULL;

	for (size_t i = 0; i < d->ndet; i++)
		if (d->det[i].nopt && (!best || d->det[i].nopt > best->nopt))
			best = &d->det[i];
	return best;
}

/* The median count of boundaries t[0..n) between one optimizer step
 * o[j] and the next. */
static size_t steps_per_opt(const uint64_t *t, size_t n, const uint64_t *o,
			    size_t no)
{
	uint64_t *v = xmalloc((no - 1) * sizeof(*v)), med;

	for (size_t j = 0; j + 1 < no; j++)
		v[j] = gt_lower_bound(t, n, o[j + 1]) - gt_lower_bound(t, n, o[j]);
	med = gt_median_half(v, no - 1);
	free(v);
	return (size_t)med;
}

size_t steps_optimizer_merge(const struct diagnosis *d, struct step_stats *s)
{
	const struct period_det *p = optimizer_thread(d);
	size_t k, out = 0;
	uint64_t *t;

	if (!p || p->nopt < OPT_MIN_STEPS || s->nt < OPT_MIN_STEPS ||
	    (k = steps_per_opt(s->t, s->nt, p->opt_t, p->nopt)) < 2)
		return 1;
	t = xmalloc(p->nopt * sizeof(*t));
	for (size_t j = 0; j < p->nopt; j++) {
		size_t i = gt_lower_bound(s->t, s->nt, p->opt_t[j]);

		if (i < s->nt && (!out || s->t[i] > t[out - 1]))
			t[out++] = s->t[i];
	}
	if (out < OPT_MIN_STEPS) {
		free(t);
		return 1;
	}
	free(s->t);
	s->t = t;
	s->nt = out;
	return k;
}
