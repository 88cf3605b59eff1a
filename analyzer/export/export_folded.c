/* SPDX-License-Identifier: MIT */
/*
 * export_folded.c - --folded FILE: every host sample as a collapsed stack,
 * the format of flamegraph.pl's stackcollapse scripts that speedscope
 * also reads: one line per distinct stack, its frames from the root to
 * the leaf joined by ';', a space, and how many samples had it.
 *
 * The root is the process ("train (pid 42)"; a DataLoader worker's
 * samples under its process's root, then "DataLoader worker (pid 43)"),
 * then the sample's Python frames from the outermost, "qualname
 * (file:line)" (the line being run, as py-spy writes them), then its
 * native frames from the outermost kept to the interrupted instruction
 * (the innermost GPUTRACE_HOST_NATIVE of them), as call sites name them.
 * A ';' in a name becomes ':', a control character '?'.  Lines are
 * sorted, so that a file is the same for the same dumps.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/export/export.h"
#include "analyzer/lib/files.h"
#include "analyzer/lib/hmap.h"
#include "analyzer/passes/callsite.h"
#include "analyzer/passes/hostsample.h"
#include "analyzer/lib/util.h"

/* A distinct stack and its samples. */
struct folded_line {
	char *text;
	uint64_t n;
};

/* A growing string. */
struct sbuf {
	char *s;
	size_t len, cap;
};

static void sb_add(struct sbuf *b, const char *s)
{
	size_t n = strlen(s);

	if (b->len + n + 2 > b->cap) {
		b->cap = (b->len + n + 2) * 2;
		b->s = xrealloc(b->s, b->cap);
	}
	if (b->len)
		b->s[b->len++] = ';';
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		b->s[b->len++] = c == ';' ? ':' : c < 0x20 || c == 0x7f ? '?' : (char)c;
	}
	b->s[b->len] = 0;
}

static void add_frame(struct sbuf *b, const struct callsite_frame *f)
{
	char *s;

	if (!f->python) {
		sb_add(b, f->text);
		return;
	}
	s = xasprintf("%s (%s:%u)", f->func, f->file, f->line);
	sb_add(b, s);
	free(s);
}

/* The sample's frames from the root onto b (after its process's). */
static void add_stack(struct sbuf *b, const struct model *m, uint32_t stack)
{
	size_t n, py;
	const struct callsite_frame *f = callsites_frames(m, stack, 1, &n, &py);
	char why[64];

	if (!f) {
		snprintf(why, sizeof(why), stack ? "<stack %u is not in the dump>"
			 : "<no stack>", stack);
		sb_add(b, why);
		return;
	}
	for (size_t i = py; i-- > 0;)
		add_frame(b, &f[i]);
	for (size_t i = n; i-- > py;)
		add_frame(b, &f[i]);
}

static void count(struct hmap *lines, const char *text)
{
	struct folded_line *l = hmap_get_str(lines, text);

	if (!l) {
		l = xcalloc(1, sizeof(*l));
		l->text = xstrdup(text);
		hmap_put_str(lines, l->text, l);
	}
	l->n++;
}

/* The samples of p (the process m, or one of its workers) into lines. */
static uint64_t add_samples(struct hmap *lines, const struct model *m,
			    const struct model *p)
{
	const struct hostsamples *hs = hostsamples_of(p);
	const char *exe = strrchr(m->exe, '/') ? strrchr(m->exe, '/') + 1 : m->exe;
	char *root = xasprintf("%s (pid %u)", *exe ? exe : "?", m->pid);
	char *worker = xasprintf("DataLoader worker (pid %u)", p->pid);
	struct sbuf b = { 0 };

	for (size_t i = 0; hs && i < hs->n; i++) {
		b.len = 0;
		sb_add(&b, root);
		if (p != m)
			sb_add(&b, worker);
		add_stack(&b, p, hs->v[i].stack);
		count(lines, b.s);
	}
	free(b.s);
	free(worker);
	free(root);
	return hs ? hs->n : 0;
}

static int by_text(const void *a, const void *b)
{
	const struct folded_line *x = *(const struct folded_line *const *)a;
	const struct folded_line *y = *(const struct folded_line *const *)b;

	return strcmp(x->text, y->text);
}

/* The lines, sorted, into fp (NULL: none written): 0, or -1 on a write
 * error; the lines are freed. */
static int write_lines(FILE *fp, struct hmap *lines)
{
	size_t n;
	struct folded_line **v = (struct folded_line **)hmap_values(lines, &n);
	int rc = 0;

	if (n)
		qsort(v, n, sizeof(*v), by_text);
	for (size_t i = 0; i < n; i++) {
		if (fp && fprintf(fp, "%s %llu\n", v[i]->text,
				  (unsigned long long)v[i]->n) < 0)
			rc = -1;
		free(v[i]->text);
		free(v[i]);
	}
	free(v);
	hmap_release(lines);
	return rc;
}

int folded_export(const char *out, struct model *const *m, size_t n)
{
	struct hmap lines = HMAP_INIT;
	struct files_out f;
	uint64_t samples = 0;
	int rc;

	for (size_t i = 0; i < n; i++) {
		samples += add_samples(&lines, m[i], m[i]);
		for (size_t k = 0; k < m[i]->nworkers; k++)
			samples += add_samples(&lines, m[i], m[i]->workers[k]);
	}
	if (!samples) {
		error_msg("--folded: no host samples in the dump%s (the library "
			  "takes them at GPUTRACE_HOST_HZ, 100 by default; its "
			  "note says why it did not)", n > 1 ? "s" : "");
		return EXIT_BADINPUT;
	}
	if (files_out_begin(&f, out, NULL) < 0) {
		write_lines(NULL, &lines);
		return EXIT_BADINPUT;
	}
	rc = write_lines(f.fp, &lines);
	if (rc < 0)
		error_msg("cannot write '%s': %s", f.name, strerror(errno));
	if (files_out_end(&f, rc == 0) < 0)
		rc = -1;
	return rc ? EXIT_BADINPUT : 0;
}
