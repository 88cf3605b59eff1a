/* SPDX-License-Identifier: MIT */
/*
 * report.h - turn a model into a text report or a JSON document.
 */
#ifndef GPUTRACE_ANALYZER_REPORT_H
#define GPUTRACE_ANALYZER_REPORT_H

#include <stdio.h>

#include "analyzer/model/model.h"

#define REPORT_WIDTH 100        /* prose wraps here at the most; tables fit
				   this width when the terminal's is not
				   known (a file, a pipe) */

struct report_opts {
	size_t top;             /* rows per table, 0 = all */
};

void report_text(FILE *out, const struct model *m,
		 const struct report_opts *opts);
/* One JSON object with every row (top does not apply). */
void report_json(FILE *out, const struct model *m);

/*
 * The width of the text report (report_lines.c).  Tables fit in it,
 * kernel names shortened by structure (shortname.h), other names cut
 * with "..." when they must; prose wraps at it, or at REPORT_WIDTH if
 * that is less, and is never cut.  0 (--wide) sets no limit: kernels
 * under their whole demangled names.
 */
void report_set_width(size_t columns);
/* The width set, SIZE_MAX for no limit. */
size_t report_width(void);
/* The width stdout asks for: a terminal's columns (TIOCGWINSZ), else
 * COLUMNS, else REPORT_WIDTH (a file or a pipe). */
size_t report_terminal_width(void);

/* One line, made printable and wrapped at word boundaries, each further
 * line indented 4 more than the first. */
void report_line(FILE *out, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Text made printable and wrapped: first before its first line, rest
 * before the others. */
void report_wrap(FILE *out, const char *first, const char *rest, const char *s);

#endif /* GPUTRACE_ANALYZER_REPORT_H */
