/* SPDX-License-Identifier: MIT */
/*
 * cmd_diff.c - two runs compared (--diff BEFORE AFTER): both read through
 * the pipeline, then what changed (diff.c), as text or JSON.
 */
#include <stdio.h>

#include "analyzer/cmd/cmd.h"
#include "analyzer/report/diff.h"
#include "analyzer/pipeline/loader.h"
#include "analyzer/pipeline/pipeline.h"
#include "analyzer/lib/progress.h"
#include "analyzer/lib/util.h"

int cmd_diff(const struct export_opts *o, const char *before, const char *after)
{
	struct model a, b;
	uint64_t sa = progress_file_size(before);

	progress_begin("reading", sa + progress_file_size(after));
	if (loader_model(before, &a, 0) < 0)
		return EXIT_BADINPUT;
	if (loader_model(after, &b, sa) < 0) {
		pipeline_release(&a);
		return EXIT_BADINPUT;
	}
	progress_end();
	if (o->json)
		diff_json(stdout, before, after, &a, &b);
	else
		diff_text(stdout, before, after, &a, &b, o->top);
	pipeline_release(&a);
	pipeline_release(&b);
	return 0;
}
