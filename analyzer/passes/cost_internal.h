/* SPDX-License-Identifier: MIT */
/*
 * cost_internal.h - what the cost pass (cost.c) keeps, for its figures
 * (cost_measure.c) and its report (cost_report.c).
 */
#ifndef GPUTRACE_ANALYZER_COST_INTERNAL_H
#define GPUTRACE_ANALYZER_COST_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "analyzer/passes/cost.h"

struct cost_window {
	uint64_t start, end;        /* kinds on (GT_CHUNK_WINDOW) */
	uint64_t attach, off;       /* switching span (GT_CHUNK_SWITCH) */
	uint32_t reason;            /* enum gt_window_reason, 0 unknown */
	int have_switch, on_at_end;
};

struct cost_stats {
	uint64_t *b;                /* boundaries, in time order */
	uint8_t *cont;              /* cont[i]: b[i] follows b[i - 1] */
	size_t nb, cap;
	uint64_t next_seq;          /* the seq the next boundary should have */
	uint32_t source;            /* enum gt_step_source of every chunk, 0
				       if they differ */
	int capped;
	struct cost_window *win;    /* by seq - 1 */
	size_t nwin;
};

#endif /* GPUTRACE_ANALYZER_COST_INTERNAL_H */
