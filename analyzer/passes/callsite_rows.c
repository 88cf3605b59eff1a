/* SPDX-License-Identifier: MIT */
/*
 * callsite_rows.c - turn (kind, stack) totals into call site rows, their
 * frames named as callsite_frames.c names them; rows that read the same
 * are merged and the most costly come first.
 */
#include <stdlib.h>
#include <string.h>

#include "analyzer/passes/callsite_internal.h"
#include "analyzer/model/model.h"
#include "analyzer/lib/util.h"

struct build {
	struct callsites *cs;
	struct hmap merged;         /* frames key -> row index + 1 */
	char **keys;
	size_t nkeys;
	size_t cap;                 /* rows room */
};

/* The frames of stack id, new strings, Python ones first. */
static char **frames_of(struct build *b, uint32_t id, size_t *n, size_t *python)
{
	const struct cs_stack *s = hmap_get_int(&b->cs->stacks, id);
	char **f;

	if (!s) {
		f = xmalloc(sizeof(*f));
		f[0] = xasprintf("<stack %u is not in the dump>", id);
		*n = 1;
		*python = 0;
		return f;
	}
	f = xcalloc(s->python + s->native + 1, sizeof(*f));
	for (uint32_t i = 0; i < s->python; i++)
		f[i] = xstrdup(s->pf[i]);
	for (uint32_t i = 0; i < s->native; i++)
		f[s->python + i] = xstrdup(callsites_pc_name(b->cs, &s->nf[i], 0)->text);
	*n = s->python + s->native;
	*python = s->python;
	return f;
}

/* "kind\nframe\nframe...": what rows that read the same share. */
static char *row_key(uint32_t kind, char **frames, size_t n)
{
	size_t len = 2, at = 1;
	char *k;

	for (size_t i = 0; i < n; i++)
		len += strlen(frames[i]) + 1;
	k = xmalloc(len);
	k[0] = (char)('0' + kind % 10);
	for (size_t i = 0; i < n; i++) {
		size_t l = strlen(frames[i]);

		k[at++] = '\n';
		memcpy(k + at, frames[i], l);
		at += l;
	}
	k[at] = 0;
	return k;
}

static void free_frames(char **f, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(f[i]);
	free(f);
}

static void add_total(struct build *b, const struct cs_total *t)
{
	struct callsites *cs = b->cs;
	struct callsite_row *row;
	size_t n, py, at;
	char **f = frames_of(b, t->stack, &n, &py);
	char *key = row_key(t->kind, f, n);

	at = (size_t)(uintptr_t)hmap_get_str(&b->merged, key);
	if (at) {
		row = &cs->rows[at - 1];
		row->calls += t->calls;
		row->ns_total = sat_add(row->ns_total, t->ns);
		free_frames(f, n);
		free(key);
		return;
	}
	if (cs->nrows == b->cap) {
		b->cap = b->cap ? b->cap * 2 : 64;
		cs->rows = xrealloc(cs->rows, b->cap * sizeof(*cs->rows));
		b->keys = xrealloc(b->keys, b->cap * sizeof(*b->keys));
	}
	cs->rows[cs->nrows] = (struct callsite_row){ .kind = t->kind,
		.calls = t->calls, .ns_total = t->ns, .frames = f, .nframes = n,
		.python = py };
	b->keys[b->nkeys++] = key;
	hmap_put_str(&b->merged, key, (void *)(uintptr_t)++cs->nrows);
}

static int by_cost(const void *a, const void *b)
{
	const struct callsite_row *x = a, *y = b;

	if (x->ns_total != y->ns_total)
		return x->ns_total > y->ns_total ? -1 : 1;
	if (x->calls != y->calls)
		return x->calls > y->calls ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (!x->nframes || !y->nframes)
		return (int)y->nframes - (int)x->nframes;
	return strcmp(x->frames[0], y->frames[0]);
}

void callsites_build(struct callsites *cs)
{
	struct build b = { .cs = cs };
	size_t pos = 0;
	void *v;

	while ((v = hmap_next(&cs->totals, &pos)))
		add_total(&b, v);
	if (cs->nrows)                  /* qsort(NULL, 0) is undefined */
		qsort(cs->rows, cs->nrows, sizeof(*cs->rows), by_cost);
	for (size_t i = 0; i < b.nkeys; i++)
		free(b.keys[i]);
	free(b.keys);
	hmap_release(&b.merged);
	cs->built = 1;
}

void callsites_free_rows(struct callsites *cs)
{
	for (size_t i = 0; i < cs->nrows; i++)
		free_frames(cs->rows[i].frames, cs->rows[i].nframes);
	free(cs->rows);
	cs->rows = NULL;
	cs->nrows = 0;
}

const struct callsite_row *callsites_rows(const struct model *m, size_t *n)
{
	struct callsites *cs = m->callsites;

	*n = 0;
	if (!cs)
		return NULL;
	if (!cs->built)
		callsites_build(cs);
	*n = cs->nrows;
	return cs->rows;
}
