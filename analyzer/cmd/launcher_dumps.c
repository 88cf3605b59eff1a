/* SPDX-License-Identifier: MIT */
/*
 * launcher_dumps.c - which dumps a recorded program wrote.  The gputrace
 * command gives every process the same GPUTRACE_OUTPUT template, lists the
 * files the template can name before the run and after it, and reports
 * the new ones: this works for one process or for the many that torchrun
 * or mpirun start, whatever their pids and ranks.
 */
#include <glob.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/cmd/launcher.h"

/* Append c to the pattern, escaped for glob(3). */
static size_t put_literal(char *pat, size_t n, char c)
{
	if (strchr("*?[\\", c))
		pat[n++] = '\\';
	pat[n++] = c;
	return n;
}

/*
 * The glob pattern of a template: %p, %r and %h match anything, %% is a
 * percent sign, any other %X stays as written (as the library does).  pat
 * holds at least 2 * strlen(tmpl) + 1 bytes.
 */
static void template_pattern(const char *tmpl, char *pat)
{
	size_t n = 0;

	for (const char *p = tmpl; *p; p++) {
		if (*p == '%' && p[1] && strchr("prh", p[1])) {
			pat[n++] = '*';
			p++;
		} else if (*p == '%' && p[1] == '%') {
			n = put_literal(pat, n, '%');
			p++;
		} else {
			n = put_literal(pat, n, *p);
		}
	}
	pat[n] = 0;
}

/* The pattern with ".[0-9]*" before the extension of its last part. */
static void numbered_pattern(const char *pat, char *out)
{
	const char *slash = strrchr(pat, '/');
	const char *dot = strrchr(pat, '.');
	size_t stem;

	if (!dot || (slash && dot < slash + 2) || dot == pat)
		dot = pat + strlen(pat);
	stem = (size_t)(dot - pat);
	memcpy(out, pat, stem);
	strcpy(out + stem, ".[0-9]*");
	strcat(out, dot);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Move glob's names into f, sorted, without repeats. */
static void take_names(glob_t *g, struct launcher_files *f)
{
	size_t k = 0;

	f->names = calloc(g->gl_pathc + 1, sizeof(char *));
	for (size_t i = 0; f->names && i < g->gl_pathc; i++)
		f->names[i] = strdup(g->gl_pathv[i]);
	f->n = f->names ? g->gl_pathc : 0;
	qsort(f->names, f->n, sizeof(char *), by_name);
	for (size_t i = 0; i < f->n; i++) {
		if (k && f->names[i] && !strcmp(f->names[i], f->names[k - 1]))
			free(f->names[i]);
		else
			f->names[k++] = f->names[i];
	}
	f->n = k;
}

void launcher_files_matching(const char *tmpl, struct launcher_files *out)
{
	size_t len = 2 * strlen(tmpl) + 1;
	char *pat = malloc(len), *num = malloc(len + 8);
	glob_t g;
	int flags = GLOB_NOSORT;

	out->names = NULL;
	out->n = 0;
	if (!pat || !num)
		goto done;
	template_pattern(tmpl, pat);
	numbered_pattern(pat, num);
	memset(&g, 0, sizeof(g));
	if (glob(pat, flags, NULL, &g) == 0)
		flags |= GLOB_APPEND;
	glob(num, flags, NULL, &g);
	take_names(&g, out);
	globfree(&g);
done:
	free(pat);
	free(num);
}

void launcher_files_new(struct launcher_files *after,
			const struct launcher_files *before,
			struct launcher_files *out)
{
	size_t k = 0;

	out->names = calloc(after->n + 1, sizeof(char *));
	out->n = 0;
	for (size_t i = 0; i < after->n; i++) {
		char **old = before->n ? bsearch(&after->names[i], before->names,
						 before->n, sizeof(char *), by_name) : NULL;

		if (!old && out->names) {
			out->names[k++] = after->names[i];
			after->names[i] = NULL;
		}
	}
	out->n = k;
}

void launcher_files_release(struct launcher_files *f)
{
	for (size_t i = 0; i < f->n; i++)
		free(f->names[i]);
	free(f->names);
	f->names = NULL;
	f->n = 0;
}
