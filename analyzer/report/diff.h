/* SPDX-License-Identifier: MIT */
/*
 * diff.h - --diff BEFORE AFTER: did the change pay off?  Wall and step
 * time, GPU busy share, idle causes (when the diagnosis knows them), the
 * host time of waits, copies and launches, then per kernel and per copy
 * class the change, largest first, and the verdict of each side.  Text,
 * or one JSON object with --json.
 */
#ifndef GPUTRACE_ANALYZER_DIFF_H
#define GPUTRACE_ANALYZER_DIFF_H

#include <stdint.h>
#include <stdio.h>

#include "analyzer/export/export.h"
#include "analyzer/model/model.h"

/* One thing measured on both sides. */
struct diff_line {
	char *name;                 /* kernel (demangled, whole), copy class,
				       wait api, metric */
	int kernel;                 /* name is a kernel's */
	uint64_t calls[2];          /* before, after */
	uint64_t value[2];          /* ns (or bytes) */
	uint64_t bytes[2];          /* copy classes */
	int gpu;                    /* kernels: value is GPU time */
};

struct diff_table {
	struct diff_line *v;
	size_t n;
};

/* The rows of kind in both models, matched by key, largest change first
 * (diff_rows.c).  Kernels count GPU time when both sides have it. */
void diff_rows(const struct model *a, const struct model *b,
	       enum row_kind kind, struct diff_table *t);
void diff_table_free(struct diff_table *t);

/* The comparison of the models of dumps pa (before) and pb (after), as
 * text (top rows per table, 0 = all) or one JSON object. */
void diff_text(FILE *out, const char *pa, const char *pb,
	       const struct model *a, const struct model *b, size_t top);
void diff_json(FILE *out, const char *pa, const char *pb,
	       const struct model *a, const struct model *b);

#endif /* GPUTRACE_ANALYZER_DIFF_H */
