/* SPDX-License-Identifier: MIT */
/*
 * report_lines.c - the width of the text report (the terminal's, else
 * COLUMNS, else REPORT_WIDTH; none with --wide) and its lines: one line made printable and wrapped at word
 * boundaries, text made printable and wrapped after a prefix.  Every
 * section of the text report writes its prose through these; prose is
 * wrapped, never cut.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "analyzer/report/report.h"
#include "analyzer/lib/table.h"
#include "analyzer/lib/util.h"

#define MIN_WIDTH 60            /* narrower terminals get this much */

static size_t width = REPORT_WIDTH;

void report_set_width(size_t columns)
{
	width = columns ? (columns < MIN_WIDTH ? MIN_WIDTH : columns) : SIZE_MAX;
}

size_t report_width(void)
{
	return width;
}

size_t report_terminal_width(void)
{
	struct winsize ws;
	const char *env = getenv("COLUMNS");
	char *end;
	long v = env ? strtol(env, &end, 10) : 0;

	if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 &&
	    ws.ws_col)
		return ws.ws_col;
	if (env && *env && !*end && v > 0)
		return (size_t)v;
	return REPORT_WIDTH;
}

/* How much text fits on a line of prose after prefix (20 at least). */
static size_t prose_room(const char *prefix)
{
	size_t w = width < REPORT_WIDTH ? width : REPORT_WIDTH;

	return w > strlen(prefix) + 20 ? w - strlen(prefix) : 20;
}

void report_line(FILE *out, const char *fmt, ...)
{
	va_list ap;
	char *raw, *first, *rest;
	size_t indent;

	va_start(ap, fmt);
	if (vasprintf(&raw, fmt, ap) < 0)
		die("out of memory");
	va_end(ap);
	indent = strspn(raw, " ");
	if (!raw[indent])
		fputs("\n", out);
	first = xmemdupz(raw, indent);
	rest = xasprintf("%s    ", first);
	report_wrap(out, first, rest, raw + indent);
	free(rest);
	free(first);
	free(raw);
}

void report_wrap(FILE *out, const char *first, const char *rest, const char *text)
{
	const char *prefix = first;
	char *clean = printable(text);      /* notes come from the dump */
	const char *s = clean;

	while (*s) {
		size_t w = prose_room(prefix), len = strlen(s);

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
