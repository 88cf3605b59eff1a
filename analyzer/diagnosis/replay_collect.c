/* SPDX-License-Identifier: MIT */
/*
 * replay_collect.c - the span the replay looks at, and a second read of
 * the dump that keeps only what happened in it.
 *
 * The span is a run of consecutive steady steps, inside the GPU window
 * that holds the most of them when there are GPU records (its first and
 * last steps left out: CUPTI was switching), else in the middle of the
 * steady state: at most RP_MAX_STEPS steps or 200 ms, at least 20 ms
 * when the steps are short.  The second read keeps the host calls that
 * start in the span and the GPU records that may belong to them, up to
 * RP_MAX_EVENTS and RP_MAX_GPU: past that the span ends at the last step
 * boundary before what was not kept.
 */
#include <stdlib.h>
#include <string.h>

#include "analyzer/passes/gpu_internal.h"
#include "analyzer/model/model_internal.h"
#include "analyzer/lib/progress.h"
#include "analyzer/diagnosis/replay_internal.h"
#include "analyzer/passes/framework.h"
#include "analyzer/lib/util.h"

#define SPAN_MAX_NS 200000000ull        /* a span's steps, at most this long... */
#define SPAN_MIN_STEPS 3                /* ...unless fewer (long steps: a loop
					   accumulating gradients over
					   micro-batches) */
#define GPU_MARGIN_NS 2000000000ull     /* GPU records this far past it */
#define SM_THREADS 2048                 /* resident threads per SM (sm_80
					   and sm_90) */

static int step_inside(const struct step_stats *s, size_t i, uint64_t lo,
		       uint64_t hi)
{
	return s->t[i] >= lo && s->t[i + 1] <= hi;
}

/* Steps [*a, *b) of the window [lo, hi). */
static size_t steps_inside(const struct step_stats *s, uint64_t lo,
			   uint64_t hi, size_t *a, size_t *b)
{
	size_t i = s->warmup;

	while (i + 1 < s->nt && !step_inside(s, i, lo, hi))
		i++;
	*a = i;
	while (i + 1 < s->nt && step_inside(s, i, lo, hi))
		i++;
	*b = i;
	return *b - *a;
}

/* Whether the GPU records show kernels or copies in [t0, t1). */
static int gpu_timed(const struct diagnosis *d, uint64_t t0, uint64_t t1)
{
	for (uint32_t i = 0; i < d->ndev; i++)
		if (span_cover(&d->dev[i].l[GL_COMPUTE], t0, t1) ||
		    span_cover(&d->dev[i].l[GL_COPY], t0, t1))
			return 1;
	return 0;
}

/* The window with GPU records and the most steady steps: its steps, less
 * the edges. */
static int pick_window(const struct diagnosis *d, size_t *a, size_t *b)
{
	const struct step_stats *s = &d->steps;
	size_t best = 0, x, y;

	if (!d->windows.n)
		return steps_inside(s, d->first_gpu, d->last_gpu + 1, a, b) > 0;
	for (size_t w = 0; w < d->windows.n; w++)
		if (gpu_timed(d, d->windows.v[w].t0, d->windows.v[w].t1) &&
		    steps_inside(s, d->windows.v[w].t0, d->windows.v[w].t1,
				 &x, &y) > best) {
			best = y - x;
			*a = x;
			*b = y;
		}
	return best > 0;
}

/* Whether step i overlaps a GPU window. */
static int in_window(const struct diagnosis *d, size_t i)
{
	const struct step_stats *s = &d->steps;

	for (size_t w = 0; w < d->windows.n; w++)
		if (s->t[i] < d->windows.v[w].t1 && s->t[i + 1] > d->windows.v[w].t0)
			return 1;
	return 0;
}

/* A side of like steps outside the windows: up to n steady steps from
 * step `from` on, going by `dir` (+1 after, -1 before), that overlap no
 * window, at most SPAN_MAX_NS of them; NULL none. */
static struct rp_collect *side_of(const struct diagnosis *d, long from,
				  int dir, uint32_t n)
{
	const struct step_stats *s = &d->steps;
	struct rp_collect *o;
	long a = from, b = from;        /* steps [a, b) */

	while (b - a < (long)n && (dir > 0 ? b + 1 < (long)s->nt :
				    a - 1 >= (long)s->warmup)) {
		long i = dir > 0 ? b : a - 1;

		if (in_window(d, (size_t)i) ||
		    (s->t[b] - s->t[a] >= SPAN_MAX_NS && b - a >= SPAN_MIN_STEPS))
			break;
		dir > 0 ? b++ : a--;
	}
	if (b <= a)
		return NULL;
	o = xcalloc(1, sizeof(*o));
	hmap_init(&o->opt_names);
	o->nsteps = (uint32_t)(b - a);
	o->bounds = xcalloc(o->nsteps + 1, sizeof(*o->bounds));
	memcpy(o->bounds, &s->t[a], (o->nsteps + 1) * sizeof(*o->bounds));
	o->lo = o->bounds[0];
	o->hi = o->bounds[o->nsteps];
	return o;
}

/* The like steps around the window's steps [a, b): one step left out at
 * each edge (CUPTI may be switching in it), as many as the span has on
 * each side. */
static void sides(const struct diagnosis *d, struct rp_collect *c, size_t a,
		  size_t b)
{
	if (a >= 2)
		c->out[0] = side_of(d, (long)a - 1, -1, c->nsteps);
	c->out[1] = side_of(d, (long)b + 1, 1, c->nsteps);
}

static void take_steps(struct rp_collect *c, const struct step_stats *s,
		       size_t a, size_t b)
{
	size_t n = 0;

	while (a + n < b && n < RP_MAX_SPAN_STEPS) {
		uint64_t span = s->t[a + n] - s->t[a];

		if ((span >= SPAN_MAX_NS && n >= SPAN_MIN_STEPS) ||
		    (n >= RP_MAX_STEPS && span >= RP_MIN_SPAN_NS))
			break;
		n++;
	}
	c->nsteps = (uint32_t)n;
	c->bounds = xcalloc(n + 1, sizeof(*c->bounds));
	memcpy(c->bounds, &s->t[a], (n + 1) * sizeof(*c->bounds));
	c->lo = c->bounds[0];
	c->hi = c->bounds[n];
}

static int choose_span(const struct diagnosis *d, struct rp_collect *c)
{
	const struct step_stats *s = &d->steps;
	size_t a = 0, b = 0, wa = 0, wb = 0;

	if (s->nt < 3 || s->nt - 1 - s->warmup < 2)
		return -1;
	if (d->have_gpu && pick_window(d, &a, &b)) {
		c->gpu_window = 1;
		wa = a;
		wb = b;
		if (d->windows.n && b - a >= 4) {   /* a window's edges */
			a++;
			b--;
		}
	} else {
		a = s->warmup + (s->nt - 1 - s->warmup) / 4;
		b = s->nt - 1;
	}
	if (b <= a)
		return -1;
	take_steps(c, s, a, b);
	if (c->gpu_window && d->windows.n)
		sides(d, c, wa, wb);
	return 0;
}

static void keep_in(struct rp_collect *c, const struct dump_event *ev)
{
	struct rp_ev *e;

	if (c->nev == RP_MAX_EVENTS) {
		if (!c->cut || ev->t0 < c->cut)
			c->cut = ev->t0;
		return;
	}
	if (c->nev == c->capev) {
		c->capev = RP_MAX_EVENTS;   /* untouched pages take no memory */
		c->ev = xrealloc(c->ev, c->capev * sizeof(*c->ev));
	}
	e = &c->ev[c->nev++];
	memset(e, 0, sizeof(*e));
	e->id = ev->id;
	e->t0 = ev->t0;
	e->t1 = ev->t1 > ev->t0 ? ev->t1 : ev->t0;
	e->tid = ev->tid;
	e->hstream = ev->stream;
	e->kind = ev->op->kind;
	e->dir = ev->op->direction;
	e->flags = ev->op->flags & GT_OPF_ASYNC ? RE_ASYNC : 0;
	if (e->kind == GT_KIND_COPY || e->kind == GT_KIND_SET)
		e->bytes = ev->arg[GT_ARG_COPY_BYTES];
	if (e->kind == GT_KIND_COPY && ev->op->nargs > GT_ARG_COPY_MEMORY)
		e->mem = ev->arg[GT_ARG_COPY_MEMORY] & GT_MEM_MASK;
	if ((ev->op->api_is & DUMP_API_QUERY) ||
	    (e->kind == GT_KIND_SYNC && (e->flags & RE_ASYNC)))
		e->flags |= RE_QUERY;
	if (ev->op->api_is & DUMP_API_CTX)
		e->flags |= RE_CTX;
	if (ev->op->api_is & DUMP_API_EVENT)
		e->flags |= RE_EVENT;
}

static int within(const struct rp_collect *c, uint64_t t)
{
	return c && t >= c->lo && t < c->hi;
}

/* A host call of the span, or of a side's steps. */
static void keep_event(struct rp_collect *c, const struct dump_event *ev)
{
	if (ev->op->kind == GT_KIND_NVTX || ev->op->kind == GT_KIND_HOSTSAMPLE ||
	    ev->result)
		return;
	if (within(c, ev->t0))
		keep_in(c, ev);
	else if (within(c->out[0], ev->t0))
		keep_in(c->out[0], ev);
	else if (within(c->out[1], ev->t0))
		keep_in(c->out[1], ev);
}

/* What the read covers: the span and its sides. */
static void read_range(const struct rp_collect *c, uint64_t *lo, uint64_t *hi)
{
	*lo = c->out[0] ? c->out[0]->lo : c->lo;
	*hi = c->out[1] ? c->out[1]->hi : c->hi;
}

/* Of the threads the GPU's SMs can hold, the share a kernel's grid
 * asks for; 0 unknown. */
static float fill_of(const int32_t *grid, const int32_t *block, int sms)
{
	double threads = 1;

	if (sms <= 0)
		return 0;
	for (int i = 0; i < 3; i++)
		threads *= (grid[i] > 0 ? grid[i] : 1) * (double)(block[i] > 0 ? block[i] : 1);
	return (float)(threads / ((double)sms * SM_THREADS));
}

/* A kernel's shape: its function and launch geometry, hashed (FNV-1a),
 * never 0. */
static uint32_t shape_of(const struct gt_gpu_kernel *k)
{
	uint32_t v[7] = { k->name_str, (uint32_t)k->grid[0], (uint32_t)k->grid[1],
			  (uint32_t)k->grid[2], (uint32_t)k->block[0],
			  (uint32_t)k->block[1], (uint32_t)k->block[2] };
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < ARRAY_SIZE(v); i++)
		for (int b = 0; b < 32; b += 8)
			h = (h ^ (v[i] >> b & 0xffu)) * 16777619u;
	return h ? h : 1;
}

/* Whether a kernel's name is an optimizer's, looked up once a name. */
static uint8_t optimizer(struct rp_collect *c, const struct dump_reader *r,
			 uint32_t name_str)
{
	uintptr_t k = name_str ? (uintptr_t)hmap_get_int(&c->opt_names, name_str) : 2;

	if (k)
		return k == 1;
	k = diag_optimizer_kernel(dump_string(r, name_str)) ? 1 : 2;
	hmap_put_int(&c->opt_names, name_str, (void *)k);
	return k == 1;
}

static void keep_gpu(struct rp_collect *c, const struct rp_grec *r)
{
	struct rp_grec *g;

	if (!r->host_id || r->e < r->s || r->e < c->lo ||
	    r->s >= c->hi + GPU_MARGIN_NS || c->ngr == RP_MAX_GPU)
		return;
	if (c->ngr == c->capgr) {
		c->capgr = RP_MAX_GPU;      /* untouched pages take no memory */
		c->gr = xrealloc(c->gr, c->capgr * sizeof(*c->gr));
	}
	g = &c->gr[c->ngr++];
	*g = *r;
}

static void keep_records(struct rp_collect *c, const struct gpu_clock *clk,
			 const struct dump_reader *r, const struct dump_record *rec,
			 int sms)
{
	const uint8_t *p = rec->gpu.recs;

	for (uint32_t i = 0; i < rec->gpu.h.count; i++, p += rec->gpu.h.rec_size) {
		struct gt_gpu_kernel k;
		struct gt_gpu_copy cp;

		switch (rec->gpu.h.kind) {
		case GT_GPU_KERNEL:
			memcpy(&k, p, sizeof(k));
			if (k.start)
				keep_gpu(c, &(struct rp_grec){
					.host_id = k.host_id,
					.s = gpu_clock_map(clk, k.start),
					.e = gpu_clock_map(clk, k.end),
					.stream = k.stream, .device = k.device,
					.shape = shape_of(&k),
					.opt = optimizer(c, r, k.name_str),
					.fill = fill_of(k.grid, k.block, sms) });
			break;
		case GT_GPU_MEMCPY:
		case GT_GPU_MEMSET:
			memcpy(&cp, p, sizeof(cp));
			if (cp.start)
				keep_gpu(c, &(struct rp_grec){
					.host_id = cp.host_id,
					.s = gpu_clock_map(clk, cp.start),
					.e = gpu_clock_map(clk, cp.end),
					.stream = cp.stream, .device = cp.device });
			break;
		default:
			return;
		}
	}
}

/* How far past the span the dump is read for its GPU records: a window's
 * records come within its drain (at most 30 s in the library). */
#define READ_PAST_NS (60ull * 1000000000u)

/* The events chunks that hold nothing of the span, by the first read. */
struct span_chunks {
	const struct chunk_times *times;
	size_t at;                  /* chunk_times_outside's cursor */
	uint64_t lo, hi;
	uint64_t off;               /* the last chunk asked about, + 1 */
	int out;                    /* its answer */
};

/* The chunk at offset holds nothing of the span (asked once a chunk: its
 * events come one after the other). */
static int outside(struct span_chunks *s, uint64_t offset)
{
	if (s->off != offset + 1) {
		s->off = offset + 1;
		s->out = chunk_times_outside(s->times, &s->at, offset, s->lo,
					     s->hi, s->hi + READ_PAST_NS);
	}
	return s->out;
}

/* The rest of the chunk at offset starts at or past the span's end, and
 * holds nothing that would end the read. */
static int rest_after(struct span_chunks *s, uint64_t offset, uint64_t t0)
{
	return t0 >= s->hi &&
	       chunk_times_in_order(s->times, &s->at, offset, s->hi + READ_PAST_NS);
}

static int skip_chunk(void *ctx, uint64_t offset, uint32_t type)
{
	return type == GT_CHUNK_EVENTS && outside(ctx, offset);
}

static int read_span(struct model *m, struct diagnosis *d, struct rp_collect *c,
		     char *why, size_t whylen)
{
	const struct gpu_clock *clk = m->gpu ? &m->gpu->clock : NULL;
	struct dump_reader *r;
	struct dump_record rec;
	uint64_t last = UINT64_MAX;
	struct span_chunks sk = { .times = &d->chunk_times };
	int rc;

	read_range(c, &sk.lo, &sk.hi);
	if (dump_open(&r, m->path) < 0) {
		snprintf(why, whylen, "cannot read the dump again: %s", dump_error(r));
		dump_close(r);
		return -1;
	}
	progress_begin("replaying steps", progress_file_size(m->path));
	dump_skip_chunks(r, skip_chunk, &sk);
	while ((rc = dump_next(r, &rec)) > 0) {
		if (rec.offset != last)
			progress_tick(last = rec.offset);
		if (rec.type == DUMP_EVENT && rec.event.t0 > sk.hi + READ_PAST_NS)
			break;          /* the span's GPU records came long before */
		if (rec.type == DUMP_EVENT && outside(&sk, rec.offset))
			dump_skip_events(r);    /* not passed over: cannot seek */
		else if (rec.type == DUMP_EVENT && rest_after(&sk, rec.offset,
							      rec.event.t0))
			dump_skip_events(r);    /* keeps nothing after it */
		else if (rec.type == DUMP_EVENT)
			keep_event(c, &rec.event);
		else if (rec.type == DUMP_GPU && clk && clk->pairs)
			keep_records(c, clk, r, &rec, d->env.sm_count);
	}
	progress_end();
	if (rc < 0)
		snprintf(why, whylen, "cannot read the dump again: %s", dump_error(r));
	dump_close(r);
	return rc < 0 ? -1 : 0;
}

/* Past the event budget: end the span at the last boundary before the cut. */
static void apply_cut(struct rp_collect *c)
{
	size_t k = 0;

	if (!c->cut)
		return;
	while (c->nsteps && c->bounds[c->nsteps] > c->cut)
		c->nsteps--;
	c->hi = c->bounds[c->nsteps];
	for (size_t i = 0; i < c->nev; i++)
		if (c->ev[i].t0 < c->hi)
			c->ev[k++] = c->ev[i];
	c->nev = k;
}

/* A side too short to pair anything with is dropped. */
static void side_cut(struct rp_collect **o)
{
	if (!*o)
		return;
	apply_cut(*o);
	if (!(*o)->nsteps || !(*o)->nev) {
		replay_collect_release(*o);
		free(*o);
		*o = NULL;
	}
}

int replay_collect(struct model *m, struct diagnosis *d, struct rp_collect *c,
		   char *why, size_t whylen)
{
	memset(c, 0, sizeof(*c));
	hmap_init(&c->opt_names);
	if (!m->path) {
		snprintf(why, whylen, "the dump cannot be read a second time");
		return -1;
	}
	if (choose_span(d, c) < 0) {
		snprintf(why, whylen, "too few steady steps");
		return -1;
	}
	if (read_span(m, d, c, why, whylen) < 0)
		return -1;
	apply_cut(c);
	c->lend = !(m->framework && framework_dataloader(m->framework));
	side_cut(&c->out[0]);
	side_cut(&c->out[1]);
	if (c->nsteps < 2 || !c->nev) {
		snprintf(why, whylen, "too few steps in the span it could keep");
		return -1;
	}
	return 0;
}

void replay_collect_release(struct rp_collect *c)
{
	for (int i = 0; i < 2; i++)
		if (c->out[i]) {
			replay_collect_release(c->out[i]);
			free(c->out[i]);
		}
	free(c->bounds);
	free(c->ev);
	free(c->gr);
	hmap_release(&c->opt_names);
	memset(c, 0, sizeof(*c));
}
