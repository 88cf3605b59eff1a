/* SPDX-License-Identifier: MIT */
/*
 * export_trace.c - --trace: the dumps as a Chrome trace event file, which
 * ui.perfetto.dev and chrome://tracing open.  Events are written as they
 * are read, never held: a track per host thread with every traced call
 * and its arguments, a track per GPU stream (export_trace_gpu.c), NVTX
 * ranges, NCCL operations and counters (export_trace_misc.c), the host
 * stack samples on their threads (export_trace_samples.c).  Times are
 * microseconds from the earliest start among the dumps, after each dump's
 * clock offset (ranks.h aligns several).  --perfetto writes the same
 * events as Perfetto's protobuf packets (export_perfetto.c): t->pf set.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/lib/demangle.h"
#include "analyzer/export/export_trace_internal.h"
#include "analyzer/lib/files.h"
#include "analyzer/pipeline/loader.h"
#include "analyzer/passes/nccl.h"
#include "analyzer/lib/progress.h"
#include "analyzer/reader/stdin_dump.h"
#include "analyzer/lib/util.h"

uint64_t trace_ts(const struct trace *t, uint64_t host_ns)
{
	/* modulo 2^64: times and offsets from a dump can be anything */
	int64_t v = (int64_t)(host_ns - t->base_ns + (uint64_t)t->d->offset_ns);

	return v > 0 ? (uint64_t)v : 0;
}

int trace_in(const struct trace *t, uint64_t t0, uint64_t t1)
{
	return t1 >= t->from && t0 <= t->to;
}

void trace_begin(struct trace *t, const char *ph)
{
	xo_str(&t->o, t->written++ ? ",\n{\"ph\":\"" : "\n{\"ph\":\"");
	xo_str(&t->o, ph);
	xo_str(&t->o, "\",\"pid\":");
	xo_u64(&t->o, t->d->trace_pid);
	xo_str(&t->o, ",\"tid\":");
}

const char *trace_str(struct trace *t, const struct dump_reader *r,
		      uint32_t id)
{
	char *q = id ? hmap_get_int(&t->strs, id) : NULL;
	const char *s;

	if (q)
		return q;
	s = id ? dump_string(r, id) : NULL;
	if (!s)
		return "\"\"";
	q = xo_quoted(s);
	hmap_put_int(&t->strs, id, q);
	return q;
}

const char *trace_text(const struct dump_reader *r, uint32_t id)
{
	const char *s = id ? dump_string(r, id) : NULL;

	return s ? s : "";
}

void trace_thread_name(struct trace *t, uint64_t tid, const char *name,
		       int sort)
{
	if (t->pf) {
		pft_track_name(t, tid, name, sort);
		return;
	}
	trace_begin(t, "M");
	xo_u64(&t->o, tid);
	xo_str(&t->o, ",\"name\":\"thread_name\",\"args\":{\"name\":");
	xo_qstr(&t->o, name);
	xo_str(&t->o, "}}");
	if (sort < 0)
		return;
	trace_begin(t, "M");
	xo_u64(&t->o, tid);
	xo_str(&t->o, ",\"name\":\"thread_sort_index\",\"args\":{\"sort_index\":");
	xo_u64(&t->o, (uint64_t)sort);
	xo_str(&t->o, "}}");
}

static void put_hex(struct xout *o, uint64_t v)
{
	char tmp[20];
	int i = sizeof(tmp);

	do {
		tmp[--i] = "0123456789abcdef"[v & 15];
		v >>= 4;
	} while (v);
	xo_str(o, "\"0x");
	xo_write(o, tmp + i, sizeof(tmp) - i);
	xo_ch(o, '"');
}

static void put_key_u64(struct xout *o, const char *key, uint64_t v)
{
	xo_str(o, key);
	xo_u64(o, v);
}

/* The args of a launch of shape id (struct trace_shape); for --perfetto
 * the kernel in CUDA's syntax, "name<<<(grid), (block), shared_mem>>>". */
static const char *shape_args(struct trace *t, const struct dump_reader *r,
			      uint64_t id)
{
	struct trace_shape *s = id <= UINT32_MAX ? hmap_get_int(&t->shapes, id)
						 : NULL;
	const struct trace_func *f;
	char *full, name[512], *q;
	const char *sym;

	if (!s)
		return t->pf ? "<unknown>" : "\"kernel\":\"<unknown>\"";
	f = hmap_get_int(&t->funcs, s->function);
	if (s->args && s->gen == (f ? f->gen : t->fn_gen) &&
	    s->str_gen == t->str_gen)
		return s->args;
	free(s->args);
	s->gen = f ? f->gen : t->fn_gen;
	s->str_gen = t->str_gen;
	sym = f && f->name_str ? dump_string(r, f->name_str) : NULL;
	full = demangle(sym ? sym : "<unknown>");
	short_kernel_name(full, name, sizeof(name));
	q = t->pf ? xstrdup(name) : xo_quoted(name);
	s->args = xasprintf(t->pf ? "%s<<<(%u,%u,%u), (%u,%u,%u), %u>>>" :
			    "\"kernel\":%s,\"grid\":\"%u,%u,%u\",\"block\":"
			    "\"%u,%u,%u\",\"shared_mem\":%u", q, s->grid[0],
			    s->grid[1], s->grid[2], s->block[0], s->block[1],
			    s->block[2], s->shared_mem);
	free(q);
	free(full);
	return s->args;
}

static const char *op_name(struct trace *t, const struct dump_op *op)
{
	char *q = hmap_get_int(&t->ops, op->id);

	if (!q) {
		q = xo_quoted(op->api);
		hmap_put_int(&t->ops, op->id, q);
	}
	return q;
}

static const char *kind_cat(uint8_t kind)
{
	static const char *const cats[] = {
		"api", "launch", "graph", "copy", "memset", "sync",
		"hostalloc", "nccl", "nvtx",
	};

	return kind < ARRAY_SIZE(cats) ? cats[kind] : "api";
}

static void copy_args(struct trace *t, const struct dump_event *ev)
{
	uint64_t mem = ev->arg[GT_ARG_COPY_MEMORY];

	put_key_u64(&t->o, "\"bytes\":", ev->arg[GT_ARG_COPY_BYTES]);
	xo_str(&t->o, ",\"direction\":\"");
	xo_str(&t->o, direction_name(ev->op->direction));
	xo_str(&t->o, "\",\"memory\":\"");
	xo_str(&t->o, memory_name(mem & GT_MEM_MASK));
	xo_ch(&t->o, '"');
	if (mem & GT_COPYF_STAGED)
		xo_str(&t->o, ",\"staged\":true");
	if (mem & GT_COPYF_SYNC_PINNED)
		xo_str(&t->o, ",\"sync_pinned\":true");
}

static void nccl_args(struct trace *t, const struct dump_event *ev)
{
	put_key_u64(&t->o, "\"count\":", ev->arg[GT_ARG_NCCL_COUNT]);
	put_key_u64(&t->o, ",\"bytes\":", ev->arg[GT_ARG_NCCL_BYTES]);
	put_key_u64(&t->o, ",\"comm\":", ev->arg[GT_ARG_NCCL_COMM]);
	if (ev->arg[GT_ARG_NCCL_PEER])
		put_key_u64(&t->o, ",\"root_or_peer\":", ev->arg[GT_ARG_NCCL_PEER] - 1);
	if (ev->arg[GT_ARG_NCCL_DTYPE]) {
		xo_str(&t->o, ",\"datatype\":\"");
		xo_str(&t->o, nccl_type_name((uint32_t)ev->arg[GT_ARG_NCCL_DTYPE]));
		xo_ch(&t->o, '"');
	}
}

static void event_args(struct trace *t, const struct dump_reader *r,
		       const struct dump_event *ev)
{
	xo_str(&t->o, ",\"args\":{");
	switch (ev->op->kind) {
	case GT_KIND_LAUNCH:
		xo_str(&t->o, shape_args(t, r, ev->arg[GT_ARG_LAUNCH_SHAPE]));
		xo_ch(&t->o, ',');
		break;
	case GT_KIND_GRAPH:
	case GT_KIND_SYNC:
		xo_str(&t->o, "\"handle\":");
		put_hex(&t->o, ev->arg[GT_ARG_SYNC_HANDLE]);
		xo_ch(&t->o, ',');
		break;
	case GT_KIND_COPY:
		copy_args(t, ev);
		xo_ch(&t->o, ',');
		break;
	case GT_KIND_SET:
	case GT_KIND_HOSTALLOC:
		put_key_u64(&t->o, "\"bytes\":", ev->arg[GT_ARG_SET_BYTES]);
		xo_ch(&t->o, ',');
		break;
	case GT_KIND_NCCL:
		nccl_args(t, ev);
		xo_ch(&t->o, ',');
		break;
	}
	if (ev->result)
		put_key_u64(&t->o, "\"result\":", ev->result), xo_ch(&t->o, ',');
	put_key_u64(&t->o, "\"stream\":", ev->stream);
	xo_ch(&t->o, '}');
}

/* Work for the GPU: its slice gets an arrow to the GPU record's. */
static int has_gpu_work(uint8_t kind)
{
	return kind == GT_KIND_LAUNCH || kind == GT_KIND_COPY ||
	       kind == GT_KIND_SET || kind == GT_KIND_GRAPH;
}

static void name_thread(struct trace *t, uint32_t tid)
{
	char name[32];

	if (hmap_get_int(&t->tids, tid))
		return;
	hmap_put_int(&t->tids, tid, (void *)1);
	snprintf(name, sizeof(name), "thread %u", tid);
	trace_thread_name(t, tid, name, -1);
}

/* Whether the window has a host call; notes the calls' span. */
static int host_in(struct trace *t, const struct dump_event *ev)
{
	uint64_t a = trace_ts(t, ev->t0), b = trace_ts(t, ev->t1);

	if (!t->seen_hi || a < t->seen_lo)
		t->seen_lo = a;
	if (b > t->seen_hi)
		t->seen_hi = b;
	if (!trace_in(t, ev->t0, ev->t1))
		return 0;
	t->picked++;
	return 1;
}

static void pf_copy_args(struct pft_slice *e, const struct dump_event *ev)
{
	uint64_t mem = ev->arg[GT_ARG_COPY_MEMORY];

	pft_u64(e, "bytes", ev->arg[GT_ARG_COPY_BYTES]);
	pft_str(e, "direction", direction_name(ev->op->direction));
	pft_str(e, "memory", memory_name(mem & GT_MEM_MASK));
	if (mem & GT_COPYF_STAGED)
		pft_bool(e, "staged");
	if (mem & GT_COPYF_SYNC_PINNED)
		pft_bool(e, "sync_pinned");
}

static void pf_nccl_args(struct pft_slice *e, const struct dump_event *ev)
{
	pft_u64(e, "count", ev->arg[GT_ARG_NCCL_COUNT]);
	pft_u64(e, "bytes", ev->arg[GT_ARG_NCCL_BYTES]);
	pft_u64(e, "comm", ev->arg[GT_ARG_NCCL_COMM]);
	if (ev->arg[GT_ARG_NCCL_PEER])
		pft_u64(e, "root_or_peer", ev->arg[GT_ARG_NCCL_PEER] - 1);
	if (ev->arg[GT_ARG_NCCL_DTYPE])
		pft_str(e, "datatype", nccl_type_name((uint32_t)ev->arg[GT_ARG_NCCL_DTYPE]));
}

/*
 * A host call for --perfetto: the args of the JSON trace but the stream,
 * which is the track (a child of the thread's per stream, the thread's
 * own for stream 0); a launch's kernel and shape are one string.
 */
static void pf_host_event(struct trace *t, const struct dump_reader *r,
			  const struct dump_event *ev)
{
	struct pft_slice e = { .tid = ev->tid, .stream = ev->stream,
			       .t0 = ev->t0, .dur = ev->dur,
			       .name = ev->op->api, .cat = kind_cat(ev->op->kind) };
	char hex[24];

	switch (ev->op->kind) {
	case GT_KIND_LAUNCH:
		pft_str(&e, "kernel", shape_args(t, r, ev->arg[GT_ARG_LAUNCH_SHAPE]));
		break;
	case GT_KIND_GRAPH:
	case GT_KIND_SYNC:
		snprintf(hex, sizeof(hex), "0x%llx",
			 (unsigned long long)ev->arg[GT_ARG_SYNC_HANDLE]);
		pft_str(&e, "handle", hex);
		break;
	case GT_KIND_COPY:
		pf_copy_args(&e, ev);
		break;
	case GT_KIND_SET:
	case GT_KIND_HOSTALLOC:
		pft_u64(&e, "bytes", ev->arg[GT_ARG_COPY_BYTES]);
		break;
	case GT_KIND_NCCL:
		pf_nccl_args(&e, ev);
		break;
	}
	if (ev->result)
		pft_u64(&e, "result", ev->result);
	if (has_gpu_work(ev->op->kind) && trace_in_window(t, ev->t0))
		e.flow_out = ev->id;
	pft_event(t, PFT_SLICE, &e);
}

static void host_event(struct trace *t, const struct dump_reader *r,
		       const struct dump_event *ev)
{
	if (!host_in(t, ev))
		return;
	name_thread(t, ev->tid);
	if (ev->op->kind == GT_KIND_NVTX) {
		trace_nvtx(t, r, ev);
		return;
	}
	if (t->pf) {
		pf_host_event(t, r, ev);
		return;
	}
	trace_begin(t, "X");
	xo_u64(&t->o, ev->tid);
	xo_str(&t->o, ",\"ts\":");
	xo_us(&t->o, trace_ts(t, ev->t0));
	xo_str(&t->o, ",\"dur\":");
	xo_us(&t->o, ev->dur);
	xo_str(&t->o, ",\"name\":");
	xo_str(&t->o, op_name(t, ev->op));
	xo_str(&t->o, ",\"cat\":\"");
	xo_str(&t->o, kind_cat(ev->op->kind));
	xo_ch(&t->o, '"');
	event_args(t, r, ev);
	if (has_gpu_work(ev->op->kind) && trace_in_window(t, ev->t0)) {
		xo_str(&t->o, ",\"bind_id\":\"");
		xo_u64(&t->o, t->d->index);
		xo_ch(&t->o, ':');
		xo_u64(&t->o, ev->id);
		xo_str(&t->o, "\",\"flow_out\":true");
	}
	xo_ch(&t->o, '}');
}

/* A host sample: on its thread, not a call (the window's calls do not
 * count it). */
static void host_sample(struct trace *t, const struct dump_event *ev)
{
	if (!trace_in(t, ev->t0, ev->t0))
		return;
	name_thread(t, ev->tid);
	trace_host_sample(t, ev);
}

static void define_shape(struct trace *t, const struct gt_shape *sh)
{
	struct trace_shape *s = hmap_get_int(&t->shapes, sh->id);

	if (!s) {
		s = xcalloc(1, sizeof(*s));
		hmap_put_int(&t->shapes, sh->id, s);
	}
	s->function = sh->function;
	memcpy(s->grid, sh->grid, sizeof(s->grid));
	memcpy(s->block, sh->block, sizeof(s->block));
	s->shared_mem = sh->shared_mem;
	free(s->args);
	s->args = NULL;
}

/* A function defined again: its shapes find out at their next launch. */
static void define_function(struct trace *t, const struct gt_function *f)
{
	struct trace_func *fn = hmap_get_int(&t->funcs, f->id);

	if (!fn) {
		fn = xmalloc(sizeof(*fn));
		hmap_put_int(&t->funcs, f->id, fn);
	}
	fn->name_str = f->name_str;
	fn->gen = ++t->fn_gen;
}

static void trace_record(void *ctx, const struct dump_reader *r,
			 const struct dump_record *rec)
{
	struct trace *t = ctx;

	if (!t->have_header) {
		t->hdr = *dump_header(r);
		t->have_header = 1;
	}
	switch (rec->type) {
	case DUMP_EVENT:
		if (rec->event.op->kind == GT_KIND_HOSTSAMPLE)
			host_sample(t, &rec->event);
		else
			host_event(t, r, &rec->event);
		break;
	case DUMP_STACK:
	case DUMP_MODULES:
		trace_stacks_record(t, r, rec);
		break;
	case DUMP_OP:
		free(hmap_get_int(&t->ops, rec->op->id));
		hmap_put_int(&t->ops, rec->op->id, NULL);
		break;
	case DUMP_FUNCTION:
		define_function(t, &rec->function);
		break;
	case DUMP_SHAPE:
		define_shape(t, &rec->shape);
		break;
	case DUMP_PROCESS:
		trace_process(t, rec->process);
		break;
	case DUMP_NVTX:
		if (rec->nvtx.what == GT_NVTX_DEF_DOMAIN)
			hmap_put_int(&t->domains, rec->nvtx.id,
				     (void *)(uintptr_t)(rec->nvtx.name_str + 1ull));
		break;
	case DUMP_NCCL_PROF:
		trace_nccl_prof(t, r, rec);
		break;
	case DUMP_SAMPLE:
		trace_sample(t, rec);
		break;
	case DUMP_GPU:
		trace_gpu_record(t, r, rec);
		break;
	case DUMP_WINDOW:
		trace_window(t, &rec->window);
		break;
	case DUMP_CLOCK:
		gpu_clock_add(&t->clock, &rec->clock);
		break;
	case DUMP_STRING:
		/* a string defined again: drop what was cached for it */
		free(hmap_get_int(&t->strs, rec->string.id));
		hmap_put_int(&t->strs, rec->string.id, NULL);
		free(hmap_get_int(&t->names, rec->string.id));
		hmap_put_int(&t->names, rec->string.id, NULL);
		t->str_gen += rec->string.again;   /* a kernel's name too */
		break;
	default:
		break;
	}
}

static void free_map(struct hmap *h, void (*fn)(void *))
{
	size_t pos = 0;
	void *v;

	while (fn && (v = hmap_next(h, &pos)))
		fn(v);
	hmap_release(h);
	hmap_init(h);
}

static void free_shape(void *p)
{
	struct trace_shape *s = p;

	free(s->args);
	free(s);
}

static void reset_dump(struct trace *t)
{
	free_map(&t->ops, free);
	free_map(&t->shapes, free_shape);
	free_map(&t->funcs, free);
	free_map(&t->names, free);
	free_map(&t->strs, free);
	free_map(&t->tids, NULL);
	free_map(&t->tracks, NULL);
	free_map(&t->comms, NULL);
	free_map(&t->domains, NULL);
	t->ntracks = 0;
	memset(&t->clock, 0, sizeof(t->clock));
	t->nwin = 0;
	t->have_header = 0;
	memset(&t->cpu, 0, sizeof(t->cpu));
	trace_samples_reset(t);
	if (t->pf)
		pft_reset(t);
}

static void write_head(struct trace *t, const struct export_dump *d, size_t n)
{
	xo_str(&t->o, "{\"displayTimeUnit\":\"ns\",\"otherData\":{"
	       "\"generator\":\"" PROG_NAME "\",\"clock\":\"CLOCK_MONOTONIC\","
	       "\"base_ns\":");
	xo_u64(&t->o, t->base_ns);
	xo_str(&t->o, ",\"dumps\":[");
	for (size_t i = 0; i < n; i++) {
		xo_str(&t->o, i ? ",{\"path\":" : "{\"path\":");
		xo_qstr(&t->o, dump_name(d[i].path));
		xo_str(&t->o, ",\"offset_ns\":");
		xo_i64(&t->o, d[i].offset_ns);
		xo_str(&t->o, ",\"pid\":");
		xo_u64(&t->o, d[i].trace_pid);
		xo_ch(&t->o, '}');
	}
	xo_str(&t->o, "]},\"traceEvents\":[");
}

/* The earliest start among the dumps, on the aligned clock. */
static uint64_t base_of(const struct export_dump *d, size_t n)
{
	uint64_t base = UINT64_MAX;

	for (size_t i = 0; i < n; i++) {
		int64_t s = (int64_t)(d[i].start_ns + (uint64_t)d[i].offset_ns);
		uint64_t v = s > 0 ? (uint64_t)s : 0;

		if (v < base)
			base = v;
	}
	return base == UINT64_MAX ? 0 : base;
}

static uint64_t total_size(const struct export_dump *d, size_t n)
{
	uint64_t t = 0;

	for (size_t i = 0; i < n; i++)
		t += progress_file_size(d[i].path);
	return t;
}

static int write_dumps(struct trace *t, struct export_dump *d, size_t n)
{
	uint64_t done = 0;

	for (size_t i = 0; i < n; i++) {
		t->d = &d[i];
		t->from = d[i].t_from;
		t->to = d[i].t_to;
		if (loader_pass(d[i].path, trace_record, t, done) < 0)
			return -1;
		done += progress_file_size(d[i].path);
		if (t->gpu_unmapped)
			warning_msg("'%s': %llu GPU records came before any "
				    "clock pair and were left out", dump_name(d[i].path),
				    (unsigned long long)t->gpu_unmapped);
		t->gpu_unmapped = 0;
		reset_dump(t);
	}
	return 0;
}

/* A --from/--to that keeps no host call: said, with the calls' span. */
static int empty_window(const struct trace *t, const struct export_opts *o)
{
	if (t->picked || !(o->have_from || o->have_to))
		return 0;
	if (!t->seen_hi)
		error_msg("--from/--to keep nothing: the dump has no CUDA calls");
	else
		error_msg("--from/--to keep nothing: the CUDA calls span "
			  "%.3f-%.3f s from the start", t->seen_lo / 1e9,
			  t->seen_hi / 1e9);
	return 1;
}

/* The file's end; rc, or -1 after saying why if rc was 0. */
static int close_out(struct trace *t, struct files_out *f, int rc)
{
	if (!t->pf)
		xo_str(&t->o, "\n]}\n");
	if (xo_close(&t->o) < 0 && rc == 0) {
		error_msg("cannot write '%s': %s", f->name, strerror(errno));
		rc = -1;
	}
	if (files_out_end(f, rc == 0) < 0 && rc == 0)
		rc = -1;
	return rc;
}

/* --trace (JSON) or --perfetto (pf, given): the exit status.  Nothing is
 * left at out but a whole timeline: no partial one, no empty one. */
static int export_timeline(const char *out, struct export_dump *d, size_t n,
			   const struct export_opts *o, int perfetto)
{
	struct trace *t = xcalloc(1, sizeof(*t));
	struct files_out f;
	int rc;

	if (perfetto && !(t->pf = pft_new(&t->o))) {
		free(t);
		return EXIT_BADINPUT;
	}
	if (files_out_begin(&f, out, NULL) < 0) {
		pft_free(t->pf);
		free(t);
		return EXIT_BADINPUT;
	}
	xo_init(&t->o, f.fp);
	t->opts = o;
	t->base_ns = base_of(d, n);
	if (!perfetto)
		write_head(t, d, n);
	progress_begin("writing the timeline", total_size(d, n));
	rc = write_dumps(t, d, n);
	progress_end();
	if (rc == 0 && empty_window(t, o))
		rc = -2;
	rc = close_out(t, &f, rc);
	reset_dump(t);
	pft_free(t->pf);
	free(t);
	return rc ? EXIT_BADINPUT : 0;
}

int trace_export(const char *out, struct export_dump *d, size_t n,
		 const struct export_opts *o)
{
	return export_timeline(out, d, n, o, 0);
}

int perfetto_export(const char *out, struct export_dump *d, size_t n,
		    const struct export_opts *o)
{
	return export_timeline(out, d, n, o, 1);
}
