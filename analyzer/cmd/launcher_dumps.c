/* SPDX-License-Identifier: MIT */
/*
 * launcher_dumps.c - which dumps a recorded program wrote.  The gputrace
 * command gives every process the same GPUTRACE_OUTPUT template and the
 * same GPUTRACE_RUN_ID, which the library writes into each dump's header;
 * after the run it lists the files the template can name and keeps those
 * whose header holds its run id: this works for one process or for the
 * many that torchrun or mpirun start, whatever their pids and ranks, and
 * another run writing to the same folder at the same time is left out.
 */
#include <fcntl.h>
#include <glob.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyzer/cmd/launcher.h"
#include "gputrace/format.h"

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

/* The pattern with "[.-][0-9]*" before the extension of its last part:
 * the ".N" of a name taken, the "-PID" of a process other than the one
 * started. */
static void numbered_pattern(const char *pat, char *out)
{
	const char *slash = strrchr(pat, '/');
	const char *dot = strrchr(pat, '.');
	size_t stem;

	if (!dot || (slash && dot < slash + 2) || dot == pat)
		dot = pat + strlen(pat);
	stem = (size_t)(dot - pat);
	memcpy(out, pat, stem);
	strcpy(out + stem, "[.-][0-9]*");
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
	char *pat = malloc(len), *num = malloc(len + 16);
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

int launcher_folder_exists(const char *tmpl)
{
	const char *slash = strrchr(tmpl, '/');
	char *dir = slash && slash != tmpl ? strndup(tmpl, (size_t)(slash - tmpl)) : NULL;
	char *pat = dir ? malloc(2 * strlen(dir) + 2) : NULL;
	glob_t g;
	int found = 1;

	if (pat) {
		template_pattern(dir, pat);
		strcat(pat, "/");       /* folders only */
		memset(&g, 0, sizeof(g));
		found = glob(pat, GLOB_NOSORT, NULL, &g) == 0 && g.gl_pathc > 0;
		globfree(&g);
	}
	free(dir);
	free(pat);
	return found;
}

/* The run id in the header of dump path; 0 when it is not a dump. */
static uint64_t run_of(const char *path)
{
	struct gt_file_header h;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	ssize_t got = fd < 0 ? -1 : read(fd, &h, sizeof(h));

	if (fd >= 0)
		close(fd);
	if (got != (ssize_t)sizeof(h) || memcmp(h.magic, GT_MAGIC, sizeof(h.magic)) ||
	    h.endian != GT_ENDIAN_MARK || h.header_size < sizeof(h))
		return 0;
	return h.run_id;
}

void launcher_files_of_run(struct launcher_files *f, uint64_t run_id)
{
	size_t k = 0;

	for (size_t i = 0; i < f->n; i++) {
		if (run_id && run_of(f->names[i]) == run_id)
			f->names[k++] = f->names[i];
		else
			free(f->names[i]);
	}
	f->n = k;
}

void launcher_files_release(struct launcher_files *f)
{
	for (size_t i = 0; i < f->n; i++)
		free(f->names[i]);
	free(f->names);
	f->names = NULL;
	f->n = 0;
}
