/* SPDX-License-Identifier: MIT */
/*
 * export_sqlite_rows.c - one row (or a few) per record of a dump, into
 * the table of its kind (export_sqlite.c).  Unsigned 64-bit values go in
 * as SQLite's signed integers, bit for bit; hashes are hex text.
 */
#ifdef HAVE_SQLITE

#include <stdlib.h>
#include <string.h>

#include "analyzer/lib/demangle.h"
#include "analyzer/passes/env.h"
#include "analyzer/export/export_sqlite.h"
#include "analyzer/passes/nccl.h"
#include "analyzer/reader/stdin_dump.h"
#include "analyzer/lib/util.h"

#define I(st, i, v) sq_int(st, i, (int64_t)(v))

static struct sq_row *row(struct sq *s, enum sq_table t)
{
	struct sq_row *st = sq_row(s, t);

	I(st, 1, s->dump);
	return st;
}

void sq_dump_row(struct sq *s, const struct export_dump *d,
		 const struct gt_file_header *h)
{
	struct sq_row *st = row(s, SQ_DUMPS);

	sq_text(st, 2, dump_name(d->path));
	I(st, 3, h->pid);
	I(st, 4, h->start_ns);
	I(st, 5, h->start_realtime_ns);
	I(st, 6, d->offset_ns);
	I(st, 7, h->version);
	sq_step(s, SQ_DUMPS);
}

static void process(struct sq *s, const struct dump_process *p)
{
	struct sq_row *st = row(s, SQ_PROCESSES);
	size_t len = 1;
	char *cmd;

	for (uint32_t i = 0; i < p->argc; i++)
		len += strlen(p->argv[i]) + 1;
	cmd = xcalloc(1, len);
	for (uint32_t i = 0; i < p->argc; i++)
		strcat(strcat(cmd, i ? " " : ""), p->argv[i]);
	I(st, 2, p->pid);
	I(st, 3, p->ppid);
	if (p->rank != UINT32_MAX)
		I(st, 4, p->rank);
	sq_text(st, 5, p->host);
	sq_text(st, 6, p->exe);
	sq_text(st, 7, cmd);
	sq_step(s, SQ_PROCESSES);
	free(cmd);
}

static const char *kind_name(uint8_t kind)
{
	static const char *const names[] = {
		"?", "launch", "graph", "copy", "memset", "sync", "hostalloc",
		"nccl", "nvtx",
	};

	return kind < ARRAY_SIZE(names) ? names[kind] : "?";
}

static void op(struct sq *s, const struct dump_op *o)
{
	struct sq_row *st = row(s, SQ_OPS);

	I(st, 2, o->id);
	sq_text(st, 3, kind_name(o->kind));
	sq_text(st, 4, o->api);
	sq_text(st, 5, o->symbol);
	sq_text(st, 6, o->direction ? direction_name(o->direction) : NULL);
	I(st, 7, !!(o->flags & GT_OPF_ASYNC));
	I(st, 8, o->flags);
	sq_step(s, SQ_OPS);
}

static void function(struct sq *s, const struct dump_reader *r,
		     const struct gt_function *f)
{
	struct sq_row *st = row(s, SQ_KERNELS);
	const char *sym = f->name_str ? dump_string(r, f->name_str) : NULL;
	uintptr_t version = (uintptr_t)hmap_get_int(&s->fn_version, f->id) + 1;
	char *full = sym ? demangle(sym) : NULL, name[512];

	if (full)
		short_kernel_name(full, name, sizeof(name));
	I(st, 2, f->id);
	sq_text(st, 3, full ? name : NULL);
	sq_text(st, 4, full);
	sq_text(st, 5, sym);
	I(st, 6, f->handle);
	I(st, 7, version);
	sq_step(s, SQ_KERNELS);
	free(full);
	hmap_put_int(&s->fn_version, f->id, (void *)version);
}

static void shape(struct sq *s, const struct gt_shape *sh)
{
	struct sq_row *st = row(s, SQ_SHAPES);

	I(st, 2, sh->id);
	I(st, 3, sh->function);
	for (int i = 0; i < 3; i++) {
		I(st, 4 + i, sh->grid[i]);
		I(st, 7 + i, sh->block[i]);
	}
	I(st, 10, sh->shared_mem);
	sq_step(s, SQ_SHAPES);
	hmap_put_int(&s->shape_fn, sh->id, (void *)(uintptr_t)(sh->function + 1ull));
}

/* The columns every host event table starts with. */
static struct sq_row *event_row(struct sq *s, enum sq_table t,
			       const struct dump_event *ev)
{
	struct sq_row *st = row(s, t);

	I(st, 2, ev->id);
	I(st, 3, ev->tid);
	I(st, 4, ev->t0);
	I(st, 5, ev->dur);
	I(st, 6, ev->result);
	I(st, 7, ev->stream);
	I(st, 8, ev->op->id);
	return st;
}

static void nccl_call(struct sq *s, const struct dump_event *ev)
{
	struct sq_row *st = event_row(s, SQ_NCCL_CALLS, ev);
	const uint64_t *a = ev->arg;

	I(st, 9, a[GT_ARG_NCCL_COUNT]);
	I(st, 10, a[GT_ARG_NCCL_BYTES]);
	I(st, 11, a[GT_ARG_NCCL_COMM]);
	if (a[GT_ARG_NCCL_PEER])
		I(st, 12, a[GT_ARG_NCCL_PEER] - 1);
	sq_text(st, 13, a[GT_ARG_NCCL_DTYPE] ? nccl_type_name((uint32_t)a[GT_ARG_NCCL_DTYPE])
					 : NULL);
	if (a[GT_ARG_NCCL_REDOP])
		I(st, 14, a[GT_ARG_NCCL_REDOP] - 1);
	I(st, 15, a[GT_ARG_NCCL_STACK]);
	sq_step(s, SQ_NCCL_CALLS);
}

static void nvtx_event(struct sq *s, const struct dump_event *ev)
{
	static const char *const calls[] = {
		"?", "push", "pop", "start", "end", "mark", "name_category",
		"name_thread",
	};
	struct sq_row *st = row(s, SQ_NVTX_EVENTS);
	uint8_t c = ev->op->direction;

	I(st, 2, ev->id);
	I(st, 3, ev->tid);
	I(st, 4, ev->t0);
	I(st, 5, ev->op->id);
	sq_text(st, 6, c < ARRAY_SIZE(calls) ? calls[c] : "?");
	for (int i = 0; i < GT_ARG_NVTX_N; i++)
		I(st, 7 + i, ev->arg[i]);
	I(st, 11, ev->result);
	sq_step(s, SQ_NVTX_EVENTS);
}

static void host_alloc(struct sq *s, const struct dump_event *ev)
{
	struct sq_row *st = row(s, SQ_HOST_ALLOCS);

	I(st, 2, ev->id);
	I(st, 3, ev->tid);
	I(st, 4, ev->t0);
	I(st, 5, ev->dur);
	I(st, 6, ev->result);
	I(st, 7, ev->op->id);
	for (int i = 0; i < GT_ARG_HOSTALLOC_N; i++)
		I(st, 8 + i, ev->arg[i]);
	sq_step(s, SQ_HOST_ALLOCS);
}

static void copy(struct sq *s, const struct dump_event *ev)
{
	struct sq_row *st = event_row(s, SQ_COPIES, ev);
	uint64_t mem = ev->arg[GT_ARG_COPY_MEMORY];

	for (int i = GT_ARG_COPY_BYTES; i <= GT_ARG_COPY_COUNT; i++)
		I(st, 9 + i, ev->arg[i]);
	sq_text(st, 13, memory_name(mem & GT_MEM_MASK));
	I(st, 14, !!(mem & GT_COPYF_STAGED));
	I(st, 15, !!(mem & GT_COPYF_SYNC_PINNED));
	I(st, 16, ev->arg[GT_ARG_COPY_STACK]);
	sq_step(s, SQ_COPIES);
}

static void host_sample(struct sq *s, const struct dump_event *ev)
{
	struct sq_row *st = row(s, SQ_HOST_SAMPLES);

	I(st, 2, ev->id);
	I(st, 3, ev->tid);
	I(st, 4, ev->t0);
	I(st, 5, ev->dur);
	I(st, 6, ev->arg[GT_ARG_HOSTSAMPLE_STACK]);
	sq_text(st, 7, ev->arg[GT_ARG_HOSTSAMPLE_STATE] == GT_HOST_WAITING ?
		"waiting" : "running");
	I(st, 8, ev->arg[GT_ARG_HOSTSAMPLE_INCALL]);
	sq_step(s, SQ_HOST_SAMPLES);
}

static void event(struct sq *s, const struct dump_event *ev)
{
	struct sq_row *st;
	uintptr_t fn;

	switch (ev->op->kind) {
	case GT_KIND_LAUNCH:
		st = event_row(s, SQ_LAUNCHES, ev);
		I(st, 9, ev->arg[GT_ARG_LAUNCH_SHAPE]);
		fn = (uintptr_t)hmap_get_int(&s->shape_fn, ev->arg[GT_ARG_LAUNCH_SHAPE]);
		if (fn) {
			I(st, 10, fn - 1);
			I(st, 11, (uintptr_t)hmap_get_int(&s->fn_version, fn - 1));
		}
		sq_step(s, SQ_LAUNCHES);
		break;
	case GT_KIND_GRAPH:
		st = event_row(s, SQ_GRAPH_LAUNCHES, ev);
		I(st, 9, ev->arg[GT_ARG_GRAPH_HANDLE]);
		sq_step(s, SQ_GRAPH_LAUNCHES);
		break;
	case GT_KIND_COPY:
		copy(s, ev);
		break;
	case GT_KIND_SET:
		st = event_row(s, SQ_MEMSETS, ev);
		I(st, 9, ev->arg[GT_ARG_SET_BYTES]);
		I(st, 10, ev->arg[GT_ARG_SET_DST]);
		sq_step(s, SQ_MEMSETS);
		break;
	case GT_KIND_SYNC:
		st = event_row(s, SQ_SYNCS, ev);
		I(st, 9, ev->arg[GT_ARG_SYNC_HANDLE]);
		I(st, 10, ev->arg[GT_ARG_SYNC_STACK]);
		sq_step(s, SQ_SYNCS);
		break;
	case GT_KIND_HOSTALLOC:
		host_alloc(s, ev);
		break;
	case GT_KIND_NCCL:
		nccl_call(s, ev);
		break;
	case GT_KIND_NVTX:
		nvtx_event(s, ev);
		break;
	case GT_KIND_HOSTSAMPLE:
		host_sample(s, ev);
		break;
	default:
		event_row(s, SQ_OTHER_EVENTS, ev);
		sq_step(s, SQ_OTHER_EVENTS);
	}
}

static void stack(struct sq *s, const struct dump_reader *r,
		  const struct dump_record *rec)
{
	struct sq_row *st = row(s, SQ_STACKS);
	struct gt_pyframe f;
	uint64_t pc;
	int depth = 0;

	I(st, 2, rec->stack.id);
	I(st, 3, rec->stack.native);
	I(st, 4, rec->stack.python);
	sq_step(s, SQ_STACKS);
	for (int i = 0; i < rec->stack.python; i++, depth++) {
		memcpy(&f, (const uint8_t *)rec->stack.frames + i * sizeof(f), sizeof(f));
		st = row(s, SQ_STACK_FRAMES);
		I(st, 2, rec->stack.id);
		I(st, 3, depth);
		I(st, 4, 1);
		sq_text(st, 6, dump_string(r, f.file_str));
		sq_text(st, 7, dump_string(r, f.func_str));
		I(st, 8, f.line);
		sq_step(s, SQ_STACK_FRAMES);
	}
	for (int i = 0; i < rec->stack.native; i++, depth++) {
		memcpy(&pc, (const uint8_t *)rec->stack.pcs + i * sizeof(pc), sizeof(pc));
		st = row(s, SQ_STACK_FRAMES);
		I(st, 2, rec->stack.id);
		I(st, 3, depth);
		I(st, 4, 0);
		I(st, 5, pc);
		sq_step(s, SQ_STACK_FRAMES);
	}
}

static void modules(struct sq *s, const struct dump_reader *r,
		    const struct dump_record *rec)
{
	struct gt_module mod;
	char hex[2 * sizeof(mod.build_id) + 1];

	for (uint32_t i = 0; i < rec->modules.count; i++) {
		struct sq_row *st = row(s, SQ_MODULES);

		memcpy(&mod, (const uint8_t *)rec->modules.mods + i * sizeof(mod),
		       sizeof(mod));
		for (int k = 0; k < mod.build_id_len && k < 32; k++)
			snprintf(hex + 2 * k, 3, "%02x", mod.build_id[k]);
		hex[2 * (mod.build_id_len < 32 ? mod.build_id_len : 32)] = '\0';
		I(st, 2, mod.base);
		I(st, 3, mod.start);
		I(st, 4, mod.size);
		sq_text(st, 5, dump_string(r, mod.path_str));
		sq_text(st, 6, mod.build_id_len ? hex : NULL);
		sq_step(s, SQ_MODULES);
	}
}

static void hex_text(struct sq_row *st, int i, uint64_t v)
{
	char buf[20];

	snprintf(buf, sizeof(buf), "%016llx", (unsigned long long)v);
	sq_text(st, i, v ? buf : NULL);
}

static void nccl_comm(struct sq *s, const struct dump_reader *r,
		      const struct gt_nccl_comm *c)
{
	struct sq_row *st = row(s, SQ_NCCL_COMMS);

	I(st, 2, c->id);
	I(st, 3, c->parent);
	I(st, 4, c->rank);
	I(st, 5, c->nranks);
	I(st, 6, c->device);
	I(st, 7, c->color);
	I(st, 8, c->handle);
	hex_text(st, 9, c->uid_hash);
	hex_text(st, 10, c->nccl_hash);
	I(st, 11, c->t_ns);
	I(st, 12, c->nccl_version);
	sq_text(st, 13, c->name_str ? dump_string(r, c->name_str) : NULL);
	I(st, 14, c->how);
	I(st, 15, c->plugin);
	sq_step(s, SQ_NCCL_COMMS);
}

static void nccl_prof_rows(struct sq *s, const struct dump_reader *r,
		     const struct dump_record *rec)
{
	struct gt_nccl_prof p;

	for (uint32_t i = 0; i < rec->nccl_prof.count; i++) {
		struct sq_row *st = row(s, SQ_NCCL_OPS);

		memcpy(&p, (const uint8_t *)rec->nccl_prof.recs +
		       (size_t)i * rec->nccl_prof.size, sizeof(p));
		I(st, 2, p.start_ns);
		I(st, 3, p.stop_ns);
		I(st, 4, p.gpu_start);
		I(st, 5, p.gpu_stop);
		I(st, 6, p.count);
		I(st, 7, p.seq);
		I(st, 8, p.comm);
		I(st, 9, p.peer);
		sq_text(st, 10, dump_string(r, p.func_str));
		sq_text(st, 11, dump_string(r, p.dtype_str));
		sq_text(st, 12, dump_string(r, p.algo_str));
		sq_text(st, 13, dump_string(r, p.proto_str));
		sq_text(st, 14, p.type == GT_NCCL_PROF_P2P ? "p2p" : "collective");
		I(st, 15, p.channels);
		I(st, 16, p.channels_timed);
		sq_step(s, SQ_NCCL_OPS);
	}
}

static void info(struct sq *s, enum sq_table t, const struct dump_record *rec)
{
	const void *pos = rec->info.items;
	const void *end = (const uint8_t *)pos + rec->info.size;
	struct env_item it;

	while (env_item_next(&pos, end, &it)) {
		struct sq_row *st = row(s, t);

		I(st, 2, rec->info.h.time_ns);
		I(st, 3, rec->info.h.scope);
		I(st, 4, it.key);
		I(st, 5, it.status);
		I(st, 6, it.value);
		if (it.len)
			sqlite3_bind_text(st->st, 7, it.text, (int)it.len, SQLITE_TRANSIENT);
		sq_step(s, t);
	}
}

/* GPU start and end, on the host clock when a clock pair came before. */
static void gpu_times(struct sq *s, struct sq_row *st, uint64_t host_id,
		      uint64_t start, uint64_t end)
{
	uint64_t h = gpu_clock_map(&s->clock, start);

	I(st, 2, host_id);
	if (h) {
		I(st, 3, h);
		I(st, 4, h + (end > start ? end - start : 0));
	}
	I(st, 5, start);
	I(st, 6, end);
}

static void gpu_kernel(struct sq *s, const struct dump_reader *r,
		       const struct gt_gpu_kernel *k)
{
	struct sq_row *st = row(s, SQ_GPU_KERNELS);
	const char *sym = k->name_str ? dump_string(r, k->name_str) : NULL;
	char *full = sym ? demangle(sym) : NULL, name[512];

	if (full)
		short_kernel_name(full, name, sizeof(name));
	gpu_times(s, st, k->host_id, k->start, k->end);
	I(st, 7, k->queued);
	I(st, 8, k->submitted);
	I(st, 9, k->correlation);
	I(st, 10, k->device);
	I(st, 11, k->stream);
	sq_text(st, 12, full ? name : NULL);
	for (int i = 0; i < 3; i++) {
		I(st, 13 + i, k->grid[i]);
		I(st, 16 + i, k->block[i]);
	}
	I(st, 19, k->graph_id);
	sq_step(s, SQ_GPU_KERNELS);
	free(full);
}

static void gpu_copy(struct sq *s, const struct gt_gpu_copy *c, int set)
{
	struct sq_row *st = row(s, SQ_GPU_COPIES);

	gpu_times(s, st, c->host_id, c->start, c->end);
	I(st, 7, c->bytes);
	I(st, 8, c->correlation);
	I(st, 9, c->device);
	I(st, 10, c->stream);
	sq_text(st, 11, set ? "memset" : "memcpy");
	I(st, 12, c->copy_kind);
	I(st, 13, c->src_kind);
	I(st, 14, c->dst_kind);
	I(st, 15, c->flags);
	sq_step(s, SQ_GPU_COPIES);
}

static void gpu_span(struct sq *s, const struct gt_gpu_span *g, int graph)
{
	struct sq_row *st = row(s, SQ_GPU_SPANS);

	gpu_times(s, st, g->host_id, g->start, g->end);
	I(st, 7, g->correlation);
	I(st, 8, g->device);
	I(st, 9, g->stream);
	sq_text(st, 10, graph ? "graph" : "sync");
	I(st, 11, g->type);
	sq_step(s, SQ_GPU_SPANS);
}

static void gpu(struct sq *s, const struct dump_reader *r,
		const struct dump_record *rec)
{
	const uint8_t *p = rec->gpu.recs;
	uint32_t size = rec->gpu.h.rec_size, kind = rec->gpu.h.kind;
	union { struct gt_gpu_kernel k; struct gt_gpu_copy c; struct gt_gpu_span g; } u;

	for (uint32_t i = 0; i < rec->gpu.h.count; i++, p += size) {
		memset(&u, 0, sizeof(u));
		memcpy(&u, p, size < sizeof(u) ? size : sizeof(u));
		if (kind == GT_GPU_KERNEL)
			gpu_kernel(s, r, &u.k);
		else if (kind == GT_GPU_MEMCPY || kind == GT_GPU_MEMSET)
			gpu_copy(s, &u.c, kind == GT_GPU_MEMSET);
		else if (kind == GT_GPU_SYNC || kind == GT_GPU_GRAPH)
			gpu_span(s, &u.g, kind == GT_GPU_GRAPH);
	}
}

static void simple(struct sq *s, const struct dump_reader *r,
		   const struct dump_record *rec)
{
	struct sq_row *st;

	switch (rec->type) {
	case DUMP_STRING:
		st = row(s, SQ_STRINGS);
		I(st, 2, rec->string.id);
		sq_text(st, 3, rec->string.text);
		sq_step(s, SQ_STRINGS);
		break;
	case DUMP_STREAM:
		st = row(s, SQ_STREAMS);
		I(st, 2, rec->stream.id);
		I(st, 3, rec->stream.handle);
		sq_step(s, SQ_STREAMS);
		break;
	case DUMP_DROPS:
		st = row(s, SQ_DROPS);
		I(st, 2, rec->drops.tid);
		I(st, 3, rec->drops.count);
		sq_step(s, SQ_DROPS);
		break;
	case DUMP_NOTE:
		st = row(s, SQ_NOTES);
		I(st, 2, rec->note.level);
		sq_text(st, 3, rec->note.text);
		sq_step(s, SQ_NOTES);
		break;
	case DUMP_NVTX:
		st = row(s, SQ_NVTX_DOMAINS);
		I(st, 2, rec->nvtx.id);
		sq_text(st, 3, dump_string(r, rec->nvtx.name_str));
		sq_step(s, SQ_NVTX_DOMAINS);
		break;
	case DUMP_WINDOW:
		st = row(s, SQ_GPU_WINDOWS);
		I(st, 2, rec->window.seq);
		I(st, 3, rec->window.start_ns);
		I(st, 4, rec->window.end_ns);
		sq_step(s, SQ_GPU_WINDOWS);
		break;
	case DUMP_CLOCK:
		gpu_clock_add(&s->clock, &rec->clock);
		st = row(s, SQ_CLOCK_PAIRS);
		I(st, 2, rec->clock.gpu_ns);
		I(st, 3, rec->clock.host_ns);
		I(st, 4, rec->clock.spread_ns);
		sq_step(s, SQ_CLOCK_PAIRS);
		break;
	default:
		break;
	}
}

void sq_record(void *ctx, const struct dump_reader *r,
	       const struct dump_record *rec)
{
	struct sq *s = ctx;

	if (s->failed)
		return;
	switch (rec->type) {
	case DUMP_EVENT: event(s, &rec->event); break;
	case DUMP_PROCESS: process(s, rec->process); break;
	case DUMP_OP: op(s, rec->op); break;
	case DUMP_FUNCTION: function(s, r, &rec->function); break;
	case DUMP_SHAPE: shape(s, &rec->shape); break;
	case DUMP_STACK: stack(s, r, rec); break;
	case DUMP_MODULES: modules(s, r, rec); break;
	case DUMP_NCCL_COMM: nccl_comm(s, r, &rec->nccl_comm); break;
	case DUMP_NCCL_PROF: nccl_prof_rows(s, r, rec); break;
	case DUMP_SAMPLE: info(s, SQ_SAMPLES, rec); break;
	case DUMP_ENV: info(s, SQ_ENV, rec); break;
	case DUMP_GPU: gpu(s, r, rec); break;
	default: simple(s, r, rec); break;
	}
}

#else
typedef int export_sqlite_rows_unused;  /* ISO C: no empty unit */
#endif /* HAVE_SQLITE */
