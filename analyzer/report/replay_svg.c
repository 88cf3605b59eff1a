/* SPDX-License-Identifier: MIT */
/*
 * replay_svg.c - the what-if by replay in the HTML report: each fix's
 * replayed step time and gain, and one steady step before and after the
 * top fixes drawn as SVG at one scale (a row per host thread and per
 * stream, a rectangle per call, CPU segment or GPU operation).
 */
#include <inttypes.h>

#include "analyzer/report/html_internal.h"
#include "analyzer/diagnosis/replay_internal.h"
#include "analyzer/lib/units.h"
#include "analyzer/lib/util.h"

#define SVG_W 860               /* drawing width, px */
#define SVG_LABEL 110           /* row labels */
#define SVG_ROW 14
#define SVG_TITLE 18
#define SVG_ROWS 6              /* rows per timeline at most */

static const char *const item_colors[RK_KINDS] = {
	[RK_CPU] = "#bbbbbb", [RK_LAUNCH] = "#4c72b0", [RK_GRAPH] = "#8172b3",
	[RK_COPY] = "#dd8452", [RK_SET] = "#4c72b0", [RK_SYNC] = "#c44e52",
	[RK_NCCL] = "#937860", [RK_OTHER] = "#999999",
};

static const char *const op_colors[] = { "#55a868", "#dd8452", "#da8bc3", "#8172b3" };

struct frame {
	uint64_t t0, len, base;         /* the step drawn; the scale's step */
	double y;
};

static void rect(FILE *out, const struct frame *f, uint64_t a, uint64_t b,
		 const char *color)
{
	double w = SVG_W - SVG_LABEL, x0, x1;

	if (b <= f->t0 || a >= f->t0 + f->len)
		return;
	a = a < f->t0 ? f->t0 : a;
	b = b > f->t0 + f->len ? f->t0 + f->len : b;
	x0 = SVG_LABEL + w * (double)(a - f->t0) / (double)f->base;
	x1 = SVG_LABEL + w * (double)(b - f->t0) / (double)f->base;
	fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" "
		"fill=\"%s\"/>", x0, f->y, x1 - x0 > 0.5 ? x1 - x0 : 0.5,
		SVG_ROW - 3, color);
}

static void label(FILE *out, const struct frame *f, const char *name)
{
	fprintf(out, "<text x=\"4\" y=\"%.1f\">%s</text>", f->y + 10, name);
}

static size_t thread_rows(FILE *out, const struct rp_graph *g,
			  const struct rp_times *t, struct frame *f)
{
	size_t rows = 0;

	for (size_t th = 0; th < g->nth && rows < SVG_ROWS / 2; th++, rows++) {
		char name[32];

		snprintf(name, sizeof(name), "thread %u", g->th[th].tid);
		label(out, f, name);
		for (size_t i = g->th[th].first; i < g->th[th].first + g->th[th].n; i++) {
			const struct rp_item *it = &g->items[i];
			int waited = it->wkind != RW_NONE && t->it1[i] - t->it0[i] > it->own;

			rect(out, f, t->it0[i], t->it1[i],
			     waited ? item_colors[RK_SYNC] : item_colors[it->kind]);
		}
		f->y += SVG_ROW;
	}
	return rows;
}

static void stream_rows(FILE *out, const struct rp_graph *g,
			const struct rp_graph *names, const struct rp_times *t,
			struct frame *f, size_t rows)
{
	for (size_t s = 0; s < g->nstreams && rows < SVG_ROWS; s++, rows++) {
		char name[48];

		label(out, f, replay_stream_label(names, s, name, sizeof(name)));
		for (size_t o = 0; o < g->nops; o++)
			if (g->ops[o].stream == s)
				rect(out, f, t->op0[o], t->op1[o] > t->op0[o] ?
				     t->op1[o] : t->op0[o] + 1, op_colors[g->ops[o].kind & 3]);
		f->y += SVG_ROW;
	}
}

/* One step of g; a step the replay gave no host time of its own is said
 * so, not drawn (as in the text report). */
static void one(FILE *out, const char *title, const struct rp_graph *g,
		const struct rp_graph *names, const struct rp_times *t,
		uint32_t step, struct frame *f)
{
	char len[UNITS_BUF];

	f->t0 = t->step0[step];
	f->len = t->step0[step + 1] - t->step0[step];
	if (!f->len)
		fprintf(out, "<text x=\"4\" y=\"%.1f\" font-weight=\"bold\">%s: no "
			"host time of step #%u in the replayed span: not drawn</text>",
			f->y + 12, title, step);
	else
		fprintf(out, "<text x=\"4\" y=\"%.1f\" font-weight=\"bold\">%s: host "
			"step %s</text>", f->y + 12, title, fmt_ns(len, sizeof(len), f->len));
	f->y += SVG_TITLE;
	if (f->len)
		stream_rows(out, g, names, t, f, thread_rows(out, g, t, f));
	f->y += 6;
}

static void drawing(FILE *out, const struct rp_summary *s)
{
	uint32_t step = s->steps / 2;
	struct frame f = { .base = s->bt.step0[step + 1] - s->bt.step0[step] };
	size_t rows = (size_t)(s->g.nth + s->g.nstreams) < SVG_ROWS ?
		      s->g.nth + s->g.nstreams : SVG_ROWS;
	double h = (double)(1 + s->ntop) * (SVG_TITLE + 6 + (double)rows * SVG_ROW);

	if (!f.base)
		return;
	fprintf(out, "<svg class=\"whatif\" width=\"%d\" height=\"%.0f\" "
		"font-size=\"11\" font-family=\"sans-serif\">", SVG_W, h);
	one(out, "as recorded (replayed)", &s->g, &s->g, &s->bt, step, &f);
	for (size_t i = 0; i < s->ntop; i++) {
		struct rp_graph g;
		struct rp_times t;
		char label[96];

		replay_top_fix(s, i, &g, &t);
		one(out, replay_fix_label(&s->fix[s->top[i]], label, sizeof(label)),
		    &g, &s->g, &t, step, &f);
		replay_release(&g);
		replay_times_release(&t);
	}
	fprintf(out, "</svg>\n<p class=\"legend\">host: grey CPU, blue launch, red "
		"waiting, orange copy, purple graph; GPU: green kernel, orange copy, "
		"pink memset</p>\n");
}

/* As the text report's table: a larger batch's gain per sample. */
static void fix_rows(FILE *out, const struct rp_summary *s)
{
	char step[UNITS_BUF], label[96];

	fprintf(out, "<table><tr><th>Fix</th><th>Class</th><th>Step time (replayed)"
		"</th><th>Gain</th></tr>\n");
	for (int f = 0; f < FIX_KINDS; f++) {
		const struct rp_fix_result *r = &s->fix[f];

		if (!r->applies)
			continue;
		fprintf(out, "<tr><td>%s</td><td>%s</td><td>%s</td><td>%.0f%%%s</td>"
			"</tr>\n", replay_fix_label(r, label, sizeof(label)),
			verdict_class_name(r->cls),
			fmt_ns(step, sizeof(step), sat_from_double(r->span / s->steps)),
			-100 * r->gain, f == FIX_BATCH ? " per sample" : "");
	}
	fprintf(out, "</table>\n");
}

void diagnosis_report_html(FILE *out, const struct model *m)
{
	const struct rp_summary *s = m->diag ? m->diag->replay : NULL;
	char a[UNITS_BUF], b[UNITS_BUF];

	if (!s)
		return;
	fprintf(out, "<section class=\"whatif\"><h2>What-if (replayed)</h2>\n<p>");
	if (!s->ran) {
		fprintf(out, "Not replayed: ");
		html_esc(out, s->why);
		fprintf(out, ".</p></section>\n");
		return;
	}
	fprintf(out, "%u steps of %s (with the GPU work they queued); the "
		"unmodified graph replays them at %s, %.1f%% off.", s->steps,
		fmt_ns(a, sizeof(a), s->measured / s->steps),
		fmt_ns(b, sizeof(b), s->base / s->steps), 100 * s->error);
	if (!s->used) {
		fprintf(out, " ");
		html_esc(out, s->why);
		fprintf(out, ".");
	}
	fprintf(out, "</p>\n");
	fix_rows(out, s);
	drawing(out, s);
	fprintf(out, "</section>\n");
}
