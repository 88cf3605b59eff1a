/* SPDX-License-Identifier: MIT */
/*
 * html_internal.h - what the HTML report's files share: html.c (the page
 * and its sections), html_svg.c (charts), html_tables.c (breakdown tables), html_style.c.
 */
#ifndef GPUTRACE_ANALYZER_HTML_INTERNAL_H
#define GPUTRACE_ANALYZER_HTML_INTERNAL_H

#include <stdint.h>
#include <stdio.h>

#include "analyzer/passes/timeline.h"
#include "analyzer/lib/hmap.h"
#include "analyzer/report/html.h"
#include "analyzer/lib/util.h"

#define HTML_TOP 15                 /* rows of the tables and charts */

/* Text for HTML: & < > " escaped, valid UTF-8 without control
 * characters but tab and newline (html.c). */
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
void html_timeline(FILE *out, const struct timeline *b, const char *label,
		   const struct model *m);
void html_timeline_legend(FILE *out, int causes);
void html_step_chart(FILE *out, const struct timeline *b, const char *source);

/* html_tables.c: the breakdown tables of one dump */
void html_tables(FILE *out, const struct model *m);
void html_charts(FILE *out, const struct model *m);

/* html_style.c */
extern const char html_style[];

#endif /* GPUTRACE_ANALYZER_HTML_INTERNAL_H */
