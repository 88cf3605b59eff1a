/* SPDX-License-Identifier: MIT */
/*
 * idle.c - attribute every interval in which a GPU ran no compute kernel.
 *
 * Within an idle interval, a moment is explained by the GPU first: an
 * NCCL kernel running alone (communication), a copy or memset running
 * alone (copies), or work already submitted that has not started yet
 * (launch latency; environment when another process had the GPU).  Else
 * by what the host was doing then (idle_host.c): feeding the GPU
 * (launching), staging an upload (copies), in NCCL (communication),
 * waiting (sync), or outside CUDA, split with the CPU samples
 * (idle_outside.c).
 *
 * A sync bubble: when the idle interval begins while the host is blocked
 * in a wait, the wait drained the queue.  Had the host not waited for D
 * ns, it would have done what came next D ns earlier, so up to D of the
 * host-explained idle time that follows is the wait's (sync), with the
 * wait's call site; what is left is attributed as above.  What is left
 * of D goes on to the idle intervals that follow, for the host's work
 * outside CUDA only, until the host waits again: a small launch right
 * after the wait (adding the value read to a total) keeps the GPU busy
 * for microseconds, and the host work after it (logging, metrics) was
 * still made late by the wait.  A value read back with no wait in the
 * dump (a small async copy to the host that a thread issued once the GPU
 * had drained, as XLA's runtime does for float(loss) while the program's
 * thread waits outside CUDA) is the same: D is the GPU time since the
 * host's last CUDA call before the interval, and it applies to the host's
 * work outside CUDA after the copy.
 */
#include <stdlib.h>
#include <string.h>

#include "analyzer/diagnosis/diagnosis_internal.h"
#include "analyzer/lib/util.h"

#define SEG_STEPS 8             /* segments stepped over before a search */

static const char *const cause_names[IC_CAUSES] = {
	"launching", "launch_latency", "sync", "copies", "communication",
	"cpu_preprocessing", "dataloader_wait", "io_wait", "outside_cuda",
	"environment",
};

static const char *const cause_texts[IC_CAUSES] = {
	"launching (host feeding back to back)",
	"launch latency (queued, not started)",
	"sync bubble (host waited, queue ran dry)",
	"copies (GPU copying, or host staging)",
	"communication (NCCL)",
	"outside CUDA: CPU-bound in this process",
	"outside CUDA: waiting on worker processes",
	"outside CUDA: I/O wait",
	"outside CUDA: other (sleep, lock, network)",
	"environment (another process on the GPU)",
};

const char *idle_cause_name(enum idle_cause c)
{
	return c < IC_CAUSES ? cause_names[c] : "?";
}

const char *idle_cause_text(enum idle_cause c)
{
	return c < IC_CAUSES ? cause_texts[c] : "?";
}

struct walk {
	struct diagnosis *d;
	const struct dev_timeline *dv;
	struct breakdown *b;
	size_t hint[GL_KINDS];
	size_t seg;                 /* host segment hint (seg_at) */
	int sites;
	uint64_t gap;               /* the interval's start */
	uint64_t budget;            /* sync bubble left */
	int outside_only;           /* ... for host work outside CUDA only
				       (carried from an earlier interval, or
				       a readback's) */
	size_t scan;                /* host segments looked at for a wait
				       since the budget was set */
	uint32_t stack;
	int kind;                   /* enum sync_kind */
};

static int sync_kind_of(const struct host_span *s)
{
	return s->flags & HF_READBACK ? SK_READBACK
	       : s->flags & HF_UPLOAD ? SK_UPLOAD : SK_OTHER;
}

/* Sync bubble time charged to the wait's call site. */
static void site_add(struct diagnosis *d, uint32_t stack, uint64_t ns)
{
	struct sync_site *site;

	if (!stack)
		return;
	site = hmap_get_int(&d->sync_sites, stack);
	if (!site) {
		site = xcalloc(1, sizeof(*site));
		site->stack = stack;
		hmap_put_int(&d->sync_sites, stack, site);
	}
	site->ns += ns;
}

static void add_sync(struct walk *w, uint64_t ns, int kind, uint32_t stack)
{
	w->b->cause[IC_SYNC] += ns;
	w->b->sync_kind[kind] += ns;
	if (w->sites)
		site_add(w->d, stack, ns);
}

void idle_outside_mark(struct diagnosis *d, uint64_t t0, uint64_t t1)
{
	span_add(&d->outside, t0, t1, &d->outside_budget);
}

/*
 * Time outside CUDA, split with the CPU samples; its CPU-bound part right
 * after a readback (idle_readback.c: host work the GPU waits through) is
 * the readback's sync bubble, at its call site.
 */
static void add_outside(struct walk *w, uint64_t t, uint64_t ns)
{
	const struct outside_split *o = idle_outside_at(w->d, t);
	const struct host_span *rb = idle_behind_readback(w->d, w->seg, t, w->gap);
	uint64_t cpu, loader, io;

	if (w->sites && !rb)    /* the steady state's walk */
		idle_outside_mark(w->d, t, t + ns);
	cpu = o ? sat_from_double(o->cpu * (double)ns) : rb ? ns : 0;
	loader = o ? sat_from_double(o->loader * (double)ns) : 0;
	io = o ? sat_from_double(o->io * (double)ns) : 0;
	if (cpu + loader + io > ns)
		io = ns - cpu - loader > ns ? 0 : ns - cpu - loader;
	if (rb) {
		add_sync(w, cpu, SK_READBACK, rb->stack);
		w->b->behind_readback += cpu;
	} else {
		w->b->cause[IC_CPU] += cpu;
	}
	w->b->cause[IC_LOADER] += loader;
	w->b->cause[IC_IO] += io;
	w->b->cause[IC_OUTSIDE] += ns - cpu - loader - io;
}

/* The index of the last host segment with CUDA work (not outside) that
 * ends at or before t, or SIZE_MAX. */
static size_t last_active(const struct diagnosis *d, uint64_t t)
{
	size_t i;
	const struct host_seg *s = idle_seg_at(d, t, &i);

	if (s && s->state != HC_OUTSIDE)
		return SIZE_MAX;                /* busy in CUDA at t */
	for (int k = 0; k < SEG_STEPS && i-- > 0; k++)
		if (d->segs[i].state != HC_OUTSIDE)
			return i;
	return SIZE_MAX;
}

/*
 * A readback issued in the interval, with no wait in the dump: the GPU
 * time since the host's last CUDA call before the interval is the wait's
 * D (the host did not feed the GPU while it ran: it waited for it).
 */
static void readback_budget(struct walk *w, const struct host_span *s)
{
	size_t i = last_active(w->d, w->gap);

	if (i == SIZE_MAX || w->d->segs[i].t1 >= w->gap)
		return;
	w->budget = span_cover(&w->dv->l[GL_COMPUTE], w->d->segs[i].t1, w->gap);
	w->outside_only = 1;
	w->stack = s->stack;
	w->kind = SK_READBACK;
	idle_seg_at(w->d, s->t0, &w->scan);
}

/* A piece [t, t + ns) that the host state explains. */
static void add_host(struct walk *w, uint64_t t, uint64_t ns, int state,
		     const struct host_span *s)
{
	uint64_t take;

	if (state == HC_FEED && s && (s->flags & HF_READBACK) && !w->budget &&
	    s->t0 >= w->gap)
		readback_budget(w, s);  /* for what follows the copy */
	take = w->outside_only && state != HC_OUTSIDE ? 0 :
	       w->budget < ns ? w->budget : ns;

	if (take) {
		add_sync(w, take, w->kind, w->stack);
		w->budget -= take;
		ns -= take;
		t += take;
	}
	if (!ns)
		return;
	switch (state) {
	case HC_FEED:
		w->b->cause[IC_LAUNCH] += ns;
		break;
	case HC_WAIT:
		add_sync(w, ns, s ? sync_kind_of(s) : SK_OTHER, s ? s->stack : 0);
		break;
	case HC_STAGE:
	case HC_ALLOC:
		w->b->cause[IC_COPY] += ns;
		break;
	case HC_NCCL:
		w->b->cause[IC_COMM] += ns;
		break;
	default:
		add_outside(w, t, ns);
		break;
	}
}

/*
 * idle_seg_at for times that do not go back: *i starts at 0 or where the
 * last time's answer was (no segment before it ends after t), and steps
 * forward to this one's.
 */
static const struct host_seg *seg_at(const struct diagnosis *d, uint64_t t,
				     size_t *i)
{
	for (int k = 0; *i < d->nsegs && d->segs[*i].t1 <= t; (*i)++)
		if (++k == SEG_STEPS)
			return idle_seg_at(d, t, i);
	return *i < d->nsegs && d->segs[*i].t0 <= t ? &d->segs[*i] : NULL;
}

/* The host state at t and until when it holds; *hint as for seg_at. */
static int host_state(const struct diagnosis *d, uint64_t t, size_t *hint,
		      uint64_t *until, const struct host_span **span)
{
	const struct host_seg *s = seg_at(d, t, hint);

	*span = NULL;
	if (!s) {
		*until = *hint < d->nsegs ? d->segs[*hint].t0 : UINT64_MAX;
		return HC_OUTSIDE;
	}
	*until = s->t1;
	if (s->state != HC_OUTSIDE)
		*span = &d->spans[s->span];
	return s->state;
}

/* Whether the host waited (a segment in a wait) since the budget was
 * set, up to segment i; the segments looked at are not looked at again. */
static int waited_since(struct walk *w, size_t i)
{
	for (; w->scan < i && w->scan < w->d->nsegs; w->scan++)
		if (w->d->segs[w->scan].state == HC_WAIT)
			return 1;
	return 0;
}

/* The interval starting at a: a budget of its own when it began inside a
 * wait, else what is left of the last one while the host has not waited
 * since (for its work outside CUDA). */
static void start_budget(struct walk *w, uint64_t a)
{
	const struct diagnosis *d = w->d;
	const struct host_seg *s;
	const struct host_span *sp;
	size_t i, at;

	w->gap = a;
	s = idle_seg_at(d, a, &i);
	at = i;
	if (!s && i && d->segs[i - 1].t1 + DIAG_SYNC_EPS_NS >= a)
		s = &d->segs[--i];
	else if (s && s->state != HC_WAIT && i && d->segs[i - 1].state == HC_WAIT &&
		 d->segs[i - 1].t1 + DIAG_SYNC_EPS_NS >= a)
		s = &d->segs[--i];
	if (!s || s->state != HC_WAIT) {
		if (w->budget && !waited_since(w, at))
			w->outside_only = 1;
		else
			w->budget = 0;
		return;
	}
	sp = &d->spans[s->span];
	w->budget = a > sp->t0 ? a - sp->t0 : 0;
	w->outside_only = 0;
	w->scan = i + 1;
	w->stack = sp->stack;
	w->kind = sync_kind_of(sp);
}

static void idle_interval(struct walk *w, uint64_t a, uint64_t c)
{
	const struct dev_timeline *dv = w->dv;
	uint64_t t = a;

	w->b->intervals++;
	start_budget(w, a);
	while (t < c) {
		uint64_t u[GL_KINDS], uh, end = c;
		int in[GL_KINDS], state;
		const struct host_span *sp;

		for (int l = GL_NCCL; l < GL_KINDS; l++) {
			in[l] = span_at(&dv->l[l], &w->hint[l], t, &u[l]);
			end = u[l] < end ? u[l] : end;
		}
		state = host_state(w->d, t, &w->seg, &uh, &sp);
		end = uh < end ? uh : end;
		if (end <= t)
			end = t + 1;
		if (in[GL_NCCL])
			w->b->cause[IC_COMM] += end - t;
		else if (in[GL_COPY])
			w->b->cause[IC_COPY] += end - t;
		else if (in[GL_PENDING])
			w->b->cause[w->d->env.other_share > 0.05 ? IC_ENV : IC_LATENCY] +=
				end - t;
		else
			add_host(w, t, end - t, state, sp);
		t = end;
	}
}

/* Whether a device ran anything within [t0, t1). */
static int device_active(const struct dev_timeline *dv, uint64_t t0, uint64_t t1)
{
	for (int l = 0; l < GL_KINDS; l++)
		if (l != GL_PENDING && span_cover(&dv->l[l], t0, t1))
			return 1;
	return 0;
}

static void attribute_device(struct walk *w, uint64_t t0, uint64_t t1)
{
	const struct span_list *k = &w->dv->l[GL_COMPUTE];
	uint64_t t = t0;

	w->b->span_ns += t1 - t0;
	for (size_t i = span_find(k, t0); i < k->n && k->v[i].t0 < t1; i++) {
		uint64_t s = k->v[i].t0 > t0 ? k->v[i].t0 : t0;
		uint64_t e = k->v[i].t1 < t1 ? k->v[i].t1 : t1;

		if (s > t)
			idle_interval(w, t, s);
		w->b->busy_ns += e - s;
		t = e > t ? e : t;
	}
	if (t < t1)
		idle_interval(w, t, t1);
}

void idle_attribute(struct diagnosis *d, uint64_t t0, uint64_t t1,
		    struct breakdown *b, int sites)
{
	for (uint32_t i = 0; i < d->ndev && t1 > t0; i++) {
		struct walk w = { .d = d, .dv = &d->dev[i], .b = b, .sites = sites };

		if (!d->dev[i].records || !device_active(&d->dev[i], d->region_lo,
							 d->region_hi))
			continue;
		attribute_device(&w, t0, t1);
	}
}

/*
 * Host time outside CUDA that follows a wait which emptied the queue (a
 * stream or context synchronize, a copy back to the host), with no GPU
 * work given since: the GPU idles then, on the stream waited for.  With
 * no GPU records this is the host side's sync bubble, up to the wait's
 * own length as on the GPU side (add_host: had the host not waited, its
 * next work would have come that much earlier); the wait, or NULL (i as
 * for seg_at).
 */
static const struct host_span *drained_by(const struct diagnosis *d, uint64_t t,
					  size_t i)
{
	const struct host_seg *s = seg_at(d, t, &i), *prev;

	if ((s && s->state != HC_OUTSIDE) || !i)
		return NULL;
	prev = &d->segs[i - 1];
	if (prev->state != HC_WAIT || !(d->spans[prev->span].flags & HF_DRAIN))
		return NULL;
	return &d->spans[prev->span];
}

/* Host time outside CUDA [t, end) in segment seg, split with the CPU
 * samples; its CPU-bound part right after a readback is the readback's
 * (drained: the GPU idles then, one stream assumed). */
static void host_outside(struct diagnosis *d, uint64_t t, uint64_t end, size_t seg,
			 int sites, struct host_breakdown *b)
{
	const struct outside_split *o = idle_outside_at(d, t);
	const struct host_span *rb = idle_behind_readback(d, seg, t, UINT64_MAX);
	double ns = (double)(end - t);
	uint64_t cpu = o ? sat_from_double(o->cpu * ns) : rb ? end - t : 0;
	double rest = o ? ns * (1 - o->cpu - o->loader - o->io) : rb ? 0 : ns;

	if (sites && !d->have_gpu && !rb)
		idle_outside_mark(d, t, end);
	if (rb) {
		b->drained += cpu;
		b->behind_readback += cpu;
		if (sites && !d->have_gpu)      /* else the GPU's bubbles say */
			site_add(d, rb->stack, cpu);
	} else {
		b->outside[0] += cpu;
	}
	b->outside[1] += o ? sat_from_double(o->loader * ns) : 0;
	b->outside[2] += o ? sat_from_double(o->io * ns) : 0;
	b->outside[3] += sat_from_double(rest);
}

void idle_host_attribute(struct diagnosis *d, uint64_t t0, uint64_t t1, int sites,
			 struct host_breakdown *b)
{
	uint64_t t = t0, cap;
	size_t seg = 0;

	b->span_ns += t1 > t0 ? t1 - t0 : 0;
	while (t < t1) {
		const struct host_span *sp;
		uint64_t until;
		int st = host_state(d, t, &seg, &until, &sp);
		uint64_t end = until < t1 ? until : t1;

		if (end <= t)
			end = t + 1;
		b->state[st] += end - t;
		if (st == HC_WAIT && sp && (sp->flags & HF_UPLOAD))
			b->wait_upload += end - t;
		if (st == HC_OUTSIDE && (sp = drained_by(d, t, seg)) &&
		    t < (cap = sp->t1 + (sp->t1 - sp->t0))) {
			end = end < cap ? end : cap;
			b->drained += end - t;
			if (sites && !d->have_gpu)      /* else the GPU's bubbles say */
				site_add(d, sp->stack, end - t);
		} else if (st == HC_OUTSIDE) {
			host_outside(d, t, end, seg, sites, b);
		}
		t = end;
	}
}
