/* SPDX-License-Identifier: MIT */
/*
 * nccl_report.c - the NCCL parts of the text report and of the JSON
 * document: ops, communicators and calls by (op, communicator, peer).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/lib/json.h"
#include "analyzer/passes/nccl.h"
#include "analyzer/report/report.h"
#include "analyzer/lib/table.h"
#include "analyzer/lib/units.h"
#include "analyzer/lib/util.h"

static const char *const how_names[] = { "seen", "ncclCommInitRank",
	"ncclCommInitRankConfig", "ncclCommInitAll", "ncclCommSplit", "plugin" };
static const char *const redop_names[] = { "sum", "prod", "max", "min", "avg" };

static const char *how_name(uint32_t how)
{
	return how < ARRAY_SIZE(how_names) ? how_names[how] : "?";
}

/* "2.28.9" from 22809 (2.8 and older: 2804). */
static const char *version_text(char *buf, size_t n, uint32_t v)
{
	if (v >= 10000)
		snprintf(buf, n, "%u.%u.%u", v / 10000, v / 100 % 100, v % 100);
	else
		snprintf(buf, n, "%u.%u.%u", v / 1000, v / 100 % 10, v % 100);
	return buf;
}

static const char *algorithm(const struct nccl_op *o)
{
	size_t best = 0;

	if (!o->nalgos)
		return NULL;
	for (size_t i = 1; i < o->nalgos; i++)
		if (o->algos[i].calls > o->algos[best].calls)
			best = i;
	return o->algos[best].name;
}

/* Bandwidth in GB/s (bytes per ns), < 0 when not known. */
static double gbps(double bytes, uint64_t ns)
{
	return ns && bytes > 0 ? bytes / (double)ns : -1;
}

/* ---- text ---- */

static const char *bw_cell(char *buf, double v)
{
	if (v < 0)
		return "-";
	if (v < 0.1)
		snprintf(buf, UNITS_BUF, "%.2f MB/s", v * 1000);
	else
		snprintf(buf, UNITS_BUF, "%.2f GB/s", v);
	return buf;
}

static void op_cells(const struct nccl_op *o, char (*buf)[UNITS_BUF],
		     const char **cells)
{
	const char *algo = algorithm(o);

	cells[0] = o->op;
	snprintf(buf[1], UNITS_BUF, "%" PRIu64, o->calls ? o->calls : o->plugin_calls);
	cells[1] = buf[1];
	cells[2] = o->calls ? fmt_bytes(buf[2], UNITS_BUF, o->bytes) : "-";
	cells[3] = o->calls ? fmt_ns(buf[3], UNITS_BUF, o->host_ns) : "-";
	cells[4] = o->gpu_calls ? fmt_ns(buf[4], UNITS_BUF, o->gpu_ns) : "-";
	cells[5] = algo ? algo : "-";
	cells[6] = bw_cell(buf[6], gbps(o->alg_bytes, o->bw_ns));
	cells[7] = bw_cell(buf[7], gbps(o->bus_bytes, o->bw_ns));
}

static const struct table_column op_cols[] = {
	{ "Op", 1 }, { "Calls", 0 }, { "Bytes", 0 }, { "Host time", 0 },
	{ "GPU time", 0 }, { "Algorithm", 1 }, { "Alg BW", 0 }, { "Bus BW", 0 },
};

static void comm_cells(const struct nccl_comm_row *c, char (*buf)[UNITS_BUF],
		       const char **cells)
{
	snprintf(buf[0], UNITS_BUF, "%u%s%.20s", c->c.id, *c->name ? " " : "",
		 c->name);
	cells[0] = buf[0];
	if (c->c.rank >= 0)
		snprintf(buf[1], UNITS_BUF, "%d of %d", c->c.rank, c->c.nranks);
	else
		snprintf(buf[1], UNITS_BUF, "? of %d", c->c.nranks);
	cells[1] = buf[1];
	snprintf(buf[2], UNITS_BUF, "%d", c->c.device);
	cells[2] = c->c.device >= 0 ? buf[2] : "-";
	cells[3] = how_name(c->c.how);
	snprintf(buf[4], UNITS_BUF, "%" PRIu64, c->calls);
	cells[4] = buf[4];
	cells[5] = fmt_bytes(buf[5], UNITS_BUF, c->bytes);
}

static const struct table_column comm_cols[] = {
	{ "Communicator", 1 }, { "Rank", 1 }, { "Device", 0 }, { "Made by", 1 },
	{ "Calls", 0 }, { "Bytes", 0 },
};

static void print_ops(FILE *out, const struct model *m, size_t top)
{
	char buf[TABLE_MAX_COLS][UNITS_BUF], ver[UNITS_BUF + 1] = "";
	const char *cells[TABLE_MAX_COLS];
	size_t n, shown;
	struct nccl_op **ops = nccl_ops(m, &n);
	struct table t;

	if (nccl_version(m))
		snprintf(ver, sizeof(ver), " %s",
			 version_text(buf[0], UNITS_BUF, nccl_version(m)));
	fprintf(out, "\nNCCL%s (host time in the call; GPU time from NCCL's "
		"profiler plugin)\n", ver);
	shown = top && top < n ? top : n;
	table_init(&t, op_cols, ARRAY_SIZE(op_cols));
	for (size_t i = 0; i < shown; i++) {
		op_cells(ops[i], buf, cells);
		table_add(&t, cells);
	}
	table_print(out, &t, report_width());
	table_release(&t);
	if (shown < n)
		fprintf(out, "  ... %zu more\n", n - shown);
	free(ops);
}

static void print_comms(FILE *out, const struct model *m)
{
	char buf[TABLE_MAX_COLS][UNITS_BUF];
	const char *cells[TABLE_MAX_COLS];
	size_t n;
	struct nccl_comm_row **comms = nccl_comms(m, &n);
	struct table t;

	if (n) {
		fprintf(out, "\nNCCL communicators\n");
		table_init(&t, comm_cols, ARRAY_SIZE(comm_cols));
		for (size_t i = 0; i < n; i++) {
			comm_cells(comms[i], buf, cells);
			table_add(&t, cells);
		}
		table_print(out, &t, report_width());
		table_release(&t);
	}
	free(comms);
}

void nccl_report_text(FILE *out, const struct model *m, size_t top)
{
	size_t n;

	free(nccl_ops(m, &n));
	if (!n)
		return;
	print_ops(out, m, top);
	print_comms(out, m);
}

/* ---- JSON ---- */

static void put_uint(struct json *j, const char *key, uint64_t v)
{
	json_key(j, key);
	json_uint(j, v);
}

static void put_int_or_null(struct json *j, const char *key, int64_t v, int known)
{
	json_key(j, key);
	if (!known)
		json_null(j);
	else if (v < 0)
		json_double(j, (double)v);
	else
		json_uint(j, (uint64_t)v);
}

static void put_str_or_null(struct json *j, const char *key, const char *s)
{
	json_key(j, key);
	if (s)
		json_string(j, s);
	else
		json_null(j);
}

static void put_gbps(struct json *j, const char *key, double v)
{
	json_key(j, key);
	if (v < 0)
		json_null(j);
	else
		json_double(j, v);
}

static void op_json(struct json *j, const struct nccl_op *o)
{
	json_key(j, "op");
	json_string(j, o->op);
	put_uint(j, "calls", o->calls);
	put_uint(j, "bytes", o->bytes);
	put_uint(j, "count_total", o->count_total);
	put_uint(j, "host_ns_total", o->host_ns);
	put_uint(j, "host_ns_max", o->host_max_ns);
	put_int_or_null(j, "gpu_ns_total", (int64_t)o->gpu_ns, o->gpu_calls > 0);
	put_uint(j, "gpu_calls", o->gpu_calls);
	put_uint(j, "plugin_calls", o->plugin_calls);
	put_str_or_null(j, "algorithm", algorithm(o));
	put_gbps(j, "alg_gbps", gbps(o->alg_bytes, o->bw_ns));
	put_gbps(j, "bus_gbps", gbps(o->bus_bytes, o->bw_ns));
}

static void hex(struct json *j, const char *key, uint64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%016" PRIx64, v);
	put_str_or_null(j, key, v ? buf : NULL);
}

static void comm_json(struct json *j, const struct nccl_comm_row *c)
{
	put_uint(j, "id", c->c.id);
	put_int_or_null(j, "rank", c->c.rank, c->c.rank >= 0);
	put_int_or_null(j, "nranks", c->c.nranks, c->c.nranks > 0);
	put_int_or_null(j, "device", c->c.device, c->c.device >= 0);
	put_str_or_null(j, "made_by", how_name(c->c.how));
	put_int_or_null(j, "parent", c->c.parent, c->c.parent != 0);
	put_int_or_null(j, "color", c->c.color, c->c.how == GT_NCCL_SPLIT);
	put_str_or_null(j, "name", *c->name ? c->name : NULL);
	hex(j, "uid_hash", c->c.uid_hash);
	hex(j, "nccl_hash", c->c.nccl_hash);
	put_int_or_null(j, "plugin_version", c->c.plugin, c->c.plugin != 0);
	put_uint(j, "calls", c->calls);
	put_uint(j, "bytes", c->bytes);
}

static void detail_json(struct json *j, const struct nccl_detail *d)
{
	int other = d->comm == UINT32_MAX;

	json_key(j, "op");
	json_string(j, d->op);
	put_int_or_null(j, "comm", d->comm, !other && d->comm);
	put_int_or_null(j, "peer", (int64_t)d->peer - 1, !other && d->peer);
	put_str_or_null(j, "datatype", other || !d->dtype ? NULL
			: nccl_type_name(d->dtype));
	put_str_or_null(j, "redop", other || !d->redop ? NULL
			: d->redop <= ARRAY_SIZE(redop_names)
			? redop_names[d->redop - 1] : "custom");
	put_uint(j, "calls", d->calls);
	put_uint(j, "bytes", d->bytes);
}

#define ARRAY_OF(j, key, type, fn, getter)                                   \
	do {                                                                 \
		size_t n_;                                                   \
		type **v_ = getter(m, &n_);                                  \
		json_key(j, key);                                            \
		json_begin_array(j);                                         \
		for (size_t i_ = 0; i_ < n_; i_++) {                         \
			json_begin_object(j);                                \
			fn(j, v_[i_]);                                       \
			json_end_object(j);                                  \
		}                                                            \
		json_end_array(j);                                           \
		free(v_);                                                    \
	} while (0)

void nccl_report_json(struct json *j, const struct model *m)
{
	char buf[UNITS_BUF];

	ARRAY_OF(j, "nccl", struct nccl_op, op_json, nccl_ops);
	put_str_or_null(j, "nccl_version", nccl_version(m)
			? version_text(buf, sizeof(buf), nccl_version(m)) : NULL);
	ARRAY_OF(j, "nccl_comms", struct nccl_comm_row, comm_json, nccl_comms);
	ARRAY_OF(j, "nccl_calls", struct nccl_detail, detail_json, nccl_details);
}
