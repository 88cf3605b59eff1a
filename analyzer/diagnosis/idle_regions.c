/* SPDX-License-Identifier: MIT */
/*
 * idle_regions.c - which stretches of time the diagnosis looks at.  With
 * GPU records: inside the windows that had GPU timing, from the first to
 * the last thing a GPU ran (start-up before and teardown after are not
 * idle time).  Without, or with none inside a window: from the first to
 * the last CUDA call.  With steps,
 * the steady state runs from the first steady step to the end of the last
 * step; the warm-up (and start-up) is what comes before, shown apart.
 */
#include <stdlib.h>

#include "analyzer/diagnosis/diagnosis_internal.h"

/* out = cover x [a, b). */
static void intersect(const struct span_list *cover, uint64_t a, uint64_t b,
		      struct span_list *out)
{
	for (size_t i = span_find(cover, a); i < cover->n && cover->v[i].t0 < b; i++) {
		uint64_t lo = cover->v[i].t0 > a ? cover->v[i].t0 : a;
		uint64_t hi = cover->v[i].t1 < b ? cover->v[i].t1 : b;

		span_add(out, lo, hi, NULL);
	}
	span_normalize(out);
}

/*
 * What the GPU records cover: inside the windows, from the first to the
 * last thing a GPU ran.  A queue that runs behind the host can put all a
 * short window's records after it (a window that CUPTI's attach left a
 * few ms long): then nothing is covered, and the host's time is read as
 * if no window had been.
 */
static void coverage(struct diagnosis *d, struct span_list *c)
{
	if (d->gpu_records) {
		if (d->windows.n)
			intersect(&d->windows, d->first_gpu, d->last_gpu, c);
		else
			span_add(c, d->first_gpu, d->last_gpu, NULL);
		d->have_gpu = c->n > 0;
	}
	if (!d->have_gpu && d->last_t > d->first_t)
		span_add(c, d->first_t, d->last_t, NULL);
	span_normalize(c);
	if (d->cut_t) {                 /* past a cap: the timeline is partial */
		struct span_list cut = { 0 };

		intersect(c, 0, d->cut_t, &cut);
		span_release(c);
		*c = cut;
	}
	if (c->n) {
		d->region_lo = c->v[0].t0;
		d->region_hi = c->v[c->n - 1].t1;
	}
}

static void attribute(struct diagnosis *d, const struct span_list *region,
		      struct breakdown *b, struct host_breakdown *h, int sites)
{
	for (size_t i = 0; i < region->n; i++) {
		if (d->have_gpu)
			idle_attribute(d, region->v[i].t0, region->v[i].t1, b, sites);
		idle_host_attribute(d, region->v[i].t0, region->v[i].t1, sites, h);
	}
}

/* The steady steps that lie wholly in the region: how many, mean time. */
static void timed_steps(struct diagnosis *d)
{
	const struct step_stats *s = &d->steps;
	uint64_t sum = 0;

	for (size_t i = s->warmup; i + 1 < s->nt && !d->region_all; i++) {
		size_t k = span_find(&d->region, s->t[i]);

		if (k < d->region.n && d->region.v[k].t0 <= s->t[i] &&
		    d->region.v[k].t1 >= s->t[i + 1] && s->t[i + 1] > s->t[i]) {
			d->timed_steps++;
			sum += s->t[i + 1] - s->t[i];
		}
	}
	d->timed_step_ns = d->timed_steps ? sum / d->timed_steps : 0;
}

void idle_finish(struct model *m, struct diagnosis *d)
{
	struct span_list c = { 0 };
	const struct step_stats *s = &d->steps;

	coverage(d, &c);
	if (!c.n)
		goto done;
	if (s->nt >= 3) {
		intersect(&c, s->t[s->warmup], s->capped ? UINT64_MAX : s->t[s->nt - 1],
			  &d->region);
		intersect(&c, d->region_lo, s->t[s->warmup], &d->warm_region);
	}
	if (!d->region.n) {             /* no steps, or none with GPU timing */
		d->region_all = s->nt >= 3;
		span_release(&d->warm_region);
		intersect(&c, d->region_lo, d->region_hi, &d->region);
	}
	if (d->have_gpu)
		timed_steps(d);
	idle_readback_decide(m, d);
	attribute(d, &d->region, &d->steady, &d->host, 1);
	span_normalize(&d->outside);    /* the devices' walks, together */
	attribute(d, &d->warm_region, &d->warm, &d->host_warm, 0);
	for (size_t i = 0; i < d->region.n; i++)
		idle_gpu_region_stats(d, d->region.v[i].t0, d->region.v[i].t1);
done:
	span_release(&c);
}
