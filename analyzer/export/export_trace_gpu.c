/* SPDX-License-Identifier: MIT */
/*
 * export_trace_gpu.c - what the GPU did, on the timeline: a track per
 * (device, stream) with the kernels, copies, memsets and graph runs
 * CUPTI recorded (GT_CHUNK_GPU), put on the host clock through the clock
 * pairs (GT_CHUNK_CLOCK), each with an arrow from the host call that
 * caused it (the host event's id is the record's host_id: bind_id on
 * both slices), and the windows in which GPU records were taken.
 * With --perfetto, the same through export_perfetto.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/lib/demangle.h"
#include "analyzer/export/export_trace_internal.h"
#include "analyzer/lib/util.h"

#define WINDOW_TID (TRACE_GPU_TID - 1)

int trace_in_window(const struct trace *t, uint64_t t0)
{
	for (size_t i = t->nwin; i-- > 0;) {
		const struct gt_gpu_window *w = &t->win[i];

		if (t0 >= w->start_ns && (!w->end_ns || t0 <= w->end_ns))
			return 1;
		if (w->end_ns && t0 > w->end_ns)
			return 0;           /* after this one: after all older */
	}
	return 0;
}

uint64_t trace_gpu_time(const struct trace *t, uint64_t gpu_ns)
{
	return gpu_clock_map(&t->clock, gpu_ns);
}

/* CUPTI's clock and the GPU's globaltimer both count real time: without
 * clock pairs, the header's realtime reading maps it roughly. */
uint64_t trace_globaltimer(const struct trace *t, uint64_t g)
{
	if (t->clock.pairs)
		return gpu_clock_map(&t->clock, g);
	if (!t->hdr.start_realtime_ns || g < t->hdr.start_realtime_ns)
		return 0;
	return g - t->hdr.start_realtime_ns + t->hdr.start_ns;
}

static void window_slice(struct trace *t, const struct gt_gpu_window *w)
{
	if (!trace_in(t, w->start_ns, w->end_ns))
		return;
	if (!hmap_get_int(&t->tracks, UINT64_MAX)) {
		hmap_put_int(&t->tracks, UINT64_MAX, (void *)1);
		trace_thread_name(t, WINDOW_TID, "GPU timing windows", 99999);
	}
	if (t->pf) {
		struct pft_slice e = { .tid = WINDOW_TID, .t0 = w->start_ns,
				       .dur = w->end_ns - w->start_ns,
				       .name = "GPU timing window", .cat = "gputrace" };

		pft_u64(&e, "seq", w->seq);
		pft_event(t, PFT_SLICE, &e);
		return;
	}
	trace_begin(t, "X");
	xo_u64(&t->o, WINDOW_TID);
	xo_str(&t->o, ",\"ts\":");
	xo_us(&t->o, trace_ts(t, w->start_ns));
	xo_str(&t->o, ",\"dur\":");
	xo_us(&t->o, w->end_ns - w->start_ns);
	xo_str(&t->o, ",\"name\":\"GPU timing window\",\"cat\":\"gputrace\","
	       "\"args\":{\"seq\":");
	xo_u64(&t->o, w->seq);
	xo_str(&t->o, "}}");
}

void trace_window(struct trace *t, const struct gt_gpu_window *w)
{
	size_t i;

	for (i = t->nwin; i-- > 0;)
		if (t->win[i].seq == w->seq)
			break;
	if (i == (size_t)-1) {
		if (t->nwin == TRACE_WINDOWS) {
			memmove(t->win, t->win + 1, sizeof(t->win[0]) * --t->nwin);
		}
		i = t->nwin++;
	}
	t->win[i] = *w;
	if (w->end_ns && w->end_ns >= w->start_ns)
		window_slice(t, w);
}

/* The track of (device, stream): its tid, named at its first use. */
static uint64_t gpu_track(struct trace *t, uint32_t device, uint32_t stream)
{
	uint64_t key = (uint64_t)device << 32 | stream;
	uintptr_t n = (uintptr_t)hmap_get_int(&t->tracks, key);
	char name[48];

	if (!n) {
		n = ++t->ntracks;
		hmap_put_int(&t->tracks, key, (void *)n);
		snprintf(name, sizeof(name), "GPU %u stream %u", device, stream);
		trace_thread_name(t, TRACE_GPU_TID + n, name,
				  100000 + (int)(device % 1000) * 1000 +
				  (int)(n % 1000));
	}
	return TRACE_GPU_TID + n;
}

static const char *kernel_name(struct trace *t, const struct dump_reader *r,
			       uint32_t id)
{
	char *q = id ? hmap_get_int(&t->names, id) : NULL;
	char name[512], *full;
	const char *sym;

	if (q)
		return q;
	sym = id ? dump_string(r, id) : NULL;
	if (!sym)
		return t->pf ? "<unknown kernel>" : "\"<unknown kernel>\"";
	full = demangle(sym);
	short_kernel_name(full, name, sizeof(name));
	free(full);
	q = t->pf ? xstrdup(name) : xo_quoted(name);
	hmap_put_int(&t->names, id, q);
	return q;
}

/* Where [start, end] of the GPU is on the host clock, in e: whether it
 * is in the window. */
static int gpu_span(struct trace *t, uint64_t start, uint64_t end,
		    struct pft_slice *e)
{
	uint64_t h0 = trace_gpu_time(t, start), h1;

	if (!h0) {
		t->gpu_unmapped++;
		return 0;
	}
	h1 = end > start ? h0 + (end - start) : h0;
	e->t0 = h0;
	e->dur = h1 - h0;
	return trace_in(t, h0, h1);
}

/* {"ph":"X",...,"ts":..,"dur":..,"name":<qname>,"cat":"<cat>" */
static int gpu_slice(struct trace *t, uint64_t tid, uint64_t start,
		     uint64_t end, const char *qname, const char *cat)
{
	struct pft_slice e;
	uint64_t h0, h1;

	if (!gpu_span(t, start, end, &e))
		return 0;
	h0 = e.t0;
	h1 = e.t0 + e.dur;
	trace_begin(t, "X");
	xo_u64(&t->o, tid);
	xo_str(&t->o, ",\"ts\":");
	xo_us(&t->o, trace_ts(t, h0));
	xo_str(&t->o, ",\"dur\":");
	xo_us(&t->o, h1 - h0);
	xo_str(&t->o, ",\"name\":");
	xo_str(&t->o, qname);
	xo_str(&t->o, ",\"cat\":\"");
	xo_str(&t->o, cat);
	xo_ch(&t->o, '"');
	return 1;
}

/* The arrow's end, and the slice's end. */
static void gpu_close(struct trace *t, uint64_t host_id)
{
	if (host_id) {
		xo_str(&t->o, ",\"bind_id\":\"");
		xo_u64(&t->o, t->d->index);
		xo_ch(&t->o, ':');
		xo_u64(&t->o, host_id);
		xo_str(&t->o, "\",\"flow_in\":true");
	}
	xo_ch(&t->o, '}');
}

static void dims(struct xout *o, const char *key, const int32_t v[3])
{
	xo_str(o, key);
	xo_i64(o, v[0]);
	xo_ch(o, ',');
	xo_i64(o, v[1]);
	xo_ch(o, ',');
	xo_i64(o, v[2]);
	xo_ch(o, '"');
}

static char *dims_text(char *buf, size_t len, const int32_t v[3])
{
	snprintf(buf, len, "%d,%d,%d", v[0], v[1], v[2]);
	return buf;
}

static void pf_kernel(struct trace *t, const struct dump_reader *r,
		      const struct gt_gpu_kernel *k, uint64_t tid)
{
	struct pft_slice e = { .tid = tid, .cat = "kernel", .flow_in = k->host_id };
	char grid[40], block[40];

	if (!gpu_span(t, k->start, k->end, &e))
		return;
	e.name = kernel_name(t, r, k->name_str);
	pft_str(&e, "grid", dims_text(grid, sizeof(grid), k->grid));
	pft_str(&e, "block", dims_text(block, sizeof(block), k->block));
	pft_u64(&e, "correlation", k->correlation);
	if (k->graph_id)
		pft_u64(&e, "graph", k->graph_id);
	pft_event(t, PFT_SLICE, &e);
}

static void kernel(struct trace *t, const struct dump_reader *r,
		   const struct gt_gpu_kernel *k)
{
	uint64_t tid = gpu_track(t, k->device, k->stream);

	if (t->pf) {
		pf_kernel(t, r, k, tid);
		return;
	}
	if (!gpu_slice(t, tid, k->start, k->end, kernel_name(t, r, k->name_str),
		       "kernel"))
		return;
	dims(&t->o, ",\"args\":{\"grid\":\"", k->grid);
	dims(&t->o, ",\"block\":\"", k->block);
	xo_str(&t->o, ",\"correlation\":");
	xo_u64(&t->o, k->correlation);
	if (k->graph_id) {
		xo_str(&t->o, ",\"graph\":");
		xo_u64(&t->o, k->graph_id);
	}
	xo_ch(&t->o, '}');
	gpu_close(t, k->host_id);
}

/* CUpti_ActivityMemcpyKind and CUpti_ActivityMemoryKind names. */
static const char *copy_kind(uint8_t k)
{
	static const char *const names[] = {
		"memcpy", "memcpy HtoD", "memcpy DtoH", "memcpy HtoA",
		"memcpy AtoH", "memcpy AtoA", "memcpy AtoD", "memcpy DtoA",
		"memcpy DtoD", "memcpy HtoH", "memcpy PtoP",
	};

	return k < ARRAY_SIZE(names) ? names[k] : names[0];
}

static const char *mem_kind(uint8_t k)
{
	static const char *const names[] = {
		"unknown", "pageable", "pinned", "device", "array", "managed",
		"device_static", "managed_static",
	};

	return k < ARRAY_SIZE(names) ? names[k] : "unknown";
}

static void pf_copy(struct trace *t, const struct gt_gpu_copy *c, int set,
		    uint64_t tid)
{
	struct pft_slice e = { .tid = tid, .cat = set ? "memset" : "memcpy",
			       .flow_in = c->host_id };

	if (!gpu_span(t, c->start, c->end, &e))
		return;
	e.name = set ? "memset" : copy_kind(c->copy_kind);
	pft_u64(&e, "bytes", c->bytes);
	if (!set)
		pft_str(&e, "src", mem_kind(c->src_kind));
	pft_str(&e, "dst", mem_kind(c->dst_kind));
	pft_event(t, PFT_SLICE, &e);
}

static void copy(struct trace *t, const struct gt_gpu_copy *c, int set)
{
	uint64_t tid = gpu_track(t, c->device, c->stream);
	char name[32];

	if (t->pf) {
		pf_copy(t, c, set, tid);
		return;
	}
	snprintf(name, sizeof(name), "\"%s\"", set ? "memset" : copy_kind(c->copy_kind));
	if (!gpu_slice(t, tid, c->start, c->end, name,
		       set ? "memset" : "memcpy"))
		return;
	xo_str(&t->o, ",\"args\":{\"bytes\":");
	xo_u64(&t->o, c->bytes);
	if (!set) {
		xo_str(&t->o, ",\"src\":\"");
		xo_str(&t->o, mem_kind(c->src_kind));
		xo_ch(&t->o, '"');
	}
	xo_str(&t->o, ",\"dst\":\"");
	xo_str(&t->o, mem_kind(c->dst_kind));
	xo_str(&t->o, "\"}");
	gpu_close(t, c->host_id);
}

static void graph(struct trace *t, const struct gt_gpu_span *s)
{
	uint64_t tid = gpu_track(t, s->device, s->stream);
	struct pft_slice e = { .tid = tid, .name = "graph", .cat = "graph",
			       .flow_in = s->host_id };

	if (t->pf) {
		if (!gpu_span(t, s->start, s->end, &e))
			return;
		pft_u64(&e, "graph", s->type);
		pft_event(t, PFT_SLICE, &e);
		return;
	}
	if (!gpu_slice(t, tid, s->start, s->end, "\"graph\"", "graph"))
		return;
	xo_str(&t->o, ",\"args\":{\"graph\":");
	xo_u64(&t->o, s->type);
	xo_ch(&t->o, '}');
	gpu_close(t, s->host_id);
}

/* One record of rec_size bytes at p, copied out (it may be unaligned). */
static void one_record(struct trace *t, const struct dump_reader *r,
		       uint32_t kind, const uint8_t *p, uint32_t size)
{
	union {
		struct gt_gpu_kernel k;
		struct gt_gpu_copy c;
		struct gt_gpu_span s;
	} u;

	memset(&u, 0, sizeof(u));
	memcpy(&u, p, size < sizeof(u) ? size : sizeof(u));
	switch (kind) {
	case GT_GPU_KERNEL:
		kernel(t, r, &u.k);
		break;
	case GT_GPU_MEMCPY:
	case GT_GPU_MEMSET:
		copy(t, &u.c, kind == GT_GPU_MEMSET);
		break;
	case GT_GPU_GRAPH:
		graph(t, &u.s);
		break;
	default:
		break;                  /* syncs are host slices already */
	}
}

void trace_gpu_record(struct trace *t, const struct dump_reader *r,
		      const struct dump_record *rec)
{
	const uint8_t *p = rec->gpu.recs;
	uint32_t i;

	for (i = 0; i < rec->gpu.h.count; i++)
		one_record(t, r, rec->gpu.h.kind, p + (size_t)i * rec->gpu.h.rec_size,
			   rec->gpu.h.rec_size);
}
