/* SPDX-License-Identifier: MIT */
/*
 * idle_samples.h - what the host ran while the GPU waited on it: the host
 * stack samples (hostsample.h) that fell in the steady state's idle time
 * "outside CUDA", by cause, and the functions they name.
 *
 * A moment is "outside CUDA" when the diagnosis gives the GPU's idle time
 * then to the host being outside every CUDA call (idle.c; without GPU
 * records, the host's own time outside CUDA).  Its cause comes from the
 * CPU samples of /proc (idle_outside.c).  A sample of the traced process
 * at such a moment counts in:
 *   - "CPU-bound in this process" when its thread was running (the CPU
 *     clock samples only running threads);
 *   - else (a waiting thread, GPUTRACE_HOST_CLOCK=wall) the cause of the
 *     rest of that moment: waiting on worker processes, I/O, other;
 *   - "other" when the dump has no CPU samples to split the time by.
 * A sample of a DataLoader worker (a forked child's dump read with the
 * process's, model.h) counts in "waiting on worker processes" when the
 * process waited on its workers at that moment; at other moments the
 * GPU did not wait on the workers, and it counts nowhere.
 *
 * A sample stands for sampled time (its weight, hostsample.h); shares are
 * of the sampled time in a cause.  A sample names a function: its
 * innermost Python frame when it has Python frames, "qualname
 * (file:line)" with the line most of the function's samples ran; else
 * its innermost native frame as call sites name it ("func (module)",
 * "module+0x1f" unsymbolized).  Self time is a function's as the
 * innermost; total time, anywhere in the sample's frames (its Python
 * frames when it has some, else its native ones; a function counted once
 * per sample).  Ticks that found a thread inside a CUDA call are not
 * samples: that time is the call's.
 *
 * Apart from the idle causes, a profile of each thread of the process,
 * and of its DataLoader workers together, over the steady steps (from
 * the first steady step to the end of the last; without steps, the whole
 * run): each function's share of the thread's (the workers') running
 * samples, self and total.  A thread's share is of its CPU time outside
 * CUDA calls (the sampler does not sample a thread in a call); the
 * workers', of their CPU time, for they make no CUDA call.
 */
#ifndef GPUTRACE_ANALYZER_IDLE_SAMPLES_H
#define GPUTRACE_ANALYZER_IDLE_SAMPLES_H

#include <stddef.h>
#include <stdint.h>

#include "analyzer/model/model.h"
#include "analyzer/passes/callsite.h"

#define IDLE_SAMPLE_CAUSES 4        /* CPU-bound, workers, I/O, other */

struct idle_fn {
	char *name;                 /* as above */
	uint64_t self_ns, total_ns; /* sampled time */
	uint64_t self_n, total_n;   /* samples */
};

struct idle_cause_samples {
	const char *key;            /* the idle cause's: "cpu_preprocessing",
				       "dataloader_wait", "io_wait",
				       "outside_cuda" */
	const char *text;           /* "outside CUDA: CPU-bound in this
				       process"... */
	uint64_t cause_ns;          /* the cause's time in the steady state */
	uint64_t samples, ns;       /* the samples in its moments, their time */
	uint64_t worker_samples, worker_ns;     /* ... of them, the workers' */
	uint64_t waiting;           /* ... of waiting threads */
	struct idle_fn *fn;         /* every function, most self time first
				       (then total, then name) */
	size_t nfn;
};

/* A thread's (or the workers') running samples over the steady steps. */
struct idle_profile {
	uint32_t tid;               /* the thread; 0: the workers together */
	size_t processes;           /* the workers: how many had samples */
	uint64_t samples, ns;       /* running samples, their sampled time */
	struct idle_fn *fn;         /* every function, most self time first */
	size_t nfn;
};

struct idle_samples {
	int gpu;                    /* 1: GPU idle time by cause; 0: no GPU
				       records, the host's time outside CUDA */
	double hz;                  /* the sampler's rate, 0: not known */
	char rate[96];              /* "100 Hz of each thread's CPU time", ""
				       not known */
	const char *note;           /* the library's note on the sampler */
	uint64_t samples;           /* the process's, all */
	uint64_t lost;              /* ... past what is kept (not counted) */
	uint64_t incall;            /* ticks inside CUDA calls: not samples */
	uint64_t cpu_ns;            /* the samples' CPU time */
	size_t workers;             /* worker dumps read with it */
	uint64_t worker_samples;
	struct idle_cause_samples c[IDLE_SAMPLE_CAUSES];
	uint64_t prof_t0, prof_t1;  /* the profiles' window [t0, t1) */
	int prof_steps;             /* 1: the steady steps; 0: the whole run */
	struct idle_profile *threads;       /* most sampled time first */
	size_t nthreads;
	struct idle_profile wprof;          /* the workers': samples 0, none */
	size_t nworkers_seen;       /* internal: workers when it was made */
};

/*
 * The samples by cause, made at the first call once the diagnosis has
 * attributed the idle time (from its verdict on), again if workers were
 * attached since; NULL when neither the dump nor its workers have
 * samples or a sampler note.
 */
const struct idle_samples *idle_samples_of(const struct model *m);

/* ---- shares of samples in functions a test picks (class rules) --------- */

/*
 * A test of one frame (callsite.h: its text, function, file or module,
 * line): 1 when it matches.  ctx is the test's own.
 */
typedef int (*idle_frame_test)(const struct callsite_frame *f, void *ctx);

/* Which samples and frames a share looks at (or-ed). */
#define IDLE_SELF 1u                /* only the frame that names the
				       sample's function (above), else any
				       frame of the sample */
#define IDLE_MAIN 2u                /* the traced process's samples */
#define IDLE_WORKERS 4u             /* its DataLoader workers' */

struct idle_share {
	uint64_t samples, matched;  /* looked at, and of them matched */
	uint64_t ns, matched_ns;    /* their sampled time */
	double share;               /* matched_ns / ns; 0 when ns is 0 */
};

/*
 * Of the samples counted in outside-CUDA cause `key` (an idle cause's
 * name: "cpu_preprocessing", "dataloader_wait", "io_wait",
 * "outside_cuda"), from the processes `how` names, the share of sampled
 * time in frames that test matches (test NULL: every sample matches).
 * Returns 0 and *out; -1 when no sample was looked at (out zeroed: not
 * measurable).  Valid from the diagnosis's verdict on (idle_samples_of).
 */
int idle_samples_share(const struct model *m, const char *key, unsigned how,
		       idle_frame_test test, void *ctx, struct idle_share *out);
/*
 * The same for every sample taken in [t0, t1) (the dump's clock), idle
 * time or not: e.g. the code that runs right after a readback.
 */
int idle_samples_share_between(const struct model *m, uint64_t t0, uint64_t t1,
			       unsigned how, idle_frame_test test, void *ctx,
			       struct idle_share *out);
/*
 * A ready test: the frame's function contains the text ctx (a const char
 * *), e.g. "DataLoader.__next__", "__next__", "collate".
 */
int idle_frame_named(const struct callsite_frame *f, void *ctx);

#endif /* GPUTRACE_ANALYZER_IDLE_SAMPLES_H */
