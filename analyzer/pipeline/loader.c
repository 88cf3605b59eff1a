/* SPDX-License-Identifier: MIT */
/*
 * loader.c - how every command reads dumps (loader.h): the one reading
 * loop, with the progress bar, into a sink or through the pipeline into a
 * model; and the dumps a command was given, folders opened.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analyzer/lib/files.h"
#include "analyzer/pipeline/loader.h"
#include "analyzer/pipeline/pipeline.h"
#include "analyzer/passes/timeline.h"
#include "analyzer/lib/progress.h"
#include "analyzer/reader/stdin_dump.h"
#include "analyzer/lib/util.h"

/* loader_pass(), what went wrong put in *why (to free), not said. */
static int pass(const char *path, loader_fn fn, void *ctx, uint64_t base,
		int *ends_early, char **why)
{
	struct dump_reader *r;
	struct dump_record rec;
	uint64_t last = UINT64_MAX;
	int rc = -1;

	if (dump_open(&r, path) == 0) {
		while ((rc = dump_next(r, &rec)) > 0) {
			if (base != LOADER_NO_PROGRESS && rec.offset != last)
				progress_tick(base + (last = rec.offset));
			fn(ctx, r, &rec);
		}
	}
	if (rc < 0) {
		if (base != LOADER_NO_PROGRESS)
			progress_end();
		*why = xstrdup(dump_error(r));
	}
	if (ends_early)
		*ends_early = rc == 0 && dump_ends_early(r);
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

int loader_header(const char *path, struct gt_file_header *h)
{
	struct dump_reader *r;
	int rc = dump_open(&r, path);

	if (rc < 0)
		error_msg("%s", dump_error(r));
	else
		*h = *dump_header(r);
	dump_close(r);
	return rc;
}

int loader_pass(const char *path, loader_fn fn, void *ctx, uint64_t base)
{
	char *why = NULL;
	int rc = pass(path, fn, ctx, base, NULL, &why);

	return said(rc, why);
}

static void model_sink(void *ctx, const struct dump_reader *r,
		       const struct dump_record *rec)
{
	pipeline_add(ctx, r, rec);
}

/* loader_try_model(), keeping m's workers if keep (else none). */
static int try_model(const char *path, struct model *m, uint64_t base,
		     unsigned want, char **why, int keep)
{
	struct dump_reader *r;
	struct model **workers = keep ? m->workers : NULL;
	size_t nworkers = keep ? m->nworkers : 0;
	int early = 0;

	memset(m, 0, sizeof(*m));
	m->workers = workers;
	m->nworkers = nworkers;
	if (dump_open(&r, path) < 0) {
		*why = xstrdup(dump_error(r));
		dump_close(r);
		pipeline_release_workers(m);
		return -1;
	}
	model_init(m, dump_header(r));
	m->path = path;
	m->workers = workers;
	m->nworkers = nworkers;
	dump_close(r);
	if (want & LOADER_TIMELINE)
		timeline_begin(m);
	if (pass(path, model_sink, m, base, &early, why) < 0) {
		pipeline_release(m);
		return -1;
	}
	pipeline_finish(m, early);
	if (m->ends_early)
		warning_msg("'%s' ends early (no end record): "
			    DUMP_ENDS_EARLY_WHY, dump_name(path));
	return 0;
}

int loader_try_model(const char *path, struct model *m, uint64_t base,
		     unsigned want, char **why)
{
	return try_model(path, m, base, want, why, 1);
}

int loader_model_with(const char *path, struct model *m, uint64_t base,
		      unsigned want)
{
	char *why = NULL;
	int rc = try_model(path, m, base, want, &why, 0);

	return said(rc, why);
}

int loader_model(const char *path, struct model *m, uint64_t base)
{
	return loader_model_with(path, m, base, 0);
}

int loader_model_workers(const char *path, struct model *m, uint64_t base,
			 unsigned want)
{
	char *why = NULL;
	int rc = try_model(path, m, base, want, &why, 1);

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
char **loader_find_dumps(char **paths, int n, size_t *count)
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

void loader_free_dumps(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}
