/* SPDX-License-Identifier: MIT */
/*
 * table.c - aligned text tables (see table.h).
 */
#include <stdlib.h>
#include <string.h>

#include "analyzer/lib/table.h"
#include "analyzer/lib/util.h"

#define INDENT 2
#define GAP 2                   /* spaces between columns */
#define ELLIPSIS "..."

void table_init(struct table *t, const struct table_column *cols,
		size_t ncols)
{
	t->cols = cols;
	t->ncols = ncols < TABLE_MAX_COLS ? ncols : TABLE_MAX_COLS;
	t->cells = NULL;
	t->nrows = 0;
	t->alloc = 0;
}

char *printable(const char *s)
{
	char *p = xstrdup(s), *q;

	for (q = p; *q; q++)
		if ((unsigned char)*q < 0x20 || (unsigned char)*q >= 0x7f)
			*q = '?';
	return p;
}

void table_add(struct table *t, const char *const *cells)
{
	size_t i;

	if (t->nrows == t->alloc) {
		t->alloc = t->alloc ? t->alloc * 2 : 16;
		t->cells = xrealloc(t->cells,
				    t->alloc * t->ncols * sizeof(*t->cells));
	}
	for (i = 0; i < t->ncols; i++)
		t->cells[t->nrows * t->ncols + i] =
			printable(cells[i] ? cells[i] : "");
	t->nrows++;
}

void table_release(struct table *t)
{
	size_t i;

	for (i = 0; i < t->nrows * t->ncols; i++)
		free(t->cells[i]);
	free(t->cells);
	t->cells = NULL;
	t->nrows = t->alloc = 0;
}

/* Widths: each column fits its title and cells; the first gets the rest. */
static void layout(const struct table *t, size_t width, size_t *w)
{
	size_t c, r, len, used = INDENT;

	for (c = 0; c < t->ncols; c++) {
		w[c] = strlen(t->cols[c].title);
		for (r = 0; r < t->nrows; r++) {
			len = strlen(t->cells[r * t->ncols + c]);
			if (len > w[c])
				w[c] = len;
		}
		if (c)
			used += GAP + w[c];
	}
	len = width > used + strlen(ELLIPSIS) + 1 ? width - used
						   : strlen(ELLIPSIS) + 1;
	if (w[0] > len)
		w[0] = len;
}

static void print_cell(FILE *out, const char *s, size_t w, int left,
		       int last)
{
	size_t len = strlen(s);

	if (len > w) {
		fprintf(out, "%.*s%s", (int)(w - strlen(ELLIPSIS)), s,
			ELLIPSIS);
		return;
	}
	if (!left)
		fprintf(out, "%*s", (int)w, s);
	else if (last)
		fputs(s, out);          /* no trailing blanks */
	else
		fprintf(out, "%-*s", (int)w, s);
}

static void print_row(FILE *out, const struct table *t, const size_t *w,
		      const char *const *cells)
{
	size_t c;

	fprintf(out, "%*s", INDENT, "");
	for (c = 0; c < t->ncols; c++) {
		if (c)
			fprintf(out, "%*s", GAP, "");
		print_cell(out, cells[c], w[c], c == 0 || t->cols[c].left,
			   c + 1 == t->ncols);
	}
	fputc('\n', out);
}

void table_print(FILE *out, const struct table *t, size_t width)
{
	const char *titles[TABLE_MAX_COLS];
	size_t w[TABLE_MAX_COLS], c, r;

	layout(t, width, w);
	for (c = 0; c < t->ncols; c++)
		titles[c] = t->cols[c].title;
	print_row(out, t, w, titles);
	for (r = 0; r < t->nrows; r++)
		print_row(out, t, w,
			  (const char *const *)&t->cells[r * t->ncols]);
}
