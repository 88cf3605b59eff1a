/* SPDX-License-Identifier: MIT */
/*
 * cmd_export.c - one process's outputs: the timeline (--trace,
 * --perfetto), the database (--sqlite), the HTML report (--html), the
 * collapsed stacks of its host samples and its workers' (--folded),
 * within the window --from/--to/--steps ask for.
 */
#include <stdlib.h>

#include "analyzer/cmd/cmd.h"
#include "analyzer/report/html.h"
#include "analyzer/pipeline/loader.h"
#include "analyzer/pipeline/pipeline.h"
#include "analyzer/lib/progress.h"
#include "analyzer/lib/util.h"

static void free_dumps(struct export_dump *d, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(d[i].label);
	free(d);
}

/* The header facts of a dump: 0, or -1 (said). */
static int read_head(struct export_dump *d)
{
	struct gt_file_header h;

	if (loader_header(d->path, &h) < 0)
		return -1;
	d->start_ns = h.start_ns;
	d->trace_pid = h.pid;
	return 0;
}

/* The process's dump, then its workers' (they share its host's clock):
 * the timelines and the database hold them all.  NULL (said) if a
 * header cannot be read. */
static struct export_dump *family_dumps(const struct family *f, size_t *n)
{
	struct export_dump *d = xcalloc(1 + f->nworkers, sizeof(*d));

	*n = 1 + f->nworkers;
	for (size_t i = 0; i < *n; i++) {
		d[i] = (struct export_dump){ .index = (uint32_t)i,
			.path = i ? f->workers[i - 1]->path : f->path,
			.rank = UINT32_MAX };
		if (i)
			d[i].label = xasprintf("DataLoader worker %u",
					       f->workers[i - 1]->pid);
		if (read_head(&d[i]) < 0) {
			free_dumps(d, *n);
			return NULL;
		}
	}
	return d;
}

static int write_outputs(const struct export_opts *o, struct export_dump *d,
			 size_t n, struct model *m)
{
	int rc = 0;

	if (export_set_window(o, d, n, m) < 0)
		rc = EXIT_BADINPUT;
	if (!rc && o->html)
		rc = html_export(o->html, d[0].path, m, NULL, o);
	if (!rc && o->trace)
		rc = trace_export(o->trace, d, n, o);
	if (!rc && o->perfetto)
		rc = perfetto_export(o->perfetto, d, n, o);
	if (!rc && o->sqlite)
		rc = sqlite_export(o->sqlite, d, n);
	if (!rc && o->folded)
		rc = folded_export(o->folded, &m, 1);
	return rc;
}

/* Steps, the HTML report and the collapsed stacks need the process's
 * model (its workers' with it); the rest only the headers. */
int cmd_export(const struct export_opts *o, struct family *f)
{
	struct model m, *pm = NULL;
	struct export_dump *d;
	size_t n;
	int rc;

	if (!(d = family_dumps(f, &n)))
		return EXIT_BADINPUT;
	if (o->have_steps || o->html || o->folded) {
		progress_begin("reading", progress_file_size(f->path));
		family_give_workers(f, &m);
		if (loader_model_workers(f->path, &m, 0,
					 o->html ? LOADER_TIMELINE : 0) < 0) {
			free_dumps(d, n);
			return EXIT_BADINPUT;
		}
		progress_end();
		pm = &m;
	}
	rc = write_outputs(o, d, n, pm);
	if (pm)
		pipeline_release(pm);
	free_dumps(d, n);
	return rc;
}
