/* SPDX-License-Identifier: MIT */
/*
 * replay.h - what-if by replay: a dependency graph of a span of steady
 * steps, re-timed as recorded and with one fix applied at a time.
 *
 * The graph holds, per host thread, its items in order: CPU segments
 * (time between CUDA calls) and CUDA calls; and the GPU operations, each
 * queued by one item onto one stream.  An item takes `own` ns by itself;
 * an item that waits (a synchronize call, a copy the call waits for, a
 * launch under CUDA_LAUNCH_BLOCKING) also ends no earlier than `ret` ns
 * after what it waits for ends.  An operation starts at the later of its
 * item's start plus `lat` and the end of the previous operation on its
 * stream plus `gap`, and runs `dur` ns.  A batch taken from DataLoader
 * workers (RW_SUPPLY, made by a fix) ends no earlier than the workers
 * have it ready: they hand one over every `ret` ns.  The graph is built from the
 * dump with the measured residual latencies, so that its replay gives
 * back the recorded times; each fix (replay_fix.c) changes some of these
 * numbers, and the replay says what the step time becomes.
 */
#ifndef GPUTRACE_ANALYZER_REPLAY_H
#define GPUTRACE_ANALYZER_REPLAY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analyzer/lib/json.h"

enum rp_kind {
	RK_CPU,                 /* outside CUDA */
	RK_LAUNCH,              /* kernel launch */
	RK_GRAPH,               /* graph launch */
	RK_COPY,
	RK_SET,
	RK_SYNC,                /* host waits and queries */
	RK_NCCL,
	RK_OTHER,
	RK_KINDS,
};

enum rp_wait {
	RW_NONE,
	RW_OP,                  /* wait: operation index */
	RW_STREAM,              /* wait: stream index; its last queued op */
	RW_ALL,                 /* the last queued op of every stream */
	RW_SUPPLY,              /* the next batch of the workers: one every
				   `ret` ns (the first is ready) */
};

#define RPF_PAGEABLE 1          /* copy of pageable host memory */
#define RPF_UPLOAD 2            /* sync: right after a host-to-device copy */
#define RPF_BLOCKING 4          /* launch waited for its kernel */
#define RPF_READBACK 8          /* copy to the host the call waited for */
#define RPF_DATA 16             /* CPU: the step's batch fetch, or its
				   wait for the workers' */
#define RPF_IMPLICIT 32         /* CPU: the host waited outside CUDA for
				   the GPU's work to end (another thread
				   waited or polled for it) */
#define RPF_QUEUE 64            /* a call that waited for room in the
				   full queue: for its `wait` op to end */

enum rp_opkind { RO_KERNEL, RO_COPY, RO_SET, RO_GRAPH };

struct rp_item {
	uint64_t own;           /* ns it takes by itself */
	uint64_t ret;           /* ns after what it waits for ends */
	union {
		uint64_t loader;    /* CPU: of own, time waiting on data */
		uint64_t bytes;     /* calls: what they copy or set */
	};
	uint32_t op;            /* the operation it queues + 1, 0 none */
	uint32_t wait;          /* RW_OP: operation; RW_STREAM: stream */
	uint32_t step;          /* its step in the span, from 0 */
	uint8_t kind;           /* enum rp_kind */
	uint8_t wkind;          /* enum rp_wait */
	uint8_t flags;          /* RPF_* */
	uint8_t dir;            /* copies: enum gt_direction */
};

struct rp_op {
	uint64_t dur;
	uint64_t lat;           /* after its item starts, at the earliest */
	uint64_t gap;           /* after the stream's previous op ends */
	uint32_t stream;
	uint32_t item;          /* the item that queues it */
	uint32_t shape;         /* kernels: its function and grid, hashed
				   (0 unknown): runs of one shape are alike */
	uint8_t opt;            /* an optimizer's kernel (by its name) */
	float fill;             /* share of the GPU's thread slots its grid
				   asks for, 0 unknown */
	uint8_t kind;           /* enum rp_opkind */
};

struct rp_thread {
	uint32_t tid;
	size_t first, n;        /* its items: items[first .. first + n) */
	uint64_t start;         /* its first item starts here (span time) */
};

struct rp_graph {
	struct rp_item *items;
	size_t nitems;
	struct rp_op *ops;
	size_t nops;
	struct rp_thread *th;
	size_t nth;
	uint64_t *backlog;      /* per stream: busy until, at the start */
	uint64_t *stream_name;  /* per stream: device << 32 | CUPTI's stream
				   id, or RP_STREAM_HOST | the dump's stream
				   (no GPU records: estimated) */
	size_t nstreams;
	uint32_t steps;         /* steps in the span */
	uint64_t host_span;     /* the span's steps on the host */
	uint64_t measured;      /* the span's recorded time: until the host
				   ended its steps and the GPU the work
				   they queued, less the work queued before */
	int gpu;                /* operations timed by GPU records */
	int window;             /* the span lies in a GPU window: CUPTI
				   slowed the host's calls in it */
	uint32_t host_paired;   /* steps paired with like steps outside
				   the windows, 0 none */
	int host_lent;          /* ... whose host times the replay took */
	uint64_t host_window;   /* ... the span's steps on the host as
				   recorded in the window */
	uint64_t host_outside;  /* ... and as the paired steps took (the
				   span's, unless the GPU set its pace:
				   then the window's stays) */
};

#define RP_STREAM_HOST (1ull << 63)

/* Replayed start and end of every item and operation (span time). */
struct rp_times {
	uint64_t *it0, *it1, *op0, *op1;
	uint64_t *step0;        /* when each step's first item started */
	uint64_t span;          /* the span's replayed time */
};

/* Re-time g; t may be NULL.  Returns the span's time: the later of the
 * host's end and the GPU's, less the backlog it started with. */
uint64_t replay_run(const struct rp_graph *g, struct rp_times *t);
void replay_times_alloc(const struct rp_graph *g, struct rp_times *t);
void replay_times_release(struct rp_times *t);

/* A deep copy, for a fix to change. */
void replay_copy(struct rp_graph *dst, const struct rp_graph *src);
void replay_release(struct rp_graph *g);

/* ---- the fixes (replay_fix.c) -------------------------------------------- */

enum rp_fix {
	FIX_SYNC,               /* per-step syncs removed, one kept every N */
	FIX_PINNED,             /* pinned memory, async copies */
	FIX_GRAPH,              /* runs of launches become graph launches */
	FIX_WORKERS,            /* data loading spread over k workers */
	FIX_BATCH,              /* batch x k, compared per sample */
	FIX_ENV,                /* CUDA_LAUNCH_BLOCKING unset, GPU not shared */
	FIX_PRECISION,          /* bf16 autocast and channels_last */
	FIX_KINDS,
};

#define RP_SYNC_KEEP 50             /* syncs kept: one step in 50 */
#define RP_PINNED_GBPS 55.0         /* pinned host-to-device copies on PCIe
				       gen5 x16 when the dump has none
				       (measured on an H200); scaled to the
				       link's generation and width */
#define RP_GRAPH_LAUNCH_NS 3600     /* a graph launch's host cost */
#define RP_GRAPH_GAP_NS 100         /* between kernels of a graph */
#define RP_FEED_GAP_NS 100000       /* CPU time a graph takes away: under
				       this between two launches */
#define RP_MAX_WORKERS 8
#define RP_MAX_CORES 4096         /* cores, workers a dump may claim */
#define RP_MAX_BATCH 256
#define RP_SMALL_BATCH 0.5          /* verdict_batch from which it applies */
#define RP_LAUNCH_NS 6500           /* a launch that does not wait: its host
				       time (cuLaunchKernel's median in the
				       suite's runs on an H200, traced) */
#define RP_HANDOFF_NS 300000        /* the main process taking a batch the
				       workers have ready (the suite's
				       loader-workers8 run) */
#define RP_WIDE_BAND 0.20           /* a band wider than this says why */
#define RP_LATENCY_FILL 0.10        /* a kernel whose grid asks for under
				       this share of the GPU's thread slots:
				       latency-bound, more samples nearly free */
#define RP_LATENCY_SHARE 0.40       /* of the kernel time in such kernels:
				       evidence of a small batch */

/* The dump's kernel time by precision, shares of all kernels' GPU time
 * (replay_precision.c). */
struct rp_precision {
	double conv32;              /* fp32/TF32 convolutions (cuDNN) */
	double mm32;                /* fp32/TF32 GEMMs and convolutions */
	double mm16;                /* bf16/fp16/fp8 GEMMs and convolutions */
	double mem32;               /* fp32 memory-bound kernels (elementwise,
				       norms, pooling), the optimizer's apart */
	double layout;              /* layout conversions (NCHW <-> NHWC) */
};

/* What the fixes need to know beyond the graph. */
struct rp_env {
	double pinned_gbps;         /* measured, 0 none */
	uint64_t graph_launch_ns;   /* measured, 0 none */
	double cores;               /* the process may use */
	int workers;                /* DataLoader workers seen */
	int nworkers;               /* ... at most alive at once */
	int dataloader;             /* a DataLoader seen: workers, or its
				       frames in the stacks */
	double proc_cores;          /* this process's CPU use, cores */
	double child_cores;         /* its workers' */
	int saturated;              /* CPU use at what it may use */
	int launch_blocking;
	double other_share;         /* samples with another process on the GPU */
	double mem_headroom;        /* GPU memory / this process's, 0 unknown */
	double small_batch;         /* the rules' evidence of a small batch,
				       0..1 (verdict_batch) */
	int batched;                /* a framework that trains or serves in
				       batches (PyTorch, JAX, TensorFlow) */
	struct rp_precision prec;
};

/* A fix's figures are for one of these: the best estimate, or one end
 * of what a quantity the dump does not tell allows. */
enum rp_end { RP_POINT, RP_LOW, RP_HIGH };

/*
 * One currency: every fix's gain is the share of the time per unit of
 * work it saves, the unit a step, or a sample where the fix changes the
 * batch (the same throughput in samples per second); speedup is the
 * throughput's ratio, 1 / (1 - gain).  The span excludes the warm-up.
 */
struct rp_fix_result {
	enum rp_fix fix;
	int applies;                /* it changed something */
	int cls;                    /* enum vclass */
	double k;                   /* batch factor, workers, syncs kept... */
	uint64_t span;              /* replayed span time, per k samples */
	double gain;                /* the point */
	double gain_lo, gain_hi;    /* the band: both ends of what is not
				       known (the point where all is) */
	double speedup;             /* throughput after / before */
	int per_sample;             /* the batch changes: work in samples */
	double accum;               /* micro-batches a step merged (gradient
				       accumulation), 0 none */
	char assume[512];           /* what the figure assumes ("" nothing) */
	char wide[240];             /* why the band is wider than
				       RP_WIDE_BAND ("" it is not) */
};

/* Apply fix to a copy of g and replay it against base (the unmodified
 * replay's span).  *out, when given, gets the changed graph
 * (replay_release) and *t its times (allocated: replay_times_release). */
void replay_fix(const struct rp_graph *g, const struct rp_env *e,
		enum rp_fix fix, uint64_t base, struct rp_fix_result *r,
		struct rp_graph *out, struct rp_times *t);
const char *replay_fix_name(enum rp_fix fix);
/* The fix in a few words (its class may change them). */
const char *replay_fix_text(const struct rp_fix_result *r);

#endif /* GPUTRACE_ANALYZER_REPLAY_H */
