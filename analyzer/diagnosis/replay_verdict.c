/* SPDX-License-Identifier: MIT */
/*
 * replay_verdict.c - the what-if by replay and the verdict drawn from it.
 *
 * The span's graph is replayed unmodified (its error against the
 * recorded step time is the replay's own confidence) and with each fix.
 * When the replay ran on GPU records and its error is within
 * RP_GOOD_ERROR, the verdict
 * is the class of the fix with the largest simulated gain (all in one
 * currency: the time per unit of work saved, replay.h), and each replayed
 * class's gain is that point with the fix's band widened by the replay's
 * error; a run no fix would speed up by RP_HEALTHY_GAIN is healthy where
 * the replay refutes the rules' first class (healthy_first), the rules'
 * classes after it with their replayed gains; else those classes alone.
 * Otherwise the rules' verdict stands, and the report says why.  The fixes learn from the
 * dump what the graph does not hold (replay_env): the workers, a
 * DataLoader seen, the cores, the memory's headroom.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/model/model_internal.h"
#include "analyzer/passes/callsite_internal.h"
#include "analyzer/passes/framework.h"
#include "analyzer/diagnosis/replay_fix.h"
#include "analyzer/diagnosis/replay_internal.h"
#include "analyzer/lib/units.h"
#include "analyzer/lib/util.h"

#define RP_MIN_GAIN 0.02            /* a fix that saves less: not listed */
#define RP_HEALTHY_GAIN 0.10        /* no fix saves this... */
#define RP_HEALTHY_CAUSE 0.33       /* ...and no cause holds this share of
				       the steady time: healthy */
#define RP_BAND_MIN 0.01            /* the narrowest band around a gain */

/* The host cost of the dump's graph launches, 0 none: the 10th
 * percentile of the most launched graph (a launch into a full queue
 * waits for room, and the median may be such a wait). */
static uint64_t graph_launch_ns(const struct model *m)
{
	size_t pos = 0;
	const struct row *r, *best = NULL;

	while ((r = hmap_next(&m->rows[ROW_GRAPH], &pos)))
		if (!best || r->calls > best->calls)
			best = r;
	return best && best->calls >= 10 ? hist_quantile(&best->hist, 0.10) : 0;
}

/* Whether a stack shows PyTorch's DataLoader (its iterators, its pin
 * memory thread). */
static int dataloader_stack(const struct cs_stack *s)
{
	for (uint32_t i = 0; i < s->python; i++)
		if (s->pf[i] && (strstr(s->pf[i], "DataLoaderIter") ||
				 strstr(s->pf[i], "dataloader.py:") ||
				 strstr(s->pf[i], "pin_memory.py:")))
			return 1;
	return 0;
}

/* Whether PyTorch is loaded (a libtorch module in the map). */
static int torch_loaded(const struct callsites *cs)
{
	for (size_t i = 0; i < cs->nmods; i++)
		if (cs->mods[i].path && strstr(cs->mods[i].path, "/libtorch"))
			return 1;
	return 0;
}

/* A DataLoader: its frames in the stacks, or worker processes of a
 * PyTorch program (JAX's compilers are child processes too). */
static int dataloader_seen(const struct model *m, int children)
{
	const struct cs_stack *s;
	size_t pos = 0;

	if (!m->callsites)
		return 0;
	while ((s = hmap_next(&m->callsites->stacks, &pos)))
		if (dataloader_stack(s))
			return 1;
	return children && torch_loaded(m->callsites);
}

void replay_env(const struct model *m, const struct diagnosis *d,
		struct rp_env *e)
{
	const struct env_facts *f = &d->env;

	memset(e, 0, sizeof(*e));
	if (d->bw.ns[0][1] && d->bw.bytes[0][1] >= (1u << 20))
		e->pinned_gbps = (double)d->bw.bytes[0][1] / (double)d->bw.ns[0][1];
	else if (f->pcie_gen > 0 && f->pcie_width > 0)
		e->pinned_gbps = RP_PINNED_GBPS * f->pcie_width / 16.0 *
				 ldexp(1.0, f->pcie_gen - 5);
	e->graph_launch_ns = graph_launch_ns(m);
	/* counts from the dump, bounded: a damaged one says anything */
	e->cores = f->allowed_cores > 0 ? (f->allowed_cores < RP_MAX_CORES ?
					   f->allowed_cores : RP_MAX_CORES) : 1;
	e->workers = f->children_max > 0 || f->child_cores > 0.1;
	e->nworkers = (int)(f->children_max < RP_MAX_CORES ? f->children_max : RP_MAX_CORES);
	e->dataloader = dataloader_seen(m, e->workers);
	e->workers &= e->dataloader;
	e->nworkers = e->workers ? e->nworkers : 0;
	e->proc_cores = f->proc_cores;
	e->child_cores = f->child_cores;
	e->saturated = f->saturated;
	e->launch_blocking = f->launch_blocking;
	e->other_share = f->other_share;
	e->mem_headroom = f->self_mem ? (double)f->gpu_mem / (double)f->self_mem : 0;
	e->small_batch = verdict_batch(d);
	e->batched = m->framework && (m->framework->kind == FW_PYTORCH ||
				      m->framework->kind == FW_JAX ||
				      m->framework->kind == FW_TENSORFLOW);
	rp_precision_shares(m, &e->prec);
}

static void top_fixes(struct rp_summary *s)
{
	for (int f = 0; f < FIX_KINDS; f++) {
		const struct rp_fix_result *r = &s->fix[f];

		if (!r->applies || r->gain < RP_MIN_GAIN)
			continue;
		if (s->ntop < 2 || r->gain > s->fix[s->top[1]].gain) {
			size_t at = s->ntop < 2 ? s->ntop++ : 1;

			s->top[at] = (enum rp_fix)f;
			if (at == 1 && r->gain > s->fix[s->top[0]].gain) {
				s->top[1] = s->top[0];
				s->top[0] = (enum rp_fix)f;
			}
		}
	}
}

void replay_top_fix(const struct rp_summary *s, size_t i, struct rp_graph *g,
		    struct rp_times *t)
{
	struct rp_fix_result r;

	replay_fix(&s->g, &s->env, s->top[i], s->base, &r, g, t);
}

void replay_diagnose(struct model *m, struct diagnosis *d)
{
	struct rp_summary *s = xcalloc(1, sizeof(*s));
	struct rp_collect c;

	d->replay = s;
	if (replay_collect(m, d, &c, s->why, sizeof(s->why)) < 0) {
		replay_collect_release(&c);
		return;
	}
	replay_build(d, &c, &s->g);
	replay_collect_release(&c);
	s->steps = s->g.steps;
	s->measured = s->g.measured;
	s->host_span = s->g.host_span;
	s->gpu = s->g.gpu;
	replay_times_alloc(&s->g, &s->bt);
	s->base = replay_run(&s->g, &s->bt);
	s->error = s->measured ?
		   fabs((double)s->base - (double)s->measured) / (double)s->measured : 1;
	s->ran = 1;
	replay_env(m, d, &s->env);
	for (int f = 0; f < FIX_KINDS; f++)
		replay_fix(&s->g, &s->env, (enum rp_fix)f, s->base, &s->fix[f],
			   NULL, NULL);
	top_fixes(s);
}

/* The verdict of class cls, added (with its texts) when missing. */
static struct verdict *verdict_of(struct model *m, struct diagnosis *d, int cls)
{
	for (size_t i = 0; i < d->nv; i++)
		if ((int)d->v[i].cls == cls)
			return &d->v[i];
	if (d->nv == VC_KINDS)
		return NULL;
	d->v[d->nv] = (struct verdict){ .cls = (enum vclass)cls, .score = d->score[cls] };
	verdict_texts(m, d, &d->v[d->nv]);
	return &d->v[d->nv++];
}

static double clamp01(double x)
{
	return x < 0 ? 0 : x > 0.99 ? 0.99 : x;
}

/* A class's gain: its best fix's point, its band widened by the
 * replay's own error. */
static void set_gain(struct verdict *v, const struct rp_fix_result *r,
		     double band)
{
	double gain = r->gain;

	if (v->replayed && v->gain >= gain)
		return;
	v->replayed = 1;
	v->per_sample = r->fix == FIX_BATCH;
	v->batch = v->per_sample ? r->k : 0;
	v->gain = gain;
	v->gain_lo = clamp01(r->gain_lo - band);
	v->gain_hi = clamp01(r->gain_hi + band);
}

/* The best replayed fix of a class. */
static const struct rp_fix_result *best_fix(const struct rp_summary *s, int cls)
{
	const struct rp_fix_result *best = NULL;

	for (int f = 0; f < FIX_KINDS; f++)
		if (s->fix[f].applies && s->fix[f].cls == cls &&
		    (!best || s->fix[f].gain > best->gain))
			best = &s->fix[f];
	return best;
}

const char *replay_fix_label(const struct rp_fix_result *r, char *buf,
			     size_t size)
{
	if (r->fix != FIX_BATCH)
		return replay_fix_text(r);
	if (!r->applies)
		return "a larger batch";
	if (r->accum >= 2)
		snprintf(buf, size, "one batch %.0fx larger for the %.0f "
			 "accumulated", r->k, r->accum);
	else
		snprintf(buf, size, "a batch %.0fx larger", r->k);
	return buf;
}

const char *replay_batch_limit(const struct rp_summary *s,
			       const struct diagnosis *d, char *buf, size_t size)
{
	const struct rp_fix_result *r = &s->fix[FIX_BATCH];
	double cap = RP_MAX_BATCH, top = 1;
	char a[UNITS_BUF], b[UNITS_BUF];

	if (s->env.mem_headroom > 0 && s->env.mem_headroom < cap)
		cap = s->env.mem_headroom;
	while (top * 2 <= cap)
		top *= 2;
	if (r->k < top)
		snprintf(buf, size, "larger ones, up to %.0fx, replay under 2%% faster "
			 "per sample", top);
	else if (cap < RP_MAX_BATCH)
		snprintf(buf, size, "bounded by GPU memory: this process used at most "
			 "%s of %s, room for %.0fx", fmt_bytes(a, sizeof(a), d->env.self_mem),
			 fmt_bytes(b, sizeof(b), d->env.gpu_mem), floor(cap));
	else
		snprintf(buf, size, "the largest batch replayed");
	return buf;
}

/* Before the reason a band is wide, if it is. */
/* Room at the head of v's evidence for n more (the last ones dropped). */
static void evidence_room(struct verdict *v, size_t n)
{
	while (v->nev + n > VERDICT_TEXTS)
		free(v->evidence[--v->nev]);
	memmove(&v->evidence[n], &v->evidence[0], v->nev * sizeof(*v->evidence));
	v->nev += n;
}

/* The fix's figure in the one currency: its throughput, what it assumes,
 * why its band is wide. */
static char *currency_text(const struct rp_fix_result *r)
{
	char band[64] = "";

	if (r->gain_hi - r->gain_lo >= 0.005)
		snprintf(band, sizeof(band), ", %.0f%% to %.0f%% of the time saved "
			 "by what is not known", 100 * r->gain_lo, 100 * r->gain_hi);
	return xasprintf("throughput x%.2f in %s%s%s%s%s%s", r->speedup,
			 r->per_sample ? "samples per second" : "steps per second",
			 band, r->assume[0] ? "; assuming " : "", r->assume,
			 r->wide[0] ? "; the band is wide: " : "", r->wide);
}

/* The class's change and first advice, where its best fix is one the
 * rules' texts do not name: mixed precision. */
static void precision_texts(struct verdict *v)
{
	snprintf(v->change, sizeof(v->change), "bf16 autocast and channels_last "
		 "(mixed precision on the tensor cores)");
	if (v->nadv == VERDICT_TEXTS)
		free(v->advice[--v->nadv]);
	memmove(&v->advice[1], &v->advice[0], v->nadv * sizeof(*v->advice));
	v->nadv++;
	v->advice[0] = xasprintf("run the step in bf16 mixed precision (PyTorch: "
				 "torch.autocast(\"cuda\", dtype=torch.bfloat16)) on "
				 "NHWC activations (PyTorch: the model and its input "
				 ".to(memory_format=torch.channels_last)); check the "
				 "loss curve against fp32's");
}

/* The class's change where its best fix is a larger batch (the rules'
 * texts may have named another of the class's, the copies'): the
 * batch's, or, over accumulated micro-batches, fewer and larger ones. */
static void batch_change(struct verdict *v, const struct rp_fix_result *r)
{
	if (r->accum > 1)
		snprintf(v->change, sizeof(v->change), "fewer, larger micro-batches: "
			 "the %.0f accumulated as one batch %.0fx larger, as GPU memory "
			 "allows", r->accum, r->k);
	else
		snprintf(v->change, sizeof(v->change), "%s", VERDICT_BATCH_CHANGE);
}

/* What the replay says, first among the evidence: the step before and
 * after (a larger batch in time per sample, what bounds it), then the
 * figure's currency and assumptions. */
static void replay_evidence(struct verdict *v, const struct rp_summary *s,
			    const struct diagnosis *d)
{
	const struct rp_fix_result *r = best_fix(s, v->cls);
	char a[UNITS_BUF], b[UNITS_BUF], l[96], lim[256];

	if (!r)
		return;
	evidence_room(v, 2);
	fmt_ns(a, sizeof(a), s->base / s->steps);
	fmt_ns(b, sizeof(b), sat_from_double(r->span / s->steps));
	if (r->fix == FIX_BATCH && r->accum >= 2)
		v->evidence[0] = xasprintf("replayed with %s: the step (the same "
					   "samples) goes from %s to %s",
					   replay_fix_label(r, l, sizeof(l)), a, b);
	else if (r->fix == FIX_BATCH)
		v->evidence[0] = xasprintf("replayed with %s (%s): a step of %.0fx "
					   "the samples takes %s against %s now, time "
					   "per sample -%.0f%%",
					   replay_fix_label(r, l, sizeof(l)),
					   replay_batch_limit(s, d, lim, sizeof(lim)),
					   r->k, b, a, 100 * r->gain);
	else
		v->evidence[0] = xasprintf("replayed with %s: the step goes from %s "
					   "to %s", replay_fix_text(r), a, b);
	v->evidence[1] = currency_text(r);
	if (r->fix == FIX_PRECISION)
		precision_texts(v);
	if (r->fix == FIX_BATCH)
		batch_change(v, r);
}

int verdict_by_replay(const struct diagnosis *d)
{
	return d->replay && d->replay->used;
}

static double key(const struct verdict *v)
{
	return v->replayed ? 2 + v->gain : v->score;
}

static int by_gain(const void *a, const void *b)
{
	double x = key(a), y = key(b);

	return x == y ? 0 : x < y ? 1 : -1;
}

/* The classes the rules listed get their replayed gains (and the
 * replay's evidence); none is added, the order stays. */
static void listed_gains(struct diagnosis *d, const struct rp_summary *s,
			 double band)
{
	for (size_t i = 0; i < d->nv; i++) {
		const struct rp_fix_result *r = best_fix(s, d->v[i].cls);

		if (!r || r->gain < RP_MIN_GAIN)
			continue;
		set_gain(&d->v[i], r, band);
		replay_evidence(&d->v[i], s, d);
	}
}

/*
 * The run comes out healthy where no fix would speed it up by much, the
 * rules' first class has a fix of its own replayed (which then gains
 * under RP_HEALTHY_GAIN: the replay refutes it), and that class holds
 * under a third of the steady time (a GPU idle while its copies run is
 * transfer-bound, whatever the fixes replayed say).  A class no replayed
 * fix covers (the host's own work, without a DataLoader) stands.  Its
 * score is the GPU's busy share of the steady state.
 */
static void healthy_first(struct model *m, struct diagnosis *d,
			  const struct rp_summary *s)
{
	if (d->v[0].cls == VC_HEALTHY || d->nv >= VC_KINDS ||
	    d->v[0].score >= RP_HEALTHY_CAUSE || !best_fix(s, d->v[0].cls))
		return;
	memmove(&d->v[1], &d->v[0], d->nv * sizeof(*d->v));
	d->v[0] = (struct verdict){ .cls = VC_HEALTHY, .score = d->steady.span_ns ?
		(double)d->steady.busy_ns / (double)d->steady.span_ns : 0 };
	d->nv++;
	verdict_texts(m, d, &d->v[0]);
}

void replay_verdict(struct model *m, struct diagnosis *d)
{
	struct rp_summary *s = d->replay;
	double best = 0, band;

	if (!s || !s->ran || !d->nv)
		return;
	if (!s->gpu) {
		snprintf(s->why, sizeof(s->why), "no GPU records time the span's GPU "
			 "work (estimated from the host side): the rules' verdict stands");
		return;
	}
	if (s->error > RP_GOOD_ERROR) {
		snprintf(s->why, sizeof(s->why), "the replay is %.0f%% off the recorded "
			 "step time: the rules' verdict stands", 100 * s->error);
		return;
	}
	band = s->error > RP_BAND_MIN ? s->error : RP_BAND_MIN;
	for (int f = 0; f < FIX_KINDS; f++)
		if (s->fix[f].applies && s->fix[f].gain > best)
			best = s->fix[f].gain;
	if (best < RP_HEALTHY_GAIN) {
		snprintf(s->why, sizeof(s->why), "no fix saves %.0f%% in the replay: the "
			 "rules' order stands (healthy first where the first class's "
			 "own fix is among them and its cause holds under %.0f%% of "
			 "the time), with the replayed gains", 100 *
			 RP_HEALTHY_GAIN, 100 * RP_HEALTHY_CAUSE);
		listed_gains(d, s, band);
		healthy_first(m, d, s);
		return;
	}
	for (int f = 0; f < FIX_KINDS; f++) {
		struct verdict *v;

		if (!s->fix[f].applies || s->fix[f].gain < RP_MIN_GAIN ||
		    !(v = verdict_of(m, d, s->fix[f].cls)))
			continue;
		set_gain(v, &s->fix[f], band);
	}
	for (size_t i = 0; i < d->nv; i++)
		if (d->v[i].replayed)
			replay_evidence(&d->v[i], s, d);
	qsort(d->v, d->nv, sizeof(*d->v), by_gain);
	s->used = 1;
}

void replay_summary_release(struct diagnosis *d)
{
	struct rp_summary *s = d->replay;

	if (!s)
		return;
	replay_release(&s->g);
	replay_times_release(&s->bt);
	free(s);
	d->replay = NULL;
}
