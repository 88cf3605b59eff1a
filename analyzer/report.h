/* SPDX-License-Identifier: MIT */
/*
 * report.h - turn a model into a text report or a JSON document.
 */
#ifndef GPUTRACE_ANALYZER_REPORT_H
#define GPUTRACE_ANALYZER_REPORT_H

#include <stdio.h>

#include "analyzer/model.h"

#define REPORT_WIDTH 100        /* columns the text report fits in */

struct report_opts {
	size_t top;             /* rows per table, 0 = all */
};

void report_text(FILE *out, const struct model *m,
		 const struct report_opts *opts);
/* One JSON object with every row (top does not apply). */
void report_json(FILE *out, const struct model *m);

/* One line, made printable and cut to REPORT_WIDTH (report_lines.c). */
void report_line(FILE *out, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Text made printable and wrapped to REPORT_WIDTH: first before its first
 * line, rest before the others. */
void report_wrap(FILE *out, const char *first, const char *rest, const char *s);

#endif /* GPUTRACE_ANALYZER_REPORT_H */
