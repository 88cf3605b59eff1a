/* SPDX-License-Identifier: MIT */
/*
 * shortname.h - kernel names for a column of a text table: each demangled
 * name shortened by its structure (namespaces, parameter lists, nested
 * template arguments and lambdas folded) to fit a width, and the names of
 * one column told apart: two different rows never read alike.
 */
#ifndef GPUTRACE_ANALYZER_SHORTNAME_H
#define GPUTRACE_ANALYZER_SHORTNAME_H

#include <stddef.h>

#define SHORTNAME_MIN 12        /* the narrowest width served */

/*
 * The names to show for rows 0..n-1 of a column, full[i] being row i's
 * demangled name: each in at most width characters (SHORTNAME_MIN at
 * least), the first of its forms that fits, else its last form with its
 * head, the words that tell it from the names like it and its tail.  No
 * two rows get the same string.  shortname_free() the result.
 */
char **shortname_column(const char *const *full, size_t n, size_t width);
void shortname_free(char **names, size_t n);

#endif /* GPUTRACE_ANALYZER_SHORTNAME_H */
