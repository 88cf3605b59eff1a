/* SPDX-License-Identifier: MIT */
/*
 * replay_report.c - the what-if by replay in the reports: how well the
 * replay reproduced the recorded steps, each fix's replayed step time and
 * gain, and for the top fixes one steady step before and after as a
 * text timeline (a row per host thread and per stream, one character per
 * time slot: what ran most of it).  JSON gets the same numbers.
 */
#include <stdlib.h>
#include <string.h>

#include "analyzer/diagnosis/replay_internal.h"
#include "analyzer/report/report.h"
#include "analyzer/lib/table.h"
#include "analyzer/lib/units.h"
#include "analyzer/lib/util.h"

#define TL_ROWS 6               /* rows per timeline: threads, streams */
#define TL_MIN_COLS 20
#define TL_MAX_COLS 80
#define TL_NAME 16              /* "GPU 0 stream 7", "thread 12345" */
#define TL_LABEL (4 + TL_NAME + 3)  /* "    " name " |" ... "|" */

static const struct table_column fix_cols[] = {
	{ "Fix", 1 }, { "Class", 1 }, { "Step time", 0 }, { "Gain", 0 },
};

static const char item_chars[RK_KINDS] = {
	[RK_CPU] = '-', [RK_LAUNCH] = 'L', [RK_GRAPH] = 'G', [RK_COPY] = 'C',
	[RK_SET] = 'L', [RK_SYNC] = 'W', [RK_NCCL] = 'N', [RK_OTHER] = 'o',
};

static const char op_chars[] = { 'K', 'C', 'M', 'G' };

const char *replay_stream_label(const struct rp_graph *g, size_t s, char *buf,
				size_t size)
{
	uint64_t n = g->stream_name ? g->stream_name[s] : RP_STREAM_HOST | s;

	if (n & RP_STREAM_HOST)
		snprintf(buf, size, "stream %u (host)", (unsigned)(n & 0xffffffffu));
	else
		snprintf(buf, size, "GPU %u stream %u", (unsigned)(n >> 32 & 0x7fffffffu),
			 (unsigned)(n & 0xffffffffu));
	return buf;
}

/* Each fix's replayed step time and gain; a larger batch's step does k
 * times the samples: its gain is in time per sample, and said so. */
static void fix_table(FILE *out, const struct rp_summary *s)
{
	char step[UNITS_BUF], gain[32], label[96];
	const char *cells[4];
	struct table t;
	const struct rp_fix_result *batch = &s->fix[FIX_BATCH];

	table_init(&t, fix_cols, ARRAY_SIZE(fix_cols));
	for (int f = 0; f < FIX_KINDS; f++) {
		const struct rp_fix_result *r = &s->fix[f];

		cells[0] = replay_fix_label(r, label, sizeof(label));
		cells[1] = r->applies ? verdict_class_name(r->cls) : "-";
		cells[2] = r->applies ? fmt_ns(step, sizeof(step),
					       sat_from_double(r->span / s->steps)) :
			   "nothing to change";
		snprintf(gain, sizeof(gain), "%.0f%%%s", -100 * r->gain,
			 f == FIX_BATCH ? " per sample" : "");
		cells[3] = r->applies ? gain : "-";
		table_add(&t, cells);
	}
	table_print(out, &t, report_width());
	table_release(&t);
	if (batch->applies)
		report_line(out, "  Step time: the replayed step; %s's step does "
			    "%.0fx the samples, its gain is in time per sample",
			    replay_fix_label(batch, label, sizeof(label)), batch->k);
}

/* The step drawn: the middle one. */
static uint32_t mid_step(const struct rp_summary *s)
{
	return s->steps / 2;
}

struct canvas {
	char *row;
	uint64_t *ns;           /* per column: time of what is drawn there */
	size_t cols, used;      /* columns; those the step covers */
	uint64_t t0, slot;
};

/* The columns [a, b) covers, of those the step does: from *k0 to *k1. */
static void columns(const struct canvas *c, uint64_t a, uint64_t b, size_t *k0,
		    size_t *k1)
{
	*k0 = a > c->t0 ? (a - c->t0) / c->slot : 0;
	*k1 = b > c->t0 ? (b - c->t0 - 1) / c->slot + 1 : 0;
	*k0 = *k0 < c->used ? *k0 : c->used;
	*k1 = *k1 < c->used ? *k1 : c->used;
}

static void paint(struct canvas *c, uint64_t a, uint64_t b, char ch)
{
	size_t k0, k1;

	columns(c, a, b, &k0, &k1);
	for (size_t k = k0; k < k1; k++) {
		uint64_t s0 = c->t0 + k * c->slot, s1 = s0 + c->slot;
		uint64_t lo = a > s0 ? a : s0, hi = b < s1 ? b : s1;

		if (hi > lo && hi - lo > c->ns[k]) {
			c->ns[k] = hi - lo;
			c->row[k] = ch;
		}
	}
}

static void clear(struct canvas *c)
{
	memset(c->row, ' ', c->cols);
	memset(c->row, '.', c->used);
	c->row[c->cols] = 0;
	memset(c->ns, 0, c->cols * sizeof(*c->ns));
}

static void thread_rows(FILE *out, const struct rp_graph *g,
			const struct rp_times *t, struct canvas *c, size_t *rows)
{
	for (size_t th = 0; th < g->nth && *rows < TL_ROWS; th++) {
		int any = 0;

		clear(c);
		for (size_t i = g->th[th].first; i < g->th[th].first + g->th[th].n; i++) {
			const struct rp_item *it = &g->items[i];
			char ch = it->wkind != RW_NONE && t->it1[i] - t->it0[i] > it->own ?
				  'W' : item_chars[it->kind];

			if (t->it1[i] > c->t0 && t->it0[i] < c->t0 + c->cols * c->slot &&
			    t->it1[i] > t->it0[i]) {
				paint(c, t->it0[i], t->it1[i], ch);
				any = 1;
			}
		}
		if (any || th == 0) {
			char name[32];

			snprintf(name, sizeof(name), "thread %u", g->th[th].tid);
			fprintf(out, "    %-*s |%s|\n", TL_NAME, name, c->row);
			(*rows)++;
		}
	}
}

/* The operations in the drawing's time, in order; *n gets their number. */
static size_t *ops_drawn(const struct rp_graph *g, const struct rp_times *t,
			 const struct canvas *c, size_t *n)
{
	size_t *v = xmalloc((g->nops + 1) * sizeof(*v));

	*n = 0;
	for (size_t o = 0; o < g->nops; o++)
		if (t->op1[o] > c->t0 && t->op0[o] < c->t0 + c->cols * c->slot)
			v[(*n)++] = o;
	return v;
}

static void stream_rows(FILE *out, const struct rp_graph *g,
			const struct rp_graph *names, const struct rp_times *t,
			struct canvas *c, size_t *rows)
{
	size_t nv, *v = ops_drawn(g, t, c, &nv);

	for (size_t s = 0; s < g->nstreams && *rows < TL_ROWS; s++) {
		int any = 0;

		clear(c);
		for (size_t j = 0; j < nv; j++) {
			size_t o = v[j];

			if (g->ops[o].stream != s)
				continue;
			paint(c, t->op0[o], t->op1[o] > t->op0[o] ? t->op1[o] :
			      t->op0[o] + 1, op_chars[g->ops[o].kind & 3]);
			any = 1;
		}
		if (any) {
			char name[48];

			fprintf(out, "    %-*s |%s|\n", TL_NAME,
				replay_stream_label(names, s, name, sizeof(name)), c->row);
			(*rows)++;
		}
	}
	free(v);
}

/* One step of g drawn; streams named as in names (the recorded graph:
 * a fix keeps its streams).  A step the replay gave no host time of its
 * own (its calls merged into another's) is said so, not drawn. */
static void draw(FILE *out, const char *title, const struct rp_graph *g,
		 const struct rp_graph *names, const struct rp_times *t,
		 struct canvas *c, uint32_t step)
{
	char len[UNITS_BUF];
	size_t rows = 0;

	if (t->step0[step + 1] <= t->step0[step]) {
		report_line(out, "   %s: no host time of step #%u in the replayed span "
			    "(its calls went into another step's): not drawn", title,
			    step);
		return;
	}
	c->t0 = t->step0[step];
	c->used = (t->step0[step + 1] - c->t0 + c->slot - 1) / c->slot;
	c->used = c->used > c->cols ? c->cols : c->used;
	fprintf(out, "   %s: host step %s\n", title,
		fmt_ns(len, sizeof(len), t->step0[step + 1] - t->step0[step]));
	thread_rows(out, g, t, c, &rows);
	stream_rows(out, g, names, t, c, &rows);
}

static void timelines(FILE *out, const struct rp_summary *s)
{
	size_t w = report_width() < REPORT_WIDTH ? report_width() : REPORT_WIDTH;
	uint32_t step = mid_step(s);
	uint64_t base = s->bt.step0[step + 1] - s->bt.step0[step];
	struct canvas c;
	char slot[UNITS_BUF];

	c.cols = w > TL_LABEL + TL_MIN_COLS ? w - TL_LABEL : TL_MIN_COLS;
	c.cols = c.cols > TL_MAX_COLS ? TL_MAX_COLS : c.cols;
	c.slot = base / c.cols ? base / c.cols : 1;
	c.row = xcalloc(c.cols + 1, 1);
	c.ns = xcalloc(c.cols, sizeof(*c.ns));
	report_line(out, "  One steady step (#%u of the span), before and after, at one "
		    "scale: a column is %s; - CPU, L launch, W waiting, C copy, G graph, "
		    "N NCCL; K kernel, M memset on the GPU", step,
		    fmt_ns(slot, sizeof(slot), c.slot));
	draw(out, "as recorded (replayed)", &s->g, &s->g, &s->bt, &c, step);
	for (size_t i = 0; i < s->ntop; i++) {
		char title[128], label[96];
		struct rp_graph g;
		struct rp_times t;

		snprintf(title, sizeof(title), "with %s",
			 replay_fix_label(&s->fix[s->top[i]], label, sizeof(label)));
		replay_top_fix(s, i, &g, &t);
		draw(out, title, &g, &s->g, &t, &c, step);
		replay_release(&g);
		replay_times_release(&t);
	}
	free(c.row);
	free(c.ns);
}

/* Where the host's times of the replayed steps come from. */
static void host_basis(FILE *out, const struct diagnosis *d,
		       const struct rp_summary *s)
{
	const struct rp_graph *g = &s->g;
	char w[UNITS_BUF], o[UNITS_BUF];

	fmt_ns(o, sizeof(o), g->host_outside / s->steps);
	fmt_ns(w, sizeof(w), g->host_window / s->steps);
	if (g->host_lent)
		report_line(out, "  host times: %u of the %u steps from like steps outside the "
			    "GPU windows (%s on the host there, %s in the window, where CUPTI "
			    "slows the host's calls); %s%s", g->host_paired, s->steps, o, w,
			    s->gpu ? "the GPU's from the window" : "the GPU's estimated from "
			    "the host's", g->host_span == g->host_window ? "; the GPU set "
			    "the span's pace: its time as recorded" : "");
	else if (g->host_paired)
		report_line(out, "  host times: the GPU window's, where CUPTI slows the host's "
			    "calls (%s on the host); %u like steps just outside the windows "
			    "took %s: not lent to the replay (a DataLoader is seen: a fixed "
			    "run's host differs from them by more than CUPTI's cost, its "
			    "threads sharing the interpreter lock)", w,
			    g->host_paired, o);
	else if (g->window)
		report_line(out, "  host times: from the GPU window's steps, no like step "
			    "outside the windows: CUPTI's cost on the host's calls (the "
			    "tracing cost line) is in them, so fixes that overlap host work "
			    "with the GPU may gain more than replayed");
	else if (d->windows.n)
		report_line(out, "  host times: as recorded; the span lies outside the GPU "
			    "windows, CUPTI did not slow its calls");
}

void replay_report_text(FILE *out, const struct diagnosis *d)
{
	const struct rp_summary *s = d->replay;
	char m[UNITS_BUF], b[UNITS_BUF], h[UNITS_BUF], a[UNITS_BUF];

	if (!s)
		return;
	fprintf(out, "\n");
	if (!s->ran) {
		report_line(out, "  What-if (replayed): not replayed: %s", s->why);
		return;
	}
	report_line(out, "  What-if (replayed): %u steps of %s on the host (all steady "
		    "steps: %s), %s with the GPU work they queued%s; the unmodified "
		    "graph replays them at %s per step, %.1f%% off", s->steps,
		    fmt_ns(h, sizeof(h), s->host_span / s->steps),
		    fmt_ns(a, sizeof(a), d->steps.mean),
		    fmt_ns(m, sizeof(m), s->measured / s->steps),
		    s->gpu ? "" : " (no GPU records: host-side estimates of the GPU "
		    "work)", fmt_ns(b, sizeof(b), s->base / s->steps), 100 * s->error);
	host_basis(out, d, s);
	if (!s->used)
		report_line(out, "  note: %s", s->why);
	fix_table(out, s);
	if (s->ntop)
		timelines(out, s);
}

static void fix_json(struct json *j, const struct rp_summary *s, int f)
{
	const struct rp_fix_result *r = &s->fix[f];

	json_begin_object(j);
	json_key(j, "fix");
	json_string(j, replay_fix_name((enum rp_fix)f));
	json_key(j, "applies");
	json_bool(j, r->applies);
	json_key(j, "class");
	json_string(j, verdict_class_name(r->cls));
	json_key(j, "k");
	json_double(j, r->k);
	json_key(j, "step_ns");
	json_uint(j, sat_from_double(r->span / s->steps));
	json_key(j, "per_sample");
	json_bool(j, f == FIX_BATCH);
	json_key(j, "gain");
	json_double(j, r->gain);
	if (r->applies) {
		json_key(j, "gain_low");
		json_double(j, r->gain_lo);
		json_key(j, "gain_high");
		json_double(j, r->gain_hi);
		json_key(j, "throughput_ratio");   /* after / before */
		json_double(j, r->speedup);
		json_key(j, "throughput_unit");
		json_string(j, r->per_sample ? "samples/s" : "steps/s");
		if (r->accum >= 2) {
			json_key(j, "accumulation_merged");
			json_double(j, r->accum);
		}
		json_key(j, "assumes");
		json_string(j, r->assume);
		if (r->wide[0]) {
			json_key(j, "band_wide_because");
			json_string(j, r->wide);
		}
	}
	json_end_object(j);
}

void replay_report_json(struct json *j, const struct diagnosis *d)
{
	const struct rp_summary *s = d->replay;

	json_key(j, "whatif_replay");
	json_begin_object(j);
	json_key(j, "replayed");
	json_bool(j, s && s->ran);
	json_key(j, "used");
	json_bool(j, s && s->used);
	json_key(j, "note");
	json_string(j, s ? s->why : "");
	if (s && s->ran) {
		json_key(j, "gpu_records");
		json_bool(j, s->gpu);
		json_key(j, "steps");
		json_uint(j, s->steps);
		json_key(j, "steady_step_ns");
		json_uint(j, d->steps.mean);
		json_key(j, "host_step_ns");
		json_uint(j, s->host_span / s->steps);
		json_key(j, "measured_step_ns");
		json_uint(j, s->measured / s->steps);
		json_key(j, "replayed_step_ns");
		json_uint(j, s->base / s->steps);
		json_key(j, "error");
		json_double(j, s->error);
		json_key(j, "host_times_from");
		json_string(j, s->g.host_lent ? "outside_windows" :
			    s->g.window ? "window" : "no_window");
		json_key(j, "host_paired_steps");
		json_uint(j, s->g.host_paired);
		if (s->g.host_paired) {
			json_key(j, "host_outside_step_ns");
			json_uint(j, s->g.host_outside / s->steps);
		}
		json_key(j, "fixes");
		json_begin_array(j);
		for (int f = 0; f < FIX_KINDS; f++)
			fix_json(j, s, f);
		json_end_array(j);
	}
	json_end_object(j);
}
