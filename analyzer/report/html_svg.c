/* SPDX-License-Identifier: MIT */
/*
 * html_svg.c - the pictures of the HTML report, drawn as inline SVG:
 * horizontal bar charts, the timeline overview (per device: GPU active,
 * idle, no GPU timing; the host: time in CUDA calls by kind) and the
 * step-time chart.  Every shape has a <title>, which browsers show on
 * hover.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/export/export_facts.h"
#include "analyzer/report/html_internal.h"
#include "analyzer/lib/units.h"
#include "analyzer/lib/util.h"

#define W 1000                      /* drawing width */
#define LABEL_W 150                 /* timeline row labels */
#define ROW_H 36

static const char *const host_color[TL_KINDS] = {
	"#4a7fd4", "#e39c2b", "#c44e52", "#8e6bbf", "#9a9a9a",
};
static const char *const host_name[TL_KINDS] = {
	"launches", "copies and memsets", "waits for the GPU", "NCCL calls",
	"other calls",
};

#define MAX_CAUSES 16

static const char *const cause_color[MAX_CAUSES] = {
	"#8fb8f0", "#b9a2e0", "#e06c6c", "#f0b35a", "#a57fd0", "#d98ab5",
	"#e8d05a", "#7fc8c8", "#c9c9c9", "#6c6c6c", "#999", "#999", "#999",
	"#999", "#999", "#999",
};

#define C_BUSY "#2e9d5b"
#define C_IDLE "#d0d0d0"
#define C_UNTIMED "#f3f3f3"

/* A label that fits left of the bars: at most 44 characters. */
static void short_label(FILE *out, const char *s)
{
	char buf[48];

	if (strlen(s) <= 44) {
		html_esc(out, s);
		return;
	}
	snprintf(buf, sizeof(buf), "%.41s...", s);
	html_esc(out, buf);
}

void html_bar_chart(FILE *out, const char *id, const char *title,
		    const struct html_bar *bars, size_t n)
{
	double max = 0;
	int h = (int)n * 22 + 10;

	for (size_t i = 0; i < n; i++)
		max = bars[i].value > max ? bars[i].value : max;
	fprintf(out, "<div class=\"chart\" id=\"%s\"><h3>", id);
	html_esc(out, title);
	fprintf(out, "</h3>\n");
	if (!n || max <= 0) {
		fprintf(out, "<p class=\"none\">nothing to show</p></div>\n");
		return;
	}
	fprintf(out, "<svg class=\"bars\" viewBox=\"0 0 %d %d\" width=\"100%%\" "
		"role=\"img\">\n", W, h);
	for (size_t i = 0; i < n; i++) {
		int y = 5 + (int)i * 22;
		double w = bars[i].value / max * 560;

		fprintf(out, "<g class=\"bar\"><title>");
		html_esc(out, bars[i].label);
		fprintf(out, ": ");
		html_esc(out, bars[i].text);
		fprintf(out, "</title><text x=\"290\" y=\"%d\" text-anchor=\"end\">",
			y + 14);
		short_label(out, bars[i].label);
		fprintf(out, "</text><rect x=\"300\" y=\"%d\" width=\"%.1f\" "
			"height=\"16\" fill=\"%s\"/><text x=\"%.1f\" y=\"%d\">",
			y, w < 1 ? 1 : w, bars[i].color ? bars[i].color : "#4a7fd4",
			306 + w, y + 14);
		html_esc(out, bars[i].text);
		fprintf(out, "</text></g>\n");
	}
	fprintf(out, "</svg></div>\n");
}

static size_t bins_used(const struct timeline *b)
{
	uint64_t d = b->end - b->t0;
	uint64_t n = d / b->width + (d % b->width != 0);

	return n < 1 ? 1 : n > TL_BINS ? TL_BINS : (size_t)n;
}

static double share(uint64_t v, uint64_t of)
{
	double s = of ? (double)v / (double)of : 0;

	return s > 1 ? 1 : s;
}

/* The idle part of a bin, stacked by cause when the diagnosis knows
 * them (shares of its idle time), else one grey block. */
static void idle_part(FILE *out, double x, double top, double bw, double h,
		      const double *cause)
{
	int n = facts_cause_count() < MAX_CAUSES ? facts_cause_count() : MAX_CAUSES;

	if (!cause) {
		fprintf(out, "<rect class=\"idle\" x=\"%.2f\" y=\"%.2f\" "
			"width=\"%.2f\" height=\"%.2f\" fill=\"" C_IDLE "\"/>",
			x, top, bw, h);
		return;
	}
	for (int c = 0; c < n; c++) {
		if (cause[c] <= 0)
			continue;
		fprintf(out, "<rect class=\"idle\" x=\"%.2f\" y=\"%.2f\" "
			"width=\"%.2f\" height=\"%.2f\" fill=\"%s\"><title>%s "
			"%.0f%% of the idle time</title></rect>", x, top, bw,
			h * cause[c], cause_color[c], facts_cause_text(c),
			100 * cause[c]);
		top += h * cause[c];
	}
}

/* Shares of the idle time of bin i by cause: cause, or NULL if unknown. */
static const double *bin_causes(const struct model *m, const struct timeline *b,
				size_t i, double *cause)
{
	uint64_t ns[MAX_CAUSES] = { 0 }, sum = 0;
	int n = facts_cause_count() < MAX_CAUSES ? facts_cause_count() : MAX_CAUSES;

	if (!m || !facts_idle_between(m, timeline_bin_start(b, i),
				      timeline_bin_start(b, i + 1), ns))
		return NULL;
	for (int c = 0; c < n; c++)
		sum += ns[c];
	if (!sum)
		return NULL;
	for (int c = 0; c < n; c++)
		cause[c] = (double)ns[c] / (double)sum;
	return cause;
}

/* One device's row: busy at the bottom, idle above, untimed the rest. */
static void device_row(FILE *out, const struct timeline *b, uint32_t d, int y,
		       size_t used, double bw, const struct model *m)
{
	char t[UNITS_BUF];
	double cause[MAX_CAUSES];

	fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">GPU %u</text>\n",
		LABEL_W - 8, y + 17, d);
	for (size_t i = 0; i < used; i++) {
		double timed = b->timed[i] || !b->gpu_seen ? share(b->timed[i], b->width) : 0;
		double busy = share(b->gpu[d][i], b->width);
		double x = LABEL_W + (double)i * bw;

		if (timed < busy)
			timed = busy;   /* records outside the windows we know */
		fprintf(out, "<g><title>%s: GPU %u active %.0f%%, idle %.0f%%, "
			"no GPU timing %.0f%%</title>",
			fmt_ns(t, sizeof(t), timeline_bin_start(b, i) - b->t0), d, 100 * busy,
			100 * (timed - busy), 100 * (1 - timed));
		fprintf(out, "<rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" "
			"fill=\"" C_UNTIMED "\"/>", x, y, bw, ROW_H - 4);
		if (timed > busy)
			idle_part(out, x, y + (ROW_H - 4) * (1 - timed), bw,
				  (ROW_H - 4) * (timed - busy),
				  bin_causes(m, b, i, cause));
		fprintf(out, "<rect class=\"busy\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" "
			"height=\"%.2f\" fill=\"" C_BUSY "\"/></g>\n", x,
			y + (ROW_H - 4) * (1 - busy), bw, (ROW_H - 4) * busy);
	}
}

/* The host's row: time in CUDA calls by kind, stacked (all threads,
 * at most the bin's length). */
static void host_row(FILE *out, const struct timeline *b, int y, size_t used,
		     double bw)
{
	fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">host calls</text>\n",
		LABEL_W - 8, y + ROW_H / 2 + 2);
	for (size_t i = 0; i < used; i++) {
		double x = LABEL_W + (double)i * bw, top = y + ROW_H - 4, left = 1;

		fprintf(out, "<g>");
		for (int k = 0; k < TL_KINDS && left > 0; k++) {
			double s = share(b->host[k][i], b->width);

			s = s > left ? left : s;
			left -= s;
			if (s <= 0)
				continue;
			top -= s * (ROW_H - 4);
			fprintf(out, "<rect class=\"host\" x=\"%.2f\" y=\"%.2f\" "
				"width=\"%.2f\" height=\"%.2f\" fill=\"%s\"><title>%s "
				"%.0f%%</title></rect>", x, top, bw, s * (ROW_H - 4),
				host_color[k], host_name[k], 100 * s);
		}
		fprintf(out, "</g>\n");
	}
}

static void axis(FILE *out, const struct timeline *b, int y, size_t used)
{
	char t[UNITS_BUF];

	for (int k = 0; k <= 4; k++) {
		double x = LABEL_W + (double)k / 4 * (W - LABEL_W - 10);

		fprintf(out, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" "
			"stroke=\"#888\"/><text class=\"tick\" x=\"%.1f\" y=\"%d\" "
			"text-anchor=\"%s\">%s</text>\n", x, y, x, y + 4, x, y + 16,
			k == 4 ? "end" : k ? "middle" : "start",
			fmt_ns(t, sizeof(t), sat_from_double((double)k / 4 *
							     (double)used * (double)b->width)));
	}
}

void html_timeline(FILE *out, const struct timeline *b, const char *label,
		   const struct model *m)
{
	size_t used = bins_used(b);
	double bw = (double)(W - LABEL_W - 10) / (double)used;
	uint32_t ndev = b->gpu_seen ? b->ndev : 0;
	int h = (int)(ndev + 1) * ROW_H + 26, y = 4;

	fprintf(out, "<svg class=\"timeline\" viewBox=\"0 0 %d %d\" width=\"100%%\" "
		"role=\"img\" aria-label=\"", W, h);
	html_esc(out, label);
	fprintf(out, "\">\n");
	for (uint32_t d = 0; d < ndev; d++, y += ROW_H)
		device_row(out, b, d, y, used, bw, m);
	host_row(out, b, y, used, bw);
	axis(out, b, y + ROW_H - 2, used);
	fprintf(out, "</svg>\n");
}

static void swatch(FILE *out, const char *color, const char *name)
{
	fprintf(out, "<span class=\"key\"><i style=\"background:%s\"></i>%s</span>",
		color, name);
}

void html_timeline_legend(FILE *out, int causes)
{
	int n = facts_cause_count() < MAX_CAUSES ? facts_cause_count() : MAX_CAUSES;

	fprintf(out, "<p class=\"legend\">");
	swatch(out, C_BUSY, "GPU active (kernels, copies)");
	if (causes)
		for (int c = 0; c < n; c++)
			swatch(out, cause_color[c], facts_cause_text(c));
	else
		swatch(out, C_IDLE, "GPU idle (cause not known)");
	swatch(out, C_UNTIMED, "no GPU timing");
	for (int k = 0; k < TL_KINDS; k++)
		swatch(out, host_color[k], host_name[k]);
	fprintf(out, "</p>\n");
}

void html_step_chart(FILE *out, const struct timeline *b, const char *source)
{
	uint64_t max = 0, sum = 0;
	char t[UNITS_BUF], u[UNITS_BUF];
	double bw;

	for (size_t i = 0; i < b->nsteps; i++) {
		max = b->step_ns[i] > max ? b->step_ns[i] : max;
		sum += b->step_ns[i];
	}
	if (source)
		fprintf(out, "<p>%" PRIu64 " step%s (%s), mean %s, longest bar "
			"%s%s</p>\n", b->steps_total,
			plural(b->steps_total, "", "s"), source,
			fmt_ns(t, sizeof(t), b->nsteps ? sum / b->nsteps : 0),
			fmt_ns(u, sizeof(u), max), b->step_per_bar > 1 ?
			"; each bar is the mean of several steps" : "");
	else
		fmt_ns(u, sizeof(u), max);
	bw = (double)(W - 60) / (double)b->nsteps;
	fprintf(out, "<svg class=\"steps\" viewBox=\"0 0 %d 180\" width=\"100%%\" "
		"role=\"img\">\n", W);
	fprintf(out, "<text x=\"4\" y=\"14\">%s</text>\n", u);
	for (size_t i = 0; i < b->nsteps; i++) {
		double h = max ? (double)b->step_ns[i] / (double)max * 150 : 0;

		fprintf(out, "<rect class=\"step\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" "
			"height=\"%.2f\" fill=\"#4a7fd4\"><title>step %zu: %s</title>"
			"</rect>\n", 50 + (double)i * bw, 170 - h, bw > 2 ? bw - 1 : bw,
			h, i * b->step_per_bar + 1, fmt_ns(t, sizeof(t), b->step_ns[i]));
	}
	fprintf(out, "<line x1=\"50\" y1=\"170\" x2=\"%d\" y2=\"170\" "
		"stroke=\"#888\"/></svg>\n", W - 10);
}
