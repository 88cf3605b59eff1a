/* SPDX-License-Identifier: MIT */
/*
 * idle_samples_profile.c - what each thread of the process, and its
 * DataLoader workers together, ran over the steady steps (idle_samples.h):
 * the running samples in the window, by function.  Unlike the causes,
 * these shares are of a thread's own sampled time, the quantity a
 * program measures with its thread's CPU clock.
 */
#include <stdlib.h>
#include <string.h>

#include "analyzer/diagnosis/idle_samples_internal.h"
#include "analyzer/lib/util.h"

/* A thread while its samples are added up. */
struct thread_acc {
	struct idle_profile p;
	struct idle_acc acc;
};

/* The steady steps' window, else all of the run. */
static void window(struct idle_samples *is, const struct diagnosis *d)
{
	const struct step_stats *s = &d->steps;

	is->prof_t0 = 0;
	is->prof_t1 = UINT64_MAX;
	is->prof_steps = s->nt >= 3 && s->warmup + 1 < s->nt;
	if (!is->prof_steps)
		return;
	is->prof_t0 = s->t[s->warmup];
	is->prof_t1 = s->capped ? UINT64_MAX : s->t[s->nt - 1];
}

static int in_window(const struct idle_samples *is, const struct hs_sample *s)
{
	return s->state != GT_HOST_WAITING && s->t >= is->prof_t0 &&
	       s->t < is->prof_t1;
}

static void count(struct idle_profile *p, const struct hs_sample *s)
{
	p->samples++;
	p->ns = sat_add(p->ns, s->weight);
}

static struct thread_acc *thread_of(struct hmap *h, uint32_t tid)
{
	struct thread_acc *t = hmap_get_int(h, tid);

	if (!t) {
		t = xcalloc(1, sizeof(*t));
		t->p.tid = tid;
		hmap_put_int(h, tid, t);
	}
	return t;
}

static int by_time(const void *a, const void *b)
{
	const struct idle_profile *x = a, *y = b;

	if (x->ns != y->ns)
		return x->ns > y->ns ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static void threads(struct idle_samples *is, const struct model *m)
{
	const struct hostsamples *hs = hostsamples_of(m);
	struct hmap h;
	struct thread_acc *t;
	size_t pos = 0;

	hmap_init(&h);
	for (size_t i = 0; hs && i < hs->n; i++) {
		if (!in_window(is, &hs->v[i]))
			continue;
		t = thread_of(&h, hs->v[i].tid);
		count(&t->p, &hs->v[i]);
		idle_acc_add(&t->acc, m, &hs->v[i]);
	}
	is->threads = xcalloc(h.len ? h.len : 1, sizeof(*is->threads));
	while ((t = hmap_next(&h, &pos))) {
		idle_acc_take(&t->acc, &t->p.fn, &t->p.nfn);
		is->threads[is->nthreads++] = t->p;
	}
	hmap_release_values(&h, NULL);
	if (is->nthreads)
		qsort(is->threads, is->nthreads, sizeof(*is->threads), by_time);
}

static void workers(struct idle_samples *is, const struct model *m)
{
	struct idle_profile *p = &is->wprof;
	struct idle_acc acc;

	memset(&acc, 0, sizeof(acc));
	for (size_t w = 0; w < m->nworkers; w++) {
		const struct hostsamples *hs = hostsamples_of(m->workers[w]);
		uint64_t before = p->samples;

		for (size_t i = 0; hs && i < hs->n; i++) {
			if (!in_window(is, &hs->v[i]))
				continue;
			count(p, &hs->v[i]);
			idle_acc_add(&acc, m->workers[w], &hs->v[i]);
		}
		p->processes += p->samples > before;
	}
	idle_acc_take(&acc, &p->fn, &p->nfn);
}

void idle_profiles_build(struct idle_samples *is, const struct model *m,
			 const struct diagnosis *d)
{
	window(is, d);
	threads(is, m);
	workers(is, m);
}

void idle_profiles_release(struct idle_samples *is)
{
	for (size_t i = 0; i < is->nthreads; i++)
		idle_fns_free(is->threads[i].fn, is->threads[i].nfn);
	free(is->threads);
	idle_fns_free(is->wprof.fn, is->wprof.nfn);
	is->threads = NULL;
	is->nthreads = 0;
	memset(&is->wprof, 0, sizeof(is->wprof));
}
