/* SPDX-License-Identifier: MIT */
/*
 * idle_samples_share.c - the share of host samples whose frames a test
 * picks, in an outside-CUDA cause or in a stretch of time
 * (idle_samples.h): what a class rule asks ("how much of the time the GPU
 * waited on the workers was in their transforms?").
 */
#include <string.h>

#include "analyzer/diagnosis/diagnosis_internal.h"
#include "analyzer/diagnosis/idle_samples.h"
#include "analyzer/passes/hostsample.h"
#include "analyzer/lib/util.h"

/* Which samples of a process a share takes. */
struct pick {
	const struct diagnosis *d;
	int cause;                  /* an enum idle_cause, or -1: by time */
	uint64_t t0, t1;
	unsigned how;
	idle_frame_test test;
	void *ctx;
};

int idle_frame_named(const struct callsite_frame *f, void *ctx)
{
	const char *want = ctx;

	return want && f->func && strstr(f->func, want) != NULL;
}

static int matches(const struct pick *p, const struct model *m,
		   const struct hs_sample *s)
{
	const struct callsite_frame *f;
	size_t n;

	if (!p->test)
		return 1;
	n = idle_sample_frames(m, s, &f);
	if (n && (p->how & IDLE_SELF))
		n = 1;
	for (size_t i = 0; i < n; i++)
		if (p->test(&f[i], p->ctx))
			return 1;
	return 0;
}

static void add_process(const struct pick *p, const struct model *m,
			int worker, struct idle_share *out)
{
	const struct hostsamples *hs = hostsamples_of(m);
	size_t hint = 0;

	for (size_t i = 0; hs && i < hs->n; i++) {
		const struct hs_sample *s = &hs->v[i];

		if (p->cause < 0 ? s->t < p->t0 || s->t >= p->t1
				 : idle_sample_cause(p->d, s, worker, &hint) != p->cause)
			continue;
		out->samples++;
		out->ns = sat_add(out->ns, s->weight);
		if (!matches(p, m, s))
			continue;
		out->matched++;
		out->matched_ns = sat_add(out->matched_ns, s->weight);
	}
}

static int share(const struct model *m, const struct pick *p,
		 struct idle_share *out)
{
	memset(out, 0, sizeof(*out));
	if (p->how & IDLE_MAIN)
		add_process(p, m, 0, out);
	for (size_t i = 0; (p->how & IDLE_WORKERS) && i < m->nworkers; i++)
		add_process(p, m->workers[i], 1, out);
	if (!out->samples)
		return -1;
	out->share = out->ns ? (double)out->matched_ns / (double)out->ns : 0;
	return 0;
}

/* The idle cause named key, or -1. */
static int cause_by_name(const char *key)
{
	for (int c = 0; c < IC_CAUSES && key; c++)
		if (!strcmp(idle_cause_name((enum idle_cause)c), key))
			return c;
	return -1;
}

int idle_samples_share(const struct model *m, const char *key, unsigned how,
		       idle_frame_test test, void *ctx, struct idle_share *out)
{
	struct pick p = { .d = m->diag, .cause = cause_by_name(key), .how = how,
			  .test = test, .ctx = ctx };

	memset(out, 0, sizeof(*out));
	if (!p.d || p.cause < 0)
		return -1;
	return share(m, &p, out);
}

int idle_samples_share_between(const struct model *m, uint64_t t0, uint64_t t1,
			       unsigned how, idle_frame_test test, void *ctx,
			       struct idle_share *out)
{
	struct pick p = { .d = m->diag, .cause = -1, .t0 = t0, .t1 = t1,
			  .how = how, .test = test, .ctx = ctx };

	return share(m, &p, out);
}
