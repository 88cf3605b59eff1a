/* SPDX-License-Identifier: MIT */
/*
 * table.c - aligned text tables (see table.h).
 */
#include <stdlib.h>
#include <string.h>

#include "analyzer/lib/shortname.h"
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
	t->names = 0;
}

void table_kernel_names(struct table *t)
{
	t->names = 1;
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

/* What the first column shows: the cells, or kernel names shortened to
 * fit (names, set); stacked: each name on a line of its own. */
struct first_col {
	char **names;
	int stacked;
};

static size_t title_or_cells(const struct table *t, size_t c)
{
	size_t w = strlen(t->cols[c].title), r, len;

	for (r = 0; r < t->nrows; r++) {
		len = strlen(t->cells[r * t->ncols + c]);
		if (len > w)
			w = len;
	}
	return w;
}

/* Kernel names in room characters, else each on its own line. */
static void fit_names(const struct table *t, size_t width, size_t room,
		      size_t *w0, struct first_col *f)
{
	const char **full = xcalloc(t->nrows + 1, sizeof(*full));
	size_t r, len;

	for (r = 0; r < t->nrows; r++)
		full[r] = t->cells[r * t->ncols];
	f->stacked = room < TABLE_NAME_MIN;
	f->names = shortname_column(full, t->nrows, f->stacked ? width - INDENT
								: room);
	free(full);
	*w0 = strlen(t->cols[0].title);
	if (f->stacked) {
		*w0 = room > *w0 ? room : *w0;
		return;
	}
	for (r = 0; r < t->nrows; r++) {
		len = strlen(f->names[r]);
		*w0 = len > *w0 ? len : *w0;
	}
}

/* Widths: each column fits its title and cells; the first gets the rest. */
static void layout(const struct table *t, size_t width, size_t *w,
		   struct first_col *f)
{
	size_t c, len, used = INDENT;

	for (c = 1; c < t->ncols; c++) {
		w[c] = title_or_cells(t, c);
		used += GAP + w[c];
	}
	len = width > used + strlen(ELLIPSIS) + 1 ? width - used
						   : strlen(ELLIPSIS) + 1;
	if (t->names && width != SIZE_MAX && t->nrows &&
	    width > INDENT + SHORTNAME_MIN) {
		fit_names(t, width, len, &w[0], f);
		return;
	}
	w[0] = title_or_cells(t, 0);
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
	const char *titles[TABLE_MAX_COLS], *cells[TABLE_MAX_COLS];
	size_t w[TABLE_MAX_COLS], c, r;
	struct first_col f = { NULL, 0 };

	layout(t, width, w, &f);
	for (c = 0; c < t->ncols; c++)
		titles[c] = t->cols[c].title;
	print_row(out, t, w, titles);
	for (r = 0; r < t->nrows; r++) {
		memcpy(cells, &t->cells[r * t->ncols], t->ncols * sizeof(*cells));
		if (f.names && f.stacked) {
			fprintf(out, "%*s%s\n", INDENT, "", f.names[r]);
			cells[0] = "";
		} else if (f.names) {
			cells[0] = f.names[r];
		}
		print_row(out, t, w, cells);
	}
	shortname_free(f.names, t->nrows);
}
