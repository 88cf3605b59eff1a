/* SPDX-License-Identifier: MIT */
/*
 * gpu.c - fold the GPU timeline into the model as the dump streams by.
 *
 * A GPU record names the host event that caused it (host_id, joined by
 * the library through CUPTI's correlation ids).  The two halves come in
 * either order: a host launch made inside a window waits in a table for
 * its kernel record, a GPU record whose host event has not come yet waits
 * in another; both tables are bounded.  A joined kernel adds its GPU time
 * and its queue delay (host launch return to GPU start, through the clock
 * fit) to the kernel's row; copies and memsets add GPU time and bytes to
 * theirs.  Every record adds to the busy-time union of its device.
 */
#include <stdlib.h>
#include <string.h>

#include "analyzer/passes/env.h"
#include "analyzer/passes/gpu_internal.h"
#include "analyzer/passes/nvtx.h"
#include "analyzer/lib/util.h"

#define HOSTS_CAP (1u << 18)        /* host events waiting: 128k */
#define EARLY_CAP (1u << 16)        /* GPU records waiting: 32k */
#define OUTSIDE_CAP (1u << 17)      /* recent calls outside windows: 64k */

static struct gpu_stats *stats(struct model *m)
{
	if (!m->gpu) {
		m->gpu = xcalloc(1, sizeof(*m->gpu));
		m->gpu->all.keep = 1;
		hmap_init(&m->gpu->only);
	}
	return m->gpu;
}

/* The waiting tables, made when the first window or record needs them. */
static void tables(struct gpu_stats *s)
{
	if (s->hosts.slot)
		return;
	gpu_pending_init(&s->hosts, HOSTS_CAP);
	gpu_pending_init(&s->early, EARLY_CAP);
	gpu_pending_init(&s->outside, OUTSIDE_CAP);
}

static struct row_gpu *row_gpu(struct row *row)
{
	if (!row->gpu) {
		row->gpu = xcalloc(1, sizeof(*row->gpu));
		hist_init(&row->gpu->dur);
		hist_init(&row->gpu->queue);
	}
	return row->gpu;
}

void gpu_row_free(struct row_gpu *g)
{
	if (!g)
		return;
	hist_release(&g->dur);
	hist_release(&g->queue);
	free(g);
}

static void row_add(struct row_gpu *g, uint64_t ns, uint64_t bytes)
{
	g->calls++;
	g->total_ns = sat_add(g->total_ns, ns);
	g->bytes = sat_add(g->bytes, bytes);
	hist_add(&g->dur, ns);
}

/* ---- windows ------------------------------------------------------------ */

static void add_window(struct gpu_stats *s, const struct gt_gpu_window *w)
{
	struct gpu_window_span span = { w->start_ns, w->end_ns };

	if (!w->end_ns) {
		s->open = span;
		return;
	}
	if (s->open.start == w->start_ns)
		s->open.start = 0;
	if (s->windows < GPU_WINDOWS_SHOWN)
		s->shown[s->windows] = span;
	s->recent[s->windows % GPU_WINDOWS_RECENT] = span;
	s->windows++;
	s->window_ns = sat_add(s->window_ns, w->end_ns - w->start_ns);
}

/* Whether host time t lies in a window with GPU timing. */
static int in_window(const struct gpu_stats *s, uint64_t t)
{
	size_t n = s->windows < GPU_WINDOWS_RECENT ? s->windows : GPU_WINDOWS_RECENT;

	if (s->open.start && t >= s->open.start)
		return 1;
	for (size_t i = 0; i < n; i++)
		if (t >= s->recent[i].start && t <= s->recent[i].end)
			return 1;
	return 0;
}

/* ---- joining ------------------------------------------------------------- */

/* CUPTI's memory kind of a copy's host side, as a GT_MEM_* value. */
static uint8_t cupti_host_memory(const struct gpu_item *g)
{
	static const uint8_t mem[] = { GT_MEM_UNKNOWN, GT_MEM_PAGEABLE,
		GT_MEM_PINNED, GT_MEM_DEVICE, GT_MEM_DEVICE, GT_MEM_MANAGED };
	uint8_t k = g->copy_kind == 2 || g->copy_kind == 4 ? g->dst_kind : g->src_kind;

	if (g->copy_kind == 8 || g->copy_kind == 10)    /* DtoD, PtoP */
		return GT_MEM_DEVICE;
	return k < sizeof(mem) ? mem[k] : GT_MEM_UNKNOWN;
}

static void join_kernel(struct gpu_stats *s, const struct dump_reader *r,
			const struct gpu_item *host, const struct gpu_item *g)
{
	struct row_gpu *rg = row_gpu(host->row);
	uint64_t start = gpu_clock_map(&s->clock, g->start);
	const char *name = g->name_str ? dump_string(r, g->name_str) : NULL;

	row_add(rg, g->end - g->start, 0);
	if (!s->clock.pairs)
		s->no_clock++;
	else if (start < host->t1)
		s->negative_queue++, hist_add(&rg->queue, 0);
	else
		hist_add(&rg->queue, start - host->t1);
	if (name && host->symbol && *host->symbol && strcmp(name, host->symbol))
		s->name_mismatch++;
	s->launches_joined++;
}

static struct gpu_kernel_only *kernel_only(struct gpu_stats *s, const char *sym,
					   int via_graph)
{
	char *key = xasprintf("%d %s", via_graph, sym ? sym : "<unnamed>");
	struct gpu_kernel_only *k = hmap_get_str(&s->only, key);

	if (k) {
		free(key);
		return k;
	}
	k = xcalloc(1, sizeof(*k));
	k->symbol = key;
	k->via_graph = via_graph;
	hist_init(&k->g.dur);
	hist_init(&k->g.queue);
	hmap_put_str(&s->only, key, k);
	return k;
}

/* A GPU record and the host event it belongs to (NULL: none). */
static void join(struct gpu_stats *s, const struct dump_reader *r,
		 struct gpu_item *host, const struct gpu_item *g)
{
	const char *name = g->name_str ? dump_string(r, g->name_str) : NULL;

	if (g->kind == GT_GPU_KERNEL && host && host->kind == GT_KIND_LAUNCH) {
		join_kernel(s, r, host, g);
	} else if (g->kind == GT_GPU_KERNEL) {
		row_add(&kernel_only(s, name, host != NULL)->g, g->end - g->start, 0);
		if (host && host->row)
			row_add(row_gpu(host->row), g->end - g->start, 0);
	} else if (host && host->row && g->kind != GT_GPU_SYNC) {
		struct row_gpu *rg = row_gpu(host->row);

		row_add(rg, g->end - g->start, g->bytes);
		if (g->kind == GT_GPU_MEMCPY && host->row->memory &&
		    cupti_host_memory(g) && cupti_host_memory(g) != host->row->memory)
			rg->mismatch++;
		s->copies_joined += host->kind == GT_KIND_COPY || host->kind == GT_KIND_SET;
	}
}

static void join_edge(struct gpu_stats *s, const struct dump_reader *r,
		      struct gpu_item *host, struct gpu_item *g);

/* One record per host event, except graphs and batches: those stay. */
static int single(const struct gpu_item *host)
{
	return host->kind != GT_KIND_GRAPH && !host->multi;
}

static void gpu_record(struct gpu_stats *s, const struct dump_reader *r,
		       struct gpu_item *g)
{
	struct gpu_item *host, out;
	uint64_t hs = gpu_clock_map(&s->clock, g->start);
	uint64_t he = gpu_clock_map(&s->clock, g->end);

	tables(s);
	gpu_union_add(&s->all, hs, he);
	if (!g->id) {
		s->unjoined++;
		join(s, r, NULL, g);
		return;
	}
	host = gpu_pending_get(&s->hosts, g->id);
	if (!host && (host = gpu_pending_get(&s->outside, g->id))) {
		struct gpu_item h = *host;  /* a call at a window's edge */

		if (single(&h))
			gpu_pending_del(&s->outside, g->id);
		join_edge(s, r, &h, g);
		return;
	}
	if (!host) {                    /* its host event is still to come */
		struct gpu_item *twin = gpu_pending_get(&s->early, g->id);

		if (twin)               /* a graph's or batch's: one waits */
			join(s, r, NULL, twin);
		if (gpu_pending_put(&s->early, g, &out))
			s->orphans++, join(s, r, NULL, &out);
		return;
	}
	join(s, r, host, g);
	if (single(host))
		gpu_pending_del(&s->hosts, g->id);
}

static void add_device(struct gpu_stats *s, uint32_t dev, uint64_t start,
		       uint64_t end)
{
	if (dev >= GPU_MAX_DEVICES)
		return;
	if (dev >= s->ndev)
		s->ndev = dev + 1;
	gpu_union_add(&s->dev[dev], gpu_clock_map(&s->clock, start),
		      gpu_clock_map(&s->clock, end));
}

/* ---- the records of a GT_CHUNK_GPU ------------------------------------------ */

static void add_kernel(struct gpu_stats *s, const struct dump_reader *r,
		       const void *p)
{
	struct gt_gpu_kernel k;
	struct gpu_item g;

	memcpy(&k, p, sizeof(k));
	s->kernels++;
	if (!k.start || k.end < k.start) {
		s->incomplete++;
		return;
	}
	add_device(s, k.device, k.start, k.end);
	g = (struct gpu_item){ .id = k.host_id, .kind = GT_GPU_KERNEL,
			       .name_str = k.name_str, .start = k.start, .end = k.end };
	gpu_record(s, r, &g);
}

static void add_copy(struct gpu_stats *s, const struct dump_reader *r,
		     const void *p, uint32_t kind)
{
	struct gt_gpu_copy c;
	struct gpu_item g;

	memcpy(&c, p, sizeof(c));
	if (kind == GT_GPU_MEMCPY)
		s->copies++;
	else
		s->sets++;
	if (!c.start || c.end < c.start) {
		s->incomplete++;
		return;
	}
	add_device(s, c.device, c.start, c.end);
	g = (struct gpu_item){ .id = c.host_id, .kind = kind, .start = c.start,
			       .end = c.end, .bytes = c.bytes, .copy_kind = c.copy_kind,
			       .src_kind = c.src_kind, .dst_kind = c.dst_kind };
	gpu_record(s, r, &g);
}

static void add_span(struct gpu_stats *s, const struct dump_reader *r,
		     const void *p, uint32_t kind)
{
	struct gt_gpu_span sp;
	struct gpu_item g;

	memcpy(&sp, p, sizeof(sp));
	if (kind == GT_GPU_SYNC) {
		s->syncs++;             /* host waits: not GPU work */
		return;
	}
	s->graphs++;
	if (!sp.start || sp.end < sp.start) {
		s->incomplete++;
		return;
	}
	add_device(s, sp.device, sp.start, sp.end);
	g = (struct gpu_item){ .id = sp.host_id, .kind = kind, .start = sp.start,
			       .end = sp.end };
	gpu_record(s, r, &g);
}

static char *string_or_null(const struct dump_reader *r, uint32_t id)
{
	const char *s = id ? dump_string(r, id) : NULL;

	return s ? xstrdup(s) : NULL;
}

static void add_state(struct model *m, const struct dump_reader *r,
		      const void *p)
{
	struct gpu_stats *s = stats(m);

	memcpy(&s->state, p, sizeof(s->state));
	s->have_state = 1;
	if (s->state.path_str) {
		free(s->path);
		s->path = string_or_null(r, s->state.path_str);
	}
	if (s->state.holder_str) {
		free(s->holder);
		s->holder = string_or_null(r, s->state.holder_str);
	}
	env_set_cupti(m, gpu_cupti_name(s->state.state));
}

static void add_gpu_chunk(struct model *m, const struct dump_reader *r,
			  const struct dump_record *rec)
{
	struct gpu_stats *s = stats(m);
	const uint8_t *p = rec->gpu.recs;
	uint32_t kind = rec->gpu.h.kind;

	for (uint32_t i = 0; i < rec->gpu.h.count; i++, p += rec->gpu.h.rec_size) {
		switch (kind) {
		case GT_GPU_KERNEL:
			add_kernel(s, r, p);
			break;
		case GT_GPU_MEMCPY:
		case GT_GPU_MEMSET:
			add_copy(s, r, p, kind);
			break;
		case GT_GPU_SYNC:
		case GT_GPU_GRAPH:
			add_span(s, r, p, kind);
			break;
		case GT_GPU_STATE:
			add_state(m, r, p);
			break;
		case GT_GPU_DROPS:
			memcpy(&s->drops, p, sizeof(s->drops));
			break;
		}
	}
}

#define NO_WINDOW "gpu: no GPU window opened: "

/* The library says why a run had no window; the report repeats it. */
static void add_note(struct gpu_stats *s, const char *text)
{
	if (strncmp(text, NO_WINDOW, strlen(NO_WINDOW)))
		return;
	free(s->no_window);
	s->no_window = xstrdup(text + strlen(NO_WINDOW));
}

static NOINLINE void add_record(struct model *m, const struct dump_reader *r,
				const struct dump_record *rec)
{
	switch (rec->type) {
	case DUMP_GPU:
		add_gpu_chunk(m, r, rec);
		break;
	case DUMP_WINDOW:
		add_window(stats(m), &rec->window);
		break;
	case DUMP_CLOCK:
		gpu_clock_add(&stats(m)->clock, &rec->clock);
		break;
	case DUMP_NOTE:
		add_note(stats(m), rec->note.text);
		break;
	default:
		break;
	}
}

/* Every record comes here: events return before any work. */
void gpu_add(struct model *m, const struct dump_reader *r,
	     const struct dump_record *rec)
{
	if (rec->type != DUMP_EVENT)
		add_record(m, r, rec);
}

/* ---- host events ------------------------------------------------------------- */

static const char *launch_symbol(const struct row *row)
{
	return row && row->symbol ? row->symbol : "";
}

/* A GPU record of a call made just outside a window (as it opened or
 * closed). */
static void join_edge(struct gpu_stats *s, const struct dump_reader *r,
		      struct gpu_item *host, struct gpu_item *g)
{
	struct gpu_item gi = *g;

	gpu_pending_del(&s->early, host->id);
	join(s, r, host, &gi);
	s->launches_joined -= host->kind == GT_KIND_LAUNCH;
	s->copies_joined -= host->kind == GT_KIND_COPY || host->kind == GT_KIND_SET;
	s->edge++;
}

static NOINLINE void add_event(struct gpu_stats *s, const struct dump_reader *r,
			       const struct dump_event *ev, struct row *row)
{
	struct gpu_item host, *g, out;
	uint8_t kind = ev->op->kind;

	if (kind != GT_KIND_LAUNCH && kind != GT_KIND_GRAPH &&
	    kind != GT_KIND_COPY && kind != GT_KIND_SET)
		return;
	tables(s);
	if (!in_window(s, ev->t0)) {    /* maybe an edge: its record may come */
		host = (struct gpu_item){ .id = ev->id, .kind = kind, .t1 = ev->t1,
					  .row = row, .symbol = launch_symbol(row),
					  .multi = kind == GT_KIND_COPY &&
						   ev->arg[GT_ARG_COPY_COUNT] > 1 };
		if (s->early.count && (g = gpu_pending_get(&s->early, ev->id)))
			join_edge(s, r, &host, g);
		else
			gpu_pending_put(&s->outside, &host, &out);  /* oldest go */
		return;
	}
	s->launches += kind == GT_KIND_LAUNCH;
	s->copies_in += kind == GT_KIND_COPY || kind == GT_KIND_SET;
	host = (struct gpu_item){ .id = ev->id, .kind = kind, .t1 = ev->t1,
				  .row = row, .symbol = launch_symbol(row),
				  .multi = kind == GT_KIND_COPY &&
					   ev->arg[GT_ARG_COPY_COUNT] > 1 };
	while ((g = gpu_pending_get(&s->early, ev->id))) {
		struct gpu_item gi = *g;

		gpu_pending_del(&s->early, ev->id);
		join(s, r, &host, &gi);
		if (single(&host))
			return;
	}
	gpu_pending_put(&s->hosts, &host, &out);
}

void gpu_add_event(struct model *m, const struct dump_reader *r,
		   const struct dump_event *ev, struct row *row)
{
	struct gpu_stats *s = m->gpu;

	if (s && (s->open.start || s->windows) && !ev->result)
		add_event(s, r, ev, row);
}

/* ---- the end -------------------------------------------------------------------- */

static void orphan(struct gpu_item *g, void *arg)
{
	struct gpu_stats *s = arg;

	s->orphans++;
	if (g->kind == GT_GPU_KERNEL)
		row_add(&kernel_only(s, NULL, 0)->g, g->end - g->start, 0);
}

static void unmatched_host(struct gpu_item *h, void *arg)
{
	(void)h, (void)arg;         /* counted: launches - launches_joined */
}

uint64_t gpu_busy_between(const struct model *m, uint64_t t0, uint64_t t1)
{
	return m->gpu ? gpu_union_between(&m->gpu->all, t0, t1) : 0;
}

int gpu_has_records(const struct model *m)
{
	const struct gpu_stats *s = m->gpu;

	return s && s->kernels + s->copies + s->sets + s->graphs;
}

int gpu_no_window_yet(const struct model *m)
{
	const struct gpu_stats *s = m->gpu;

	return s && s->have_state && s->state.state == GT_CUPTI_WAITING &&
	       !s->windows && !s->open.start;
}

void gpu_finish(struct model *m)
{
	struct gpu_stats *s = m->gpu;

	if (!s)
		return;
	if (s->open.start) {                /* the dump ended inside a window */
		uint64_t end = m->wall_ns + m->start_ns;

		if (end > s->open.start) {
			struct gt_gpu_window w = { s->open.start, end, 0, 0 };

			add_window(s, &w);
		}
		s->open.start = 0;
	}
	gpu_pending_drain(&s->early, orphan, s);
	gpu_pending_drain(&s->hosts, unmatched_host, s);
	gpu_union_end(&s->all);
	for (uint32_t d = 0; d < s->ndev; d++)
		gpu_union_end(&s->dev[d]);
}

static void free_only(struct gpu_stats *s)
{
	size_t pos = 0;
	struct gpu_kernel_only *k;

	while ((k = hmap_next(&s->only, &pos))) {
		hist_release(&k->g.dur);
		hist_release(&k->g.queue);
		free(k->symbol);
		free(k);
	}
	hmap_release(&s->only);
}

void gpu_release(struct model *m)
{
	struct gpu_stats *s = m->gpu;

	if (!s)
		return;
	gpu_pending_release(&s->hosts);
	gpu_pending_release(&s->early);
	gpu_pending_release(&s->outside);
	gpu_union_release(&s->all);
	for (uint32_t d = 0; d < GPU_MAX_DEVICES; d++)
		gpu_union_release(&s->dev[d]);
	free_only(s);
	free(s->path);
	free(s->holder);
	free(s->no_window);
	free(s);
	m->gpu = NULL;
}
