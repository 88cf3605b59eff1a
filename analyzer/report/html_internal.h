/* SPDX-License-Identifier: MIT */
/*
 * html_internal.h - what the HTML report's files share: html.c (the page
 * and its sections), html_bins.c (the pass that bins the timeline),
 * html_svg.c (charts), html_tables.c (breakdown tables), html_style.c.
 */
#ifndef GPUTRACE_ANALYZER_HTML_INTERNAL_H
#define GPUTRACE_ANALYZER_HTML_INTERNAL_H

#include <stdint.h>
#include <stdio.h>

#include "analyzer/passes/gpu_internal.h"
#include "analyzer/lib/hmap.h"
#include "analyzer/report/html.h"
#include "analyzer/lib/util.h"

#define HTML_BINS 400               /* columns of the timeline */
#define HTML_MAX_DEV 16             /* devices drawn */
#define HTML_MAX_STEPS 2048         /* step bars (pairs merge beyond) */
#define HTML_TOP 15                 /* rows of the tables and charts */

enum html_host {                    /* host time by kind of call */
	HH_LAUNCH, HH_COPY, HH_SYNC, HH_NCCL, HH_OTHER, HH_KINDS,
};

/* A dump's timeline in HTML_BINS equal bins: when time runs past the
 * last bin, pairs of bins merge and each bin gets twice as wide. */
struct html_bins {
	uint64_t t0;                /* the dump's start */
	uint64_t width;             /* ns per bin */
	uint64_t end;               /* the latest time seen */
	uint64_t host[HH_KINDS][HTML_BINS];
	uint64_t gpu[HTML_MAX_DEV][HTML_BINS];  /* GPU busy (sum of records) */
	uint64_t timed[HTML_BINS];  /* time inside GPU timing windows */
	uint32_t ndev;
	int gpu_seen;
	struct gpu_clock clock;
	/* step times from NVTX ranges named like "step" (no diagnosis) */
	uint64_t step_ns[HTML_MAX_STEPS];
	size_t nsteps;
	uint64_t step_per_bar;      /* steps each bar is the mean of */
	uint64_t step_acc, step_acc_n;
	uint64_t steps_total;
	struct hmap stacks;         /* tid -> struct html_stack */
	struct hmap is_step;        /* string id -> 1 step, 2 not */
};

/* Where bin i starts; times near 2^64 stop at UINT64_MAX, not wrap. */
static inline uint64_t html_bin_start(const struct html_bins *b, uint64_t i)
{
	uint64_t off;

	if (__builtin_mul_overflow(i, b->width, &off))
		return UINT64_MAX;
	return sat_add(b->t0, off);
}

/* One more pass over path: its timeline.  0, or -1 (said). */
int html_bins_read(struct html_bins *b, const char *path, uint64_t start_ns);
void html_bins_release(struct html_bins *b);

/* Text for HTML: & < > " escaped. */
void html_esc(FILE *out, const char *s);

/* html_svg.c */
struct html_bar {
	const char *label;
	double value;
	const char *text;           /* shown at the bar's end */
	const char *color;          /* NULL: the default */
};
void html_bar_chart(FILE *out, const char *id, const char *title,
		    const struct html_bar *bars, size_t n);
/* m: the model, for idle causes (NULL: none) */
void html_timeline(FILE *out, const struct html_bins *b, const char *label,
		   const struct model *m);
void html_timeline_legend(FILE *out, int causes);
void html_step_chart(FILE *out, const struct html_bins *b, const char *source);
/* Replace the NVTX steps of b by these boundaries (the diagnosis's). */
void html_bins_steps(struct html_bins *b, const uint64_t *t, size_t n);

/* html_tables.c: the breakdown tables of one dump */
void html_tables(FILE *out, const struct model *m);
void html_charts(FILE *out, const struct model *m);

/* html_style.c */
extern const char html_style[];

#endif /* GPUTRACE_ANALYZER_HTML_INTERNAL_H */
