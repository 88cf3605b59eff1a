/* SPDX-License-Identifier: MIT */
/*
 * export_facts.c - the answers of the other parts (export_facts.h): GPU
 * busy time, steps, idle causes and the verdict from the diagnosis
 * (diagnosis_internal.h), GPU active time from the GPU timeline
 * (gpu_internal.h).
 */
#include <stdlib.h>
#include <string.h>

#include "analyzer/diagnosis/diagnosis_internal.h"
#include "analyzer/export/export_facts.h"
#include "analyzer/passes/gpu_internal.h"
#include "analyzer/lib/units.h"
#include "analyzer/lib/util.h"

int facts_gpu_busy(const struct model *m, uint64_t *busy_ns, uint64_t *span_ns)
{
	const struct diagnosis *d = m->diag;

	if (!d || !d->have_gpu || !d->steady.span_ns)
		return 0;
	*busy_ns = d->steady.busy_ns;
	*span_ns = d->steady.span_ns;
	return 1;
}

int facts_gpu_active(const struct model *m, uint64_t *active_ns,
		     uint64_t *window_ns)
{
	const struct gpu_stats *s = m->gpu;
	uint64_t active = 0;

	if (!s || !s->window_ns)
		return 0;
	for (uint32_t d = 0; d < s->ndev && d < GPU_MAX_DEVICES; d++)
		active += s->dev[d].busy;
	*active_ns = active;
	*window_ns = s->window_ns;
	return 1;
}

static const struct step_stats *steps_of(const struct model *m)
{
	const struct diagnosis *d = m->diag;

	if (!d || d->steps.source == STEPS_NONE || d->steps.nt < 2)
		return NULL;
	return &d->steps;
}

int facts_steps(const struct model *m, struct facts_steps *s)
{
	const struct step_stats *st = steps_of(m);

	if (!st)
		return 0;
	s->count = st->nt - 1;
	s->mean_ns = st->mean;
	s->p50_ns = st->p50;
	s->max_ns = st->max;
	s->source = st->source == STEPS_NVTX ? "NVTX ranges" : "the launch pattern";
	return 1;
}

int facts_step_bounds(const struct model *m, const uint64_t **t, size_t *n)
{
	const struct step_stats *st = steps_of(m);

	if (!st)
		return 0;
	*t = st->t;
	*n = st->nt;
	return 1;
}

int facts_step_span(const struct model *m, uint64_t first, uint64_t last,
		    uint64_t *t0, uint64_t *t1, const char **why)
{
	const struct step_stats *st = m ? steps_of(m) : NULL;

	if (!st) {
		*why = "no steps were found in the dump (no NVTX step ranges, "
		       "no repeating launch pattern)";
		return -1;
	}
	if (last > st->nt - 1) {
		*why = "the dump has fewer steps";
		return -1;
	}
	*t0 = st->t[first - 1];
	*t1 = st->t[last];
	return 0;
}

int facts_cause_count(void)
{
	return IC_CAUSES;
}

const char *facts_cause_text(int i)
{
	return idle_cause_text((enum idle_cause)i);
}

static int gpu_known(const struct diagnosis *d)
{
	return d && d->finished && d->have_gpu && d->steady.span_ns;
}

int facts_idle_causes(const struct model *m, struct facts_cause *out, int max)
{
	const struct diagnosis *d = m->diag;
	int n = 0;

	if (!gpu_known(d))
		return 0;
	for (int c = 0; c < IC_CAUSES && n < max; c++)
		if (d->steady.cause[c])
			out[n++] = (struct facts_cause){ idle_cause_text(c),
							d->steady.cause[c] };
	for (int i = 1; i < n; i++)         /* most time first */
		for (int k = i; k > 0 && out[k].ns > out[k - 1].ns; k--) {
			struct facts_cause t = out[k];

			out[k] = out[k - 1];
			out[k - 1] = t;
		}
	return n;
}

int facts_idle_between(const struct model *m, uint64_t t0, uint64_t t1,
		       uint64_t *ns)
{
	struct diagnosis *d = m->diag;
	struct breakdown b;

	if (!gpu_known(d))
		return 0;
	memset(&b, 0, sizeof(b));
	idle_attribute(d, t0, t1, &b, 0);
	for (int c = 0; c < IC_CAUSES; c++)
		ns[c] = b.cause[c];
	return 1;
}

char *facts_verdict(const struct model *m)
{
	const struct diagnosis *d = m->diag;
	const struct verdict *v;
	char gain[256], text[192];

	if (!d || !d->nv)
		return NULL;
	v = &d->v[0];
	if (verdict_has_gain(v))
		snprintf(gain, sizeof(gain), " (%s)",
			 verdict_gain_text(v, 0, text, sizeof(text)));
	else
		gain[0] = 0;
	return xasprintf("%s. %s%s%sChange: %s%s.", verdict_class_title(v->cls),
			 v->nev ? "Why: " : "", v->nev ? v->evidence[0] : "",
			 v->nev ? ". " : "", v->change, gain);
}
