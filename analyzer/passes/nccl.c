/* SPDX-License-Identifier: MIT */
/*
 * nccl.c - aggregate a dump's NCCL records (see nccl.h).
 *
 * Host-side events give each op's calls, bytes and host time; profiler
 * plugin records give its GPU time: from the first channel's start to the
 * last channel's end of the kernel, as GPU timestamps.  Bandwidth follows
 * nccl-tests: algorithm bandwidth = size / GPU time, where size is count x
 * type size (x ranks for AllGather, ReduceScatter, AlltoAll, Gather and
 * Scatter, whose count is per rank), and bus bandwidth = algorithm
 * bandwidth x 2(n-1)/n for AllReduce, (n-1)/n for the per-rank ones, 1
 * for Broadcast, Reduce, Send and Recv.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/lib/hmap.h"
#include "analyzer/passes/nccl.h"
#include "analyzer/lib/util.h"

#define MAX_DETAILS 4096        /* more combinations are summed as "other" */

struct nccl_stats {
	struct hmap ops;        /* name -> struct nccl_op */
	struct hmap comms;      /* id -> struct nccl_comm_row */
	struct hmap details;    /* key -> struct nccl_detail */
	uint32_t version;
};

static const char *const type_names[] = {
	"ncclInt8", "ncclUint8", "ncclInt32", "ncclUint32", "ncclInt64",
	"ncclUint64", "ncclFloat16", "ncclFloat32", "ncclFloat64",
	"ncclBfloat16", "ncclFloat8e4m3", "ncclFloat8e5m2",
};
static const unsigned type_sizes[] = { 1, 1, 4, 4, 8, 8, 2, 4, 8, 2, 1, 1 };

unsigned nccl_type_size(const char *name)
{
	for (size_t i = 0; name && i < ARRAY_SIZE(type_names); i++)
		if (!strcmp(name, type_names[i]))
			return type_sizes[i];
	return 0;
}

const char *nccl_type_name(uint32_t dtype_plus1)
{
	if (dtype_plus1 == 0)
		return "-";
	if (dtype_plus1 > ARRAY_SIZE(type_names))
		return "?";
	return type_names[dtype_plus1 - 1];
}

int nccl_size_per_rank(const char *op)
{
	static const char *const per_rank[] = { "ncclAllGather",
		"ncclReduceScatter", "ncclAlltoAll", "ncclGather", "ncclScatter" };

	for (size_t i = 0; i < ARRAY_SIZE(per_rank); i++)
		if (!strcmp(op, per_rank[i]))
			return 1;
	return 0;
}

double nccl_bus_factor(const char *op, int nranks)
{
	static const char *const one[] = { "ncclBroadcast", "ncclBcast",
		"ncclReduce", "ncclSend", "ncclRecv" };

	for (size_t i = 0; i < ARRAY_SIZE(one); i++)
		if (!strcmp(op, one[i]))
			return 1.0;
	if (nranks <= 0)
		return 0;
	if (!strcmp(op, "ncclAllReduce"))
		return 2.0 * (nranks - 1) / nranks;
	return nccl_size_per_rank(op) ? (double)(nranks - 1) / nranks : 0;
}

static struct nccl_stats *stats(struct model *m)
{
	if (!m->nccl) {
		m->nccl = xcalloc(1, sizeof(*m->nccl));
		hmap_init(&m->nccl->ops);
		hmap_init(&m->nccl->comms);
		hmap_init(&m->nccl->details);
	}
	return m->nccl;
}

static struct nccl_op *op_row(struct nccl_stats *s, const char *name)
{
	struct nccl_op *o = hmap_get_str(&s->ops, name);

	if (!o) {
		o = xcalloc(1, sizeof(*o));
		o->op = xstrdup(name);
		hmap_put_str(&s->ops, o->op, o);
	}
	return o;
}

static struct nccl_comm_row *comm_row(struct nccl_stats *s, uint32_t id)
{
	struct nccl_comm_row *c = hmap_get_int(&s->comms, id);

	if (!c) {
		c = xcalloc(1, sizeof(*c));
		c->c.id = id;
		c->c.rank = c->c.device = c->c.color = -1;
		c->name = xstrdup("");
		hmap_put_int(&s->comms, id, c);
	}
	return c;
}

static void add_detail(struct nccl_stats *s, const struct nccl_op *o,
		       const struct dump_event *ev)
{
	uint32_t comm = (uint32_t)ev->arg[GT_ARG_NCCL_COMM];
	uint32_t peer = (uint32_t)ev->arg[GT_ARG_NCCL_PEER];
	uint32_t dtype = (uint32_t)ev->arg[GT_ARG_NCCL_DTYPE];
	uint32_t redop = (uint32_t)ev->arg[GT_ARG_NCCL_REDOP];
	char *key = xasprintf("%s|%u|%u|%u|%u", o->op, comm, peer, dtype, redop);
	struct nccl_detail *d = hmap_get_str(&s->details, key);

	if (!d && s->details.len >= MAX_DETAILS) {
		free(key);
		key = xasprintf("%s|other", o->op);
		comm = peer = dtype = redop = UINT32_MAX;
		d = hmap_get_str(&s->details, key);
	}
	if (!d) {
		d = xcalloc(1, sizeof(*d));
		*d = (struct nccl_detail){ .key = key, .op = o->op, .comm = comm,
					   .peer = peer, .dtype = dtype,
					   .redop = redop };
		hmap_put_str(&s->details, d->key, d);
	} else {
		free(key);
	}
	d->calls++;
	d->bytes = sat_add(d->bytes, ev->arg[GT_ARG_NCCL_BYTES]);
}

static void add_event(struct nccl_stats *s, const struct dump_event *ev)
{
	struct nccl_op *o = op_row(s, ev->op->api);
	uint32_t comm = (uint32_t)ev->arg[GT_ARG_NCCL_COMM];
	int coll = (ev->op->flags & GT_OPF_ASYNC) && strcmp(o->op, "ncclGroupEnd");

	o->calls++;
	o->bytes = sat_add(o->bytes, ev->arg[GT_ARG_NCCL_BYTES]);
	o->count_total = sat_add(o->count_total, ev->arg[GT_ARG_NCCL_COUNT]);
	o->host_ns = sat_add(o->host_ns, ev->dur);
	if (ev->dur > o->host_max_ns)
		o->host_max_ns = ev->dur;
	if (comm && coll) {     /* communicators come from their chunks */
		struct nccl_comm_row *c = hmap_get_int(&s->comms, comm);

		if (c) {
			c->calls++;
			c->bytes = sat_add(c->bytes, ev->arg[GT_ARG_NCCL_BYTES]);
		}
	}
	add_detail(s, o, ev);
}

/* A later chunk for the same communicator adds what it knows. */
static void add_comm(struct nccl_stats *s, const struct dump_reader *r,
		     const struct gt_nccl_comm *in)
{
	struct nccl_comm_row *row = comm_row(s, in->id);
	struct gt_nccl_comm *c = &row->c;

#define TAKE(f, unknown) if (in->f != (unknown)) c->f = in->f
	TAKE(parent, 0); TAKE(rank, -1); TAKE(nranks, 0); TAKE(device, -1);
	TAKE(color, -1); TAKE(handle, 0); TAKE(uid_hash, 0);
	TAKE(nccl_hash, 0); TAKE(t_ns, 0); TAKE(nccl_version, 0);
	TAKE(plugin, 0);
#undef TAKE
	if (in->how != GT_NCCL_SEEN && (c->how == GT_NCCL_SEEN || c->how == GT_NCCL_PLUGIN))
		c->how = in->how;
	if (in->name_str && dump_string(r, in->name_str)) {
		free(row->name);
		row->name = xstrdup(dump_string(r, in->name_str));
	}
	if (in->nccl_version > s->version)
		s->version = in->nccl_version;
}

static void tally_algo(struct nccl_op *o, const char *algo, const char *proto)
{
	char name[64];
	size_t i;

	snprintf(name, sizeof(name), "%s/%s", algo, proto ? proto : "?");
	for (i = 0; i < o->nalgos; i++)
		if (!strcmp(o->algos[i].name, name))
			break;
	if (i == o->nalgos) {
		if (o->nalgos == NCCL_ALGOS)
			return;
		o->algos[o->nalgos++].name = xstrdup(name);
	}
	o->algos[i].calls++;
}

static void add_prof(struct nccl_stats *s, const struct dump_reader *r,
		     const struct gt_nccl_prof *p)
{
	const char *func = p->func_str ? dump_string(r, p->func_str) : NULL;
	const char *algo = p->algo_str ? dump_string(r, p->algo_str) : NULL;
	char name[64];
	struct nccl_op *o;
	struct nccl_comm_row *c = p->comm ? hmap_get_int(&s->comms, p->comm) : NULL;
	int n = c ? c->c.nranks : 0;
	uint64_t ns, size;
	double factor;

	snprintf(name, sizeof(name), "nccl%s", func ? func : "Unknown");
	o = op_row(s, name);
	o->plugin_calls++;
	if (algo && *algo)
		tally_algo(o, algo, p->proto_str ? dump_string(r, p->proto_str) : NULL);
	if (!p->gpu_start || p->gpu_stop < p->gpu_start)
		return;
	ns = p->gpu_stop - p->gpu_start;
	o->gpu_calls++;
	o->gpu_ns = sat_add(o->gpu_ns, ns);
	size = p->count * nccl_type_size(p->dtype_str ? dump_string(r, p->dtype_str) : NULL);
	factor = nccl_bus_factor(name, n);
	if (!size || !ns || (nccl_size_per_rank(name) && n <= 0) ||
	    (factor == 0 && n <= 0))
		return;                 /* its size or rank count is unknown */
	o->bw_ns = sat_add(o->bw_ns, ns);
	o->alg_bytes += (double)size * (nccl_size_per_rank(name) ? n : 1);
	o->bus_bytes += (double)size * (nccl_size_per_rank(name) ? n : 1) * factor;
}

static NOINLINE void add_record(struct model *m, const struct dump_reader *r,
				const struct dump_record *rec)
{
	const uint8_t *recs = rec->nccl_prof.recs;

	switch (rec->type) {
	case DUMP_EVENT:
		if (rec->event.op->kind == GT_KIND_NCCL)
			add_event(stats(m), &rec->event);
		break;
	case DUMP_NCCL_COMM:
		add_comm(stats(m), r, &rec->nccl_comm);
		break;
	case DUMP_NCCL_PROF:
		for (uint32_t i = 0; i < rec->nccl_prof.count; i++) {
			struct gt_nccl_prof p;

			memcpy(&p, recs + (size_t)i * rec->nccl_prof.size, sizeof(p));
			add_prof(stats(m), r, &p);
		}
		break;
	default:
		break;
	}
}

/* Every record comes here: events of other kinds return before any work. */
void nccl_add(struct model *m, const struct dump_reader *r,
	      const struct dump_record *rec)
{
	if (rec->type != DUMP_EVENT || rec->event.op->kind == GT_KIND_NCCL)
		add_record(m, r, rec);
}

/* ---- results ---- */

static uint64_t op_cost(const struct nccl_op *o)
{
	return o->gpu_ns > o->host_ns ? o->gpu_ns : o->host_ns;
}

static int cmp_ops(const void *a, const void *b)
{
	const struct nccl_op *x = *(struct nccl_op *const *)a;
	const struct nccl_op *y = *(struct nccl_op *const *)b;

	if (op_cost(x) != op_cost(y))
		return op_cost(x) < op_cost(y) ? 1 : -1;
	return strcmp(x->op, y->op);
}

struct nccl_op **nccl_ops(const struct model *m, size_t *n)
{
	struct nccl_op **v;

	*n = 0;
	if (!m->nccl)
		return NULL;
	v = (struct nccl_op **)hmap_values(&m->nccl->ops, n);
	qsort(v, *n, sizeof(*v), cmp_ops);
	return v;
}

static int cmp_comms(const void *a, const void *b)
{
	const struct nccl_comm_row *x = *(struct nccl_comm_row *const *)a;
	const struct nccl_comm_row *y = *(struct nccl_comm_row *const *)b;

	return x->c.id < y->c.id ? -1 : x->c.id > y->c.id;
}

struct nccl_comm_row **nccl_comms(const struct model *m, size_t *n)
{
	struct nccl_comm_row **v;

	*n = 0;
	if (!m->nccl)
		return NULL;
	v = (struct nccl_comm_row **)hmap_values(&m->nccl->comms, n);
	qsort(v, *n, sizeof(*v), cmp_comms);
	return v;
}

static int cmp_details(const void *a, const void *b)
{
	const struct nccl_detail *x = *(struct nccl_detail *const *)a;
	const struct nccl_detail *y = *(struct nccl_detail *const *)b;

	if (x->bytes != y->bytes)
		return x->bytes < y->bytes ? 1 : -1;
	return strcmp(x->key, y->key);
}

struct nccl_detail **nccl_details(const struct model *m, size_t *n)
{
	struct nccl_detail **v;

	*n = 0;
	if (!m->nccl)
		return NULL;
	v = (struct nccl_detail **)hmap_values(&m->nccl->details, n);
	qsort(v, *n, sizeof(*v), cmp_details);
	return v;
}

uint32_t nccl_version(const struct model *m)
{
	return m->nccl ? m->nccl->version : 0;
}

void nccl_release(struct model *m)
{
	struct nccl_stats *s = m->nccl;
	size_t pos = 0;
	struct nccl_op *o;
	struct nccl_comm_row *c;
	struct nccl_detail *d;

	if (!s)
		return;
	while ((o = hmap_next(&s->ops, &pos))) {
		for (size_t i = 0; i < o->nalgos; i++)
			free(o->algos[i].name);
		free(o->op);
		free(o);
	}
	for (pos = 0; (c = hmap_next(&s->comms, &pos));) {
		free(c->name);
		free(c);
	}
	for (pos = 0; (d = hmap_next(&s->details, &pos));) {
		free(d->key);
		free(d);
	}
	hmap_release(&s->ops);
	hmap_release(&s->comms);
	hmap_release(&s->details);
	free(s);
	m->nccl = NULL;
}
