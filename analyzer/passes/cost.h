/* SPDX-License-Identifier: MIT */
/*
 * cost.h - what tracing cost the run, measured inside it.
 *
 * The library writes where each training step began (GT_CHUNK_STEPS) and
 * when CUPTI was switched on and off for each GPU window (GT_CHUNK_WINDOW,
 * GT_CHUNK_SWITCH).  Steps that overlap a window's switching span paid
 * for GPU timing; the others did not.  At each edge of a window, the steps
 * just inside it are paired with as many like steps just outside it (the
 * same place in the steps' pattern, the same phase of the run): the
 * median of the paired differences, with an interval, is what the windows
 * cost per step, free of the noise between runs.  The same comparison
 * made where no window edge is says how far the program's steps move by
 * themselves: a difference within that is not measurable in this run.
 * The steps just after each window, paired with those just before it,
 * tell whether CUPTI leaves a cost once it is detached.  The host side's
 * own tracing (every run pays it) is not in these figures.
 *
 * The pass keeps the boundaries and the windows; the figures are made on
 * the steps the report gives (cost_measure()): the diagnosis's, so that
 * the line counts the steps the verdict counts, else the library's.
 */
#ifndef GPUTRACE_ANALYZER_COST_H
#define GPUTRACE_ANALYZER_COST_H

#include <stdint.h>
#include <stdio.h>

#include "analyzer/reader/dump_reader.h"
#include "analyzer/lib/json.h"

struct model;

#define COST_MIN_PAIRS 6        /* pairs a figure needs */
#define COST_LEVEL 0.9          /* of its interval */

enum cost_steps_from { COST_STEPS_LIBRARY, COST_STEPS_DIAGNOSIS };

/* The steps to measure on: boundaries t[0..nt), step i being [t[i],
 * t[i + 1]); cont[i] == 0: boundary i does not follow i - 1 (a new step
 * pattern; NULL: all follow); the first skip steps (warm-up) not counted. */
struct cost_steps {
	const uint64_t *t;
	const uint8_t *cont;
	size_t nt, skip;
	int capped;                     /* the run had more steps */
	enum cost_steps_from from;
};

/* One comparison: the median of paired differences, steps of side a over
 * like steps of side b, minus 1. */
struct cost_estimate {
	double median;                  /* +0.04: 4% longer */
	double lo, hi;                  /* its COST_LEVEL interval */
	double spread;                  /* how far the same comparison moves
					   where no window edge is (COST_LEVEL
					   of the places): +-; < 0 unknown */
	uint64_t pairs, groups;         /* pairs, and the edges (windows) they
					   come from */
	uint64_t a_p50, b_p50;          /* ns: the medians of the two sides */
	int known;                      /* at least COST_MIN_PAIRS pairs */
	int measurable;                 /* the whole interval beyond the
					   spread, on one side of zero */
};

struct cost_figures {
	enum cost_steps_from from;
	uint64_t steps, in;             /* steps counted, those inside windows */
	uint64_t other_steps;           /* the other source's steps, when none
					   of them ran inside a window: not
					   used (set by the caller) */
	uint32_t period;                /* steps in their pattern: like steps
					   are a multiple of it apart */
	uint64_t left_out;              /* windows left out: by the clock, or */
	uint64_t mixed;                 /* ... across a change of pattern */
	int capped;
	struct cost_estimate inside;    /* just inside windows against just
					   outside them */
	struct cost_estimate after;     /* just after windows against just
					   before them */
	uint64_t after_windows;         /* windows with steps on both sides */
	double covered;                 /* share of the steps inside windows */
	double overall, overall_lo, overall_hi; /* time the windows added, over
					   the steps' time (inside.measurable) */
	const char *why;                /* inside not known: why */
};

void cost_add(struct model *m, const struct dump_record *rec);
void cost_release(struct model *m);

/* The library's own step boundaries; 0 when it wrote none. */
int cost_library_steps(const struct model *m, struct cost_steps *st);
/* The figures, on the steps st (cost_measure.c). */
void cost_measure(const struct model *m, const struct cost_steps *st,
		  struct cost_figures *f);

/* "steps", "clock", "signal"...: a window's enum gt_window_reason. */
const char *cost_reason_name(uint32_t reason);

/* "tracing cost in this run: ..." lines of the text report. */
void cost_report_text(FILE *out, const struct model *m);
/* "tracing_cost" of the JSON report. */
void cost_report_json(struct json *j, const struct model *m);

#endif /* GPUTRACE_ANALYZER_COST_H */
