/* SPDX-License-Identifier: MIT */
/*
 * shortname.c - kernel names shortened for a table column (shortname.h).
 *
 * A name is read as its kernel's qualified name ("at::native::kernel")
 * with template arguments, each argument a qualified name with its own
 * arguments, parameter lists and lambdas.  The forms tried, from the most
 * detailed, each folding more:
 *   1. the arguments' namespaces, parameter lists and operator() parts
 *      ("GeluCUDAKernelImpl::{lambda#2}::{lambda#1}"); the kernel's own
 *      parameter list and return type are never shown
 *   2. arguments nested inside arguments, as <...>
 *   3. a chain of lambdas, to its innermost ("Impl::...::{lambda#1}")
 *   4. the kernel's own namespaces
 *   5. lambdas, entirely ("Impl::...")
 * A name gets the first form that fits.  When none does, its last form
 * keeps its head, the words that tell it from its neighbours in the
 * column's order that start alike, and its tail, with "..." for what is
 * left out (flat names like sm80_xmma_gemm_..._nn_..._kernel are served
 * the same way).  Rows that still read alike get more of themselves: a
 * form that fits and tells them all apart, else, form by form, the words
 * each has beyond what the group has in common (a common subsequence of
 * their words); a " #n" at the end as a last resort.  The word alignments
 * of a column are bounded (LCS_BUDGET, LCS_ROW a row): beyond, names are
 * cut and numbered rather than aligned.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/lib/hmap.h"
#include "analyzer/lib/shortname.h"
#include "analyzer/lib/util.h"

#define FOLD "..."
#define MAX_PARTS 128           /* parts of one qualified name or list */
#define SIMILAR 8               /* names starting alike: this many chars */
#define LCS_CELLS (1u << 22)    /* the largest word alignment done */
#define LCS_BUDGET (1u << 26)   /* word alignments' cells in one column, */
#define LCS_ROW (1u << 14)      /* or this many a row if more */
#define NEIGHBOURS 8            /* rows compared with, on each side */
#define ROUNDS 3                /* rounds of telling names apart */

struct sbuf {
	char *s;
	size_t len, cap;
};

static void put(struct sbuf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		b->cap = (b->len + n + 1) * 2;
		b->s = xrealloc(b->s, b->cap);
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = 0;
}

static void puts_(struct sbuf *b, const char *s)
{
	put(b, s, strlen(s));
}

/* ---- reading a name --------------------------------------------------------- */

struct span {
	const char *s;
	size_t n;
};

struct style {
	int kernel_ns;              /* the kernel's own namespaces */
	int arg_ns;                 /* namespaces of names in arguments */
	int params;                 /* parameter lists in arguments */
	int lambdas;                /* 2 all, 1 the innermost, 0 none */
	int depth;                  /* arguments shown this deep */
};

/* The shown forms, most detailed first, and the fuller ones names that
 * read alike may take. */
static const struct style forms[] = {
	{ 1, 0, 0, 2, 99 }, { 1, 0, 0, 2, 1 }, { 1, 0, 0, 1, 1 },
	{ 0, 0, 0, 1, 1 }, { 0, 0, 0, 0, 1 },
};
static const struct style fuller[] = {
	{ 1, 1, 0, 2, 99 }, { 1, 1, 1, 2, 99 },
};

#define NFORMS (ARRAY_SIZE(forms) + ARRAY_SIZE(fuller))

static int starts(const char *s, size_t n, const char *prefix)
{
	size_t k = strlen(prefix);

	return n >= k && !memcmp(s, prefix, k);
}

/* Past an operator's name ("operator<<", "operator()" keeps its "()"). */
static size_t skip_operator(const char *s, size_t i, size_t n)
{
	if (!starts(s + i, n - i, "operator") ||
	    (i && (isalnum((unsigned char)s[i - 1]) || s[i - 1] == '_')))
		return i;
	i += 8;
	while (i < n && strchr("<>=!+-*/%^&|~,", s[i]))
		i++;
	return i;
}

/* Just past the group opened at s[i], 0 when it does not close. */
static size_t group_end(const char *s, size_t i, size_t n)
{
	int depth = 0;

	while (i < n) {
		size_t k = skip_operator(s, i, n);

		if (k != i) {
			i = k;
			continue;
		}
		if (strchr("<({[", s[i]))
			depth++;
		else if (strchr(">)}]", s[i]) && --depth == 0)
			return i + 1;
		if (depth < 0)
			return 0;
		i++;
	}
	return 0;
}

static struct span trim(const char *s, size_t n)
{
	while (n && *s == ' ')
		s++, n--;
	while (n && s[n - 1] == ' ')
		n--;
	return (struct span){ s, n };
}

/* e split at its depth-0 occurrences of sep: how many parts, -1 when its
 * brackets do not match or it has too many. */
static int split(struct span e, const char *sep, struct span *out)
{
	size_t seplen = strlen(sep), from = 0, i = 0;
	int np = 0;

	while (i <= e.n) {
		size_t k = i < e.n ? skip_operator(e.s, i, e.n) : i;

		if (k != i) {
			i = k;
		} else if (i < e.n && strchr("<({[", e.s[i])) {
			if (!(i = group_end(e.s, i, e.n)))
				return -1;
		} else if (i < e.n && strchr(">)}]", e.s[i])) {
			return -1;
		} else if (i == e.n || starts(e.s + i, e.n - i, sep)) {
			if (np == MAX_PARTS)
				return -1;
			out[np++] = trim(e.s + from, i - from);
			if (i == e.n)
				break;
			i += seplen;
			from = i;
		} else {
			i++;
		}
	}
	return np;
}

enum part_kind { PK_NAME, PK_ANON, PK_LAMBDA, PK_OPERATOR };

static enum part_kind kind_of(struct span p)
{
	if (starts(p.s, p.n, "(anonymous namespace)"))
		return PK_ANON;
	if (starts(p.s, p.n, "{lambda") || starts(p.s, p.n, "{unnamed"))
		return PK_LAMBDA;
	if (starts(p.s, p.n, "operator()"))
		return PK_OPERATOR;
	return PK_NAME;
}

static void render_qualified(struct sbuf *b, struct span e, int depth,
			     const struct style *st);

/* "{lambda(float)#1}" as "{lambda#1}" unless parameters are shown. */
static void render_lambda(struct sbuf *b, struct span p, const struct style *st)
{
	const char *hash = memchr(p.s, '#', p.n);

	if (st->params || !hash || !starts(p.s, p.n, "{lambda")) {
		put(b, p.s, p.n);
		return;
	}
	puts_(b, "{lambda");
	put(b, hash, p.n - (size_t)(hash - p.s));
}

/* Template arguments s[0, n) (inside the brackets), each a name. */
static void render_args(struct sbuf *b, struct span a, int depth,
			const struct style *st)
{
	struct span args[MAX_PARTS];
	int na;

	if (depth > st->depth) {
		puts_(b, "<" FOLD ">");
		return;
	}
	na = split(a, ",", args);
	if (na < 0) {
		put(b, "<", 1);
		put(b, a.s, a.n);
		put(b, ">", 1);
		return;
	}
	put(b, "<", 1);
	for (int i = 0; i < na; i++) {
		if (i)
			puts_(b, ", ");
		render_qualified(b, args[i], depth, st);
	}
	put(b, ">", 1);
}

/* A name: its base, template arguments, parameters (dropped for the
 * kernel itself, and in arguments unless shown) and what follows. */
static void render_name(struct sbuf *b, struct span p, int depth,
			const struct style *st)
{
	size_t i = skip_operator(p.s, 0, p.n), j, base;
	int dropped = 0;

	while (i < p.n && p.s[i] != '<' && p.s[i] != '(')
		i++;
	base = i;
	put(b, p.s, i);
	if (i < p.n && p.s[i] == '<' && (j = group_end(p.s, i, p.n))) {
		render_args(b, (struct span){ p.s + i + 1, j - i - 2 }, depth + 1, st);
		i = j;
	}
	if (i < p.n && p.s[i] == '(' && (j = group_end(p.s, i, p.n))) {
		dropped = depth == 0 || !st->params;
		if (!dropped)
			put(b, p.s + i, j - i);
		i = j;
	}
	if (depth == 0 || (dropped && base))
		return;                 /* " const" of what was dropped */
	put(b, p.s + i, p.n - i);
}

/* Whether part i is shown, and what stands for the lambdas left out. */
static void render_parts(struct sbuf *b, const struct span *p, int np,
			 int depth, const struct style *st)
{
	int keep_ns = depth ? st->arg_ns : st->kernel_ns, last_name = -1, nl = 0;
	int first, shown = 0, folded = 0;

	for (int i = 0; i < np; i++)
		if (kind_of(p[i]) == PK_NAME)
			last_name = i;
	for (int i = last_name + 1; i < np; i++)
		nl += kind_of(p[i]) == PK_LAMBDA;
	first = keep_ns || last_name < 0 ? 0 : last_name;
	for (int i = first, lambda = 0; i < np; i++) {
		enum part_kind k = kind_of(p[i]);

		if (k == PK_OPERATOR && !st->params)
			continue;
		if (k == PK_LAMBDA && i > last_name && ++lambda &&
		    (st->lambdas == 0 || (st->lambdas == 1 && lambda < nl))) {
			if (!folded++)
				puts_(b, shown++ ? "::" FOLD : FOLD);
			continue;
		}
		if (shown++)
			puts_(b, "::");
		if (k == PK_ANON)
			puts_(b, "(anon)");
		else if (k == PK_LAMBDA)
			render_lambda(b, p[i], st);
		else if (k == PK_OPERATOR)
			put(b, p[i].s, p[i].n);
		else
			render_name(b, p[i], depth, st);
	}
}

static void render_qualified(struct sbuf *b, struct span e, int depth,
			     const struct style *st)
{
	struct span parts[MAX_PARTS];
	int np = split(e, "::", parts);

	if (np < 0)
		put(b, e.s, e.n);
	else
		render_parts(b, parts, np, depth, st);
}

/* full in one style, in a new string. */
static char *render(const char *full, const struct style *st)
{
	struct sbuf b = { 0 };
	struct span e = trim(full, strlen(full));

	if (starts(e.s, e.n, "void "))
		e = trim(e.s + 5, e.n - 5);
	render_qualified(&b, e, 0, st);
	if (!b.s)
		return xstrdup("");
	return b.s;
}

/* ---- words: what tells a name from others ---------------------------------- */

struct words {
	const char *s;
	size_t *at, *len;           /* each word: a run of letters and digits,
				   or one other character */
	size_t n;
};

static void words_of(const char *s, struct words *w)
{
	size_t len = strlen(s);

	w->s = s;
	w->at = xmalloc((len + 1) * sizeof(*w->at));
	w->len = xmalloc((len + 1) * sizeof(*w->len));
	w->n = 0;
	for (size_t i = 0; i < len;) {
		size_t j = i + 1;

		if (isalnum((unsigned char)s[i]))
			while (j < len && isalnum((unsigned char)s[j]))
				j++;
		w->at[w->n] = i;
		w->len[w->n++] = j - i;
		i = j;
	}
}

static void words_release(struct words *w)
{
	free(w->at);
	free(w->len);
}

static int same_word(const struct words *a, size_t i, const struct words *b,
		     size_t j)
{
	return a->len[i] == b->len[j] &&
	       !memcmp(a->s + a->at[i], b->s + b->at[j], a->len[i]);
}

/* Mark in d[] the words of a that a longest common subsequence of words
 * with b leaves out: they tell a from b. */
static void diff_words(const struct words *a, const struct words *b,
		       unsigned char *d, size_t *budget)
{
	size_t na = a->n, nb = b->n, i, j;
	unsigned short *t;

	if ((na + 1) * (nb + 1) > LCS_CELLS || (na + 1) * (nb + 1) > *budget)
		return;                 /* too long, or the column's work done */
	*budget -= (na + 1) * (nb + 1);
	t = xcalloc((na + 1) * (nb + 1), sizeof(*t));
	for (i = na; i-- > 0;)
		for (j = nb; j-- > 0;) {
			unsigned short down = t[(i + 1) * (nb + 1) + j];
			unsigned short right = t[i * (nb + 1) + j + 1];

			t[i * (nb + 1) + j] = same_word(a, i, b, j) ?
					      t[(i + 1) * (nb + 1) + j + 1] + 1 :
					      down > right ? down : right;
		}
	for (i = j = 0; i < na;) {
		if (j < nb && same_word(a, i, b, j))
			i++, j++;
		else if (j < nb && t[i * (nb + 1) + j + 1] >= t[(i + 1) * (nb + 1) + j])
			j++;
		else
			d[i++] = 1;
	}
	free(t);
}

/* The words kept, runs left out as "..." unless no longer than that;
 * its length, and into b when given. */
static size_t elided(const struct words *w, const unsigned char *keep,
		     struct sbuf *b)
{
	size_t len = 0;

	for (size_t i = 0; i < w->n;) {
		size_t j = i, run = 0;

		while (j < w->n && !keep[j])
			run += w->len[j++];
		if (j == i) {
			len += w->len[i];
			if (b)
				put(b, w->s + w->at[i], w->len[i]);
			i++;
			continue;
		}
		len += run <= strlen(FOLD) ? run : strlen(FOLD);
		if (b && run <= strlen(FOLD))
			put(b, w->s + w->at[i], run);
		else if (b)
			puts_(b, FOLD);
		i = j;
	}
	return len;
}

/* Runs of dots (a fold beside another) made one "...", in place. */
static void one_fold(char *s)
{
	char *q = s;

	for (const char *p = s; *p;) {
		size_t dots = strspn(p, ".");

		if (dots >= strlen(FOLD)) {
			memcpy(q, FOLD, strlen(FOLD));
			q += strlen(FOLD);
			p += dots;
		} else {
			*q++ = *p++;
		}
	}
	*q = 0;
}

/* s in at most width characters: its head and tail, "..." between. */
static char *cut(const char *s, size_t width)
{
	size_t len = strlen(s), tail = width / 3, head;

	if (len <= width)
		return xstrdup(s);
	if (width <= strlen(FOLD) + 1)
		return xmemdupz(s, width);
	head = width - strlen(FOLD) - tail;
	return xasprintf("%.*s" FOLD "%s", (int)head, s, s + len - tail);
}

struct fitting {
	struct words w;
	unsigned char *keep;
	unsigned char **d;          /* per other name: the words telling s
				   from it */
	unsigned char *covered;     /* per other name: told from it */
	size_t n, width;
};

/* Keep word i if the result still fits: 1, else 0. */
static int try_keep(struct fitting *f, size_t i)
{
	if (f->keep[i])
		return 1;
	f->keep[i] = 1;
	if (elided(&f->w, f->keep, NULL) <= f->width)
		return 1;
	f->keep[i] = 0;
	return 0;
}

static void covers(struct fitting *f, size_t i)
{
	for (size_t k = 0; k < f->n; k++)
		f->covered[k] |= f->d[k][i];
}

/* Words from the start (dir 1) or the end (-1) while they fit: within
 * chars characters (the first word always, if it fits), or until at
 * least chars (atleast); SIZE_MAX: as many as fit. */
static void keep_run(struct fitting *f, int dir, size_t chars, int atleast)
{
	size_t got = 0;

	for (size_t k = 0; k < f->w.n; k++) {
		size_t i = dir > 0 ? k : f->w.n - 1 - k;

		if (atleast ? got >= chars : k && got + f->w.len[i] > chars)
			return;
		if (!try_keep(f, i))
			return;
		covers(f, i);
		got += f->w.len[i];
	}
}

/* A few words telling s from as many other names as possible: each time
 * the word that tells it from the most names not told yet (the longest
 * of those, the first of those). */
static void keep_cover(struct fitting *f)
{
	unsigned char *tried = xcalloc(f->w.n + 1, 1);

	for (;;) {
		size_t best = SIZE_MAX, best_n = 0;

		for (size_t i = 0; i < f->w.n; i++) {
			size_t c = 0;

			if (f->keep[i] || tried[i])
				continue;
			for (size_t k = 0; k < f->n; k++)
				c += !f->covered[k] && f->d[k][i];
			if (c > best_n || (c && c == best_n && f->w.len[i] > f->w.len[best]))
				best = i, best_n = c;
		}
		if (best == SIZE_MAX)
			break;
		tried[best] = 1;
		if (try_keep(f, best))
			covers(f, best);
	}
	free(tried);
}

#define HEAD_MIN 12
#define TAIL_MIN 6

/* Keep, in this order as long as they fit: head characters of the head,
 * words telling s from the others, TAIL_MIN of the tail, the other words
 * telling them apart, more of the head, more of the tail.  Returns
 * from how many others s is told. */
static size_t choose(struct fitting *f, size_t head)
{
	size_t told = 0;

	memset(f->keep, 0, f->w.n + 1);
	memset(f->covered, 0, f->n + 1);
	if (head)
		keep_run(f, 1, head, 0);
	keep_cover(f);
	keep_run(f, -1, TAIL_MIN, 1);
	for (size_t i = 0; i < f->w.n; i++)
		for (size_t k = 0; k < f->n; k++)
			if (f->d[k][i] && try_keep(f, i))
				break;
	keep_run(f, 1, SIZE_MAX, 0);
	keep_run(f, -1, SIZE_MAX, 0);
	for (size_t k = 0; k < f->n; k++)
		told += f->covered[k];
	return told;
}

/*
 * s in at most width characters, its words that tell it from each of
 * others[0..n-1] kept with as much of its head and tail as fit (choose());
 * the head goes first when it leaves no room for them.  What is left out
 * reads "...".
 */
static char *fit(const char *s, const char *const *others, size_t n,
		 size_t width, size_t *budget)
{
	struct fitting f = { .n = n, .width = width };
	struct sbuf b = { 0 };
	char *r;

	if (strlen(s) <= width)
		return xstrdup(s);
	words_of(s, &f.w);
	f.keep = xcalloc(f.w.n + 1, 1);
	f.covered = xcalloc(n + 1, 1);
	f.d = xcalloc(n + 1, sizeof(*f.d));
	for (size_t k = 0; k < n; k++) {
		struct words o;

		f.d[k] = xcalloc(f.w.n + 1, 1);
		words_of(others[k], &o);
		diff_words(&f.w, &o, f.d[k], budget);
		words_release(&o);
	}
	if (choose(&f, HEAD_MIN) < choose(&f, 0))
		;                       /* the head goes first */
	else if (!choose(&f, HEAD_MIN) && !f.keep[0])
		memset(f.keep, 1, f.w.n);   /* a first word too long: cut() */
	elided(&f.w, f.keep, &b);
	r = b.s ? b.s : xstrdup("");
	one_fold(r);
	if (strlen(r) > width) {
		char *c = cut(r, width);

		free(r);
		r = c;
	}
	for (size_t k = 0; k < n; k++)
		free(f.d[k]);
	free(f.d);
	free(f.covered);
	free(f.keep);
	words_release(&f.w);
	return r;
}

/* ---- a column ----------------------------------------------------------------- */

struct entry {
	char *form[NFORMS];         /* forms[], then fuller[] */
	char *shown;
};

/* How many rows show each string: an item per string ever shown, its
 * count falling to 0 when none does any longer. */
struct tally_item {
	size_t count;
	char key[];
};

struct column {
	struct entry *e;
	size_t n, width;
	size_t *by_last;            /* rows sorted by their last form */
	size_t *rank;               /* each row's place in by_last */
	struct hmap shown;          /* string -> struct tally_item */
	size_t budget;              /* LCS cells left */
};

static size_t tally_get(const struct hmap *t, const char *s)
{
	const struct tally_item *it = hmap_get_str(t, s);

	return it ? it->count : 0;
}

static void tally_add(struct hmap *t, const char *s, int delta)
{
	struct tally_item *it = hmap_get_str(t, s);

	if (!it) {
		it = xmalloc(sizeof(*it) + strlen(s) + 1);
		it->count = 0;
		strcpy(it->key, s);
		hmap_put_str(t, it->key, it);
	}
	it->count += (size_t)(ptrdiff_t)delta;
}

/* Row i now shows s (taken over). */
static void show(struct column *c, size_t i, char *s)
{
	if (c->e[i].shown)
		tally_add(&c->shown, c->e[i].shown, -1);
	free(c->e[i].shown);
	c->e[i].shown = s;
	tally_add(&c->shown, s, 1);
}

static void forms_of(struct entry *e, const char *full)
{
	for (size_t f = 0; f < ARRAY_SIZE(forms); f++)
		e->form[f] = render(full, &forms[f]);
	for (size_t f = 0; f < ARRAY_SIZE(fuller); f++)
		e->form[ARRAY_SIZE(forms) + f] = render(full, &fuller[f]);
}

#define LAST_FORM (ARRAY_SIZE(forms) - 1)
#define FULLEST (NFORMS - 1)

static const struct entry *sort_base;

static int by_last_form(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	int r = strcmp(sort_base[x].form[LAST_FORM], sort_base[y].form[LAST_FORM]);

	return r ? r : (x > y) - (x < y);
}

/* Row i's shown name when no form fits: its last form, fitted against
 * the rows next to it in the order of last forms (the most alike) that
 * start alike. */
static char *fit_alone(struct column *c, size_t i)
{
	const char *others[2 * NEIGHBOURS], *s = c->e[i].form[LAST_FORM];
	size_t k = 0, at = c->rank[i];

	for (size_t d = 1; d <= NEIGHBOURS; d++)
		for (int side = -1; side <= 1; side += 2) {
			size_t j;
			const char *o;

			if ((side < 0 && at < d) || (side > 0 && at + d >= c->n))
				continue;
			j = c->by_last[side < 0 ? at - d : at + d];
			o = c->e[j].form[LAST_FORM];
			if (!strncmp(s, o, SIMILAR) && strcmp(s, o))
				others[k++] = o;
		}
	return fit(s, others, k, c->width, &c->budget);
}

/* Whether a row outside a group of ng rows that showed was (what made
 * them a group) shows s. */
static int shown_by_other(const struct column *c, const char *was, size_t ng,
			  const char *s)
{
	return tally_get(&c->shown, s) > (strcmp(was, s) ? 0 : ng);
}

static const char *const *dup_base;

static int by_string(const void *a, const void *b)
{
	return strcmp(dup_base[*(const size_t *)a], dup_base[*(const size_t *)b]);
}

/* Which of v[0..n-1] equal another: a new array of flags. */
static unsigned char *duplicates(const char *const *v, size_t n)
{
	size_t *o = xmalloc((n + 1) * sizeof(*o));
	unsigned char *dup = xcalloc(n + 1, 1);

	for (size_t i = 0; i < n; i++)
		o[i] = i;
	dup_base = v;
	qsort(o, n, sizeof(*o), by_string);
	for (size_t i = 1; i < n; i++)
		if (!strcmp(v[o[i]], v[o[i - 1]]))
			dup[o[i]] = dup[o[i - 1]] = 1;
	free(o);
	return dup;
}

/* Form f of every row of group g fits, and tells them apart from each
 * other and from the other rows: 1, and they take it. */
static int take_form(struct column *c, const size_t *g, size_t ng,
		     const char *was, size_t f)
{
	const char **v = xcalloc(ng + 1, sizeof(*v));
	unsigned char *dup;
	int ok = 1;

	for (size_t a = 0; a < ng && ok; a++) {
		v[a] = c->e[g[a]].form[f];
		ok = strlen(v[a]) <= c->width && !shown_by_other(c, was, ng, v[a]);
	}
	dup = ok ? duplicates(v, ng) : NULL;
	for (size_t a = 0; a < ng && dup; a++)
		ok = ok && !dup[a];
	for (size_t a = 0; a < ng && ok; a++)
		show(c, g[a], xstrdup(v[a]));
	free(dup);
	free(v);
	return ok;
}

/* What the rows of group g have in common in form f: the words of a
 * common subsequence of theirs, joined. */
static char *skeleton(struct column *c, const size_t *g, size_t ng, size_t f)
{
	char *skel = xstrdup(c->e[g[0]].form[f]);

	for (size_t a = 1; a < ng; a++) {
		struct words w, o;
		unsigned char *d;
		struct sbuf b = { 0 };

		words_of(skel, &w);
		words_of(c->e[g[a]].form[f], &o);
		d = xcalloc(w.n + 1, 1);
		diff_words(&w, &o, d, &c->budget);
		for (size_t i = 0; i < w.n; i++)
			if (!d[i])
				put(&b, w.s + w.at[i], w.len[i]);
		words_release(&w);
		words_release(&o);
		free(d);
		free(skel);
		skel = b.s ? b.s : xstrdup("");
	}
	return skel;
}

/* Form f of each row of group g fitted to keep what it has beyond what
 * they all have; each row whose fit no other row shows takes it.  1 when
 * one did. */
static int take_fit(struct column *c, const size_t *g, size_t ng,
		    const char *was, size_t f)
{
	size_t same = 1;
	const char *skel;
	char **fits;
	unsigned char *dup;
	int took = 0;

	while (same < ng && !strcmp(c->e[g[same]].form[f], c->e[g[0]].form[f]))
		same++;
	if (same == ng)
		return 0;               /* alike in this form: nothing to keep */
	skel = skeleton(c, g, ng, f);
	fits = xcalloc(ng + 1, sizeof(*fits));
	for (size_t a = 0; a < ng; a++)
		fits[a] = fit(c->e[g[a]].form[f], &skel,
			      strcmp(skel, c->e[g[a]].form[f]) != 0, c->width,
			      &c->budget);
	dup = duplicates((const char *const *)fits, ng);
	for (size_t a = 0; a < ng; a++) {
		if (!dup[a] && !shown_by_other(c, was, ng, fits[a])) {
			show(c, g[a], fits[a]);
			took = 1;
		} else {
			free(fits[a]);
		}
	}
	free(dup);
	free(fits);
	free((char *)skel);
	return took;
}

/* Rows of group g (sorted) read alike: give them more of themselves, a
 * form that tells them all apart, else the words each has beyond what
 * they all have (from the most compact form on); those still alike try
 * again in the next round. */
static void tell_apart(struct column *c, const size_t *g, size_t ng)
{
	char *was = xstrdup(c->e[g[0]].shown);
	int done = 0;

	for (size_t f = 0; f < NFORMS && !done; f++)
		done = take_form(c, g, ng, was, f);
	for (size_t k = 0; k < NFORMS && !done; k++)    /* forms[] from the */
		done = take_fit(c, g, ng, was, k < ARRAY_SIZE(forms) ?  /* most */
				ARRAY_SIZE(forms) - 1 - k : k);   /* compact on */
	free(was);
}

/* The last resort: rows of group g after the first end in " #2", " #3"... */
static void tag_apart(struct column *c, const size_t *g, size_t ng)
{
	for (size_t a = 1; a < ng; a++) {
		char tag[32], *cut_s;
		size_t room;

		snprintf(tag, sizeof(tag), " #%zu", a + 1);
		room = c->width > strlen(tag) ? c->width - strlen(tag) : 0;
		cut_s = cut(c->e[g[a]].shown, room);
		show(c, g[a], xasprintf("%s%s", cut_s, tag));
		free(cut_s);
	}
}

static int by_shown(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	int r = strcmp(sort_base[x].shown, sort_base[y].shown);

	return r ? r : (x > y) - (x < y);
}

/* One round: every group of rows that read alike given to apart(); 1
 * when there was one. */
static int round_apart(struct column *c,
		       void (*apart)(struct column *, const size_t *, size_t))
{
	size_t *order = xmalloc((c->n + 1) * sizeof(*order)), *g;
	int any = 0;

	for (size_t i = 0; i < c->n; i++)
		order[i] = i;
	sort_base = c->e;
	qsort(order, c->n, sizeof(*order), by_shown);
	g = xmalloc((c->n + 1) * sizeof(*g));
	for (size_t i = 0, ng = 0; i < c->n; i += ng ? ng : 1) {
		ng = 1;
		while (i + ng < c->n &&
		       !strcmp(c->e[order[i]].shown, c->e[order[i + ng]].shown))
			ng++;
		if (ng < 2)
			continue;
		memcpy(g, order + i, ng * sizeof(*g));   /* by row: by_shown ties */
		apart(c, g, ng);
		any = 1;
	}
	free(g);
	free(order);
	return any;
}

/* Each row's first form that fits, else its last fitted (fit_alone()). */
static void first_fit(struct column *c)
{
	c->by_last = xmalloc((c->n + 1) * sizeof(*c->by_last));
	c->rank = xmalloc((c->n + 1) * sizeof(*c->rank));
	for (size_t i = 0; i < c->n; i++)
		c->by_last[i] = i;
	sort_base = c->e;
	qsort(c->by_last, c->n, sizeof(*c->by_last), by_last_form);
	for (size_t k = 0; k < c->n; k++)
		c->rank[c->by_last[k]] = k;
	for (size_t i = 0; i < c->n; i++) {
		char *s = NULL;

		for (size_t f = 0; f < ARRAY_SIZE(forms) && !s; f++)
			if (strlen(c->e[i].form[f]) <= c->width)
				s = xstrdup(c->e[i].form[f]);
		show(c, i, s ? s : fit_alone(c, i));
	}
}

char **shortname_column(const char *const *full, size_t n, size_t width)
{
	struct column c = { .n = n, .budget = n * LCS_ROW > LCS_BUDGET ?
					      n * LCS_ROW : LCS_BUDGET };
	char **out = xcalloc(n + 1, sizeof(*out));

	c.width = width < SHORTNAME_MIN ? SHORTNAME_MIN : width;
	c.e = xcalloc(n + 1, sizeof(*c.e));
	hmap_init(&c.shown);
	for (size_t i = 0; i < n; i++)
		forms_of(&c.e[i], full[i]);
	first_fit(&c);
	for (int r = 0; r < ROUNDS && round_apart(&c, tell_apart); r++)
		;
	for (int r = 0; r < ROUNDS && round_apart(&c, tag_apart); r++)
		;
	for (size_t i = 0; i < n; i++) {
		out[i] = c.e[i].shown;
		for (size_t f = 0; f < NFORMS; f++)
			free(c.e[i].form[f]);
	}
	hmap_release_values(&c.shown, NULL);
	free(c.by_last);
	free(c.rank);
	free(c.e);
	return out;
}

void shortname_free(char **names, size_t n)
{
	for (size_t i = 0; names && i < n; i++)
		free(names[i]);
	free(names);
}
