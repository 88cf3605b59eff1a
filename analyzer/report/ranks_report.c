/* SPDX-License-Identifier: MIT */
/*
 * ranks_report.c - what several ranks add up to: where each rank's time
 * went, who waited at collectives and for whom, and the rank-skew
 * finding: a rank that entered collectives last and held the others
 * back, and why (the cost in which it exceeds the other ranks most).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/export/export_facts.h"
#include "analyzer/lib/json.h"
#include "analyzer/passes/nccl.h"
#include "analyzer/report/ranks.h"
#include "analyzer/report/report.h"
#include "analyzer/reader/stdin_dump.h"
#include "analyzer/lib/table.h"
#include "analyzer/lib/units.h"
#include "analyzer/lib/util.h"

#define MS 1000000ull
#define COMMAND_SHOWN 24            /* characters of a command shown */

const char *rank_cost_name(enum rank_cost c)
{
	static const char *const names[] = {
		[COST_OUTSIDE] = "host work between CUDA calls (on its collective thread)",
		[COST_SYNC] = "waiting for the GPU (synchronize calls)",
		[COST_COPY] = "copies (host time)",
		[COST_LAUNCH] = "kernel launches (host time)",
		[COST_HOSTMEM] = "pinned memory calls",
		[COST_NCCL] = "NCCL calls (host time)",
		[COST_GPU] = "GPU work (kernels, copies running)",
	};

	return c < COST_KINDS ? names[c] : "?";
}

static const char *const cost_keys[] = {
	"outside_ns", "sync_ns", "copy_ns", "launch_ns", "hostmem_ns",
	"nccl_host_ns", "gpu_active_ns",
};

static uint64_t rows_total(const struct model *m, enum row_kind kind)
{
	size_t n;
	struct row **rows = model_rows(m, kind, &n);
	uint64_t t = 0;

	for (size_t i = 0; i < n; i++)
		t = sat_add(t, rows[i]->total_ns);
	free(rows);
	return t;
}

static uint64_t nccl_host(const struct model *m)
{
	size_t n;
	struct nccl_op **ops = nccl_ops(m, &n);
	uint64_t t = 0;

	for (size_t i = 0; i < n; i++)
		t = sat_add(t, ops[i]->host_ns);
	free(ops);
	return t;
}

static void costs(struct rank_dump *r)
{
	uint64_t active, window, span;

	for (int c = COST_SYNC; c <= COST_NCCL; c++)
		r->cost_known[c] = 1;
	r->cost[COST_SYNC] = rows_total(r->m, ROW_SYNC);
	r->cost[COST_COPY] = rows_total(r->m, ROW_COPY);
	r->cost[COST_LAUNCH] = rows_total(r->m, ROW_KERNEL) +
			       rows_total(r->m, ROW_GRAPH);
	r->cost[COST_HOSTMEM] = rows_total(r->m, ROW_HOSTMEM);
	r->cost[COST_NCCL] = nccl_host(r->m);
	if (r->have_tid && r->last_coll > r->first_coll) {
		span = r->last_coll - r->first_coll;
		r->cost_known[COST_OUTSIDE] = 1;
		r->cost[COST_OUTSIDE] = span > r->traced_at_last ?
					span - r->traced_at_last : 0;
	}
	if (facts_gpu_active(r->m, &active, &window)) {
		r->cost_known[COST_GPU] = 1;
		r->cost[COST_GPU] = active;
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* The median of cost c over the ranks other than skip that know it. */
static int others_median(const struct ranks *rk, size_t skip, int c,
			 uint64_t *med)
{
	uint64_t v[rk->n];
	size_t n = 0;

	for (size_t i = 0; i < rk->n; i++)
		if (i != skip && rk->r[i].colls && rk->r[i].cost_known[c])
			v[n++] = rk->r[i].cost[c];
	if (!n)
		return 0;
	qsort(v, n, sizeof(v[0]), cmp_u64);
	*med = v[n / 2];
	return 1;
}

/* The cost in which rank s exceeds the others' median most, or -1. */
static int top_cost(const struct ranks *rk, size_t s, uint64_t *mine,
		    uint64_t *theirs)
{
	uint64_t best = 0, med;
	int why = -1;

	for (int c = 0; c < COST_KINDS; c++) {
		const struct rank_dump *r = &rk->r[s];

		if (!r->cost_known[c] || !others_median(rk, s, c, &med) ||
		    r->cost[c] <= med || r->cost[c] - med <= best)
			continue;
		best = r->cost[c] - med;
		why = c;
		*mine = r->cost[c];
		*theirs = med;
	}
	return why;
}

static size_t slowest(const struct ranks *rk, size_t *parts, uint64_t *wall)
{
	size_t s = 0;

	*parts = 0;
	*wall = 0;
	for (size_t i = 0; i < rk->n; i++) {
		if (!rk->r[i].colls)
			continue;
		++*parts;
		*wall += rk->r[i].m->wall_ns;
		if (rk->r[i].caused_ns > rk->r[s].caused_ns || !rk->r[s].colls)
			s = i;
	}
	if (*parts)
		*wall /= *parts;
	return s;
}

static void write_finding(struct ranks *rk, size_t s, size_t parts,
			  uint64_t wall)
{
	const struct rank_dump *r = &rk->r[s];
	uint64_t each = r->caused_ns / (parts - 1), mine = 0, theirs = 0;
	char a[UNITS_BUF], b[UNITS_BUF], c[UNITS_BUF], d[UNITS_BUF];
	char *verdict = facts_verdict(r->m);
	size_t len;

	rk->why = top_cost(rk, s, &mine, &theirs);
	len = (size_t)snprintf(rk->finding, sizeof(rk->finding),
		"%s held the others back: it entered %" PRIu64 " of %"
		PRIu64 " collectives last, and the other ranks waited %s for it "
		"in all (%s per collective each, %.0f%% of their wall time). ",
		rk->dumps[s].label, r->last, r->colls, fmt_ns(a, sizeof(a), r->caused_ns),
		fmt_ns(b, sizeof(b), r->colls ? r->caused_ns / (parts - 1) / r->colls : 0),
		wall ? 100.0 * (double)each / (double)wall : 0.0);
	if (len >= sizeof(rk->finding))
		return;
	if (rk->why >= 0)
		len += (size_t)snprintf(rk->finding + len, sizeof(rk->finding) - len,
			 "Its own top cost: %s, %s against %s on the other "
			 "ranks (median).", rank_cost_name(rk->why),
			 fmt_ns(c, sizeof(c), mine), fmt_ns(d, sizeof(d), theirs));
	else
		len += (size_t)snprintf(rk->finding + len, sizeof(rk->finding) - len,
			 "Nothing it traced costs more than on the other ranks: "
			 "look at what it does outside CUDA (I/O, data loading).");
	if (verdict && len < sizeof(rk->finding))
		snprintf(rk->finding + len, sizeof(rk->finding) - len,
			 " Its diagnosis: %s", verdict);
	free(verdict);
}

void ranks_judge(struct ranks *rk)
{
	size_t parts, s;
	uint64_t wall, each, floor;

	for (size_t i = 0; i < rk->n; i++)
		costs(&rk->r[i]);
	s = slowest(rk, &parts, &wall);
	if (parts < 2)
		return;
	each = rk->r[s].caused_ns / (parts - 1);
	floor = wall / 100 > MS ? wall / 100 : MS;
	if (rk->r[s].last * 2 < rk->r[s].colls || each < floor)
		return;
	rk->slow = (int)s;
	write_finding(rk, s, parts, wall);
}

/* ---- text --------------------------------------------------------------- */

static const char *num(char *buf, uint64_t v)
{
	snprintf(buf, UNITS_BUF, "%" PRIu64, v);
	return buf;
}

static const char *cost_cell(char *buf, const struct rank_dump *r, int c)
{
	return r->cost_known[c] ? fmt_ns(buf, UNITS_BUF, r->cost[c]) : "-";
}

/* The process's command, its program without its folder, cut to
 * COMMAND_SHOWN characters: what tells processes of one rank apart. */
static const char *command_cell(char *buf, const struct model *m)
{
	const char *c = *m->command ? m->command : m->exe;
	const char *space = strchr(c, ' ');
	const char *slash = memrchr(c, '/', space ? (size_t)(space - c) : strlen(c));

	if (slash && slash[1] && slash[1] != ' ')
		c = slash + 1;
	if (strlen(c) <= COMMAND_SHOWN)
		return c;
	snprintf(buf, COMMAND_SHOWN + 1, "%.*s...", COMMAND_SHOWN - 3, c);
	return buf;
}

static void ranks_table(FILE *out, const struct ranks *rk)
{
	static const struct table_column cols[] = {
		{ "Rank", 1 }, { "Host", 1 }, { "Pid", 0 }, { "Wall", 0 },
		{ "Events", 0 }, { "Dropped", 0 }, { "Clock offset", 0 },
		{ "Command", 1 },
	};
	char b[7][UNITS_BUF], cmd[COMMAND_SHOWN + 1];
	struct table t;

	table_init(&t, cols, ARRAY_SIZE(cols));
	for (size_t i = 0; i < rk->n; i++) {
		const struct rank_dump *r = &rk->r[i];
		int64_t off = rk->dumps[i].offset_ns;
		const char *cells[] = {
			rk->dumps[i].label, r->m->host, num(b[2], r->m->pid),
			fmt_ns(b[3], UNITS_BUF, r->m->wall_ns), num(b[4], r->m->events),
			num(b[5], r->m->dropped), b[6], command_cell(cmd, r->m),
		};

		snprintf(b[6], UNITS_BUF, "%s%s", off < 0 ? "-" : "",
			 fmt_ns(b[0], UNITS_BUF, off < 0 ? 0 - (uint64_t)off : (uint64_t)off));
		table_add(&t, cells);
	}
	fprintf(out, "\nRanks\n");
	table_print(out, &t, report_width());
	table_release(&t);
}

static void cost_table(FILE *out, const struct ranks *rk)
{
	static const struct table_column cols[] = {
		{ "Rank", 1 }, { "Outside CUDA", 0 }, { "Waits", 0 },
		{ "Copies", 0 }, { "Launches", 0 }, { "NCCL host", 0 },
		{ "Pinned", 0 }, { "GPU active", 0 },
	};
	static const int order[] = {
		COST_OUTSIDE, COST_SYNC, COST_COPY, COST_LAUNCH, COST_NCCL,
		COST_HOSTMEM, COST_GPU,
	};
	char b[8][UNITS_BUF];
	const char *cells[8];
	struct table t;

	table_init(&t, cols, ARRAY_SIZE(cols));
	for (size_t i = 0; i < rk->n; i++) {
		cells[0] = rk->dumps[i].label;
		for (size_t k = 0; k < ARRAY_SIZE(order); k++)
			cells[k + 1] = cost_cell(b[k + 1], &rk->r[i], order[k]);
		table_add(&t, cells);
	}
	fprintf(out, "\nWhere each rank's time went (host time; outside CUDA: "
		"between its first and last collective)\n");
	table_print(out, &t, report_width());
	table_release(&t);
}

static void straggler_table(FILE *out, const struct ranks *rk)
{
	static const struct table_column cols[] = {
		{ "Rank", 1 }, { "Collectives", 0 }, { "Entered last", 0 },
		{ "Waited for others", 0 }, { "Made others wait", 0 }, { "Step", 0 },
	};
	char b[6][UNITS_BUF];
	struct table t;

	fprintf(out, "\nStragglers (%" PRIu64 " collective%s matched on %zu "
		"communicator%s", rk->matched, plural(rk->matched, "", "s"),
		rk->groups, plural(rk->groups, "", "s"));
	if (rk->unmatched)
		fprintf(out, "; %" PRIu64 " entered by some ranks only",
			rk->unmatched);
	fprintf(out, ")\n");
	if (!rk->matched) {
		fprintf(out, "  (no collective common to several dumps)\n");
		return;
	}
	table_init(&t, cols, ARRAY_SIZE(cols));
	for (size_t i = 0; i < rk->n; i++) {
		const struct rank_dump *r = &rk->r[i];
		const char *cells[] = {
			rk->dumps[i].label, num(b[1], r->colls), num(b[2], r->last),
			fmt_ns(b[3], UNITS_BUF, r->waited_ns),
			fmt_ns(b[4], UNITS_BUF, r->caused_ns),
			r->step_ns ? fmt_ns(b[5], UNITS_BUF, r->step_ns) : "-",
		};

		if (r->colls)
			table_add(&t, cells);
	}
	table_print(out, &t, report_width());
	table_release(&t);
}

void ranks_report_text(FILE *out, const struct ranks *rk, size_t top)
{
	(void)top;
	fprintf(out, "gputrace ranks: %zu dump%s, %zu host%s", rk->n,
		plural(rk->n, "", "s"), rk->hosts, plural(rk->hosts, "", "s"));
	if (rk->skipped)
		fprintf(out, " (%zu more could not be read)", rk->skipped);
	fputs("\n", out);
	fprintf(out, "clock: %s\n", rk->clock);
	if (rk->v.have) {
		fprintf(out, "\nVerdict\n");
		report_wrap(out, "  ", "  ", rk->v.text);
	}
	if (rk->finding[0]) {
		fprintf(out, "\nFinding\n");
		report_wrap(out, "  - ", "    ", rk->finding);
	}
	ranks_table(out, rk);
	cost_table(out, rk);
	straggler_table(out, rk);
}

/* ---- JSON --------------------------------------------------------------- */

static void put_u(struct json *j, const char *k, uint64_t v)
{
	json_key(j, k);
	json_uint(j, v);
}

static void rank_json(struct json *j, const struct ranks *rk, size_t i)
{
	const struct rank_dump *r = &rk->r[i];

	json_begin_object(j);
	put_u(j, "rank", r->rank);
	json_key(j, "label");
	json_string(j, rk->dumps[i].label);
	json_key(j, "path");
	json_string(j, dump_name(rk->dumps[i].path));
	json_key(j, "host");
	json_string(j, r->m->host);
	put_u(j, "pid", r->m->pid);
	json_key(j, "command");
	json_string(j, *r->m->command ? r->m->command : r->m->exe);
	put_u(j, "wall_ns", r->m->wall_ns);
	put_u(j, "events", r->m->events);
	put_u(j, "dropped", r->m->dropped);
	json_key(j, "offset_ns");
	json_int(j, rk->dumps[i].offset_ns);
	put_u(j, "collectives", r->colls);
	put_u(j, "entered_last", r->last);
	put_u(j, "waited_ns", r->waited_ns);
	put_u(j, "caused_wait_ns", r->caused_ns);
	put_u(j, "lead_ns", r->lead_ns);
	json_key(j, "step_ns");
	if (r->step_ns)
		json_uint(j, r->step_ns);
	else
		json_null(j);
	put_u(j, "steady_steps", r->steady_steps);
	for (int c = 0; c < COST_KINDS; c++) {
		json_key(j, cost_keys[c]);
		if (r->cost_known[c])
			json_uint(j, r->cost[c]);
		else
			json_null(j);
	}
	json_end_object(j);
}

static void put_share(struct json *j, const char *k, int have, double v)
{
	json_key(j, k);
	if (have)
		json_double(j, v);
	else
		json_null(j);
}

static void put_text(struct json *j, const char *k, const char *v)
{
	json_key(j, k);
	if (v)
		json_string(j, v);
	else
		json_null(j);
}

/* "verdict": the job's (ranks_verdict.c), null when there is none. */
static void verdict_json(struct json *j, const struct ranks *rk)
{
	const struct job_verdict *v = &rk->v;
	double J = (double)v->job_step_ns;

	json_key(j, "verdict");
	if (!v->have) {
		json_null(j);
		return;
	}
	json_begin_object(j);
	json_key(j, "rank");
	if (v->rank >= 0)
		json_uint(j, rk->r[v->rank].rank);
	else
		json_null(j);
	put_text(j, "label", v->rank >= 0 ? rk->dumps[v->rank].label : NULL);
	put_text(j, "class", v->cls);
	put_text(j, "cause", v->cause);
	put_text(j, "collective", v->collective);
	json_key(j, "job_step_ns");
	if (v->job_step_ns)
		json_uint(j, v->job_step_ns);
	else
		json_null(j);
	put_text(j, "job_step_label", v->job_step_ns ? rk->dumps[v->job_rank].label : NULL);
	put_share(j, "est_gain_low", v->have_gain, v->gain_lo);
	put_share(j, "est_gain_high", v->have_gain, v->gain_hi);
	json_key(j, "est_job_step_low_ns");
	if (v->have_gain)
		json_uint(j, (uint64_t)(J * (1 - v->gain_hi)));
	else
		json_null(j);
	json_key(j, "est_job_step_high_ns");
	if (v->have_gain)
		json_uint(j, (uint64_t)(J * (1 - v->gain_lo)));
	else
		json_null(j);
	put_text(j, "text", v->text);
	json_end_object(j);
}

void ranks_report_json(FILE *out, const struct ranks *rk)
{
	struct json j;

	json_init(&j, out);
	json_begin_object(&j);
	put_u(&j, "dumps", rk->n);
	put_u(&j, "dumps_unread", rk->skipped);
	put_u(&j, "hosts", rk->hosts);
	json_key(&j, "clock");
	json_string(&j, rk->clock);
	put_u(&j, "collectives_matched", rk->matched);
	put_u(&j, "collectives_unmatched", rk->unmatched);
	put_u(&j, "communicators", rk->groups);
	put_u(&j, "wait_ns", rk->wait_ns);
	json_key(&j, "ranks");
	json_begin_array(&j);
	for (size_t i = 0; i < rk->n; i++)
		rank_json(&j, rk, i);
	json_end_array(&j);
	verdict_json(&j, rk);
	json_key(&j, "finding");
	if (rk->slow < 0) {
		json_null(&j);
	} else {
		json_begin_object(&j);
		put_u(&j, "rank", rk->r[rk->slow].rank);
		json_key(&j, "why");
		if (rk->why >= 0)
			json_string(&j, cost_keys[rk->why]);
		else
			json_null(&j);
		json_key(&j, "text");
		json_string(&j, rk->finding);
		json_end_object(&j);
	}
	json_end_object(&j);
}
