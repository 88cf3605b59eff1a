/* SPDX-License-Identifier: MIT */
/*
 * export_trace_internal.h - what the timeline writer's files share:
 * export_trace.c (the file, host API calls), export_trace_gpu.c (GPU
 * records, windows, flow arrows), export_trace_misc.c (NVTX, NCCL
 * profiler records, sample counters, track names), export_trace_samples.c
 * (host stack samples).
 *
 * State is per dump and bounded: names cached per op, shape, string and
 * track, the GPU timing windows, the last sample of the host.
 */
#ifndef GPUTRACE_ANALYZER_EXPORT_TRACE_INTERNAL_H
#define GPUTRACE_ANALYZER_EXPORT_TRACE_INTERNAL_H

#include "analyzer/reader/dump_reader.h"
#include "analyzer/export/export.h"
#include "analyzer/export/export_out.h"
#include "analyzer/passes/gpu_internal.h"
#include "analyzer/lib/hmap.h"

#define TRACE_WINDOWS 64            /* GPU timing windows remembered */
#define TRACE_GPU_TID 1000000000u   /* GPU tracks: this + their number */
#define TRACE_NCCL_TID 2000000000u  /* NCCL communicator tracks */

/* A function as last defined; gen: trace.fn_gen when it was. */
struct trace_func {
	uint32_t name_str;
	uint64_t gen;
};

/*
 * A launch shape and the args it writes ("kernel":...,"grid":...), built
 * at a launch and kept while its function keeps the definition (gen) and
 * no string is defined again (str_gen): a redefinition costs nothing
 * until a shape of it is launched.
 */
struct trace_shape {
	uint32_t function;
	uint32_t grid[3], block[3], shared_mem;
	char *args;                 /* NULL until a launch needs it */
	uint64_t gen, str_gen;
};

struct trace_cpu {
	int have;
	uint64_t t, cpu, child, total, iowait;
};

struct pft;

struct trace {
	struct xout o;
	struct pft *pf;             /* --perfetto: NULL for the JSON trace */
	const struct export_opts *opts;
	const struct export_dump *d;
	uint64_t base_ns;           /* timestamp 0, aligned clock */
	uint64_t from, to;          /* window, the dump's own clock */
	uint64_t written;           /* events written, all dumps */
	uint64_t picked;            /* host calls in the window, all dumps */
	uint64_t seen_lo, seen_hi;  /* the host calls' span, all dumps (ts) */

	/* per dump, reset between dumps */
	struct hmap ops;            /* op id -> quoted api name */
	struct hmap shapes;         /* shape id -> struct trace_shape */
	struct hmap funcs;          /* function id -> struct trace_func */
	uint64_t fn_gen;            /* function definitions so far */
	uint64_t str_gen;           /* strings defined again so far */
	struct hmap names;          /* string id -> quoted short kernel name */
	struct hmap strs;           /* string id -> quoted text */
	struct hmap tids;           /* host threads named */
	struct hmap tracks;         /* device << 32 | stream -> track + 1 */
	struct hmap comms;          /* nccl comm id -> track named */
	struct hmap domains;        /* nvtx domain id -> name string id */
	uint32_t ntracks;
	struct gpu_clock clock;
	struct gt_gpu_window win[TRACE_WINDOWS];
	size_t nwin;
	struct trace_cpu cpu;
	uint64_t gpu_unmapped;      /* GPU records before any clock pair */
	int have_header;
	struct gt_file_header hdr;  /* the dump's (realtime for globaltimer) */
	struct model *stacks;       /* its stacks and modules only, for the
				       host samples (export_trace_samples.c) */
};

/* ts of a host time of the dump, or 0 if before the base. */
uint64_t trace_ts(const struct trace *t, uint64_t host_ns);
/* Whether [t0, t1] (the dump's clock) meets the window. */
int trace_in(const struct trace *t, uint64_t t0, uint64_t t1);
/* Start an event: the separator, "{\"ph\":\"<ph>\",\"pid\":P,\"tid\":" */
void trace_begin(struct trace *t, const char *ph);
/* A cached quoted string for id (strs), "\"\"" for none. */
const char *trace_str(struct trace *t, const struct dump_reader *r,
		      uint32_t id);
/* A metadata event naming a thread or track (name unquoted). */
void trace_thread_name(struct trace *t, uint64_t tid, const char *name,
		       int sort);
/* The text of string id, "" for none (not cached). */
const char *trace_text(const struct dump_reader *r, uint32_t id);

/* export_trace_gpu.c */
void trace_gpu_record(struct trace *t, const struct dump_reader *r,
		      const struct dump_record *rec);
void trace_window(struct trace *t, const struct gt_gpu_window *w);
/* Whether host time t0 fell in a GPU timing window (flow arrows). */
int trace_in_window(const struct trace *t, uint64_t t0);
/* A GPU clock time on the host clock, 0 if it cannot be mapped. */
uint64_t trace_gpu_time(const struct trace *t, uint64_t gpu_ns);
/* A globaltimer time (NCCL's profiler plugin) on the host clock, or 0. */
uint64_t trace_globaltimer(const struct trace *t, uint64_t g);

/* export_trace_misc.c */
void trace_nvtx(struct trace *t, const struct dump_reader *r,
		const struct dump_event *ev);
void trace_nccl_prof(struct trace *t, const struct dump_reader *r,
		     const struct dump_record *rec);
void trace_sample(struct trace *t, const struct dump_record *rec);
void trace_process(struct trace *t, const struct dump_process *p);

/* export_trace_samples.c: the host samples on their threads */
void trace_stacks_record(struct trace *t, const struct dump_reader *r,
			 const struct dump_record *rec);
void trace_host_sample(struct trace *t, const struct dump_event *ev);
void trace_samples_reset(struct trace *t);

/*
 * export_perfetto.c: the same events as Perfetto's protobuf packets, for
 * --perfetto (t->pf set).  Times are host times of the dump (trace_ts()
 * makes them the file's); tid is the JSON trace's track number.
 */
struct pft_arg {
	const char *key;
	enum { PFT_U64, PFT_I64, PFT_STR, PFT_BOOL, PFT_DBL } type;
	uint64_t u;
	int64_t i;
	double d;
	const char *s;
};

#define PFT_MAX_ARGS 10

struct pft_slice {
	uint64_t tid;
	uint32_t stream;            /* host calls: the stream's child track */
	uint64_t t0, dur;           /* the dump's host clock */
	const char *name, *cat;
	uint64_t flow_out, flow_in; /* host event ids, 0: none */
	struct pft_arg arg[PFT_MAX_ARGS];
	size_t nargs;
};

enum pft_kind { PFT_SLICE, PFT_BEGIN, PFT_END, PFT_INSTANT };

struct pft *pft_new(struct xout *o);
void pft_free(struct pft *pf);
/* A slice (PFT_SLICE), or one end of one (begin, end) or an instant. */
void pft_event(struct trace *t, enum pft_kind k, const struct pft_slice *e);
/* The same on an async track of its own, per NVTX range id. */
void pft_range(struct trace *t, enum pft_kind k, uint64_t range,
	       const struct pft_slice *e);
void pft_track_name(struct trace *t, uint64_t tid, const char *name, int sort);
void pft_process(struct trace *t, const char *name);
void pft_counter(struct trace *t, uint64_t host_ns, const char *name,
		 double v);
/* A host sample of thread tid at host_ns: a PerfSample whose callstack
 * has frames f[0..n), from the root to the leaf. */
struct pft_frame {
	const char *name;           /* the function */
	const char *mapping;        /* its module, "python" for Python's */
};
void pft_sample(struct trace *t, uint32_t tid, uint64_t host_ns,
		const struct pft_frame *f, size_t n);
/* Between dumps: the dump's tracks are forgotten. */
void pft_reset(struct trace *t);
/* Add a key/value to e. */
void pft_u64(struct pft_slice *e, const char *key, uint64_t v);
void pft_i64(struct pft_slice *e, const char *key, int64_t v);
void pft_str(struct pft_slice *e, const char *key, const char *s);
void pft_bool(struct pft_slice *e, const char *key);

#endif /* GPUTRACE_ANALYZER_EXPORT_TRACE_INTERNAL_H */
