/* SPDX-License-Identifier: MIT */
/*
 * table.h - aligned text tables that fit in a given width.  The first
 * column holds names: it gets the room the others leave, and names too
 * long for it are cut with "..." at the end; a column of kernel names
 * (table_kernel_names()) is shortened by structure instead (shortname.h), its rows
 * told apart, each name on a line of its own above its numbers when the
 * room left is under TABLE_NAME_MIN.  Other columns are right-aligned
 * numbers, or left-aligned when their title says so.
 */
#ifndef GPUTRACE_ANALYZER_TABLE_H
#define GPUTRACE_ANALYZER_TABLE_H

#include <stddef.h>
#include <stdio.h>

#define TABLE_MAX_COLS 8
#define TABLE_NAME_MIN 30       /* kernel names narrower: own lines */

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
	int names;              /* the first column holds kernel names */
};

void table_init(struct table *t, const struct table_column *cols,
		size_t ncols);
/* The first column holds demangled kernel names: shortened to fit by
 * structure (whole when the width has no limit). */
void table_kernel_names(struct table *t);
/* Add a row: ncols strings, copied (NULL is an empty cell). */
void table_add(struct table *t, const char *const *cells);
/* Print with two leading spaces, fitting in width columns (SIZE_MAX: no
 * limit, nothing cut or shortened). */
void table_print(FILE *out, const struct table *t, size_t width);
void table_release(struct table *t);

/* A copy of s with control and non-ASCII bytes replaced by '?'. */
char *printable(const char *s);

#endif /* GPUTRACE_ANALYZER_TABLE_H */
