/* SPDX-License-Identifier: MIT */
/*
 * idle_samples.c - the host stack samples that fell in the steady state's
 * idle time outside CUDA, by cause, and the functions they name
 * (idle_samples.h says which sample counts where).  The process's samples
 * and each worker's come in time order; the moments outside CUDA
 * (d->outside) are searched with a cursor per process.
 */
#include <stdlib.h>
#include <string.h>

#include "analyzer/diagnosis/idle_samples_internal.h"
#include "analyzer/lib/util.h"

static const int causes[IDLE_SAMPLE_CAUSES] = {
	IC_CPU, IC_LOADER, IC_IO, IC_OUTSIDE,
};

/* A function while the samples are added up. */
struct fn_acc {
	char *key;
	const struct callsite_frame *f;     /* one of its frames: its name */
	int python;
	uint64_t self_ns, total_ns, self_n, total_n;
	uint64_t seen;                      /* the last sample counted in */
	struct hmap lines;                  /* Python: line -> samples */
};

int idle_sample_cause(const struct diagnosis *d, const struct hs_sample *s,
		      int worker, size_t *hint)
{
	const struct outside_split *o;
	uint64_t until;

	if (!span_at(&d->outside, hint, s->t, &until))
		return -1;
	o = idle_outside_at(d, s->t);
	if (worker)
		return o && o->loader > 0 ? IC_LOADER : -1;
	if (!o)
		return IC_OUTSIDE;
	if (s->state != GT_HOST_WAITING)
		return IC_CPU;
	return o->loader > 0 ? IC_LOADER : o->io > 0 ? IC_IO : IC_OUTSIDE;
}

size_t idle_sample_frames(const struct model *m, const struct hs_sample *s,
			  const struct callsite_frame **f)
{
	size_t n, py;
	const struct callsite_frame *all = callsites_frames(m, s->stack, 1, &n, &py);

	*f = all;
	if (!all)
		return 0;
	if (py)
		return py;
	return n;
}

static int cause_index(int cause)
{
	for (int i = 0; i < IDLE_SAMPLE_CAUSES; i++)
		if (causes[i] == cause)
			return i;
	return -1;
}

/* The entry of frame f's function (or of a sample without frames: why). */
static struct fn_acc *fn_of(struct idle_acc *a, const struct callsite_frame *f,
			    const char *why)
{
	char *key = f ? f->python ? xasprintf("p\037%s\037%s", f->func, f->file)
				  : xasprintf("n\037%s", f->text)
		      : xasprintf("x\037%s", why);
	struct fn_acc *e = hmap_get_str(&a->fns, key);

	if (e) {
		free(key);
		return e;
	}
	e = xcalloc(1, sizeof(*e));
	e->key = key;
	e->f = f;
	e->python = f && f->python;
	hmap_init(&e->lines);
	hmap_put_str(&a->fns, key, e);
	return e;
}

/* How many samples of a Python function ran one of its lines. */
struct line_count {
	uint32_t line;
	uint64_t n;
};

static void count_line(struct fn_acc *e, uint32_t line)
{
	struct line_count *c = hmap_get_int(&e->lines, line);

	if (!c) {
		c = xcalloc(1, sizeof(*c));
		c->line = line;
		hmap_put_int(&e->lines, line, c);
	}
	c->n++;
}

void idle_acc_add(struct idle_acc *a, const struct model *m,
		  const struct hs_sample *s)
{
	const struct callsite_frame *f;
	size_t n = idle_sample_frames(m, s, &f);
	char why[64];
	struct fn_acc *e;

	a->serial++;
	if (!n)
		snprintf(why, sizeof(why), s->stack ? "<stack %u is not in the dump>"
			 : "<no stack>", s->stack);
	for (size_t i = 0; i < (n ? n : 1); i++) {
		e = fn_of(a, n ? &f[i] : NULL, why);
		if (!i) {
			e->self_ns = sat_add(e->self_ns, s->weight);
			e->self_n++;
		}
		if (e->python)
			count_line(e, f[i].line);
		if (e->seen == a->serial)
			continue;           /* recursion: once a sample */
		e->seen = a->serial;
		e->total_ns = sat_add(e->total_ns, s->weight);
		e->total_n++;
	}
}

/* "qualname (file:line)", the line most of its samples ran. */
static char *fn_name(struct fn_acc *e, const char *why)
{
	const struct line_count *c, *best = NULL;
	size_t pos = 0;

	if (!e->f)
		return xstrdup(why);
	if (!e->python)
		return xstrdup(e->f->text);
	while ((c = hmap_next(&e->lines, &pos)))
		if (!best || c->n > best->n || (c->n == best->n && c->line < best->line))
			best = c;
	return xasprintf("%s (%s:%u)", e->f->func, e->f->file, best ? best->line : 0);
}

static int by_self(const void *a, const void *b)
{
	const struct idle_fn *x = a, *y = b;

	if (x->self_ns != y->self_ns)
		return x->self_ns > y->self_ns ? -1 : 1;
	if (x->total_ns != y->total_ns)
		return x->total_ns > y->total_ns ? -1 : 1;
	return strcmp(x->name, y->name);
}

void idle_acc_take(struct idle_acc *a, struct idle_fn **fn, size_t *nfn)
{
	struct fn_acc *e;
	size_t pos = 0;

	*nfn = 0;
	*fn = xcalloc(a->fns.len ? a->fns.len : 1, sizeof(**fn));
	while ((e = hmap_next(&a->fns, &pos))) {
		(*fn)[(*nfn)++] = (struct idle_fn){
			.name = fn_name(e, e->key + 2), .self_ns = e->self_ns,
			.total_ns = e->total_ns, .self_n = e->self_n,
			.total_n = e->total_n };
		hmap_release_values(&e->lines, NULL);
		free(e->key);
		free(e);
	}
	hmap_release(&a->fns);
	if (*nfn)
		qsort(*fn, *nfn, sizeof(**fn), by_self);
}

void idle_fns_free(struct idle_fn *fn, size_t nfn)
{
	for (size_t i = 0; i < nfn; i++)
		free(fn[i].name);
	free(fn);
}

/* The samples of model p (the process, or a worker) into their causes. */
static void add_process(struct idle_samples *is, struct idle_acc *acc,
			const struct diagnosis *d, const struct model *p,
			int worker)
{
	const struct hostsamples *hs = hostsamples_of(p);
	size_t hint = 0;

	for (size_t i = 0; hs && i < hs->n; i++) {
		const struct hs_sample *s = &hs->v[i];
		int k = cause_index(idle_sample_cause(d, s, worker, &hint));
		struct idle_cause_samples *c;

		if (k < 0)
			continue;
		c = &is->c[k];
		c->samples++;
		c->ns = sat_add(c->ns, s->weight);
		c->waiting += s->state == GT_HOST_WAITING;
		if (worker) {
			c->worker_samples++;
			c->worker_ns = sat_add(c->worker_ns, s->weight);
		}
		idle_acc_add(&acc[k], p, s);
	}
}

static void cause_times(struct idle_samples *is, const struct diagnosis *d)
{
	is->gpu = d->have_gpu && d->steady.span_ns;
	for (int k = 0; k < IDLE_SAMPLE_CAUSES; k++) {
		is->c[k].key = idle_cause_name(causes[k]);
		is->c[k].text = idle_cause_text(causes[k]);
		is->c[k].cause_ns = is->gpu ? d->steady.cause[causes[k]]
					    : d->host.outside[k];
	}
}

static int has_samples(const struct model *m)
{
	if (hostsamples_of(m))
		return 1;
	for (size_t i = 0; i < m->nworkers; i++)
		if (hostsamples_of(m->workers[i]))
			return 1;
	return 0;
}

static struct idle_samples *build(const struct model *m, struct diagnosis *d)
{
	struct idle_samples *is = xcalloc(1, sizeof(*is));
	const struct hostsamples *hs = hostsamples_of(m);
	struct idle_acc acc[IDLE_SAMPLE_CAUSES];

	memset(acc, 0, sizeof(acc));
	cause_times(is, d);
	is->hz = hostsamples_hz(hs);
	if (!hostsamples_rate(hs, is->rate, sizeof(is->rate)))
		is->rate[0] = 0;
	is->note = hs ? hs->note : NULL;
	is->samples = hs ? hs->total : 0;
	is->lost = hs ? hs->lost : 0;
	is->incall = hs ? hs->incall : 0;
	is->cpu_ns = hs ? hs->cpu_ns : 0;
	is->workers = is->nworkers_seen = m->nworkers;
	add_process(is, acc, d, m, 0);
	for (size_t i = 0; i < m->nworkers; i++) {
		const struct hostsamples *w = hostsamples_of(m->workers[i]);

		is->worker_samples += w ? w->total : 0;
		add_process(is, acc, d, m->workers[i], 1);
	}
	for (int k = 0; k < IDLE_SAMPLE_CAUSES; k++)
		idle_acc_take(&acc[k], &is->c[k].fn, &is->c[k].nfn);
	idle_profiles_build(is, m, d);
	return is;
}

void idle_samples_release(struct diagnosis *d)
{
	struct idle_samples *is = d->isamples;

	if (!is)
		return;
	for (int k = 0; k < IDLE_SAMPLE_CAUSES; k++)
		idle_fns_free(is->c[k].fn, is->c[k].nfn);
	idle_profiles_release(is);
	free(is);
	d->isamples = NULL;
}

const struct idle_samples *idle_samples_of(const struct model *m)
{
	struct diagnosis *d = m->diag;

	if (!d || !has_samples(m))
		return NULL;
	if (d->isamples && d->isamples->nworkers_seen != m->nworkers)
		idle_samples_release(d);
	if (!d->isamples)
		d->isamples = build(m, d);
	return d->isamples;
}
