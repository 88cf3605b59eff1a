/* SPDX-License-Identifier: MIT */
/*
 * export.c - export_main(): find the dumps (files, or folders of dumps),
 * then run what the options ask for: --diff, the timeline, the database,
 * the HTML report, or the report of several ranks.  Also the reading
 * loops every output uses, with the progress bar.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analyzer/diff.h"
#include "analyzer/export.h"
#include "analyzer/export_facts.h"
#include "analyzer/files.h"
#include "analyzer/html.h"
#include "analyzer/pipeline.h"
#include "analyzer/progress.h"
#include "analyzer/ranks.h"
#include "analyzer/report.h"
#include "analyzer/stdin_dump.h"
#include "analyzer/util.h"

int export_wanted(const struct export_opts *o)
{
	return o->trace || o->perfetto || o->sqlite || o->html || o->diff;
}

/* export_pass(), what went wrong put in *why (to free), not said. */
static int pass(const char *path, export_fn fn, void *ctx, uint64_t base,
		char **why)
{
	struct dump_reader *r;
	struct dump_record rec;
	int rc = -1;

	if (dump_open(&r, path) == 0) {
		while ((rc = dump_next(r, &rec)) > 0) {
			if (base != EXPORT_NO_PROGRESS)
				progress_tick(base + rec.offset);
			fn(ctx, r, &rec);
		}
	}
	if (rc < 0) {
		if (base != EXPORT_NO_PROGRESS)
			progress_end();
		*why = xstrdup(dump_error(r));
	}
	dump_close(r);
	return rc < 0 ? -1 : 0;
}

/* Say *why as an error if rc says it failed; rc. */
static int said(int rc, char *why)
{
	if (rc < 0 && why)
		error_msg("%s", why);
	free(why);
	return rc;
}

int export_pass(const char *path, export_fn fn, void *ctx, uint64_t base)
{
	char *why = NULL;
	int rc = pass(path, fn, ctx, base, &why);

	return said(rc, why);
}

static void model_sink(void *ctx, const struct dump_reader *r,
		       const struct dump_record *rec)
{
	pipeline_add(ctx, r, rec);
}

int export_try_model(const char *path, struct model *m, uint64_t base,
		     char **why)
{
	struct dump_reader *r;

	if (dump_open(&r, path) < 0) {
		*why = xstrdup(dump_error(r));
		dump_close(r);
		return -1;
	}
	memset(m, 0, sizeof(*m));
	model_init(m, dump_header(r));
	m->path = path;
	dump_close(r);
	if (pass(path, model_sink, m, base, why) < 0) {
		pipeline_release(m);
		return -1;
	}
	pipeline_finish(m, 0);
	if (m->ends_early)
		warning_msg("'%s' ends early (no end record): the program did "
			    "not finish tracing", dump_name(path));
	return 0;
}

int export_load_model(const char *path, struct model *m, uint64_t base)
{
	char *why = NULL;
	int rc = export_try_model(path, m, base, &why);

	return said(rc, why);
}

/* ---- finding the dumps -------------------------------------------------- */

static int is_dump(const char *path)
{
	char magic[8];
	FILE *fp = files_open_input(path);
	int ok;

	if (!fp)
		return 0;
	ok = fread(magic, 1, 8, fp) == 8 && !memcmp(magic, GT_MAGIC, 8);
	fclose(fp);
	return ok;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The dumps in folder dir, by name, appended to *v. */
static int add_folder(const char *dir, char ***v, size_t *n)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t first = *n;

	if (!d) {
		error_msg("cannot read folder '%s'", dir);
		return -1;
	}
	while ((e = readdir(d))) {
		char *p = xasprintf("%s/%s", dir, e->d_name);
		struct stat st;

		if (e->d_name[0] != '.' && !stat(p, &st) && S_ISREG(st.st_mode) &&
		    is_dump(p)) {
			*v = xrealloc(*v, (*n + 1) * sizeof(**v));
			(*v)[(*n)++] = p;
		} else {
			free(p);
		}
	}
	closedir(d);
	if (*n == first) {
		error_msg("no gputrace dumps in '%s'", dir);
		return -1;
	}
	qsort(*v + first, *n - first, sizeof(**v), by_name);
	return 0;
}

/* The dump files among paths, folders opened: a new array, or NULL. */
static char **find_dumps(char **paths, int n, size_t *count)
{
	char **v = NULL;
	struct stat st;

	*count = 0;
	for (int i = 0; i < n; i++) {
		if (!stat(paths[i], &st) && S_ISDIR(st.st_mode)) {
			if (add_folder(paths[i], &v, count) < 0)
				goto fail;
			continue;
		}
		v = xrealloc(v, (*count + 1) * sizeof(*v));
		v[(*count)++] = xstrdup(paths[i]);
	}
	return v;
fail:
	while (*count)
		free(v[--*count]);
	free(v);
	return NULL;
}

static void free_dumps(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* ---- one dump ------------------------------------------------------------ */

static int single_report(const struct export_opts *o, const char *path)
{
	struct model m;

	progress_begin("reading", progress_file_size(path));
	if (export_load_model(path, &m, 0) < 0)
		return EXIT_BADINPUT;
	progress_end();
	if (o->json)
		report_json(stdout, &m);
	else
		report_text(stdout, &m, &(struct report_opts){ o->top });
	pipeline_release(&m);
	return 0;
}

/* The header facts of a dump: 0, or -1 (said). */
static int read_head(struct export_dump *d)
{
	struct dump_reader *r;
	int rc = dump_open(&r, d->path);

	if (rc < 0) {
		error_msg("%s", dump_error(r));
	} else {
		d->start_ns = dump_header(r)->start_ns;
		d->trace_pid = dump_header(r)->pid;
	}
	dump_close(r);
	return rc;
}

/* The window to write, in each dump's own clock. */
static int set_window(const struct export_opts *o, struct export_dump *d,
		      size_t n, const struct model *m0)
{
	uint64_t base = UINT64_MAX, from = 0, to = UINT64_MAX, t0, t1;
	const char *why;

	for (size_t i = 0; i < n; i++)
		if (d[i].start_ns + (uint64_t)d[i].offset_ns < base)
			base = d[i].start_ns + (uint64_t)d[i].offset_ns;
	if (o->have_from)
		from = sat_add(base, o->from_ns);   /* a start near 2^64 */
	if (o->have_to)
		to = sat_add(base, o->to_ns);
	if (o->have_steps) {
		if (facts_step_span(m0, o->step_first, o->step_last, &t0, &t1,
				    &why) < 0) {
			error_msg("cannot limit to steps %llu..%llu: %s",
				  (unsigned long long)o->step_first,
				  (unsigned long long)o->step_last, why);
			return -1;
		}
		from = t0 + (uint64_t)d[0].offset_ns;
		to = t1 + (uint64_t)d[0].offset_ns;
	}
	for (size_t i = 0; i < n; i++) {
		d[i].t_from = from - (uint64_t)d[i].offset_ns;
		d[i].t_to = to == UINT64_MAX ? UINT64_MAX
					     : to - (uint64_t)d[i].offset_ns;
	}
	return 0;
}

/* Steps need the model of the first dump; everything else its header. */
static int one_dump_outputs(const struct export_opts *o, const char *path)
{
	struct export_dump d = { .path = path, .rank = UINT32_MAX };
	struct model m;
	int rc = 0, have_m = 0;

	if (read_head(&d) < 0)
		return EXIT_BADINPUT;
	if (o->have_steps || o->html) {
		progress_begin("reading", progress_file_size(path));
		if (export_load_model(path, &m, 0) < 0)
			return EXIT_BADINPUT;
		progress_end();
		have_m = 1;
	}
	if (set_window(o, &d, 1, have_m ? &m : NULL) < 0)
		rc = EXIT_BADINPUT;
	if (!rc && o->html)
		rc = html_export(o->html, path, &m, NULL, o);
	if (!rc && o->trace)
		rc = trace_export(o->trace, &d, 1, o);
	if (!rc && o->perfetto)
		rc = perfetto_export(o->perfetto, &d, 1, o);
	if (!rc && o->sqlite)
		rc = sqlite_export(o->sqlite, &d, 1);
	if (have_m)
		pipeline_release(&m);
	return rc;
}

/* ---- several dumps ------------------------------------------------------- */

static int many_dumps(const struct export_opts *o, char **paths, size_t n)
{
	struct ranks *rk = ranks_load(paths, n);
	int rc = 0;

	if (!rk)
		return EXIT_BADINPUT;
	if (set_window(o, rk->dumps, rk->n, rk->r[0].m) < 0)
		rc = EXIT_BADINPUT;
	if (!rc && o->html)
		rc = html_export(o->html, NULL, NULL, rk, o);
	if (!rc && o->trace)
		rc = trace_export(o->trace, rk->dumps, rk->n, o);
	if (!rc && o->perfetto)
		rc = perfetto_export(o->perfetto, rk->dumps, rk->n, o);
	if (!rc && o->sqlite)
		rc = sqlite_export(o->sqlite, rk->dumps, rk->n);
	if (!rc && !o->html && !o->trace && !o->perfetto && !o->sqlite) {
		if (o->json)
			ranks_report_json(stdout, rk);
		else
			ranks_report_text(stdout, rk, o->top);
	}
	ranks_free(rk);
	return rc;
}

int export_main(const struct export_opts *o, char **paths, int n)
{
	size_t count;
	char **v = find_dumps(paths, n, &count);
	int rc;

	if (!v)
		return EXIT_BADINPUT;
	if (o->have_top && count > 1 && !o->diff) {
		error_msg("--top applies to the report of one dump or to --diff");
		rc = EXIT_BADINPUT;
	} else if (o->diff && count != 2) {
		error_msg("--diff compares two dumps, not %zu", count);
		rc = EXIT_BADINPUT;
	} else if (o->diff) {
		rc = diff_main(v[0], v[1], o);
	} else if (count == 1 && !export_wanted(o)) {
		rc = single_report(o, v[0]);
	} else if (count == 1) {
		rc = one_dump_outputs(o, v[0]);
	} else {
		rc = many_dumps(o, v, count);
	}
	free_dumps(v, count);
	return rc;
}
