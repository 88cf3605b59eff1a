/* SPDX-License-Identifier: MIT */
/*
 * idle_readback.c - host work behind a readback.  A value read back
 * (.item(), .cpu(), jax.device_get) waits until the GPU has run all it
 * was given; what the host does next, before its next CUDA call (logging,
 * metrics, a progress bar), the GPU waits through with nothing queued.
 * That time is the readback's cost (communication & sync: had the value
 * stayed on the GPU, that work would overlap the next step's kernels),
 * not preprocessing to move elsewhere.
 *
 * Once per run, from the traced process's host samples in those
 * stretches of the steady state: when most of their sampled time is not
 * in the DataLoader's __next__ / _next_data (fetching the next batch in
 * the main process is data supply, whatever came before it), the
 * stretches count as sync after a readback, at the readback's call site.
 * With no sample there (sampler off, an older dump) the timing alone
 * decides: host work between a readback's return and the next CUDA call,
 * with the GPU idle, is the readback's.
 */
#include <stdio.h>
#include <string.h>

#include "analyzer/diagnosis/idle_samples_internal.h"
#include "analyzer/lib/util.h"

#define RB_MIN_SAMPLES 3            /* fewer: the timing alone decides */
#define RB_LOOK_BACK 16             /* segments stepped back over */
#define RB_USER_SHARE 0.5           /* of the samples, outside the
				       DataLoader: the rule holds */

/*
 * The readback that time outside CUDA in segment i (holding t) comes
 * after, with no launch between: stepping back over time outside CUDA,
 * runs of calls that launch nothing (queries, event records, small
 * copies) and pinned allocations, to a readback: a wait for a copy back,
 * or a run with a value read back that began at or after `since` (the
 * GPU idle already: the host waited for the value outside CUDA; a copy
 * queued behind running work did not hold anything up).  Any other wait,
 * or a launch, ends the search; NULL then.
 */
static const struct host_span *after_readback(const struct diagnosis *d,
					      size_t i, uint64_t t, uint64_t since)
{
	if (i >= d->nsegs || d->segs[i].state != HC_OUTSIDE ||
	    d->segs[i].t0 > t || d->segs[i].t1 <= t)
		return NULL;
	for (int k = 0; k < RB_LOOK_BACK && i-- > 0; k++) {
		const struct host_seg *p = &d->segs[i];
		const struct host_span *sp;

		if (p->state == HC_OUTSIDE || p->state == HC_ALLOC)
			continue;
		sp = &d->spans[p->span];
		if (p->state == HC_WAIT)
			return sp->flags & HF_READBACK ? sp : NULL;
		if (p->state != HC_FEED || (sp->flags & HF_LAUNCH))
			return NULL;
		if ((sp->flags & HF_READBACK) && sp->t0 >= since)
			return sp;
	}
	return NULL;
}

const struct host_span *idle_behind_readback(const struct diagnosis *d,
					     size_t i, uint64_t t, uint64_t since)
{
	return d->rb.on ? after_readback(d, i, t, since) : NULL;
}

/* Whether a frame is the DataLoader handing out the next batch. */
static int loader_frame(const struct callsite_frame *f)
{
	if (!f->python || !f->func)
		return 0;
	if (!strstr(f->func, "__next__") && !strstr(f->func, "_next_data"))
		return 0;
	return strstr(f->func, "DataLoader") ||
	       (f->file && strstr(f->file, "dataloader.py"));
}

static int in_loader(const struct model *m, const struct hs_sample *s)
{
	const struct callsite_frame *f;
	size_t n = idle_sample_frames(m, s, &f);

	for (size_t i = 0; i < n; i++)
		if (loader_frame(&f[i]))
			return 1;
	return 0;
}

/* Whether time t is in the steady steps (all of them, GPU-timed or not:
 * more samples than the GPU windows hold), else in the region. */
static int steady(const struct diagnosis *d, uint64_t t)
{
	const struct step_stats *s = &d->steps;

	if (s->nt >= 3)
		return t >= s->t[s->warmup] && (s->capped || t < s->t[s->nt - 1]);
	return t >= d->region_lo && t < d->region_hi;
}

static void top_function(struct readback_host *rb, struct idle_acc *acc)
{
	struct idle_fn *fn;
	size_t nfn;

	idle_acc_take(acc, &fn, &nfn);
	if (nfn && rb->ns) {
		snprintf(rb->top, sizeof(rb->top), "%s", fn[0].name);
		rb->top_share = (double)fn[0].self_ns / (double)rb->ns;
	}
	idle_fns_free(fn, nfn);
}

/* The process's samples in the steady stretches after readbacks. */
static void tally(const struct model *m, struct diagnosis *d, uint64_t since)
{
	const struct hostsamples *hs = hostsamples_of(m);
	struct readback_host *rb = &d->rb;
	struct idle_acc acc;

	memset(&acc, 0, sizeof(acc));
	for (size_t k = 0; hs && k < hs->n; k++) {
		const struct hs_sample *s = &hs->v[k];
		size_t i;

		if (!idle_seg_at(d, s->t, &i) || !after_readback(d, i, s->t, since) ||
		    !steady(d, s->t))
			continue;
		rb->samples++;
		rb->ns = sat_add(rb->ns, s->weight);
		if (in_loader(m, s))
			rb->loader_ns = sat_add(rb->loader_ns, s->weight);
		else if (s->state != GT_HOST_WAITING)
			rb->user_ns = sat_add(rb->user_ns, s->weight);
		if (s->state != GT_HOST_WAITING)
			idle_acc_add(&acc, m, s);
	}
	top_function(rb, &acc);
}

void idle_readback_decide(const struct model *m, struct diagnosis *d)
{
	struct readback_host *rb = &d->rb;

	memset(rb, 0, sizeof(*rb));
	tally(m, d, d->have_gpu ? 0 : UINT64_MAX);
	rb->sampled = rb->samples >= RB_MIN_SAMPLES;
	rb->on = !rb->sampled || (double)rb->user_ns >= RB_USER_SHARE * (double)rb->ns;
}
