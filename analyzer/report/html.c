/* SPDX-License-Identifier: MIT */
/*
 * html.c - the HTML report (html.h): the page, its header and verdict,
 * and its sections in order; for several dumps, the ranks, stragglers
 * and the rank-skew finding first, then each rank folded.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/diagnosis/diagnosis.h"
#include "analyzer/passes/env.h"
#include "analyzer/export/export_facts.h"
#include "analyzer/lib/files.h"
#include "analyzer/report/html_internal.h"
#include "analyzer/passes/memory.h"
#include "analyzer/report/report.h"
#include "analyzer/reader/stdin_dump.h"
#include "analyzer/lib/units.h"
#include "analyzer/lib/utf8.h"
#include "analyzer/lib/util.h"

static void html_char(FILE *out, unsigned char c)
{
	switch (c) {
	case '&': fputs("&amp;", out); break;
	case '<': fputs("&lt;", out); break;
	case '>': fputs("&gt;", out); break;
	case '"': fputs("&quot;", out); break;
	default: fputc(c, out);
	}
}

/* Text by the rule of utf8.h: invalid bytes and control characters but
 * tab and newline as U+FFFD. */
void html_esc(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	enum utf8_unit u;
	int n;

	while ((u = utf8_next(&p, &n)) != UTF8_END) {
		if (u == UTF8_INVALID ||
		    (u == UTF8_CONTROL && p[-1] != '\n' && p[-1] != '\t'))
			fputs(UTF8_REPLACEMENT, out);
		else if (n > 1)
			fwrite(p - n, 1, (size_t)n, out);
		else
			html_char(out, p[-1]);
	}
}

static void page_head(FILE *out, const char *title)
{
	fprintf(out, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset="
		"\"utf-8\"><meta name=\"viewport\" content=\"width=device-width\">"
		"<title>");
	html_esc(out, title);
	fprintf(out, "</title><style>\n%s</style></head><body>\n", html_style);
}

static void header(FILE *out, const struct model *m, int level)
{
	char wall[UNITS_BUF];

	fprintf(out, "<p class=\"cmd\">");
	html_esc(out, *m->command ? m->command : m->exe);
	fprintf(out, "</p>\n<p class=\"meta\">pid %u &middot; host ", m->pid);
	html_esc(out, *m->host ? m->host : "?");
	if (m->rank != UINT32_MAX)
		fprintf(out, " &middot; rank %u", m->rank);
	fprintf(out, " &middot; wall %s &middot; %" PRIu64 " events &middot; %"
		PRIu64 " dropped%s</p>\n", fmt_ns(wall, sizeof(wall), m->wall_ns),
		m->events, m->dropped, m->ends_early ? " &middot; <b>the dump "
		"ends early</b> (" DUMP_ENDS_EARLY_WHY ")" : "");
	(void)level;
}

static void verdict(FILE *out, const struct model *m, const char *id)
{
	struct finding f[FIND_KINDS];
	int n = memory_findings(m, f);
	char *v = facts_verdict(m);
	uint64_t busy, span;
	char b[UNITS_BUF];

	fprintf(out, "<section id=\"%s\"><h2>Verdict</h2>\n<div class=\"box%s\">",
		id, v || n ? "" : " ok");
	if (v)
		html_esc(out, v);
	else
		fprintf(out, "No diagnosis in this analyzer yet: the findings "
			"below are what it can say.");
	if (facts_gpu_busy(m, &busy, &span))
		fprintf(out, " GPU busy %s (" FACTS_BUSY_MEANS ").",
			fmt_share(b, sizeof(b), busy, span));
	fprintf(out, "</div>\n<ul class=\"findings\">\n");
	for (int i = 0; i < n; i++) {
		fprintf(out, "<li>");
		html_esc(out, f[i].text);
		fprintf(out, "</li>\n");
	}
	if (!n)
		fprintf(out, "<li>no findings about copies or pinned memory</li>\n");
	fprintf(out, "</ul></section>\n");
	free(v);
}

static void timeline(FILE *out, const struct timeline *b, const char *label,
		     const struct model *m)
{
	struct facts_cause c[FACTS_MAX_CAUSES];

	fprintf(out, "<section class=\"overview\"><h2>Timeline</h2>\n");
	html_timeline(out, b, label, m);
	html_timeline_legend(out, facts_idle_causes(m, c, FACTS_MAX_CAUSES) > 0);
	if (!b->gpu_seen)
		fprintf(out, "<p class=\"none\">No GPU records in this dump "
			"(CUPTI off or not available): only the host side is "
			"drawn.</p>\n");
	fprintf(out, "</section>\n");
}

static void steps(FILE *out, const struct model *m, struct timeline *b)
{
	struct facts_steps st;
	const uint64_t *bounds;
	size_t n;
	const char *source = "NVTX ranges named like \"step\"";
	char t[UNITS_BUF], u[UNITS_BUF];

	fprintf(out, "<section class=\"steps\"><h2>Step time</h2>\n");
	if (facts_steps(m, &st)) {
		fprintf(out, "<p>The diagnosis found %" PRIu64 " step%s (from %s): "
			"steady mean %s, median %s.</p>\n", st.count,
			plural(st.count, "", "s"), st.source,
			fmt_ns(t, sizeof(t), st.mean_ns),
			fmt_ns(u, sizeof(u), st.p50_ns));
		if (facts_step_bounds(m, &bounds, &n)) {
			timeline_steps(b, bounds, n);
			source = NULL;
		}
	}
	if (b->nsteps)
		html_step_chart(out, b, source);
	else
		fprintf(out, "<p class=\"none\">No steps found: name the training "
			"step with an NVTX range that says \"step\" "
			"(torch.cuda.nvtx.range_push(\"step\")).</p>\n");
	fprintf(out, "</section>\n");
}

/* The text report's environment part, as preformatted text. */
static void environment(FILE *out, const struct model *m)
{
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);

	if (!mem)
		return;
	env_report_text(mem, m);
	fclose(mem);
	if (len) {
		fprintf(out, "<section class=\"environment\"><h2>Environment"
			"</h2>\n<pre>");
		html_esc(out, text);
		fprintf(out, "</pre></section>\n");
	}
	free(text);
}

/* Everything about one dump; ids get the prefix (several ranks).  Its
 * timeline was binned as the model was read (LOADER_TIMELINE); the steps
 * drawn go in a copy of it. */
static int dump_body(FILE *out, const char *path, const struct model *m,
		     const char *prefix)
{
	struct timeline *b;
	char id[64];

	if (!m->timeline) {
		error_msg("'%s': its timeline was not read", path);
		return -1;
	}
	b = xmalloc(sizeof(*b));
	*b = *m->timeline;
	snprintf(id, sizeof(id), "%sverdict", prefix);
	header(out, m, 2);
	verdict(out, m, id);
	timeline(out, b, path, m);
	steps(out, m, b);
	diagnosis_report_html(out, m);
	hostsample_report_html(out, m);
	fprintf(out, "<section class=\"charts\"><h2>Where the time went</h2>\n");
	html_charts(out, m);
	fprintf(out, "</section>\n<section class=\"tables\"><h2>Breakdown</h2>\n");
	html_tables(out, m);
	fprintf(out, "</section>\n");
	environment(out, m);
	free(b);
	return 0;
}

/* ---- several ranks -------------------------------------------------------- */

static void ranks_section(FILE *out, const struct ranks *rk)
{
	struct html_bar bars[2 * 64];
	char text[2 * 64][UNITS_BUF], names[2 * 64][48];
	size_t n = 0;

	fprintf(out, "<section id=\"ranks\"><h2>Ranks</h2>\n<p>%zu dump%s, %zu "
		"host%s; clock: ", rk->n, plural(rk->n, "", "s"), rk->hosts,
		plural(rk->hosts, "", "s"));
	html_esc(out, rk->clock);
	fprintf(out, "; %" PRIu64 " collective%s matched.</p>\n<div class=\"box\" "
		"id=\"verdict\">", rk->matched, plural(rk->matched, "", "s"));
	html_esc(out, rk->finding[0] ? rk->finding :
		 "No rank held the others back at collectives.");
	fprintf(out, "</div>\n");
	for (size_t i = 0; i < rk->n && n + 2 <= ARRAY_SIZE(bars); i++) {
		if (!rk->r[i].colls)
			continue;
		snprintf(names[n], sizeof(names[n]), "%s made others wait",
			 rk->dumps[i].label);
		bars[n] = (struct html_bar){ names[n], (double)rk->r[i].caused_ns,
			fmt_ns(text[n], UNITS_BUF, rk->r[i].caused_ns), "#c44e52" };
		n++;
		snprintf(names[n], sizeof(names[n]), "%s waited", rk->dumps[i].label);
		bars[n] = (struct html_bar){ names[n], (double)rk->r[i].waited_ns,
			fmt_ns(text[n], UNITS_BUF, rk->r[i].waited_ns), "#9a9a9a" };
		n++;
	}
	html_bar_chart(out, "chart-stragglers", "Waits at collectives", bars, n);
	fprintf(out, "</section>\n");
}

static int ranks_body(FILE *out, const struct ranks *rk)
{
	char prefix[32];

	ranks_section(out, rk);
	for (size_t i = 0; i < rk->n; i++) {
		fprintf(out, "<details class=\"rank\"%s><summary>", i == 0 ||
			(int)i == rk->slow ? " open" : "");
		html_esc(out, rk->dumps[i].label);
		fprintf(out, ": ");
		html_esc(out, dump_name(rk->dumps[i].path));
		fprintf(out, "</summary>\n");
		snprintf(prefix, sizeof(prefix), "rank%zu-", i);
		if (dump_body(out, rk->dumps[i].path, rk->r[i].m, prefix) < 0)
			return -1;
		fprintf(out, "</details>\n");
	}
	return 0;
}

int html_export(const char *out, const char *path, const struct model *m,
		const struct ranks *rk, const struct export_opts *o)
{
	struct files_out f;
	FILE *fp;
	int rc;

	(void)o;
	if (files_out_begin(&f, out, NULL) < 0)
		return EXIT_BADINPUT;
	fp = f.fp;
	page_head(fp, rk ? "gputrace report: ranks" : "gputrace report");
	fprintf(fp, "<header><h1>gputrace report</h1></header>\n");
	rc = rk ? ranks_body(fp, rk) : dump_body(fp, path, m, "");
	fprintf(fp, "<footer>Written by " PROG_NAME "; one file, nothing "
		"fetched.</footer>\n</body></html>\n");
	if (files_out_end(&f, rc == 0) < 0)
		rc = -1;
	return rc ? EXIT_BADINPUT : 0;
}
