/* SPDX-License-Identifier: MIT */
/*
 * replay_internal.h - what the replay's files share: the span of steady
 * steps it looks at and what a second read of the dump collects there
 * (replay_collect.c), the graph built from it (replay_graph.c), and the
 * summary the verdict and the reports read (replay_verdict.c,
 * replay_report.c).
 */
#ifndef GPUTRACE_ANALYZER_REPLAY_INTERNAL_H
#define GPUTRACE_ANALYZER_REPLAY_INTERNAL_H

#include "analyzer/diagnosis/diagnosis_internal.h"
#include "analyzer/diagnosis/replay.h"

#define RP_MAX_EVENTS (1u << 17)    /* host calls kept from the span */
#define RP_MAX_GPU (1u << 17)       /* GPU records kept */
#define RP_MAX_STEPS 64             /* steps replayed, at most... */
#define RP_MIN_SPAN_NS 20000000ull  /* ...unless shorter than this */
#define RP_MAX_SPAN_STEPS 4096
#define RP_GOOD_ERROR 0.10          /* replay error the verdict trusts */
#define RP_MAX_THREADS 8            /* host threads in the graph */
#define RP_MAX_STREAMS 64           /* streams in the graph */

#define RE_ASYNC 1
#define RE_QUERY 2                  /* a query or a GPU-side wait */
#define RE_CTX 4                    /* waits for the whole context */
#define RE_EVENT 8                  /* waits for an event */

/* One host call of the span. */
struct rp_ev {
	uint64_t id, t0, t1, bytes, hstream;
	uint64_t gs, ge;                /* joined GPU records: first start,
					   last end (host clock); 0 none */
	uint32_t tid, gstream;
	uint32_t shape;                 /* joined kernel's shape, 0 none */
	uint8_t opt;                    /* ... an optimizer's kernel */
	float fill;
	uint8_t kind, dir, mem, flags;  /* gt_kind, gt_direction, GT_MEM_*,
					   RE_* */
};

/* One GPU record near the span. */
struct rp_grec {
	uint64_t host_id, s, e;
	uint32_t stream, device;
	uint32_t shape;                 /* kernels: name and grid, hashed */
	uint8_t opt;                    /* an optimizer's kernel, by name */
	float fill;
};

struct rp_collect {
	uint64_t lo, hi;                /* the span: step boundaries */
	uint64_t *bounds;               /* nsteps + 1 */
	uint32_t nsteps;
	struct rp_ev *ev;
	size_t nev, capev;
	struct rp_grec *gr;
	size_t ngr, capgr;
	uint64_t cut;                   /* events from here on not kept */
	struct hmap opt_names;          /* kernel name -> 1 an optimizer's,
					   2 not */
	int gpu_window;                 /* the span lies in a GPU window */
	int lend;                       /* host times may come from like steps
					   outside it: no DataLoader is seen
					   (replay_host.c says why) */
	struct rp_collect *out[2];      /* like steps just before and after
					   that window, outside every window:
					   host calls only (replay_host.c),
					   NULL none */
};

struct rp_summary {
	int ran;
	char why[200];                  /* why it did not run, or a caveat */
	int gpu;                        /* GPU records timed the operations */
	uint32_t steps;
	uint64_t host_span;             /* the steps on the host */
	uint64_t measured, base;        /* span times: recorded, replayed */
	double error;
	int used;                       /* the verdict came from it */
	struct rp_fix_result fix[FIX_KINDS];
	struct rp_graph g;
	struct rp_times bt;             /* the unmodified replay */
	enum rp_fix top[2];
	size_t ntop;
	struct rp_env env;              /* what the fixes were given */
};

/* replay_verdict.c: top fix i replayed again, for a drawing of it (not
 * kept from the first time: it would double the memory the replay
 * takes); release *g and *t after use. */
void replay_top_fix(const struct rp_summary *s, size_t i, struct rp_graph *g,
		    struct rp_times *t);

/* replay_collect.c: choose the span and read it; 0, or -1 with *why. */
int replay_collect(struct model *m, struct diagnosis *d, struct rp_collect *c,
		   char *why, size_t whylen);
void replay_collect_release(struct rp_collect *c);

/* replay_graph.c: the graph of what was collected; replay_timing.c: its
 * latencies and waits from the recorded times. */
struct rp_builder {
	const struct diagnosis *d;
	struct rp_collect *c;
	struct rp_graph *g;
	uint64_t *mt0, *mt1;            /* per item: recorded */
	uint64_t *ms, *me;              /* per op: recorded or estimated */
	uint8_t *est;                   /* per op: estimated */
	size_t capitems, capops;
	struct hmap sidx;               /* stream key -> index + 1 */
	struct hmap hmap_stream;        /* host stream -> CUPTI stream + 1 */
	struct hmap stream_dev;         /* CUPTI stream -> its device + 1 */
	uint64_t *backlog_abs;
	size_t capstreams;
	uint32_t step_hint;             /* the last item's step */
};


void replay_build(const struct diagnosis *d, struct rp_collect *c,
		  struct rp_graph *g);
void replay_timing(struct rp_builder *b);
/* replay_host.c: the host's times of the window's steps from like steps
 * outside the GPU windows (b->c->out), once the graph is timed. */
void replay_host_outside(struct rp_builder *b);

/* A graph's steps, with their recorded boundaries (steps + 1 of them). */
struct rp_steps {
	const struct rp_graph *g;
	const uint64_t *bounds;
};


/* The pairing and substitution itself: each step of w (its steps'
 * thread) is paired with the nearest like step of side[0..n) (each used
 * once while others are left), none where the paired steps took no less
 * time outside; with `lend` it takes their host times; returns the steps
 * paired, *host_ns the span's time on the host with the paired steps'
 * times, the steps left unpaired counted at their own. */
uint32_t replay_host_pair(struct rp_graph *w, const uint64_t *bounds,
			  const struct rp_steps *side, size_t n, int lend,
			  uint64_t *host_ns);

/* replay_waits.c: the host's waits no call says it made (outside CUDA,
 * in a launch into a full queue), once the graph is timed. */
void replay_hidden_waits(struct rp_builder *b);

/* replay_report.c: a stream's name, as the exports give it ("GPU 0
 * stream 7"; "stream 3 (host)" for one no GPU record timed). */
const char *replay_stream_label(const struct rp_graph *g, size_t s, char *buf,
				size_t size);

/* replay_verdict.c */
void replay_env(const struct model *m, const struct diagnosis *d,
		struct rp_env *e);
/* The fix in a few words, a larger batch with its factor ("a batch 128x
 * larger"). */
const char *replay_fix_label(const struct rp_fix_result *r, char *buf,
			     size_t size);
/* What bounds the larger batch's factor, in words: GPU memory ("bounded
 * by GPU memory: ..."), the largest factor replayed, or no gain beyond. */
const char *replay_batch_limit(const struct rp_summary *s,
			       const struct diagnosis *d, char *buf, size_t size);

#endif /* GPUTRACE_ANALYZER_REPLAY_INTERNAL_H */
