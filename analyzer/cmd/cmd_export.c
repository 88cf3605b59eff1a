/* SPDX-License-Identifier: MIT */
/*
 * cmd_export.c - one dump's outputs: the timeline (--trace, --perfetto),
 * the database (--sqlite), the HTML report (--html), within the window
 * --from/--to/--steps ask for.
 */
#include "analyzer/cmd/cmd.h"
#include "analyzer/report/html.h"
#include "analyzer/pipeline/loader.h"
#include "analyzer/pipeline/pipeline.h"
#include "analyzer/lib/progress.h"
#include "analyzer/lib/util.h"

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

/* Steps need the model of the first dump; everything else its header. */
int cmd_export(const struct export_opts *o, const char *path)
{
	struct export_dump d = { .path = path, .rank = UINT32_MAX };
	struct model m;
	int rc = 0, have_m = 0;

	if (read_head(&d) < 0)
		return EXIT_BADINPUT;
	if (o->have_steps || o->html) {
		progress_begin("reading", progress_file_size(path));
		if (loader_model_with(path, &m, 0, o->html ? LOADER_TIMELINE : 0) < 0)
			return EXIT_BADINPUT;
		progress_end();
		have_m = 1;
	}
	if (export_set_window(o, &d, 1, have_m ? &m : NULL) < 0)
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
