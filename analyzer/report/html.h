/* SPDX-License-Identifier: MIT */
/*
 * html.h - --html FILE: one self-contained HTML page (inline CSS and SVG,
 * no script, nothing fetched) with the verdict, a timeline overview of
 * GPU busy and idle per device and of the host's CUDA calls, step times,
 * charts (idle causes or host time by kind, top kernels, copy classes)
 * and the breakdown tables; for several dumps, the ranks and stragglers
 * first, then each rank.
 */
#ifndef GPUTRACE_ANALYZER_HTML_H
#define GPUTRACE_ANALYZER_HTML_H

#include "analyzer/export/export.h"
#include "analyzer/model/model.h"
#include "analyzer/report/ranks.h"

/* The report of one dump (m, read from path) or of several (rk): the
 * exit status.  The timeline takes one more pass over each dump. */
int html_export(const char *out, const char *path, const struct model *m,
		const struct ranks *rk, const struct export_opts *o);

#endif /* GPUTRACE_ANALYZER_HTML_H */
