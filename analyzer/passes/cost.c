/* SPDX-License-Identifier: MIT */
/*
 * cost.c - the run's own measure of what GPU windows cost it (cost.h).
 *
 * Keeps every step boundary the library wrote (at most COST_MAX_STEPS),
 * each with whether it follows the one before (no gap in their numbers:
 * the library found no new pattern between them), and every window's
 * span and switching span (from switching CUPTI on to switching it off
 * again).  The figures are made from them, on the steps the report
 * chooses, by cost_measure.c.
 */
#include <stdlib.h>
#include <string.h>

#include "analyzer/passes/cost.h"
#include "analyzer/passes/cost_internal.h"
#include "analyzer/model/model.h"
#include "analyzer/lib/util.h"

#define COST_MAX_STEPS (1u << 20)   /* 8 MB of boundaries */
#define COST_MAX_WINDOWS (1u << 16)

static struct cost_stats *stats(struct model *m)
{
	if (!m->cost)
		m->cost = xcalloc(1, sizeof(*m->cost));
	return m->cost;
}

static void add_bound(struct cost_stats *s, uint64_t t, int cont)
{
	if (s->nb == COST_MAX_STEPS) {
		s->capped = 1;
		return;
	}
	if (s->nb == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 1024;
		s->b = xrealloc(s->b, s->cap * sizeof(*s->b));
		s->cont = xrealloc(s->cont, s->cap);
	}
	cont = cont && s->nb && t > s->b[s->nb - 1];
	s->b[s->nb] = t;
	s->cont[s->nb++] = (uint8_t)cont;
}

static void add_steps(struct cost_stats *s, const struct dump_record *rec)
{
	const uint8_t *pos = NULL;
	uint64_t t = 0;
	int cont = rec->steps.h.seq == s->next_seq;

	if (!s->nb || s->source == rec->steps.h.source)
		s->source = rec->steps.h.source;
	else
		s->source = 0;
	for (uint32_t i = 0; i < rec->steps.h.count; i++) {
		t = dump_steps_next(rec, &pos, t);
		add_bound(s, t, i ? 1 : cont);
	}
	s->next_seq = rec->steps.h.seq + rec->steps.h.count;
}

static struct cost_window *window(struct cost_stats *s, uint32_t seq)
{
	if (!seq || seq > COST_MAX_WINDOWS)
		return NULL;
	if (seq > s->nwin) {
		s->win = xrealloc(s->win, seq * sizeof(*s->win));
		memset(s->win + s->nwin, 0, (seq - s->nwin) * sizeof(*s->win));
		s->nwin = seq;
	}
	return &s->win[seq - 1];
}

static NOINLINE void add_record(struct model *m, const struct dump_record *rec)
{
	struct cost_window *w;

	if (rec->type == DUMP_STEPS) {
		add_steps(stats(m), rec);
	} else if (rec->type == DUMP_WINDOW && (w = window(stats(m), rec->window.seq))) {
		w->start = rec->window.start_ns;
		w->end = rec->window.end_ns;
	} else if (rec->type == DUMP_SWITCH && (w = window(stats(m), rec->gswitch.seq))) {
		w->attach = rec->gswitch.attach_ns;
		w->off = rec->gswitch.off_ns;
		w->have_switch = 1;
		w->on_at_end = !rec->gswitch.off_ns;
		w->reason = rec->gswitch.reason;
	}
}

/* Every record comes here: events return before any work. */
void cost_add(struct model *m, const struct dump_record *rec)
{
	if (rec->type != DUMP_EVENT)
		add_record(m, rec);
}

int cost_library_steps(const struct model *m, struct cost_steps *st)
{
	const struct cost_stats *s = m->cost;

	if (!s || !s->nb)
		return 0;
	*st = (struct cost_steps){ .t = s->b, .cont = s->cont, .nt = s->nb,
				   .capped = s->capped, .from = COST_STEPS_LIBRARY };
	return 1;
}

void cost_release(struct model *m)
{
	if (!m->cost)
		return;
	free(m->cost->b);
	free(m->cost->cont);
	free(m->cost->win);
	free(m->cost);
	m->cost = NULL;
}

