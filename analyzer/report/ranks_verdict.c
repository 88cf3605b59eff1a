/* SPDX-License-Identifier: MIT */
/*
 * ranks_verdict.c - what the job as a whole is bound by.  A job of
 * ranks that meet in collectives runs at the pace of its slowest rank:
 * its step is the longest of the ranks' steps (each rank's diagnosis
 * finds its own), and a gain is a gain of that step, not of one rank's.
 *
 *   a straggler    (ranks_judge found one) its cause is its own
 *                  diagnosis' top class; the others wait for it in the
 *                  collective they waited in most; without it the job
 *                  would run at the pace of the others: what it holds
 *                  them back per step is the most the job's step gains,
 *                  its own class' low gain the least.  Held back: where
 *                  every rank has GPU records in its steady steps, how
 *                  much longer the others' GPUs run NCCL kernels alone
 *                  per step than its own (the median of theirs; their
 *                  hosts may run ahead of their GPUs, the GPUs wait);
 *                  else its lead (per steady step, the most it entered a
 *                  collective after every other rank)
 *   no straggler   many small collectives per step (each pays NCCL's
 *                  fixed cost, on the host and the GPU, which a rank's
 *                  own diagnosis sees as launches, host work or waits):
 *                  at most all the time the GPUs ran no compute is
 *                  gained.  Else the slowest rank's top class, with the
 *                  same change on every rank; for communication, whether
 *                  the GPU runs NCCL kernels alone (waited for, not
 *                  overlapped with compute).  The job's step after the
 *                  change is the slowest of the ranks' steps after it
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "analyzer/diagnosis/diagnosis_internal.h"
#include "analyzer/lib/units.h"
#include "analyzer/report/ranks.h"
#include "analyzer/lib/util.h"

#define MIB (1ull << 20)
#define BUCKET_BYTES (25 * MIB)     /* DDP's default bucket_cap_mb */
#define SMALL_MIN 8                 /* collectives per step, at least */
#define SMALL_TIMES 4               /* ... that many times what buckets
				       of BUCKET_BYTES would need */
#define GAIN_MAX 0.95

void rank_steps(struct rank_dump *r)
{
	const struct diagnosis *d = r->m->diag;
	const struct step_stats *s = d ? &d->steps : NULL;

	if (!s || s->source == STEPS_NONE || s->nt < 2 || s->warmup + 1 >= s->nt)
		return;
	r->step_ns = s->step ? s->step : s->mean;
	r->steady_t0 = s->t[s->warmup];
	r->steady_t1 = s->t[s->nt - 1];
	r->steady_steps = s->nt - 1 - s->warmup;
}

static const struct verdict *top_class(const struct model *m)
{
	const struct diagnosis *d = m->diag;

	return d && d->nv ? &d->v[0] : NULL;
}

static const struct verdict *class_entry(const struct model *m, enum vclass c)
{
	const struct diagnosis *d = m->diag;

	for (size_t i = 0; d && i < d->nv; i++)
		if (d->v[i].cls == c)
			return &d->v[i];
	return NULL;
}

/* What a rank's class means as its own cause, in a few words. */
static const char *cause_words(enum vclass c)
{
	static const char *const words[VC_KINDS] = {
		[VC_DATA] = "data loading",
		[VC_CPU] = "CPU preprocessing",
		[VC_MEMORY] = "memory and batch configuration",
		[VC_COMM] = "synchronization with its GPU",
		[VC_KERNEL] = "kernel launching",
		[VC_ENV] = "environment",
		[VC_HEALTHY] = "GPU work (more than the others')",
	};

	return c < VC_KINDS ? words[c] : "?";
}

static double clamp_gain(double g)
{
	return g < 0 ? 0 : g > GAIN_MAX ? GAIN_MAX : g;
}

static int takes_part(const struct rank_dump *r)
{
	return r->colls > 0;
}

/* The rank whose step is the longest: the job's step. */
static void job_step(const struct ranks *rk, struct job_verdict *v)
{
	for (size_t i = 0; i < rk->n; i++)
		if (takes_part(&rk->r[i]) && rk->r[i].step_ns > v->job_step_ns) {
			v->job_step_ns = rk->r[i].step_ns;
			v->job_rank = i;
		}
}

static size_t most_waited_op(const struct ranks *rk)
{
	size_t best = 0;

	for (size_t i = 1; i < RANKS_COLLECTIVES; i++)
		if (rk->wait_by_op[i] > rk->wait_by_op[best])
			best = i;
	return best;
}

/* The straggler's lead per step (ns); with no steps of its own, its
 * share of the time between its first and last collectives times the
 * job's step. */
static double lead_per_step(const struct rank_dump *s, uint64_t job_ns)
{
	uint64_t span = s->last_coll > s->first_coll ? s->last_coll - s->first_coll : 0;

	if (s->steady_steps)
		return (double)s->lead_ns / (double)s->steady_steps;
	return span ? (double)s->lead_ns / (double)span * (double)job_ns : 0;
}

/* A rank's GPU time per step with NCCL kernels and no compute: 1, or 0
 * when it has no GPU records in steady steps. */
static int alone_per_step(const struct rank_dump *r, double *ns)
{
	const struct diagnosis *d = r->m->diag;

	if (!d || !d->have_gpu || !d->steady.span_ns || !r->step_ns)
		return 0;
	*ns = (double)d->steady.cause[IC_COMM] / (double)d->steady.span_ns *
	      (double)r->step_ns;
	return 1;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* How long the straggler holds the others back per step (ns): the
 * median of the others' NCCL time alone on their GPUs over its own, when
 * every rank has it; else its lead.  *gpu says which. */
static double held_per_step(const struct ranks *rk, uint64_t job_ns, int *gpu)
{
	const struct rank_dump *s = &rk->r[rk->slow];
	double v[rk->n], own = 0;
	size_t n = 0, others = 0;

	for (size_t i = 0; i < rk->n; i++) {
		if (!takes_part(&rk->r[i]) || (int)i == rk->slow)
			continue;
		others++;
		n += alone_per_step(&rk->r[i], &v[n]);
	}
	*gpu = n && n == others && alone_per_step(s, &own);
	if (!*gpu)
		return lead_per_step(s, job_ns);
	qsort(v, n, sizeof(v[0]), cmp_double);
	return v[n / 2] > own ? v[n / 2] - own : 0;
}

static size_t append(struct job_verdict *v, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static size_t append(struct job_verdict *v, size_t len, const char *fmt, ...)
{
	va_list ap;
	int k;

	if (len >= sizeof(v->text))
		return len;
	va_start(ap, fmt);
	k = vsnprintf(v->text + len, sizeof(v->text) - len, fmt, ap);
	va_end(ap);
	return k > 0 ? len + (size_t)k : len;
}

/* " The job's step (its slowest rank's): 10.00 ms; WHAT: est. 7.00 ms
 * to 8.20 ms (-18% to -30%)." */
static size_t gain_text(struct job_verdict *v, const char *what, size_t len)
{
	char a[UNITS_BUF], b[UNITS_BUF], c[UNITS_BUF];
	double J = (double)v->job_step_ns;

	if (!v->have_gain)
		return len;
	return append(v, len, " The job's step (its slowest rank's): %s; "
		      "%s: est. %s to %s (-%.0f%% to -%.0f%%).",
		      fmt_ns(a, sizeof(a), v->job_step_ns),
		      what, fmt_ns(b, sizeof(b), (uint64_t)(J * (1 - v->gain_hi))),
		      fmt_ns(c, sizeof(c), (uint64_t)(J * (1 - v->gain_lo))),
		      100 * v->gain_lo, 100 * v->gain_hi);
}

/* ---- a straggler --------------------------------------------------------- */

static void straggler_gain(struct job_verdict *v, const struct rank_dump *s,
			   const struct verdict *own, double held)
{
	double J = (double)v->job_step_ns;
	double lo = own && s->step_ns ? own->gain_lo * (double)s->step_ns : 0.5 * held;

	if (!v->job_step_ns)
		return;
	v->gain_hi = clamp_gain(held / J);
	v->gain_lo = clamp_gain((lo < held ? lo : held) / J);
	v->have_gain = 1;
}

static void straggler(struct ranks *rk, struct job_verdict *v)
{
	const struct rank_dump *s = &rk->r[rk->slow];
	const struct verdict *own = top_class(s->m);
	const char *label = rk->dumps[rk->slow].label;
	char a[UNITS_BUF];
	size_t len;
	int gpu;
	double held = held_per_step(rk, v->job_step_ns, &gpu);

	v->rank = rk->slow;
	v->cls = own ? verdict_class_name(own->cls) : NULL;
	v->cause = "straggler";
	v->collective = ranks_collective_name(most_waited_op(rk));
	straggler_gain(v, s, own, held);
	if (own)
		len = append(v, 0, "%s is the straggler: its %s (%s) makes the "
			     "others wait in %s.", label, cause_words(own->cls),
			     v->cls, v->collective);
	else
		len = append(v, 0, "%s is the straggler: it makes the others wait "
			     "in %s (%s; it has no diagnosis of its own).", label,
			     v->collective, rk->why >= 0 ? rank_cost_name(rk->why) :
			     "nothing it traced costs more than on the others");
	if (v->job_step_ns)
		len = append(v, len, " It entered %" PRIu64 " of %" PRIu64 " collectives "
			     "last and holds the others back %s per step (%s).", s->last,
			     s->colls, fmt_ns(a, sizeof(a), (uint64_t)held), gpu ?
			     "their GPUs run NCCL kernels alone that much longer than "
			     "its own" : "how much later than every other rank it "
			     "enters them");
	else
		len = append(v, len, " It entered %" PRIu64 " of %" PRIu64 " collectives "
			     "last (no steps found: what it costs the job's step is not "
			     "known).", s->last, s->colls);
	len = gain_text(v, "without its hold", len);
	if (own && own->change[0])
		append(v, len, " Change on %s: %s.", label, own->change);
}

/* ---- no straggler ---------------------------------------------------------- */

/* A rank's gain (shares of its step) from the change the job's cause
 * calls for: its own class c's; for many small collectives at most all
 * the time its GPU ran no compute (what the collectives' fixed costs can
 * take at most). */
static void rank_gain(const struct rank_dump *r, enum vclass c, int small,
		      double *lo, double *hi)
{
	const struct verdict *e = class_entry(r->m, c);
	const struct diagnosis *d = r->m->diag;

	*lo = e ? e->gain_lo : 0;
	*hi = e ? e->gain_hi : 0;
	if (small && d && d->have_gpu && d->steady.span_ns)
		*hi = 1 - (double)d->steady.busy_ns / (double)d->steady.span_ns;
	*hi = *hi < *lo ? *lo : *hi;
}

/* The job's step after the change on every rank: the slowest rank's
 * step after it. */
static void same_change_gain(const struct ranks *rk, struct job_verdict *v,
			     enum vclass c, int small)
{
	double fast = 0, slow = 0, J = (double)v->job_step_ns, lo, hi;

	for (size_t i = 0; i < rk->n; i++) {
		const struct rank_dump *r = &rk->r[i];
		double step = (double)r->step_ns;

		if (!takes_part(r) || !r->step_ns)
			continue;
		rank_gain(r, c, small, &lo, &hi);
		fast = step * (1 - hi) > fast ? step * (1 - hi) : fast;
		slow = step * (1 - lo) > slow ? step * (1 - lo) : slow;
	}
	v->gain_hi = clamp_gain(1 - fast / J);
	v->gain_lo = clamp_gain(1 - slow / J);
	v->have_gain = 1;
}

/* Whether rank r makes many small collectives per step: at least
 * SMALL_MIN, and SMALL_TIMES what buckets of BUCKET_BYTES would need for
 * the step's bytes. */
static int small_collectives(const struct rank_dump *r, uint64_t *per,
			     uint64_t *bytes)
{
	uint64_t need;

	if (!r->steady_steps || !r->steady_colls)
		return 0;
	*per = r->steady_colls / r->steady_steps;
	*bytes = r->steady_bytes / r->steady_steps;
	need = (*bytes + BUCKET_BYTES - 1) / BUCKET_BYTES + 1;
	return *per >= SMALL_MIN && *per >= SMALL_TIMES * need;
}

static size_t small_text(const struct ranks *rk, struct job_verdict *v,
			 size_t len, uint64_t per, uint64_t bytes)
{
	char a[UNITS_BUF], b[UNITS_BUF];

	return append(v, len, " The job is bound by its collectives: each step %s "
		      "makes %" PRIu64 " of them, %s each on average (%s per step), "
		      "and each pays NCCL's fixed cost. Change: fewer, larger ones "
		      "(DDP: a larger bucket_cap_mb; 25 MiB by default).",
		      rk->dumps[v->job_rank].label, per,
		      fmt_bytes(a, sizeof(a), per ? bytes / per : 0),
		      fmt_bytes(b, sizeof(b), bytes));
}

/* Collectives the slowest rank's GPU runs alone: said, or len when it
 * has none. */
static size_t exposed_text(const struct ranks *rk, struct job_verdict *v,
			   size_t len)
{
	const struct rank_dump *r = &rk->r[v->job_rank];
	const struct diagnosis *d = r->m->diag;
	char a[UNITS_BUF];
	double share;

	if (!d || !d->have_gpu || !d->steady.span_ns || !d->steady.cause[IC_COMM])
		return len;
	share = (double)d->steady.cause[IC_COMM] / (double)d->steady.span_ns;
	v->cause = "exposed_collectives";
	return append(v, len, " On %s the GPU runs NCCL's kernels with no compute "
		      "beside them %s per step (%.0f%% of it): the collectives are "
		      "waited for, not overlapped with compute. Change: overlap them "
		      "(DDP: all-reduce as the gradients become ready; no no_sync() "
		      "outside gradient accumulation, no communication hook that "
		      "waits).", rk->dumps[v->job_rank].label,
		      fmt_ns(a, sizeof(a), (uint64_t)(share * (double)r->step_ns)),
		      100.0 * share);
}

/* What the slowest rank's own top class says, for the job. */
static size_t class_text(const struct ranks *rk, struct job_verdict *v,
			 const struct verdict *c, size_t len)
{
	size_t alike = 0, said;

	for (size_t i = 0; i < rk->n; i++) {
		const struct verdict *t = top_class(rk->r[i].m);

		alike += takes_part(&rk->r[i]) && t && t->cls == c->cls;
	}
	len = append(v, len, " The job is %s%s on %zu of them (%s, the "
		     "slowest, among them).", c->cls == VC_HEALTHY ? "" : "bound by ",
		     verdict_class_title(c->cls), alike, rk->dumps[v->job_rank].label);
	if (c->cls == VC_HEALTHY)
		return append(v, len, " Nothing across the ranks to fix: look inside "
			      "the kernels.");
	said = c->cls == VC_COMM ? exposed_text(rk, v, len) : len;
	if (said == len && c->change[0])
		said = append(v, len, " Change: %s.", c->change);
	return said;
}

static void no_straggler(struct ranks *rk, struct job_verdict *v)
{
	const struct verdict *c = top_class(rk->r[v->job_rank].m);
	uint64_t per = 0, bytes = 0;
	size_t len, parts = 0;
	int small = small_collectives(&rk->r[v->job_rank], &per, &bytes);

	for (size_t i = 0; i < rk->n; i++)
		parts += takes_part(&rk->r[i]);
	len = append(v, 0, "No straggler: the %zu ranks keep pace in their "
		     "collectives.", parts);
	if (!v->job_step_ns || (!c && !small)) {
		append(v, len, " No steps or diagnosis to say what bounds the job.");
		return;
	}
	if (small) {
		v->cls = verdict_class_name(VC_COMM);
		v->cause = "small_collectives";
		len = small_text(rk, v, len, per, bytes);
	} else {
		v->cls = v->cause = verdict_class_name(c->cls);
		len = class_text(rk, v, c, len);
	}
	if (!small && c->cls == VC_HEALTHY)
		return;
	same_change_gain(rk, v, small ? VC_COMM : c->cls, small);
	gain_text(v, "with the change on every rank", len);
}

void ranks_verdict(struct ranks *rk)
{
	struct job_verdict *v = &rk->v;
	size_t parts = 0;

	memset(v, 0, sizeof(*v));
	v->rank = -1;
	for (size_t i = 0; i < rk->n; i++)
		parts += takes_part(&rk->r[i]);
	if (parts < 2 || !rk->matched)
		return;
	v->have = 1;
	job_step(rk, v);
	if (rk->slow >= 0)
		straggler(rk, v);
	else
		no_straggler(rk, v);
}
