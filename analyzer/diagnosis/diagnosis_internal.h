/* SPDX-License-Identifier: MIT */
/*
 * diagnosis_internal.h - what the diagnosis files share: the host spans
 * (idle_host.c), the GPU timeline per device (idle_gpu.c), span lists
 * (span.c), CPU samples (idle_outside.c), the attribution (idle.c; host
 * work behind a readback: idle_readback.c),
 * steps (steps*.c), the verdict (verdict*.c) and the gains (whatif.c).
 */
#ifndef GPUTRACE_ANALYZER_DIAGNOSIS_INTERNAL_H
#define GPUTRACE_ANALYZER_DIAGNOSIS_INTERNAL_H

#include <stdint.h>

#include "analyzer/diagnosis/diagnosis.h"
#include "analyzer/lib/hmap.h"

#define DIAG_MAX_HOST_SPANS (1u << 18)  /* 256k spans of 32 bytes */
#define DIAG_MAX_GPU_SPANS (1u << 17)   /* per list, all devices together */
#define DIAG_MAX_SAMPLES (1u << 16)
#define DIAG_MAX_WINDOWS (1u << 16)
#define DIAG_MAX_STEPS (1u << 18)
#define DIAG_MAX_DEVICES 16
#define DIAG_BUCKET_NS 100000000ull     /* kernel statistics per 100 ms */
#define DIAG_MAX_BUCKETS (1u << 18)     /* 7.3 hours; at most 72 MiB */
#define DIAG_PAGE_BUCKETS 1024          /* allocated together: 100 s */
#define DIAG_FEED_GAP_NS 100000ull      /* launches closer: one run */
#define DIAG_SYNC_EPS_NS 20000ull       /* a wait this close before an idle
					   start still drained the queue */
#define DIAG_SMALL_KERNEL_NS 10000ull   /* "many kernels under 10 us" */
#define DIAG_BLOCKED_NS 200000ull       /* a launch this long waited for
					   room in a full queue */

/* ---- host spans (idle_host.c) ------------------------------------------- */

enum host_cat {
	HC_WAIT,                /* blocked until the GPU is done */
	HC_FEED,                /* launching, async copies, sets, queries */
	HC_ALLOC,               /* pinning host memory */
	HC_NCCL,                /* inside an NCCL call */
	HC_STAGE,               /* HtoD copy the host stages or waits for */
	HC_KINDS,
	HC_OUTSIDE = HC_KINDS,  /* host states: none of the above */
};

#define HF_READBACK 1           /* wait: a DtoH copy, or a wait after one;
				   a run of launches: a small async DtoH
				   copy in it (a value read back) */
#define HF_UPLOAD 2             /* wait: right after an HtoD copy */
#define HF_DRAIN 4              /* wait: until the stream or context is
				   done (not an event), so its queue is
				   empty when it returns */
#define HF_LAUNCH 8             /* a run of launches: a kernel or graph
				   launch in it (else copies, sets, queries) */

struct host_span {
	uint64_t t0, t1;
	uint32_t cuda_ns;       /* time inside CUDA calls (runs: the sum) */
	uint32_t stack;         /* GT_CHUNK_STACK id, 0 = none */
	uint16_t thread;
	uint8_t cat;            /* enum host_cat */
	uint8_t flags;          /* HF_* */
	uint32_t calls;         /* calls in it (a run of launches: many) */
};

/* A stretch of time with one host state, the highest-priority category
 * any thread was in (STAGE > NCCL > ALLOC > FEED > WAIT > OUTSIDE). */
struct host_seg {
	uint64_t t0, t1;
	uint32_t span;          /* the span behind it (not for OUTSIDE) */
	uint8_t state;          /* enum host_cat or HC_OUTSIDE */
};

struct host_thread {
	uint32_t tid;
	uint16_t index;
	struct host_span run;   /* the open run of launches (calls 0: none) */
	uint8_t last_dir;       /* direction of its last event if a copy */
	uint64_t last_t1;
	uint64_t launches;
};

/* ---- span lists (span.c) ------------------------------------------ */

struct span {
	uint64_t t0, t1;
};

struct span_list {
	struct span *v;
	size_t n, cap;
	int sorted;             /* sorted and disjoint */
};

/* Append [t0, t1); merged with the last span when they touch.  0, or -1
 * when *budget (spans left) is spent. */
int span_add(struct span_list *l, uint64_t t0, uint64_t t1, size_t *budget);
/* Sort and merge into disjoint spans. */
void span_normalize(struct span_list *l);
/* Index of the first span ending after t, or l->n. */
size_t span_find(const struct span_list *l, uint64_t t);
/* Whether t lies inside a span; *until gets where that state ends. */
int span_at(const struct span_list *l, size_t *hint, uint64_t t,
	    uint64_t *until);
/* Time covered within [t0, t1). */
uint64_t span_cover(const struct span_list *l, uint64_t t0, uint64_t t1);
void span_release(struct span_list *l);

/* ---- GPU timeline (idle_gpu.c) ------------------------------------------ */

enum gpu_list {
	GL_COMPUTE,             /* kernels other than NCCL's */
	GL_NCCL,                /* NCCL kernels */
	GL_COPY,                /* copies and memsets */
	GL_PENDING,             /* kernels submitted, not yet started */
	GL_KINDS,
};

struct dev_timeline {
	struct span_list l[GL_KINDS];
	uint64_t records;
};

/* Kernel and launch statistics per DIAG_BUCKET_NS of the run. */
struct kbucket {
	uint64_t t_lo, t_hi;            /* what was counted in it happened here */
	uint64_t kernels, kernel_ns;
	uint64_t small, small_ns;       /* under DIAG_SMALL_KERNEL_NS */
	uint64_t nccl_ns;
	uint64_t launches, launch_ns;   /* host launch calls */
	uint64_t htod_bytes;            /* host to device copies (host side) */
	uint64_t graphs;                /* graph launches */
	uint64_t opt_ns;                /* optimizer kernels (foreach, Adam...) */
	uint64_t grid_ns[12];           /* compute kernel time by grid size:
					   blocks in [2^i, 2^(i+1)), [2048, ...) */
	uint64_t grid_launches[12];     /* host launches by grid size (the
					   launch's shape): without GPU records */
};

/* GPU copy bandwidth by (HtoD, DtoH) x (pageable, pinned). */
struct copy_bw {
	uint64_t bytes[2][2], ns[2][2];
};

/* A shape's entry in shape_info: its function (a kernel's token in the
 * launch sequence) above SHAPE_FN_SHIFT, its grid class + 1 below. */
#define SHAPE_FN_SHIFT 8
#define SHAPE_CLASS_MASK 0xffu

/* ---- CPU samples (idle_outside.c) ----------------------------------------- */

struct host_sample {
	uint64_t t;
	uint64_t proc, child;           /* CPU ns, cumulative */
	uint64_t iowait, total;         /* the machine's, cumulative */
	uint32_t children;
	uint8_t have_proc, have_child, have_io, pad;
};

/* How outside-CUDA time splits in one sample interval. */
struct outside_split {
	double cpu, loader, io;         /* shares; the rest is other */
};

/* ---- idle attribution (idle.c) --------------------------------------------- */

enum idle_cause {
	IC_LAUNCH,              /* host feeding back to back: launch-bound */
	IC_LATENCY,             /* work submitted, GPU not started yet */
	IC_SYNC,                /* the host waited, the queue ran dry */
	IC_COPY,                /* copies: GPU-side, or the host staging */
	IC_COMM,                /* NCCL kernels alone, or host in NCCL */
	IC_CPU,                 /* outside CUDA, this process on the CPU */
	IC_LOADER,              /* outside CUDA, worker processes busy */
	IC_IO,                  /* outside CUDA, machine in I/O wait */
	IC_OUTSIDE,             /* outside CUDA, nothing more known */
	IC_ENV,                 /* queued while another process ran */
	IC_CAUSES,
};

enum sync_kind { SK_OTHER, SK_READBACK, SK_UPLOAD, SK_KINDS };

/* Sync bubble time by the call site of the wait. */
struct sync_site {
	uint64_t ns;
	uint32_t stack;
};

struct breakdown {
	uint64_t span_ns;       /* time looked at, summed over devices */
	uint64_t busy_ns;       /* compute kernels running */
	uint64_t cause[IC_CAUSES];
	uint64_t sync_kind[SK_KINDS];   /* IC_SYNC by what was waited for */
	uint64_t intervals;     /* idle intervals */
	uint64_t behind_readback;       /* of sync_kind[SK_READBACK]: host
					   work right after a readback
					   (idle_readback.c) */
};

/* Host-side time by state, for dumps without GPU records. */
struct host_breakdown {
	uint64_t span_ns;
	uint64_t state[HC_KINDS + 1];   /* enum host_cat, HC_OUTSIDE */
	uint64_t outside[4];            /* cpu, loader, io, other */
	uint64_t drained;               /* outside time right after a wait
					   that emptied the queue: GPU idle
					   (one stream assumed); not in
					   outside[] */
	uint64_t wait_upload;           /* of state[HC_WAIT]: for an upload */
	uint64_t behind_readback;       /* of drained: host work right after
					   a readback (idle_readback.c) */
};

/*
 * Host work behind a readback (idle_readback.c): whether the host's time
 * outside CUDA right after a readback (until its next CUDA call) is the
 * readback's cost, decided once per run, and what the host ran then.
 */
struct readback_host {
	int on;                         /* 1: counted as sync (readback) */
	int sampled;                    /* 1: decided by host samples; 0: by
					   the timing alone (none there) */
	uint64_t samples, ns;           /* the process's samples in those
					   stretches, their sampled time */
	uint64_t loader_ns;             /* ... in the DataLoader's __next__ */
	uint64_t user_ns;               /* ... running, outside it */
	char top[160];                  /* the function with most self time
					   there, "" none */
	double top_share;               /* ... its share of ns */
};

/* ---- steps (steps*.c) --------------------------------------------------------- */

enum step_source { STEPS_NONE, STEPS_NVTX, STEPS_PATTERN };

#define PERIOD_WINDOW 32768             /* launches kept per thread */
#define PERIOD_THREADS 8                /* threads watched */
#define PERIOD_CHECK_EVERY 1024         /* tokens between checks */

struct period_det {
	uint32_t tid;
	uint32_t *tok;                  /* ring of the last PERIOD_WINDOW */
	uint8_t *ah;                    /* ... their arguments' hashes */
	uint64_t *t;
	uint64_t seen;                  /* tokens so far */
	uint32_t period;                /* launches per step, 0 = none yet */
	uint32_t cand;                  /* the period the last check found */
	uint64_t anchor;                /* hash of the w tokens ending at the
					   call that starts a step */
	uint32_t anchor_w;
	uint32_t anchor_tok;            /* the newest of those w: no other
					   token ends a gram of the anchor
					   (UINT32_MAX while no period) */
	uint64_t *bounds;               /* step starts: anchor launches */
	uint64_t *ends;                 /* each one's call before: the end
					   of the step before's calls */
	uint32_t *sig;                  /* each one's arguments: the hashes
					   of the calls up to it */
	size_t nb, capb;
	size_t pattern_nb;              /* nb when the period was taken */
	uint64_t last_at;               /* calls seen up to the last bound */
	int capped;                     /* bounds reached DIAG_MAX_STEPS */
	uint32_t checks, agree;         /* checks made, agreeing with period */
	uint32_t tp;                    /* the period the last full check found */
	uint64_t run;                   /* newest calls equal to the one tp
					   before (tp 0: to themselves, not
					   read; tp <= seen) */
	uint32_t kept, kept_sub;        /* the whole ring's period and sub period */
	uint32_t kept_tp;               /* ... found with this tp */
	uint64_t kept_seen;             /* ... at this call */
	const struct hmap *opt;         /* the optimizer's kernels' tokens
					   (steps_optimizer.c) */
	uint64_t opt_scanned;           /* calls looked at for them */
	uint64_t opt_last;              /* the last one's call, + 1 (0: none) */
	uint64_t *opt_t;                /* each optimizer step's first call */
	size_t nopt, capopt;
};

/* The library's steps (GT_CHUNK_STEPS) by the GPU calls each holds. */
#define LIB_PERIODS 8
struct lib_steps {
	uint64_t bounds, next_seq, last;
	uint32_t source;                /* enum gt_step_source, 0 if they differ */
	uint32_t period[LIB_PERIODS];   /* GPU calls a step (0: another) */
	uint64_t steps[LIB_PERIODS];    /* steps of so many calls */
	uint64_t ns[LIB_PERIODS];       /* ... and their time */
};

struct nvtx_cand {
	char *key, *name;
	uint32_t depth;                 /* 0: top level, 1: inside one */
	uint64_t count, total_ns;
	uint64_t gpu_calls;             /* made, by any thread, inside one */
	uint64_t first_t0, last_t1;     /* the first range's start, the last's
					   end (all ranges, kept or not) */
	struct span_list spans;
};

struct nvtx_open_range {
	struct nvtx_cand *cand;         /* NULL: not a candidate */
	uint64_t t0;
	uint64_t gpu_calls;             /* the process's count at the push */
};

struct nvtx_thread {
	struct nvtx_open_range v[64];
	uint32_t depth;                 /* may exceed 64: deeper not kept */
};

struct step_stats {
	enum step_source source;
	char *name;                     /* the range name, or a description */
	uint64_t *t;                    /* boundaries: step i is [t[i], t[i+1]) */
	size_t nt;
	size_t warmup;                  /* the first steps, slower */
	uint64_t mean, p50, p99, min, max, stddev;  /* steady steps */
	uint64_t warm_mean;
	size_t outliers;                /* beyond 3 sigma */
	size_t outlier_idx[5];
	uint32_t period;                /* launches per step (pattern) */
	int capped;                     /* more steps than DIAG_MAX_STEPS */
	uint64_t step;                  /* the program's step: the host's mean,
					   or the GPU's pace (steps_pace) */
	uint64_t gpu_pace;              /* GPU-timed steps' time, each, 0 none */
	uint32_t gpu_steps;             /* ... over so many steps */
	int gpu_paced;                  /* step is the GPU's pace: the host
					   ran ahead of the GPU */
	int alike;                      /* one call repeated: the loop is not
					   seen in the calls */
	int drained;                    /* ... from the first step to the end
					   of the wait for all the work they
					   queued, else from the GPU-timed ones */
};

/* ---- verdict (verdict*.c, whatif.c) ------------------------------------------ */

enum vclass {
	VC_DATA, VC_CPU, VC_MEMORY, VC_COMM, VC_KERNEL, VC_ENV, VC_HEALTHY,
	VC_KINDS,
};

#define VERDICT_TEXTS 8
/* The memory class's change when a larger batch is its fix (the rules'
 * and the replay's). */
#define VERDICT_BATCH_CHANGE "a larger batch (gradient accumulation if it must stay small)"

struct verdict {
	enum vclass cls;
	double score;                   /* share of the time it explains */
	double gain_lo, gain_hi;        /* step time saved, share */
	double gain;                    /* the replay's point, when replayed */
	int replayed;                   /* the gain comes from the replay */
	int per_sample;                 /* the gain is in time per sample (a
					   larger batch), not in step time */
	double batch;                   /* replayed per sample: the batch
					   factor, 0 none */
	char *evidence[VERDICT_TEXTS];
	size_t nev;
	char *advice[VERDICT_TEXTS];
	size_t nadv;
	char change[160];               /* the change, in a few words */
};

/* Facts drawn from the environment and the samples (verdict_env.c). */
struct env_facts {
	int have_cpu;
	double proc_cores, child_cores; /* mean over the run */
	double allowed_cores;           /* affinity or quota, else cores */
	double iowait_share;
	uint64_t children_max;
	int saturated;                  /* CPU use near what it may use */
	int sm_count;                   /* of the main device, 0 unknown */
	uint64_t gpu_mem, self_mem;     /* bytes, 0 unknown: the device's
					   total (env_gpu_memory), this
					   process's most (NVML) */
	const char *gpu_mem_source;     /* "CUDA's total"... */
	double throttle_share;          /* samples held down by heat, hardware */
	double power_cap_share;         /* samples at the power limit */
	unsigned throttle_bits;
	double other_share;             /* samples with another process */
	double contention;              /* of the kernels' time, lost beyond
					   their fast runs (contention.c) */
	int pcie_gen, pcie_gen_max, pcie_width, pcie_width_max;
	int64_t driver_version, runtime_version;
	/* settings in the program's environment (GT_ENV_SETTING) */
	int launch_blocking;            /* CUDA_LAUNCH_BLOCKING set, not 0 */
	int p2p_off, ib_off;            /* NCCL_P2P_DISABLE, NCCL_IB_DISABLE */
	int eager_modules;              /* CUDA_MODULE_LOADING=EAGER */
	double blocking_score;          /* of the environment's score: the
					   launch gaps and waits that
					   CUDA_LAUNCH_BLOCKING explains */
	double nccl_share;              /* NCCL time, share of the time looked
					   at, when P2P or IB is turned off */
};

/* ---- when each part of the dump happened (chunk_times.c) --------------------- */

struct chunk_time {
	uint64_t off;                   /* the first chunk's offset */
	uint64_t lo, hi;                /* its events' earliest, latest start */
	int unordered;                  /* a chunk's events not in order of
					   start */
};

struct chunk_times {
	struct chunk_time *e;           /* by offset */
	size_t n;
	struct chunk_time *last;        /* e[n - 1], NULL while none */
	uint64_t last_off;              /* the last events chunk seen */
};

void chunk_times_new(struct chunk_times *c, uint64_t off, uint64_t t);

/* An event of the chunk at off, which starts at t, counted in the last
 * entry when it holds that chunk (1); 0 with nothing done when the event
 * opens a new chunk (chunk_times_new).  The last entry holds that chunk
 * alone: while its events come in order, hi is the last one's start. */
static inline int chunk_times_same(struct chunk_times *c, uint64_t off,
				   uint64_t t)
{
	struct chunk_time *e = c->last;

	if (!e || off > c->last_off)
		return 0;
	if (t >= e->hi) {
		e->hi = t;
		return 1;
	}
	e->unordered = 1;
	if (t < e->lo)
		e->lo = t;
	return 1;
}

static inline void chunk_times_add(struct chunk_times *c, uint64_t off,
				   uint64_t t)
{
	if (!chunk_times_same(c, off, t))
		chunk_times_new(c, off, t);
}
int chunk_times_outside(const struct chunk_times *c, size_t *at, uint64_t off,
			uint64_t lo, uint64_t hi, uint64_t until);
int chunk_times_in_order(const struct chunk_times *c, size_t *at, uint64_t off,
			 uint64_t until);
void chunk_times_release(struct chunk_times *c);

/* ---- the whole state ----------------------------------------------------------- */

struct diagnosis {
	/* host */
	struct hmap threads;            /* tid -> struct host_thread */
	struct host_thread *last_thread;        /* the last one looked up */
	uint16_t nthreads;
	struct host_span *spans;
	size_t nspans, capspans;
	uint64_t spans_lost;
	uint64_t cut_t;                 /* spans lost from here on (caps) */
	struct host_seg *segs;          /* built at the end */
	size_t nsegs;
	uint64_t first_t, last_t;       /* host events */
	struct chunk_times chunk_times; /* for the replay's second read */

	/* GPU */
	struct dev_timeline dev[DIAG_MAX_DEVICES];
	uint32_t ndev;
	size_t gpu_budget[GL_KINDS];
	uint64_t gpu_lost;
	uint64_t gpu_records, first_gpu, last_gpu;
	struct span_list windows;
	uint64_t window_open;           /* start of the open window, 0 none */
	size_t first_window;            /* windows' span of window 1, + 1 */
	struct span first_span;         /* ... as it was added */
	int first_at_start;             /* ... opened at the start (before the
					   steps were steady): left out when
					   other windows are there */
	struct hmap kinds;              /* kernel name_str -> what it is + 1 */
	/* pages of DIAG_PAGE_BUCKETS, each made when the run reaches it (a
	 * time far from the rest costs one page, not all before it) */
	struct kbucket *bucket_pages[DIAG_MAX_BUCKETS / DIAG_PAGE_BUCKETS];
	size_t nbuckets;                /* the last used + 1 */
	struct kbucket *last_b;         /* the last bucket asked for, which */
	uint64_t last_b_lo, last_b_len; /* holds the times lo + [0, len)
					   (len 0: none) */
	uint64_t base_ns;               /* bucket 0 starts here */
	struct copy_bw bw;
	int cupti_state;                /* enum gt_cupti_state, 0 unknown */

	/* samples */
	struct host_sample *samples;
	size_t nsamples, capsamples;
	struct outside_split *splits;   /* per sample interval, at the end */

	/* steps */
	struct hmap cands;              /* key -> struct nvtx_cand */
	struct hmap nvtx_threads;       /* tid << 32 | domain -> nvtx_thread */
	size_t cand_budget;
	uint64_t gpu_calls;             /* launches, graphs, copies, memsets */
	struct period_det det[PERIOD_THREADS];
	size_t ndet;
	struct period_det *last_det;    /* the last one asked for, or NULL */
	struct hmap opt_fns;            /* tokens of the optimizer's kernels */
	struct step_stats steps;
	struct lib_steps lib;           /* the library's, to compare */

	/* results */
	int have_gpu;                   /* GPU records in the region */
	uint64_t region_lo, region_hi;  /* what the regions cover, at most */
	int region_all;                 /* steps known, but no GPU timing in
					   the steady ones: all of it used */
	uint64_t timed_steps, timed_step_ns;    /* steady steps wholly inside
						   the GPU-timed region: count,
						   mean time */
	struct span_list region;        /* steady state (x windows) */
	struct span_list warm_region;   /* warm-up steps (x windows) */
	struct breakdown steady, warm;
	struct host_breakdown host, host_warm;
	struct span_list outside;       /* the steady moments whose idle time
					   is "outside CUDA" (GPU idle, or
					   without GPU records the host's):
					   where host samples count
					   (idle_samples.c) */
	size_t outside_budget;
	struct idle_samples *isamples;  /* idle_samples.c, made when asked */
	struct hmap sync_sites;         /* stack id -> struct sync_site */
	struct readback_host rb;        /* idle_readback.c */
	uint64_t region_kernels, region_launches, region_launch_ns;
	uint64_t region_small, region_small_ns, region_kernel_ns;
	uint64_t region_lowfill_ns, region_fill_known_ns, region_htod_bytes;
	uint64_t region_graphs, region_nccl_ns, region_opt_ns;
	uint64_t region_lowfill_launches, region_fill_known_launches;
	struct hmap shape_info;         /* shape id -> its function and grid
					   class (SHAPE_FN_SHIFT) */
	struct hmap cont_shapes;        /* (function, grid) -> its kernels'
					   times (contention.c) */
	size_t cont_nshapes;
	double region_fill_ns;
	struct env_facts env;
	struct verdict v[VC_KINDS];
	size_t nv;
	double score[VC_KINDS];         /* every class's score, listed or not */
	struct rp_summary *replay;      /* replay_verdict.c, NULL: none */
	int finished;
};

struct diagnosis *diagnosis_of(struct model *m);

/* idle_host.c */
void idle_host_event(struct model *m, struct diagnosis *d,
		     const struct dump_event *ev);
int idle_host_short(struct diagnosis *d, const struct dump_event *ev);
void idle_host_flush(struct diagnosis *d);
void idle_host_segments(struct diagnosis *d);
/* The segment at time t (binary search), or NULL. */
const struct host_seg *idle_seg_at(const struct diagnosis *d, uint64_t t,
				   size_t *idx);

/* idle_gpu.c */
void idle_gpu_chunk(struct model *m, struct diagnosis *d,
		    const struct dump_reader *r, const struct dump_record *rec);
void idle_gpu_window(struct diagnosis *d, const struct gt_gpu_window *w);
void idle_gpu_switch(struct diagnosis *d, const struct gt_gpu_switch *sw);
void idle_gpu_shape(struct diagnosis *d, const struct gt_shape *s);
void idle_gpu_finish(struct model *m, struct diagnosis *d);
/* Statistics of the buckets overlapping [t0, t1), added to d->region_*. */
void idle_gpu_region_stats(struct diagnosis *d, uint64_t t0, uint64_t t1);
struct kbucket *idle_bucket_other(struct diagnosis *d, uint64_t t);

/* A time in bucket b: its first and last times. */
static inline void idle_count_in(struct kbucket *b, uint64_t t)
{
	if (!b->t_hi || t < b->t_lo)
		b->t_lo = t;
	if (t > b->t_hi)
		b->t_hi = t;
}

/* The bucket of time t (made if new; NULL past the last), counting t.
 * Inline: once per launch. */
static inline struct kbucket *idle_bucket(struct diagnosis *d, uint64_t t)
{
	if (t - d->last_b_lo >= d->last_b_len)
		return idle_bucket_other(d, t);
	idle_count_in(d->last_b, t);
	return d->last_b;
}

/*
 * A launch (graph: a graph launch), counted in its bucket b with the grid
 * class + 1 of its shape (cls, 0 unknown).
 */
static inline void idle_gpu_launch_in(struct kbucket *b,
				      const struct dump_event *ev, int graph,
				      unsigned cls)
{
	b->launches++;
	b->launch_ns += ev->dur;
	b->graphs += graph;
	if (cls)
		b->grid_launches[cls - 1]++;
}

/* The same, in its bucket found.  Inline: once per launch. */
static inline void idle_gpu_launch(struct diagnosis *d,
				   const struct dump_event *ev, int graph,
				   unsigned cls)
{
	struct kbucket *b = idle_bucket(d, ev->t0);

	if (b)
		idle_gpu_launch_in(b, ev, graph, cls);
}

/* A host to device copy, counted in its bucket. */
static inline void idle_gpu_htod(struct diagnosis *d, const struct dump_event *ev)
{
	struct kbucket *b = idle_bucket(d, ev->t0);

	if (b)
		b->htod_bytes += ev->arg[GT_ARG_COPY_BYTES];
}

/* idle_outside.c */
void idle_sample(struct diagnosis *d, const struct dump_record *rec);
void idle_outside_prepare(struct diagnosis *d);
/* How outside-CUDA time at t splits; NULL when no samples say. */
const struct outside_split *idle_outside_at(const struct diagnosis *d,
					    uint64_t t);

/* contention.c: a compute kernel's GPU time, by its function's name
 * string id and grid; the share of their time lost beyond each (function,
 * grid)'s fast runs. */
void contention_add(struct diagnosis *d, uint32_t name_str, const int32_t *grid,
		    uint64_t ns);
double contention_share(const struct diagnosis *d);
void contention_release(struct diagnosis *d);

/* idle_samples.c: which outside-CUDA cause host sample s counts in (its
 * process: the traced one, or a worker), -1 none (idle_samples.h);
 * *hint: a cursor for samples in time order, from 0. */
struct hs_sample;
struct callsite_frame;
int idle_sample_cause(const struct diagnosis *d, const struct hs_sample *s,
		      int worker, size_t *hint);
/* The frames that name s's functions (its Python frames, else its native
 * ones), the first naming it: how many, 0 without a stack. */
size_t idle_sample_frames(const struct model *m, const struct hs_sample *s,
			  const struct callsite_frame **f);
void idle_samples_release(struct diagnosis *d);

/* idle_readback.c */
/* Decide d->rb from the steady region's stretches after readbacks (the
 * regions are set, nothing attributed yet). */
void idle_readback_decide(const struct model *m, struct diagnosis *d);
/* The readback that segment i (holding t) follows, when d->rb.on and i is
 * time outside CUDA after it with no launch between; else NULL.  A run
 * of calls with a value read back (no wait in the dump) counts when it
 * began at or after since (UINT64_MAX: never). */
const struct host_span *idle_behind_readback(const struct diagnosis *d,
					     size_t i, uint64_t t, uint64_t since);

/* idle.c */
/* [t0, t1) of the steady state is idle time outside CUDA (d->outside). */
void idle_outside_mark(struct diagnosis *d, uint64_t t0, uint64_t t1);
void idle_attribute(struct diagnosis *d, uint64_t t0, uint64_t t1,
		    struct breakdown *b, int sites);
void idle_host_attribute(struct diagnosis *d, uint64_t t0, uint64_t t1, int sites,
			 struct host_breakdown *b);
const char *idle_cause_name(enum idle_cause c);
const char *idle_cause_text(enum idle_cause c);
void idle_finish(struct model *m, struct diagnosis *d);

/* steps_nvtx.c, steps_period.c, steps.c */
void steps_nvtx_event(struct diagnosis *d, const struct dump_reader *r,
		      const struct dump_event *ev);
/* The steps of NVTX ranges; pattern: the launch pattern's steps, 0 none. */
int steps_nvtx_pick(struct diagnosis *d, struct step_stats *s, uint64_t pattern);
void steps_nvtx_release(struct diagnosis *d);
struct period_det *steps_period_det(struct diagnosis *d, uint32_t tid);
void steps_period_more(struct period_det *p, uint32_t tok);

/* A launch's arguments' hash (format.h's GT_ARG_LAUNCH_ARGS), 0 none. */
static inline uint8_t steps_arg_hash(const struct dump_event *ev)
{
	return ev->op->kind == GT_KIND_LAUNCH ? (uint8_t)ev->arg[GT_ARG_LAUNCH_ARGS] : 0;
}

/*
 * The token tok of a GPU call at t (ah: its arguments' hash) into the
 * ring of p; whether
 * steps_period_more is to look at it (a step's start, or a check).
 */
static inline int steps_period_put(struct period_det *p, uint32_t tok,
				   uint8_t ah, uint64_t t)
{
	size_t at = (size_t)(p->seen % PERIOD_WINDOW);

	p->tok[at] = tok;
	p->ah[at] = ah;
	p->t[at] = t;
	p->run = p->tok[(p->seen - p->tp) % PERIOD_WINDOW] == tok ? p->run + 1 : 0;
	p->seen++;
	return tok == p->anchor_tok || p->seen % PERIOD_CHECK_EVERY == 0;
}

/* The same, and what is to follow it. */
static inline void steps_period_add(struct period_det *p, uint32_t tok,
				    uint8_t ah, uint64_t t)
{
	if (steps_period_put(p, tok, ah, t))
		steps_period_more(p, tok);
}

/*
 * The token tok of a GPU call at t by thread tid, into its thread's ring.
 * Inline: once per call; what is rare (another thread than the last
 * one, a step's start, a check) is out of line.
 */
static inline void steps_period_token(struct diagnosis *d, uint32_t tid,
				      uint32_t tok, uint8_t ah, uint64_t t)
{
	struct period_det *p = d->last_det;

	if ((!p || p->tid != tid) && !(p = steps_period_det(d, tid)))
		return;
	steps_period_add(p, tok, ah, t);
}
int steps_period_pick(struct diagnosis *d, struct step_stats *s);
/* steps_optimizer.c: a function's record (is it the optimizer's?); the
 * optimizer steps among p's calls since last asked; the steps s made
 * optimizer steps where one comes every k >= 2 of them (k, else 1). */
void steps_function(struct diagnosis *d, const struct dump_reader *r,
		    const struct gt_function *f);
void steps_optimizer_scan(struct period_det *p);
size_t steps_optimizer_merge(const struct diagnosis *d, struct step_stats *s);
uint32_t steps_library_period(const struct diagnosis *d);
void steps_period_release(struct diagnosis *d);
/* Smallest period of the longest periodic suffix seen 3 times or more of
 * tok[0..n); 0 if none (exposed for the unit tests). */
uint32_t steps_suffix_period(const uint32_t *tok, size_t n, int32_t *work);
void steps_finish(struct model *m, struct diagnosis *d);
void steps_library_chunk(struct diagnosis *d, const struct dump_record *rec);
void steps_release(struct step_stats *s);
/* After the replay: the step at the pace of the slower of host and GPU. */
void steps_pace(struct diagnosis *d);

/* verdict.c, verdict_env.c, verdict_text.c, whatif.c */
void verdict_env_facts(const struct model *m, struct diagnosis *d);
/* What the environment costs, each a share of what it slows: of the
 * kernels' time, lost beyond their fast runs while another process was
 * on the GPU (0 when it was not, or lost little); of the busy time, clocks
 * held down (a quarter of the share of such samples); of the copies' time,
 * a PCIe link narrower than its maximum. */
double verdict_env_contention(const struct diagnosis *d);
double verdict_env_throttle(const struct diagnosis *d);
double verdict_env_link(const struct diagnosis *d);
/* What unsetting CUDA_LAUNCH_BLOCKING saves at most, a share of the time:
 * the launches' wait, at most the GPU's idle time. */
double verdict_blocking_gain(const struct diagnosis *d);
/* The environment's gain: what unsetting CUDA_LAUNCH_BLOCKING saves, and
 * for the rest of its score at most all, at least a third. */
void verdict_env_gain(const struct diagnosis *d, double score, double *lo,
		      double *hi);
void verdict_finish(struct model *m, struct diagnosis *d);
void verdict_add_text(struct verdict *v, int advice, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void verdict_texts(const struct model *m, const struct diagnosis *d,
		   struct verdict *v);
void whatif_gain(const struct model *m, const struct diagnosis *d,
		 struct verdict *v);
/* Share of compute kernel time in kernels filling under half the SMs. */
double verdict_lowfill(const struct diagnosis *d);
/* Without GPU records: share of launches with such grids. */
double verdict_lowfill_launches(const struct diagnosis *d);
/* Share of compute kernel time in the optimizer's kernels. */
double verdict_opt_share(const struct diagnosis *d);
/* How far the evidence says the batch is too small, 0..1: kernels that
 * fill few SMs, or an optimizer step (independent of the batch) that
 * takes a large share of the GPU time. */
double verdict_batch(const struct diagnosis *d);
/* Share of the steady kernels launched inside CUDA graphs (without GPU
 * records: graph launches over launches, a graph holding one kernel at
 * least). */
double verdict_graph_share(const struct diagnosis *d);
/* Whether the step already runs as CUDA graphs: most kernels in them. */
int verdict_graphs_used(const struct diagnosis *d);
const char *verdict_class_name(enum vclass c);
const char *verdict_class_title(enum vclass c);
void verdict_release(struct diagnosis *d);
/* What the verdict's classes are ordered by: 1 the replayed gain (the
 * replayed classes first, then the others by score), 0 the score. */
int verdict_by_replay(const struct diagnosis *d);
/* v's gain as every output says it, a figure of one kind under one
 * word: "replayed: step time -62% (-61% to -63%)", "replayed: time per
 * sample -99% (-98% to -99%) with a batch 128x larger", "estimated: step
 * time -20% to -40%"; short: the point only ("step time -62%"). */
const char *verdict_gain_text(const struct verdict *v, int short_form,
			      char *buf, size_t size);
/* Whether v has a gain to give: replayed, or an estimate above 0%
 * (healthy has none). */
int verdict_has_gain(const struct verdict *v);

/* replay_verdict.c: the what-if by replay, and the verdict from it */
void replay_diagnose(struct model *m, struct diagnosis *d);
void replay_verdict(struct model *m, struct diagnosis *d);
void replay_summary_release(struct diagnosis *d);
/* replay_report.c */
void replay_report_text(FILE *out, const struct diagnosis *d);
void replay_report_json(struct json *j, const struct diagnosis *d);

/* kernel_names.c: whether a kernel's name is an optimizer's (NULL: no). */
int diag_optimizer_kernel(const char *name);

/* The innermost Python frame of a stack ("train.py:57 in step"), or NULL. */
const char *diagnosis_site(const struct model *m, uint32_t stack);

#endif /* GPUTRACE_ANALYZER_DIAGNOSIS_INTERNAL_H */
