/* SPDX-License-Identifier: MIT */
/*
 * cost.h - what tracing cost the run, measured inside it.
 *
 * The library writes where each training step began (GT_CHUNK_STEPS) and
 * when CUPTI was switched on and off for each GPU window (GT_CHUNK_WINDOW,
 * GT_CHUNK_SWITCH).  Steps that overlap a window's switching span paid
 * for GPU timing; the others did not.  Within one process, the steps
 * inside each window against the steps just around it are what the
 * windows cost per step, free of the noise between runs; weighted by how
 * many steps the windows covered, what they cost the whole run.  The
 * steps just after the first window against those just before it tell
 * whether CUPTI leaves a cost once it is detached.  The host side's own tracing (every run pays
 * it) is not in these figures.
 */
#ifndef GPUTRACE_ANALYZER_COST_H
#define GPUTRACE_ANALYZER_COST_H

#include <stdint.h>
#include <stdio.h>

#include "analyzer/reader/dump_reader.h"
#include "analyzer/lib/json.h"

struct model;

#define COST_MIN_STEPS 3        /* steps a median needs, each side */

struct cost_figures {
	uint64_t steps, in;             /* steps, and those inside windows */
	uint64_t before, after;         /* around the first window measured */
	uint64_t left_out;              /* windows left out: by the clock, or */
	uint64_t mixed;                 /* ... across a change of pattern */
	uint64_t in_p50, out_p50, before_p50, after_p50;   /* ns */
	uint64_t in_ns, all_ns;                 /* their sums */
	uint64_t in_mean, base_mean;    /* ns: a step inside windows on average,
					   and what it would have been */
	double inside;          /* per step inside windows, over outside: +0.04 */
	double covered;         /* share of the steps inside windows */
	double overall;         /* time the windows added, over the run's steps */
	double after_detach;    /* just after a window over just before it,
				   the median over windows */
	uint64_t after_windows; /* the windows in that median */
	int measured;           /* inside, covered and overall are known */
	int have_after;         /* after_detach is known */
	const char *why;        /* not measured: why */
};

void cost_add(struct model *m, const struct dump_record *rec);
void cost_finish(struct model *m);
void cost_release(struct model *m);
/* NULL when the dump says nothing of steps. */
const struct cost_figures *cost_figures(const struct model *m);

/* "steps", "clock", "signal"...: a window's enum gt_window_reason. */
const char *cost_reason_name(uint32_t reason);

/* "tracing cost in this run: ..." lines of the text report. */
void cost_report_text(FILE *out, const struct model *m);
/* "tracing_cost" of the JSON report. */
void cost_report_json(struct json *j, const struct model *m);

#endif /* GPUTRACE_ANALYZER_COST_H */
