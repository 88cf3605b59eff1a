/* SPDX-License-Identifier: MIT */
/*
 * cmd_ranks.c - several dumps (the ranks of one job): read them, align
 * their clocks and match their collectives (ranks.c), then the ranks
 * report, or their outputs together in one timeline, database or HTML
 * report.
 */
#include <stdio.h>
#include <stdlib.h>

#include "analyzer/cmd/cmd.h"
#include "analyzer/report/html.h"
#include "analyzer/pipeline/loader.h"
#include "analyzer/report/ranks.h"
#include "analyzer/lib/util.h"

/* The ranks' models, in the ranks' order, for --folded. */
static int folded_ranks(const char *out, const struct ranks *rk)
{
	struct model **m = xcalloc(rk->n, sizeof(*m));
	int rc;

	for (size_t i = 0; i < rk->n; i++)
		m[i] = rk->r[i].m;
	rc = folded_export(out, m, rk->n);
	free(m);
	return rc;
}

int cmd_ranks(const struct export_opts *o, struct family *f, size_t n)
{
	struct ranks *rk = ranks_load(f, n, o->html ? LOADER_TIMELINE : 0);
	int rc = 0;

	if (!rk)
		return EXIT_BADINPUT;
	if (export_set_window(o, rk->dumps, rk->n, rk->r[0].m) < 0)
		rc = EXIT_BADINPUT;
	if (!rc && o->html)
		rc = html_export(o->html, NULL, NULL, rk, o);
	if (!rc && o->trace)
		rc = trace_export(o->trace, rk->dumps, rk->n, o);
	if (!rc && o->perfetto)
		rc = perfetto_export(o->perfetto, rk->dumps, rk->n, o);
	if (!rc && o->sqlite)
		rc = sqlite_export(o->sqlite, rk->dumps, rk->n);
	if (!rc && o->folded)
		rc = folded_ranks(o->folded, rk);
	if (!rc && !export_wanted(o)) {
		if (o->json)
			ranks_report_json(stdout, rk);
		else
			ranks_report_text(stdout, rk, o->top);
	}
	ranks_free(rk);
	return rc;
}
