/* SPDX-License-Identifier: MIT */
/*
 * table.h - aligned text tables that fit in a given width.  The first
 * column holds names: it gets the room the others leave, and names too
 * long for it are cut with "..." at the end.  Other columns are
 * right-aligned numbers, or left-aligned when their title says so.
 */
#ifndef GPUTRACE_ANALYZER_TABLE_H
#define GPUTRACE_ANALYZER_TABLE_H

#include <stddef.h>
#include <stdio.h>

#define TABLE_MAX_COLS 8

struct table_column {
	const char *title;
	int left;               /* left-aligned (the first column always is) */
};

struct table {
	const struct table_column *cols;
	size_t ncols;
	char **cells;           /* row after row, ncols each */
	size_t nrows;
	size_t alloc;
};

void table_init(struct table *t, const struct table_column *cols,
		size_t ncols);
/* Add a row: ncols strings, copied (NULL is an empty cell). */
void table_add(struct table *t, const char *const *cells);
/* Print with two leading spaces, fitting in width columns. */
void table_print(FILE *out, const struct table *t, size_t width);
void table_release(struct table *t);

/* A copy of s with control and non-ASCII bytes replaced by '?'. */
char *printable(const char *s);

#endif /* GPUTRACE_ANALYZER_TABLE_H */
