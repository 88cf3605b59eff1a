/* SPDX-License-Identifier: MIT */
/*
 * callsite_report.c - the call sites in the text report (a few frames each,
 * Python first) and in the JSON report (every frame).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/passes/callsite.h"
#include "analyzer/lib/json.h"
#include "analyzer/report/report.h"
#include "analyzer/lib/table.h"
#include "analyzer/lib/units.h"
#include "analyzer/lib/util.h"

#define TEXT_FRAMES 8               /* frames shown per call site */

/* One line, printable, cut to the report's width (a frame: a path and
 * a function, which wrap badly). */
static void put_line(FILE *out, const char *indent, const char *text)
{
	char *s = printable(text);
	size_t w = report_width(), room = w > strlen(indent) + 20 ?
					   w - strlen(indent) : 20;

	if (strlen(s) > room)
		strcpy(s + room - 3, "...");
	fprintf(out, "%s%s\n", indent, s);
	free(s);
}

static void print_row(FILE *out, size_t rank, const struct callsite_row *r)
{
	char total[UNITS_BUF], mean[UNITS_BUF], head[160];
	size_t shown = r->nframes < TEXT_FRAMES ? r->nframes : TEXT_FRAMES;

	snprintf(head, sizeof(head), "#%zu %s: %" PRIu64 " call%s, %s in all, "
		 "%s each", rank, callsite_kind_name(r->kind), r->calls,
		 plural(r->calls, "", "s"),
		 fmt_ns(total, sizeof(total), r->ns_total),
		 fmt_ns(mean, sizeof(mean), r->calls ? r->ns_total / r->calls : 0));
	put_line(out, "  ", head);
	for (size_t i = 0; i < shown; i++)
		put_line(out, "      ", r->frames[i]);
	if (shown < r->nframes)
		fprintf(out, "      ... %zu more frame%s\n", r->nframes - shown,
			plural(r->nframes - shown, "", "s"));
}

void callsites_print_text(FILE *out, const struct model *m, size_t top)
{
	size_t n, shown;
	const struct callsite_row *rows = callsites_rows(m, &n);

	if (!n)
		return;
	fputc('\n', out);
	report_line(out, "Call sites (waits, pageable copies, NCCL calls, pinned "
		    "allocations; innermost frame first)");
	shown = top && top < n ? top : n;
	for (size_t i = 0; i < shown; i++)
		print_row(out, i + 1, &rows[i]);
	if (shown < n)
		fprintf(out, "  ... %zu more\n", n - shown);
}

void callsites_json(struct json *j, const struct model *m)
{
	size_t n;
	const struct callsite_row *rows = callsites_rows(m, &n);

	json_key(j, "callsites");
	json_begin_array(j);
	for (size_t i = 0; i < n && i < CALLSITES_JSON_TOP; i++) {
		json_begin_object(j);
		json_key(j, "kind");
		json_string(j, callsite_kind_name(rows[i].kind));
		json_key(j, "calls");
		json_uint(j, rows[i].calls);
		json_key(j, "ns_total");
		json_uint(j, rows[i].ns_total);
		json_key(j, "frames");
		json_begin_array(j);
		for (size_t k = 0; k < rows[i].nframes; k++)
			json_string(j, rows[i].frames[k]);
		json_end_array(j);
		json_end_object(j);
	}
	json_end_array(j);
}
