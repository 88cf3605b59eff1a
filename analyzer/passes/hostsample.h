/* SPDX-License-Identifier: MIT */
/*
 * hostsample.h - the host stack samples of a dump (GT_KIND_HOSTSAMPLE):
 * each traced thread's stack, taken about 100 times a second of its CPU
 * time while it was outside every traced call (GPUTRACE_HOST_HZ).  They
 * are kept, with their thread, time and weight, up to HS_MAX_SAMPLES
 * (more are counted only), for the diagnosis to tie to the GPU's idle
 * time (idle_samples.h) and for the exports; their stacks are the call
 * sites' (callsite.h: one table, one id space).
 *
 * A sample's weight is the time it stands for: a running thread's CPU
 * time since its previous sample (the event's dur); a waiting one's (the
 * wall clock, GPUTRACE_HOST_CLOCK=wall) wall time since its previous
 * sample, less that CPU time; at most the sampler's period (its note's
 * rate): a tick the kernel delivered late, its expirations merged (a
 * thread that runs in bursts shorter than the kernel's tick, on a busy
 * machine), ran at one place, and the time before it ran others, so that
 * giving that place all of it would make the shares follow where late
 * ticks land.  Samples are not CUDA calls: the model's event counts leave
 * them out.
 */
#ifndef GPUTRACE_ANALYZER_HOSTSAMPLE_H
#define GPUTRACE_ANALYZER_HOSTSAMPLE_H

#include <stddef.h>
#include <stdint.h>

#include "analyzer/reader/dump_reader.h"
#include "analyzer/lib/hmap.h"

#define HS_MAX_SAMPLES (1u << 20)   /* kept: 32 MiB; 3 hours of a thread */
#define HS_MAX_WAIT_NS 1000000000ull    /* a waiting sample's weight, most */

struct hs_sample {
	uint64_t t;                 /* the tick, the dump's clock */
	uint64_t weight;            /* ns it stands for (above) */
	uint32_t stack;             /* GT_CHUNK_STACK id, 0 = none */
	uint32_t tid;
	uint8_t state;              /* enum gt_host_state */
};

struct hs_thread {
	uint32_t tid;
	uint64_t samples;
	uint64_t cpu_ns;            /* their CPU time (dur) */
	uint64_t incall;            /* ticks inside traced calls */
	uint64_t last_t;            /* the last sample's tick */
};

struct hostsamples {
	struct hs_sample *v;        /* by time once finished */
	size_t n, cap;
	uint64_t total;             /* samples in the dump, kept or not */
	uint64_t lost;              /* past HS_MAX_SAMPLES: counted only */
	uint64_t waiting;           /* in GT_HOST_WAITING */
	uint64_t incall;            /* ticks that found a thread in a call */
	uint64_t cpu_ns;            /* the samples' CPU time (dur) */
	uint64_t handler_ns;        /* the sampler's own time in its handler */
	uint64_t handler_n;         /* samples that measured it (result) */
	uint64_t first_t, last_t;
	struct hmap threads;        /* tid -> struct hs_thread */
	char *note;                 /* the library's first note on the sampler:
				       how it sampled, or why not */
};

struct model;

/* A host sample event, or a note (the sampler's says its rate). */
void hostsamples_add(struct model *m, const struct dump_reader *r,
		     const struct dump_record *rec);
/* The samples in time order, their weights capped (above). */
void hostsamples_finish(struct model *m);
void hostsamples_release(struct model *m);

/* The dump's samples, or NULL when it has none (and no sampler note). */
const struct hostsamples *hostsamples_of(const struct model *m);

/* The sampler's rate from its note ("host sampler: 100 Hz ..."): Hz, or
 * 0 when the note does not say (off, or no note). */
double hostsamples_hz(const struct hostsamples *hs);
/* Its rate as the note says it ("100 Hz of each thread's CPU time") in
 * buf, or NULL when the note does not say. */
const char *hostsamples_rate(const struct hostsamples *hs, char *buf,
			     size_t size);

#endif /* GPUTRACE_ANALYZER_HOSTSAMPLE_H */
