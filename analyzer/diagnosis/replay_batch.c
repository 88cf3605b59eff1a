/* SPDX-License-Identifier: MIT */
/*
 * replay_batch.c - a larger batch, replayed; its gain is in time per
 * sample (throughput in samples per second).
 *
 * Gradient accumulation first: a step whose GPU calls, but for the
 * optimizer's kernels (outside them), are one block repeated r times, trains r
 * micro-batches per optimizer step.  Merged into one batch r times as
 * large, the first block runs once on r times the samples and the
 * others go (their launches, their host time); the samples per step
 * stay, so the step time is the time per sample.
 *
 * Else, on the evidence of a small batch (below), batch x k, compared
 * per sample.  What grows with the batch:
 *
 *   - each kernel takes max(1, k x fill) times as long (fill: the share
 *     of the GPU's thread slots its grid asks for, at most 1), the band's
 *     low end 1 + (k - 1) fill; copies k times;
 *   - the host's data work: the batch fetch in the main thread (its
 *     stretches flagged RPF_DATA) k times, the host staging of pageable
 *     copies k times, the DataLoader workers' batch k times as long to
 *     make (their pace: the steps' now when the steps wait on data, else
 *     their CPU time per batch);
 *
 * what does not: launches, Python dispatch, synchronization.  Without a
 * DataLoader seen the host's stretches outside CUDA may or may not be
 * data work: the point keeps them, the band's low end grows the data
 * stretches and every stretch over RP_FEED_GAP_NS (pre- and
 * post-processing; shorter ones between launches are dispatch).
 *
 * It applies where the rules see a small batch, or where a framework
 * that batches (PyTorch, JAX, TensorFlow) spends RP_LATENCY_SHARE of its
 * kernel time in kernels asking for under RP_LATENCY_FILL of the GPU's
 * threads: latency-bound kernels a larger batch fills nearly for free
 * (a CUDA program of its own has no batch the dump can name).  k is
 * the power of two with the shortest time per sample (the first within
 * 2% of it), at most RP_MAX_BATCH and what the GPU memory allows: the
 * process's most memory over the GPU's (all of it growing with the
 * batch: a lower bound of the room).
 */
#include <math.h>
#include <stdlib.h>

#include "analyzer/diagnosis/diagnosis_internal.h"
#include "analyzer/diagnosis/replay_fix.h"
#include "analyzer/lib/util.h"

#define ACCUM_COVER 0.85        /* the repeated blocks: this share of the
				   step's GPU calls but the optimizer's
				   (a model's alike layers repeat less:
				   forward and backward apart) */
#define ACCUM_MAX_CALLS 8192    /* steps longer are not searched */
#define ACCUM_STEPS 8           /* steps searched for the blocks */
#define DATA_BOUND 0.10         /* steps waiting on data this share of
				   their time: the workers set the pace */

/* ---- gradient accumulation -------------------------------------------- */

/* A step's GPU calls in the steps' thread: their items, and what each is
 * (a kernel's shape; another call's kind and direction). */
struct calls {
	size_t *item;
	uint32_t *key;
	uint8_t *opt;
	size_t n;
};

static uint32_t call_key(const struct rp_graph *g, const struct rp_item *it)
{
	const struct rp_op *op = &g->ops[it->op - 1];

	return op->shape ? op->shape : 0x80000000u | (uint32_t)it->kind << 8 | it->dir;
}

static void step_calls(const struct rp_graph *g, uint32_t step, struct calls *c)
{
	const struct rp_thread *t = &g->th[0];

	c->n = 0;
	for (size_t i = t->first; i < t->first + t->n; i++) {
		const struct rp_item *it = &g->items[i];

		if (it->step != step || !it->op)
			continue;
		c->item[c->n] = i;
		c->key[c->n] = call_key(g, it);
		c->opt[c->n++] = g->ops[it->op - 1].opt;
	}
}

/* The blocks found: calls [at, at + r * p) are r blocks of p alike;
 * calls [lead, at) one more micro-batch before them, unlike them (the
 * first one's backward makes the gradients the others add to). */
struct blocks {
	size_t at, p, r, lead;
};

/* The longest run of calls alike p apart, its start in *at; 0 as soon
 * as none can reach need. */
static size_t run_alike(const struct calls *c, size_t p, size_t need,
			size_t *at)
{
	size_t best = 0, len = 0;

	for (size_t i = 0; i + p < c->n; i++) {
		if (best < need && len + (c->n - p - i) < need)
			return 0;
		len = c->key[i] == c->key[i + p] ? len + 1 : 0;
		if (len > best) {
			best = len;
			*at = i + 1 - len;
		}
	}
	return best;
}

/* Whether the optimizer's kernels run once a step, outside the blocks
 * (where the step is cut, before or after them), not in them. */
static int optimizer_outside(const struct calls *c, const struct blocks *b)
{
	size_t end = b->at + b->r * b->p, outside = 0;

	for (size_t i = 0; i < c->n; i++) {
		if (c->opt[i] && i >= b->at && i < end)
			return 0;
		outside += c->opt[i];
	}
	return outside > 0;
}

/* The calls before the blocks, since the optimizer's or the step's
 * start: a micro-batch of its own when they number about a block. */
static void lead_block(const struct calls *c, struct blocks *b)
{
	size_t i = b->at;

	while (i > 0 && !c->opt[i - 1])
		i--;
	b->lead = b->at;
	if (b->at - i >= b->p / 2 && b->at - i <= b->p + b->p / 2) {
		b->lead = i;
		b->r++;
	}
}

/* The smallest block repeated to cover ACCUM_COVER of the step's calls
 * but the optimizer's. */
static int find_blocks(const struct calls *c, struct blocks *b)
{
	size_t opt = 0;

	for (size_t i = 0; i < c->n; i++)
		opt += c->opt[i];
	if (c->n < 4 || c->n > ACCUM_MAX_CALLS || !opt)
		return 0;
	for (size_t p = 1; p <= (c->n - opt) / 2; p++) {
		double cover = ACCUM_COVER * (double)(c->n - opt);
		size_t at = 0, len = run_alike(c, p, cover > 2 * p ?
					       (size_t)cover - 2 * p : 0, &at);

		b->at = at;
		b->p = p;
		b->r = (len + p) / p;
		if (b->r < 2 || b->r * p < cover || !optimizer_outside(c, b))
			continue;
		lead_block(c, b);
		return 1;
	}
	return 0;
}

static void calls_alloc(struct calls *c, size_t n)
{
	c->item = xmalloc((n + 1) * sizeof(*c->item));
	c->key = xmalloc((n + 1) * sizeof(*c->key));
	c->opt = xmalloc(n + 1);
}

static void calls_release(struct calls *c)
{
	free(c->item);
	free(c->key);
	free(c->opt);
}

/* The micro-batches a step accumulates: the blocks' count found alike
 * in at least half the steps searched, 0 none. */
static size_t accumulation(const struct rp_graph *g)
{
	struct calls c;
	struct blocks b;
	size_t found[ACCUM_STEPS], tried = 0, best = 0, most = 0;

	if (!g->nth)
		return 0;
	calls_alloc(&c, g->th[0].n);
	for (uint32_t s = 0; s < g->steps && tried < ACCUM_STEPS; s++) {
		step_calls(g, s, &c);
		found[tried++] = find_blocks(&c, &b) ? b.r : 0;
	}
	calls_release(&c);
	for (size_t i = 0; i < tried; i++) {
		size_t n = 0;

		for (size_t j = 0; j < tried; j++)
			n += found[j] == found[i];
		if (found[i] && n > most) {
			most = n;
			best = found[i];
		}
	}
	return 2 * most >= tried ? best : 0;
}

/* An item made to take no time and queue nothing that takes any. */
static void drop_item(struct rp_graph *g, struct rp_item *it)
{
	it->own = 0;
	it->wkind = RW_NONE;
	if (it->op) {
		g->ops[it->op - 1].dur = 0;
		g->ops[it->op - 1].lat = 0;
		g->ops[it->op - 1].gap = 0;
	}
}

/* How much longer a kernel whose grid asks for `fill` of the GPU's
 * thread slots runs on k times the samples: the point max(1, k fill')
 * (the free slots take the added samples first: latency-bound kernels
 * stay as long), the low end 1 + (k - 1) fill' (each added sample costs
 * its share of the GPU from the first); fill' = min(fill, 1): a kernel
 * that fills the GPU grows as the batch. */
double rp_kernel_growth(double fill, double k, enum rp_end end)
{
	double f;

	if (fill <= 0)
		return k;
	fill = fill < 1 ? fill : 1;
	if (end == RP_LOW)
		return 1 + (k - 1) * fill;
	f = k * fill;
	return f > 1 ? f : 1;
}

/* One op on a batch k times as large. */
static void scale_op(struct rp_op *op, double k, enum rp_end end)
{
	double f = op->kind == RO_KERNEL ? rp_kernel_growth(op->fill, k, end) :
		   op->kind == RO_SET ? 1 : k;

	op->dur = sat_from_double((double)op->dur * (f > 1 ? f : 1));
}

/* Items [a, b) on r times the samples: their ops and data work. */
static void scale_items(struct rp_graph *g, size_t a, size_t b, double r)
{
	for (size_t i = a; i < b; i++) {
		struct rp_item *it = &g->items[i];

		if (it->op)
			scale_op(&g->ops[it->op - 1], r, RP_POINT);
		if (it->flags & RPF_DATA)
			it->own = sat_from_double((double)it->own * r);
	}
}

/* One step's r micro-batches merged into its first, on r times the
 * samples: the unlike one before the alike blocks if there is one (it
 * makes the gradients, the others add to them: one batch does not),
 * else the first block; the others go. */
static void merge_step(struct rp_graph *g, const struct calls *c,
		       const struct blocks *b)
{
	size_t alike = b->r - (b->lead < b->at);
	size_t first = c->item[b->lead];
	size_t second = b->lead < b->at ? c->item[b->at] : c->item[b->at + b->p];
	size_t end = b->at + alike * b->p < c->n ? c->item[b->at + alike * b->p] :
		     c->item[c->n - 1] + 1;

	scale_items(g, first, second, (double)b->r);
	for (size_t i = second; i < end; i++)
		drop_item(g, &g->items[i]);
}

static int merge_accumulation(struct edit *ed, size_t r)
{
	struct rp_graph *g = fix_writable(ed);
	struct calls c;
	struct blocks b;
	int changed = 0;

	calls_alloc(&c, g->th[0].n);
	for (uint32_t s = 0; s < g->steps; s++) {
		step_calls(g, s, &c);
		if (!find_blocks(&c, &b) || b.r != r)
			continue;
		merge_step(g, &c, &b);
		changed = 1;
	}
	calls_release(&c);
	return changed;
}

/* ---- a larger batch ---------------------------------------------------- */

/* How the host's work grows, for one figure. */
struct growth {
	enum rp_end end;
	int stretches;          /* the data stretches grow (no workers) */
	int long_cpu;           /* ...and all long host stretches (the low
				   end without workers: per-sample pre- and
				   post-processing) */
	double pace;            /* with workers: their interval now, ns */
};

static void growth_of(const struct rp_graph *g, const struct rp_env *e,
		      enum rp_end end, struct growth *gr)
{
	uint64_t *data = fix_data_per_step(g), sum = 0;
	double wait;

	for (uint32_t s = 0; s < g->steps; s++)
		sum += data[s];
	free(data);
	wait = g->measured ? (double)sum / (double)g->measured : 0;
	gr->end = end;
	gr->stretches = e->dataloader || end == RP_LOW;
	gr->long_cpu = end == RP_LOW;
	gr->pace = 0;
	if (!e->nworkers)
		return;
	gr->stretches = gr->long_cpu = 0;
	gr->pace = wait >= DATA_BOUND || end == RP_LOW ?
		   (double)fix_step_pace(g) :
		   fix_worker_cpu(g, e, 0) / e->nworkers;
}

/* The whole graph on a batch k times as large (growth: the host's). */
static void scale_batch(struct edit *ed, double k, const struct growth *gr)
{
	struct rp_graph *g = fix_writable(ed);

	for (size_t i = 0; i < g->nops; i++)
		scale_op(&g->ops[i], k, gr->end);
	for (size_t i = 0; i < g->nitems; i++) {
		struct rp_item *it = &g->items[i];

		if (((it->flags & RPF_DATA) && gr->stretches) ||
		    (gr->long_cpu && it->kind == RK_CPU && it->own >= RP_FEED_GAP_NS) ||
		    (it->kind == RK_COPY && (it->flags & RPF_PAGEABLE) &&
		     it->wkind == RW_NONE))
			it->own = sat_from_double((double)it->own * k);
	}
	if (gr->pace > 0)
		fix_supply_items(ed, sat_from_double(k * gr->pace), RP_HANDOFF_NS);
}

/* Of the kernel time whose grids are known, the share in kernels asking
 * for under RP_LATENCY_FILL of the GPU's thread slots; -1 none known. */
double rp_latency_share(const struct rp_graph *g)
{
	double small = 0, known = 0;

	for (size_t i = 0; i < g->nops; i++) {
		const struct rp_op *op = &g->ops[i];

		if (op->kind != RO_KERNEL || op->fill <= 0)
			continue;
		known += (double)op->dur;
		small += op->fill < RP_LATENCY_FILL ? (double)op->dur : 0;
	}
	return known > 0 ? small / known : -1;
}

/* The kernels' time on k times the samples over now, for one figure. */
static double gpu_growth(const struct rp_graph *g, double k, enum rp_end end)
{
	double now = 0, then = 0;

	for (size_t i = 0; i < g->nops; i++)
		if (g->ops[i].kind == RO_KERNEL) {
			now += (double)g->ops[i].dur;
			then += (double)g->ops[i].dur *
				rp_kernel_growth(g->ops[i].fill, k, end);
		}
	return now > 0 ? then / now : 1;
}

/* Evidence of a small batch: the rules' (kernels filling few SMs, the
 * optimizer's share), or, in a framework that batches, most kernel time
 * in latency-bound kernels. */
static int small_batch(const struct rp_graph *g, const struct rp_env *e)
{
	return e->small_batch >= RP_SMALL_BATCH ||
	       (e->batched && rp_latency_share(g) >= RP_LATENCY_SHARE);
}

static double batch_cap(const struct rp_env *e)
{
	return e->mem_headroom > 0 && e->mem_headroom < RP_MAX_BATCH ?
	       e->mem_headroom : RP_MAX_BATCH;
}

/* The power of two with the shortest time per sample (the first within
 * 2% of it), 1 none better. */
static double best_factor(const struct rp_graph *g, const struct growth *gr,
			  double cap)
{
	double best = 0, per[16], k = 1;
	int n = 0;

	for (double x = 2; x <= cap && n < 16; x *= 2, n++) {
		struct edit h = { .g = g };

		scale_batch(&h, x, gr);
		per[n] = (double)replay_run(h.g, NULL) / x;
		replay_release(&h.copy);
		best = !n || per[n] < best ? per[n] : best;
	}
	for (int i = 0; i < n && k == 1; i++)
		if (per[i] <= 1.02 * best)
			k = ldexp(1.0, i + 1);
	return k;
}

static void say_growth(struct rp_fix_result *r, const struct rp_env *e,
		       const struct growth *gr, const struct rp_graph *g)
{
	double lat = rp_latency_share(g);

	fix_assume(r, "batch x%.0f: kernel time %.1fx (low end %.1fx: a kernel "
		   "grows once its grid fills the GPU, the low end from the "
		   "first sample)%s", r->k,
		   gpu_growth(g, r->k, RP_POINT), gpu_growth(g, r->k, RP_LOW),
		   lat >= 0 ? "" : ", grids unknown: as the batch");
	if (lat >= 0)
		fix_assume(r, "%.0f%% of it in grids under %.0f%% of the GPU's "
			   "threads", 100 * lat, 100 * RP_LATENCY_FILL);
	if (gr->pace > 0)
		fix_assume(r, "the DataLoader workers make a batch %.0fx as large "
			   "%.0fx as slowly (now one every %.1f ms)", r->k, r->k,
			   gr->pace / 1e6);
	else if (gr->stretches)
		fix_assume(r, "the batch fetch in the main thread takes %.0fx as "
			   "long", r->k);
	else
		fix_assume(r, "the host's work outside CUDA stays (no DataLoader "
			   "seen; the low end grows its stretches over %.0f us with "
			   "the batch)", RP_FEED_GAP_NS / 1e3);
	fix_assume(r, "launches, Python dispatch and waits stay; copies grow");
	if (e->mem_headroom > 0)
		fix_assume(r, "memory: this process used 1/%.0f of the GPU's at "
			   "most", e->mem_headroom);
}

int fix_batch(struct edit *ed, const struct rp_env *e, enum rp_end end,
	      struct rp_fix_result *r)
{
	size_t accum = end == RP_POINT ? accumulation(ed->g) : (size_t)r->accum;
	struct growth gr;

	r->per_sample = 1;
	if (accum >= 2 && accum <= batch_cap(e)) {
		r->k = r->accum = (double)accum;
		if (end == RP_POINT)
			fix_assume(r, "%zu micro-batches of gradient accumulation "
				   "a step, merged into one batch %zux as large: "
				   "one block of launches instead of %zu", accum,
				   accum, accum);
		return merge_accumulation(ed, accum);
	}
	if (!small_batch(ed->g, e))
		return 0;
	growth_of(ed->g, e, end, &gr);
	if (end == RP_POINT)
		r->k = best_factor(ed->g, &gr, batch_cap(e));
	if (r->k < 2)
		return 0;
	if (end == RP_POINT)
		say_growth(r, e, &gr, ed->g);
	scale_batch(ed, r->k, &gr);
	return 1;
}
