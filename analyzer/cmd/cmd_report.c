/* SPDX-License-Identifier: MIT */
/*
 * cmd_report.c - the report of one process: read its dump through the
 * pipeline, its DataLoader workers' with it, then the text report or,
 * with --json, one JSON object.
 */
#include <stdio.h>

#include "analyzer/cmd/cmd.h"
#include "analyzer/pipeline/loader.h"
#include "analyzer/pipeline/pipeline.h"
#include "analyzer/lib/progress.h"
#include "analyzer/report/report.h"
#include "analyzer/lib/util.h"

int cmd_report(const struct export_opts *o, struct family *f)
{
	struct model m;

	progress_begin("reading", progress_file_size(f->path));
	family_give_workers(f, &m);
	if (loader_model_workers(f->path, &m, 0, 0) < 0)
		return EXIT_BADINPUT;
	progress_end();
	if (o->json)
		report_json(stdout, &m);
	else
		report_text(stdout, &m, &(struct report_opts){ o->top });
	pipeline_release(&m);
	return 0;
}
