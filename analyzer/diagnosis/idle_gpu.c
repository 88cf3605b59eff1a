/* SPDX-License-Identifier: MIT */
/*
 * idle_gpu.c - what each GPU ran, from the CUPTI records (GT_CHUNK_GPU),
 * on the host clock through the GPU timeline part's clock fit: spans of
 * compute kernels, of NCCL kernels, of copies and memsets, and of work
 * submitted but not started (a kernel's submit time to its start), per
 * device; the windows with GPU timing; and, per 100 ms of the run,
 * kernel counts, GPU time, small kernels, grid sizes, host launches and
 * bytes uploaded, for the kernel-level evidence of any stretch of time.
 */
#include <string.h>

#include "analyzer/diagnosis/diagnosis_internal.h"
#include "analyzer/passes/gpu_internal.h"
#include "analyzer/lib/util.h"

#define GRID_CLASSES 12             /* blocks in [2^i, 2^i+1), the last: more */

/* A bucket other than the last one asked for (idle_bucket). */
struct kbucket *idle_bucket_other(struct diagnosis *d, uint64_t t)
{
	struct kbucket *b, **page;
	uint64_t i;

	if (t < d->base_ns)
		t = d->base_ns;
	i = (t - d->base_ns) / DIAG_BUCKET_NS;
	if (i >= DIAG_MAX_BUCKETS)
		return NULL;
	page = &d->bucket_pages[i / DIAG_PAGE_BUCKETS];
	if (!*page)
		*page = xcalloc(DIAG_PAGE_BUCKETS, sizeof(**page));
	if (i >= d->nbuckets)
		d->nbuckets = i + 1;
	b = &(*page)[i % DIAG_PAGE_BUCKETS];
	idle_count_in(b, t);
	d->last_b = b;
	d->last_b_lo = d->base_ns + i * DIAG_BUCKET_NS;
	d->last_b_len = DIAG_BUCKET_NS;
	return b;
}

static struct dev_timeline *dev_of(struct diagnosis *d, uint32_t dev)
{
	if (dev >= DIAG_MAX_DEVICES)
		return NULL;
	if (dev >= d->ndev)
		d->ndev = dev + 1;
	return &d->dev[dev];
}

static void add_span(struct diagnosis *d, struct dev_timeline *dv,
		     enum gpu_list l, uint64_t t0, uint64_t t1)
{
	if (span_add(&dv->l[l], t0, t1, &d->gpu_budget[l]) < 0) {
		d->gpu_lost++;
		if (!d->cut_t || t0 < d->cut_t)
			d->cut_t = t0;
	}
	if (l == GL_PENDING)
		return;
	if (!d->first_gpu || t0 < d->first_gpu)
		d->first_gpu = t0;
	if (t1 > d->last_gpu)
		d->last_gpu = t1;
	dv->records++;
	d->gpu_records++;
}

static unsigned grid_class(const int32_t *grid)
{
	uint64_t blocks = 1;
	unsigned c = 0;

	for (int i = 0; i < 3; i++)
		blocks *= grid[i] > 0 ? (uint64_t)grid[i] : 1;
	while (c + 1 < GRID_CLASSES && blocks >= 2ull << c)
		c++;
	return c;
}

enum { K_COMPUTE = 1, K_NCCL = 2, K_OPTIMIZER = 3 };

/* What a kernel is, from its name (decided once per name). */
static int kernel_kind(struct diagnosis *d, const struct dump_reader *r,
		       uint32_t name_str)
{
	static const char *const opt[] = {
		"multi_tensor", "foreach", "adam", "sgd", "lamb", "optimizer",
	};
	uintptr_t k = name_str ? (uintptr_t)hmap_get_int(&d->kinds, name_str) : 0;
	const char *name;

	if (k)
		return (int)k - 1;
	name = name_str ? dump_string(r, name_str) : NULL;
	k = K_COMPUTE;
	if (name && !strncmp(name, "nccl", 4))
		k = K_NCCL;
	for (size_t i = 0; name && k == K_COMPUTE && i < ARRAY_SIZE(opt); i++)
		if (strcasestr(name, opt[i]))
			k = K_OPTIMIZER;
	if (name_str)
		hmap_put_int(&d->kinds, name_str, (void *)(k + 1));
	return (int)k;
}

static void kernel_stats(struct diagnosis *d, uint64_t start, uint64_t ns,
			 int kind, const int32_t *grid)
{
	struct kbucket *b = idle_bucket(d, start);

	if (!b)
		return;
	b->kernels++;
	b->kernel_ns += ns;
	if (kind == K_NCCL) {
		b->nccl_ns += ns;
		return;
	}
	if (kind == K_OPTIMIZER)
		b->opt_ns += ns;
	if (ns < DIAG_SMALL_KERNEL_NS) {
		b->small++;
		b->small_ns += ns;
	}
	b->grid_ns[grid_class(grid)] += ns;
}

static void add_kernel(struct diagnosis *d, const struct gpu_clock *c,
		       const struct dump_reader *r, const void *p)
{
	struct gt_gpu_kernel k;
	struct dev_timeline *dv;
	uint64_t s, e;
	int kind;

	memcpy(&k, p, sizeof(k));
	if (!k.start || k.end < k.start || !(dv = dev_of(d, k.device)))
		return;
	s = gpu_clock_map(c, k.start);
	e = gpu_clock_map(c, k.end);
	kind = kernel_kind(d, r, k.name_str);
	add_span(d, dv, kind == K_NCCL ? GL_NCCL : GL_COMPUTE, s, e);
	if (k.submitted && k.submitted < k.start)
		add_span(d, dv, GL_PENDING, gpu_clock_map(c, k.submitted), s);
	kernel_stats(d, s, e - s, kind, k.grid);
	if (kind != K_NCCL && k.name_str)
		contention_add(d, k.name_str, k.grid, e - s);
}

/* GPU bandwidth of pageable and pinned copies, for the what-if. */
static void copy_bw(struct diagnosis *d, const struct gt_gpu_copy *c)
{
	int dir = c->copy_kind == 1 ? 0 : c->copy_kind == 2 ? 1 : -1;
	uint8_t host = dir == 0 ? c->src_kind : c->dst_kind;

	if (dir < 0 || (host != 1 && host != 2))
		return;
	d->bw.bytes[dir][host - 1] += c->bytes;
	d->bw.ns[dir][host - 1] += c->end - c->start;
}

static void add_copy(struct diagnosis *d, const struct gpu_clock *clk,
		     const void *p, uint32_t kind)
{
	struct gt_gpu_copy c;
	struct dev_timeline *dv;

	memcpy(&c, p, sizeof(c));
	if (!c.start || c.end < c.start || !(dv = dev_of(d, c.device)))
		return;
	add_span(d, dv, GL_COPY, gpu_clock_map(clk, c.start),
		 gpu_clock_map(clk, c.end));
	if (kind == GT_GPU_MEMCPY)
		copy_bw(d, &c);
}

static void add_graph(struct diagnosis *d, const struct gpu_clock *clk,
		      const void *p)
{
	struct gt_gpu_span g;
	struct dev_timeline *dv;

	memcpy(&g, p, sizeof(g));
	if (!g.start || g.end < g.start || !(dv = dev_of(d, g.device)))
		return;
	add_span(d, dv, GL_COMPUTE, gpu_clock_map(clk, g.start),
		 gpu_clock_map(clk, g.end));
}

void idle_gpu_chunk(struct model *m, struct diagnosis *d,
		    const struct dump_reader *r, const struct dump_record *rec)
{
	const uint8_t *p = rec->gpu.recs;
	const struct gpu_clock *clk = m->gpu ? &m->gpu->clock : NULL;
	uint32_t kind = rec->gpu.h.kind;

	if (kind == GT_GPU_STATE && rec->gpu.h.count) {
		struct gt_gpu_state st;

		memcpy(&st, p + (size_t)(rec->gpu.h.count - 1) * rec->gpu.h.rec_size,
		       sizeof(st));
		d->cupti_state = (int)st.state;
		return;
	}
	if (!clk || !clk->pairs)
		return;                 /* no clock pair yet: cannot place them */
	for (uint32_t i = 0; i < rec->gpu.h.count; i++, p += rec->gpu.h.rec_size) {
		if (kind == GT_GPU_KERNEL)
			add_kernel(d, clk, r, p);
		else if (kind == GT_GPU_MEMCPY || kind == GT_GPU_MEMSET)
			add_copy(d, clk, p, kind);
		else if (kind == GT_GPU_GRAPH)
			add_graph(d, clk, p);
	}
}

void idle_gpu_window(struct diagnosis *d, const struct gt_gpu_window *w)
{
	if (!w->end_ns) {
		d->window_open = w->start_ns;
		return;
	}
	if (d->window_open == w->start_ns)
		d->window_open = 0;
	if (d->windows.n >= DIAG_MAX_WINDOWS)
		return;
	span_add(&d->windows, w->start_ns, w->end_ns, NULL);
	if (w->seq == 1 && !d->first_window) {      /* the first window 1 */
		d->first_window = d->windows.n;
		d->first_span = (struct span){ w->start_ns, w->end_ns };
	}
}

/* A window's switching: why it opened. */
void idle_gpu_switch(struct diagnosis *d, const struct gt_gpu_switch *sw)
{
	if (sw->seq == 1)
		d->first_at_start = sw->reason == GT_WINDOW_START;
}

/* A launch shape's function and grid class (launch() in diagnosis.c). */
void idle_gpu_shape(struct diagnosis *d, const struct gt_shape *s)
{
	int32_t grid[3] = { (int32_t)s->grid[0], (int32_t)s->grid[1],
			    (int32_t)s->grid[2] };
	uintptr_t info = (uintptr_t)(s->function & 0x3fffffffu) << SHAPE_FN_SHIFT |
			 (grid_class(grid) + 1);

	hmap_put_int(&d->shape_info, s->id, (void *)info);
}

/* Whether window 1's span is its own (no other window merged into it). */
static int first_alone(const struct diagnosis *d)
{
	const struct span *v = &d->windows.v[d->first_window - 1];

	return v->t0 == d->first_span.t0 && v->t1 == d->first_span.t1;
}

void idle_gpu_finish(struct model *m, struct diagnosis *d)
{
	uint64_t end = d->last_gpu > d->last_t ? d->last_gpu : d->last_t;

	if (d->window_open && end > d->window_open)
		span_add(&d->windows, d->window_open, end, NULL);
	d->window_open = 0;
	/* the start window covers the warm-up: the steady steps' windows
	 * speak for the steady state, when there are some (and it was not
	 * merged with one) */
	if (d->first_at_start && d->first_window && d->windows.n > 1 &&
	    first_alone(d)) {
		size_t i = d->first_window - 1;

		memmove(&d->windows.v[i], &d->windows.v[i + 1],
			(d->windows.n - i - 1) * sizeof(*d->windows.v));
		d->windows.n--;
	}
	span_normalize(&d->windows);
	for (uint32_t i = 0; i < d->ndev; i++)
		for (int l = 0; l < GL_KINDS; l++)
			span_normalize(&d->dev[i].l[l]);
	(void)m;
}

/* The SM fill of grid class c on sm SMs; *low: under half of them. */
static double class_fill(unsigned c, int sm, int *low)
{
	double blocks = c + 1 < GRID_CLASSES ? 1.41 * (double)(1u << c)
					     : (double)(1u << c) * 2;

	*low = (double)(2u << c) <= sm / 2.0;
	return blocks >= sm ? 1.0 : blocks / sm;
}

/* Add bucket b, weighted by the share w of its activity in the region. */
static void add_bucket(struct diagnosis *d, const struct kbucket *b, double w)
{
	int sm = d->env.sm_count;

	d->region_kernels += sat_from_double(w * b->kernels + 0.5);
	d->region_kernel_ns += sat_from_double(w * b->kernel_ns);
	d->region_small += sat_from_double(w * b->small + 0.5);
	d->region_small_ns += sat_from_double(w * b->small_ns);
	d->region_nccl_ns += sat_from_double(w * b->nccl_ns);
	d->region_opt_ns += sat_from_double(w * b->opt_ns);
	d->region_launches += sat_from_double(w * b->launches + 0.5);
	d->region_launch_ns += sat_from_double(w * b->launch_ns);
	d->region_htod_bytes += sat_from_double(w * b->htod_bytes);
	d->region_graphs += sat_from_double(w * b->graphs + 0.5);
	for (unsigned c = 0; sm > 0 && c < GRID_CLASSES; c++) {
		int low;
		double f = class_fill(c, sm, &low);

		d->region_fill_ns += w * f * b->grid_ns[c];
		d->region_fill_known_ns += sat_from_double(w * b->grid_ns[c]);
		d->region_fill_known_launches += sat_from_double(w * b->grid_launches[c] + 0.5);
		if (!low)
			continue;
		d->region_lowfill_ns += sat_from_double(w * b->grid_ns[c]);
		d->region_lowfill_launches += sat_from_double(w * b->grid_launches[c] + 0.5);
	}
}

void idle_gpu_region_stats(struct diagnosis *d, uint64_t t0, uint64_t t1)
{
	uint64_t first, last;

	if (!d->nbuckets || t1 <= t0 || t1 <= d->base_ns)
		return;
	first = t0 > d->base_ns ? (t0 - d->base_ns) / DIAG_BUCKET_NS : 0;
	last = (t1 - 1 - d->base_ns) / DIAG_BUCKET_NS;
	if (last >= d->nbuckets)
		last = d->nbuckets - 1;
	for (uint64_t i = first; i <= last; i++) {
		const struct kbucket *page = d->bucket_pages[i / DIAG_PAGE_BUCKETS];
		const struct kbucket *b = page ? &page[i % DIAG_PAGE_BUCKETS] : NULL;
		uint64_t lo, hi;

		if (!b || !b->t_hi)
			continue;
		lo = b->t_lo > t0 ? b->t_lo : t0;
		hi = b->t_hi < t1 ? b->t_hi : t1;
		if (b->t_hi == b->t_lo)         /* one moment: in or out */
			add_bucket(d, b, b->t_lo >= t0 && b->t_lo < t1);
		else if (hi > lo)
			add_bucket(d, b, (double)(hi - lo) / (double)(b->t_hi - b->t_lo));
	}
}
