/* SPDX-License-Identifier: MIT */
/*
 * export_facts.h - what the HTML report, the ranks summary and the diff
 * ask of the other parts of the analyzer, in one place: GPU busy time
 * (gpu.c), steps, the verdict and idle causes (diagnosis.h).  A part
 * that has nothing to say answers "not known"; the outputs then say so.
 */
#ifndef GPUTRACE_ANALYZER_EXPORT_FACTS_H
#define GPUTRACE_ANALYZER_EXPORT_FACTS_H

#include <stddef.h>
#include <stdint.h>

#include "analyzer/model/model.h"

#define FACTS_MAX_CAUSES 16
#define FACTS_MAX_STEPS 4096        /* step times kept for charts */

/*
 * "GPU busy", the one figure every output gives under that name: of the
 * time with GPU timing (summed over devices), the share in which a compute
 * kernel ran; in the steady state when steps are found (the diagnosis'
 * region), else from the first to the last GPU work.  Copies and memsets
 * are not busy: they are "active" (facts_gpu_active).
 */
#define FACTS_BUSY_MEANS "a compute kernel running, over the GPU-timed " \
	"steady state (or run)"
/* Busy time and the time it is a share of: 1, or 0 if unknown. */
int facts_gpu_busy(const struct model *m, uint64_t *busy_ns, uint64_t *span_ns);
/* GPU active time, any kernel, copy or memset running (per device,
 * summed), and the time with GPU timing: 1, or 0 if unknown. */
int facts_gpu_active(const struct model *m, uint64_t *active_ns,
		     uint64_t *window_ns);

struct facts_steps {
	uint64_t count;             /* steps found */
	uint64_t mean_ns, p50_ns, max_ns;
	const char *source;         /* "steps", "nvtx" ... */
};
/* The steps of the run: 1, or 0 if not known. */
int facts_steps(const struct model *m, struct facts_steps *s);
/* Host-clock span of steps first..last (from 1): 0, or -1 with *why. */
int facts_step_span(const struct model *m, uint64_t first, uint64_t last,
		    uint64_t *t0, uint64_t *t1, const char **why);

/* The boundaries of the steps found: step i is [t[i], t[i+1]).  1, or 0
 * when no steps were found. */
int facts_step_bounds(const struct model *m, const uint64_t **t, size_t *n);

/* GPU idle time by cause. */
struct facts_cause {
	const char *name;           /* "data loading", "host sync", ... */
	uint64_t ns;
};
/* The causes, most time first: how many (0: not known). */
int facts_idle_causes(const struct model *m, struct facts_cause *out,
		      int max);

/* Idle causes the diagnosis knows (their order is the index below). */
int facts_cause_count(void);
const char *facts_cause_text(int i);    /* "sync bubble (host waited...)" */
/* GPU idle time within [t0, t1) by cause (ns[facts_cause_count()]),
 * summed over the devices: 1, or 0 when not known. */
int facts_idle_between(const struct model *m, uint64_t t0, uint64_t t1,
		       uint64_t *ns);

/* The one-line verdict of the diagnosis, or NULL when there is none;
 * free() it. */
char *facts_verdict(const struct model *m);

#endif /* GPUTRACE_ANALYZER_EXPORT_FACTS_H */
