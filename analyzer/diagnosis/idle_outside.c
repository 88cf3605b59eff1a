/* SPDX-License-Identifier: MIT */
/*
 * idle_outside.c - what the host did when it was outside CUDA, from the
 * CPU samples (GT_CHUNK_SAMPLE, host scope): in each interval between two
 * samples, the CPU time this process spent outside CUDA calls (its CPU
 * time less the time its threads spent inside CUDA calls, which spin)
 * over the time the host was outside CUDA gives the share that was
 * CPU-bound work in this process; the rest was waiting on the DataLoader's
 * worker processes when they were busy, on I/O when the machine was in
 * iowait, or on something else.
 */
#include <stdlib.h>
#include <string.h>

#include "analyzer/diagnosis/diagnosis_internal.h"
#include "analyzer/passes/env.h"
#include "analyzer/lib/util.h"

#define BUSY_CORES 0.25         /* children or iowait this busy count */

static void take_item(struct host_sample *s, const struct env_item *it)
{
	uint64_t v = it->value > 0 ? (uint64_t)it->value : 0;

	if (it->status != GT_INFO_OK)
		return;
	switch (it->key) {
	case GT_SAMPLE_CPU_USER:
	case GT_SAMPLE_CPU_SYS:
		s->proc += v;
		s->have_proc++;
		break;
	case GT_SAMPLE_CHILD_USER:
	case GT_SAMPLE_CHILD_SYS:
		s->child += v;
		s->have_child++;
		break;
	case GT_SAMPLE_CHILDREN:
		s->children = (uint32_t)v;
		break;
	case GT_SAMPLE_HOST_TOTAL:
		s->total = v;
		break;
	case GT_SAMPLE_HOST_IOWAIT:
		s->iowait = v;
		s->have_io = 1;
		break;
	}
}

void idle_sample(struct diagnosis *d, const struct dump_record *rec)
{
	const void *pos = rec->info.items;
	const void *end = (const uint8_t *)pos + rec->info.size;
	struct host_sample s = { .t = rec->info.h.time_ns };
	struct env_item it;

	if (rec->info.h.scope != GT_SCOPE_HOST || d->nsamples == DIAG_MAX_SAMPLES)
		return;
	while (env_item_next(&pos, end, &it))
		take_item(&s, &it);
	if (s.have_proc < 2)
		return;
	if (d->nsamples && s.t <= d->samples[d->nsamples - 1].t)
		return;                 /* out of order: not a counter we trust */
	if (d->nsamples == d->capsamples) {
		d->capsamples = d->capsamples ? d->capsamples * 2 : 256;
		d->samples = xrealloc(d->samples, d->capsamples * sizeof(*d->samples));
	}
	d->samples[d->nsamples++] = s;
}

/* The interval [samples[k], samples[k+1]) holding t, clamped. */
static size_t interval_of(const struct diagnosis *d, uint64_t t)
{
	size_t lo = 0, hi = d->nsamples;

	while (lo < hi) {               /* first sample after t */
		size_t mid = lo + (hi - lo) / 2;

		if (d->samples[mid].t <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return 0;
	return lo - 1 < d->nsamples - 2 ? lo - 1 : d->nsamples - 2;
}

/* Spread [t0, t1) over the sample intervals into acc[]. */
static void spread(const struct diagnosis *d, double *acc, uint64_t t0,
		   uint64_t t1, double amount)
{
	size_t k = interval_of(d, t0);
	double len = (double)(t1 - t0);

	if (t1 <= t0)
		return;
	for (; k + 1 < d->nsamples && t0 < t1; k++) {
		uint64_t e = d->samples[k + 1].t;
		uint64_t hi = k + 2 == d->nsamples || e > t1 ? t1 : e;

		if (hi > t0)
			acc[k] += amount * (double)(hi - t0) / len;
		t0 = hi > t0 ? hi : t0;
	}
}

static void split_one(const struct host_sample *a, const struct host_sample *b,
		      double in_cuda, double outside, struct outside_split *o)
{
	double dt = (double)(b->t - a->t);
	double proc = (double)(b->proc - a->proc) / dt;
	double child = b->have_child ? (double)(b->child - a->child) / dt : 0;
	double io = b->have_io && b->iowait >= a->iowait ?
		    (double)(b->iowait - a->iowait) / dt : 0;
	double out = outside / dt, cpu = proc - in_cuda / dt, rest;

	if (b->proc < a->proc)
		proc = cpu = 0;
	cpu = cpu < 0 ? 0 : out > 0.02 ? cpu / out : cpu;
	o->cpu = cpu > 1 ? 1 : cpu;
	rest = 1 - o->cpu;
	o->loader = child >= BUSY_CORES ? rest : 0;
	o->io = !o->loader && io >= BUSY_CORES ? rest : 0;
}

void idle_outside_prepare(struct diagnosis *d)
{
	double *cuda, *out;
	size_t n = d->nsamples;

	if (n < 2)
		return;
	cuda = xcalloc(n, sizeof(*cuda));
	out = xcalloc(n, sizeof(*out));
	for (size_t i = 0; i < d->nspans; i++)
		spread(d, cuda, d->spans[i].t0, d->spans[i].t1,
		       d->spans[i].cuda_ns);
	for (size_t i = 0; i < d->nsegs; i++)
		if (d->segs[i].state == HC_OUTSIDE)
			spread(d, out, d->segs[i].t0, d->segs[i].t1,
			       (double)(d->segs[i].t1 - d->segs[i].t0));
	/* time before the first and after the last host event is outside */
	d->splits = xcalloc(n, sizeof(*d->splits));
	for (size_t k = 0; k + 1 < n; k++) {
		uint64_t a = d->samples[k].t, b = d->samples[k + 1].t;
		double extra = 0;

		if (d->nsegs && a < d->segs[0].t0)
			extra += (double)((d->segs[0].t0 < b ? d->segs[0].t0 : b) - a);
		if (d->nsegs && b > d->segs[d->nsegs - 1].t1)
			extra += (double)(b - (d->segs[d->nsegs - 1].t1 > a ?
					       d->segs[d->nsegs - 1].t1 : a));
		if (!d->nsegs)
			extra = (double)(b - a);
		split_one(&d->samples[k], &d->samples[k + 1], cuda[k],
			  out[k] + extra, &d->splits[k]);
	}
	free(cuda);
	free(out);
}

const struct outside_split *idle_outside_at(const struct diagnosis *d,
					    uint64_t t)
{
	if (!d->splits || d->nsamples < 2)
		return NULL;
	return &d->splits[interval_of(d, t)];
}
