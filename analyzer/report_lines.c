/* SPDX-License-Identifier: MIT */
/*
 * report_lines.c - lines of the text report: one line made printable and
 * cut to the report width, and text made printable and wrapped to it
 * after a prefix.  Every
 * section of the text report writes its prose through these.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/report.h"
#include "analyzer/table.h"
#include "analyzer/util.h"

void report_line(FILE *out, const char *fmt, ...)
{
	va_list ap;
	char *raw, *s;

	va_start(ap, fmt);
	if (vasprintf(&raw, fmt, ap) < 0)
		die("out of memory");
	va_end(ap);
	s = printable(raw);
	if (strlen(s) > REPORT_WIDTH)
		strcpy(s + REPORT_WIDTH - 3, "...");
	fprintf(out, "%s\n", s);
	free(s);
	free(raw);
}

void report_wrap(FILE *out, const char *first, const char *rest, const char *text)
{
	const char *prefix = first;
	char *clean = printable(text);      /* notes come from the dump */
	const char *s = clean;

	while (*s) {
		size_t w = REPORT_WIDTH - strlen(prefix), len = strlen(s);

		if (len > w) {
			len = w;
			while (len > 20 && s[len] != ' ')
				len--;
		}
		fprintf(out, "%s%.*s\n", prefix, (int)len, s);
		s += len;
		while (*s == ' ')
			s++;
		prefix = rest;
	}
	free(clean);
}
