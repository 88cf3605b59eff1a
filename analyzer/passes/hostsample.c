/* SPDX-License-Identifier: MIT */
/*
 * hostsample.c - keep a dump's host stack samples (hostsample.h): each
 * sample with its weight, a total per thread, the sampler's note; at the
 * end, the samples in time order (a dump's chunks hold one thread each).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/passes/hostsample.h"
#include "analyzer/model/model.h"
#include "analyzer/lib/util.h"

#define NOTE_PREFIX "host sampler:"

static struct hostsamples *get(struct model *m)
{
	if (!m->hostsamples) {
		m->hostsamples = xcalloc(1, sizeof(*m->hostsamples));
		hmap_init(&m->hostsamples->threads);
	}
	return m->hostsamples;
}

static struct hs_thread *thread_of(struct hostsamples *hs, uint32_t tid)
{
	struct hs_thread *t = hmap_get_int(&hs->threads, tid);

	if (!t) {
		t = xcalloc(1, sizeof(*t));
		t->tid = tid;
		hmap_put_int(&hs->threads, tid, t);
	}
	return t;
}

/* What a sample stands for: a running thread's CPU time; a waiting one's
 * wall time since its thread's previous sample, less that CPU time. */
static uint64_t weight_of(const struct hs_thread *t, const struct dump_event *ev,
			  uint8_t state)
{
	uint64_t gap;

	if (state != GT_HOST_WAITING || !t->samples || ev->t0 <= t->last_t)
		return ev->dur;
	gap = ev->t0 - t->last_t;
	gap = gap > ev->dur ? gap - ev->dur : 0;
	return gap < HS_MAX_WAIT_NS ? gap : HS_MAX_WAIT_NS;
}

static void keep(struct hostsamples *hs, const struct hs_sample *s)
{
	if (hs->n == HS_MAX_SAMPLES) {
		hs->lost++;
		return;
	}
	if (hs->n == hs->cap) {
		hs->cap = hs->cap ? hs->cap * 2 : 1024;
		hs->v = xrealloc(hs->v, hs->cap * sizeof(*hs->v));
	}
	hs->v[hs->n++] = *s;
}

static void add_event(struct hostsamples *hs, const struct dump_event *ev)
{
	struct hs_thread *t = thread_of(hs, ev->tid);
	uint64_t stack = ev->arg[GT_ARG_HOSTSAMPLE_STACK];
	uint8_t state = ev->arg[GT_ARG_HOSTSAMPLE_STATE] == GT_HOST_WAITING ?
			GT_HOST_WAITING : GT_HOST_RUNNING;
	struct hs_sample s = { .t = ev->t0, .weight = weight_of(t, ev, state),
			       .stack = stack <= UINT32_MAX ? (uint32_t)stack : 0,
			       .tid = ev->tid, .state = state };

	hs->total++;
	hs->waiting += state == GT_HOST_WAITING;
	hs->incall = sat_add(hs->incall, ev->arg[GT_ARG_HOSTSAMPLE_INCALL]);
	hs->cpu_ns = sat_add(hs->cpu_ns, ev->dur);
	hs->handler_ns = sat_add(hs->handler_ns, ev->result);
	hs->handler_n += ev->result != 0;
	if (!hs->first_t || ev->t0 < hs->first_t)
		hs->first_t = ev->t0;
	if (ev->t0 > hs->last_t)
		hs->last_t = ev->t0;
	t->samples++;
	t->cpu_ns = sat_add(t->cpu_ns, ev->dur);
	t->incall = sat_add(t->incall, ev->arg[GT_ARG_HOSTSAMPLE_INCALL]);
	t->last_t = ev->t0 > t->last_t ? ev->t0 : t->last_t;
	keep(hs, &s);
}

void hostsamples_add(struct model *m, const struct dump_reader *r,
		     const struct dump_record *rec)
{
	(void)r;
	if (rec->type == DUMP_EVENT && rec->event.op->kind == GT_KIND_HOSTSAMPLE) {
		add_event(get(m), &rec->event);
	} else if (rec->type == DUMP_NOTE &&
		   !strncmp(rec->note.text, NOTE_PREFIX, strlen(NOTE_PREFIX)) &&
		   !(m->hostsamples && m->hostsamples->note)) {
		get(m)->note = xstrdup(rec->note.text);     /* the first: how */
	}
}

static int by_time(const void *a, const void *b)
{
	const struct hs_sample *x = a, *y = b;

	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/* A sample stands for one period at most: a tick that came late, its
 * expirations merged, ran at one place (the time before it ran others). */
static void cap_weights(struct hostsamples *hs)
{
	double hz = hostsamples_hz(hs);
	uint64_t period = hz > 0 ? (uint64_t)(1e9 / hz + 0.5) : 0;

	for (size_t i = 0; period && i < hs->n; i++)
		if (hs->v[i].weight > period)
			hs->v[i].weight = period;
}

void hostsamples_finish(struct model *m)
{
	struct hostsamples *hs = m->hostsamples;

	if (!hs || !hs->n)
		return;
	cap_weights(hs);
	qsort(hs->v, hs->n, sizeof(*hs->v), by_time);
}

void hostsamples_release(struct model *m)
{
	struct hostsamples *hs = m->hostsamples;

	if (!hs)
		return;
	hmap_release_values(&hs->threads, NULL);
	free(hs->v);
	free(hs->note);
	free(hs);
	m->hostsamples = NULL;
}

const struct hostsamples *hostsamples_of(const struct model *m)
{
	return m->hostsamples;
}

const char *hostsamples_rate(const struct hostsamples *hs, char *buf,
			     size_t size)
{
	const char *p, *end;

	if (!hostsamples_hz(hs))
		return NULL;
	p = hs->note + strlen(NOTE_PREFIX);
	p += *p == ' ';
	end = strstr(p, " (");
	snprintf(buf, size, "%.*s", (int)(end ? end - p : (long)strlen(p)), p);
	return buf;
}

double hostsamples_hz(const struct hostsamples *hs)
{
	const char *p;
	char *end;
	double hz;

	if (!hs || !hs->note)
		return 0;
	p = hs->note + strlen(NOTE_PREFIX);
	hz = strtod(p, &end);
	if (end == p || strncmp(end, " Hz", 3) || !(hz > 0) || hz > 1e6)
		return 0;
	return hz;
}
