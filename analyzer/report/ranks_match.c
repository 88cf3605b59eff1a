/* SPDX-License-Identifier: MIT */
/*
 * ranks_match.c - the second pass over several dumps: read them side by
 * side (always the one furthest behind, by time since its start, so
 * collectives entered by some ranks and not yet by others stay few), put
 * each collective call in its communicator's queue of that rank, and
 * when every rank of the communicator has entered the next one, see who
 * came last and how long the others waited (the time covered by their
 * waits), in which collective, and by how much the last one trailed the
 * one before it in its step (its lead).  With several hosts the first
 * 1024 matched collectives are held until the clocks are aligned on them
 * (ranks.h).
 */
#include <stdlib.h>
#include <string.h>

#include "analyzer/export/export_facts.h"
#include "analyzer/passes/nccl.h"
#include "analyzer/lib/progress.h"
#include "analyzer/report/ranks.h"
#include "analyzer/lib/util.h"

#define READ_BATCH 4096             /* records read from one dump in a row */
#define QUEUE_MAX (1u << 20)        /* collectives waiting, per rank */
#define ALIGN_ON 1024               /* collectives the clocks align on */

struct entry {
	uint64_t t0;                /* entered, on its own clock */
	size_t op;                  /* index in collectives[] */
};

struct queue {
	struct entry *v;
	size_t head, len, cap;
};

struct group {
	uint64_t key;
	size_t n;                   /* members: dumps that use it */
	size_t *dump;
	struct queue *q;
	int broken;                 /* a queue overflowed: no more matching */
};

struct held {
	size_t group;
	struct entry *e;            /* raw entries, per member */
};

struct match {
	struct ranks *rk;
	struct group *g;
	size_t ng;
	struct hmap *local;         /* per dump: comm id -> group << 16 | member, + 1 */
	struct hmap *ops;           /* per dump: op id -> collectives[] index
	                               + 1, or NOT_COLLECTIVE */
	size_t *host;               /* per dump: index of its host */
	struct held held[ALIGN_ON];
	size_t nheld;
	int aligned;
};

#define NOT_COLLECTIVE 0xff

static const struct { const char *api, *name; } collectives[RANKS_COLLECTIVES] = {
	{ "ncclAllReduce", "all-reduce" }, { "ncclBroadcast", "broadcast" },
	{ "ncclBcast", "broadcast" }, { "ncclReduce", "reduce" },
	{ "ncclAllGather", "all-gather" }, { "ncclReduceScatter", "reduce-scatter" },
	{ "ncclAlltoAll", "all-to-all" }, { "ncclGather", "gather" },
	{ "ncclScatter", "scatter" },
};

const char *ranks_collective_name(size_t i)
{
	return i < ARRAY_SIZE(collectives) ? collectives[i].name : "collectives";
}

/* The op's index in collectives[] + 1, or 0 when it is none. */
static size_t collective_of(struct match *mt, size_t d, const struct dump_op *op)
{
	uintptr_t v = (uintptr_t)hmap_get_int(&mt->ops[d], op->id);

	if (!v) {
		v = NOT_COLLECTIVE;
		for (size_t i = 0; i < ARRAY_SIZE(collectives); i++)
			if (!strcmp(op->api, collectives[i].api))
				v = i + 1;
		hmap_put_int(&mt->ops[d], op->id, (void *)v);
	}
	return v == NOT_COLLECTIVE ? 0 : v;
}

/* The same communicator in every dump: its uid hash, else NCCL's hash,
 * else (as a last resort) its size and the order it was made in. */
static uint64_t comm_key(const struct gt_nccl_comm *c)
{
	if (c->uid_hash)
		return c->uid_hash;
	if (c->nccl_hash)
		return c->nccl_hash ^ 0x9e3779b97f4a7c15ull;
	return 0xc0ull << 56 | (uint64_t)(uint32_t)c->nranks << 24 | c->id;
}

static size_t group_of(struct match *mt, uint64_t key)
{
	size_t i;

	for (i = 0; i < mt->ng; i++)
		if (mt->g[i].key == key)
			return i;
	mt->g = xrealloc(mt->g, (mt->ng + 1) * sizeof(*mt->g));
	memset(&mt->g[i], 0, sizeof(mt->g[i]));
	mt->g[i].key = key;
	return mt->ng++;
}

/* Groups from the communicators the first pass found in each dump. */
static void make_groups(struct match *mt)
{
	struct ranks *rk = mt->rk;

	for (size_t d = 0; d < rk->n; d++) {
		size_t n;
		struct nccl_comm_row **c = nccl_comms(rk->r[d].m, &n);

		for (size_t i = 0; i < n; i++) {
			struct group *g;
			size_t gi;

			if (!c[i]->calls)
				continue;
			gi = group_of(mt, comm_key(&c[i]->c));  /* may move mt->g */
			g = &mt->g[gi];
			g->dump = xrealloc(g->dump, (g->n + 1) * sizeof(*g->dump));
			g->dump[g->n++] = d;
		}
		free(c);
	}
	for (size_t i = 0; i < mt->ng; i++) {
		struct group *g = &mt->g[i];

		g->q = xcalloc(g->n, sizeof(*g->q));
		if (g->n > 1)
			mt->rk->groups++;
	}
}

static void map_members(struct match *mt)
{
	struct ranks *rk = mt->rk;

	for (size_t d = 0; d < rk->n; d++) {
		size_t n;
		struct nccl_comm_row **c = nccl_comms(rk->r[d].m, &n);

		for (size_t i = 0; i < n; i++) {
			size_t gi = group_of(mt, comm_key(&c[i]->c)), k;
			struct group *g = &mt->g[gi];

			for (k = 0; k < g->n && g->dump[k] != d; k++)
				;
			if (k < g->n && g->n > 1 && k < 0xffff)
				hmap_put_int(&mt->local[d], c[i]->c.id,
					     (void *)(uintptr_t)((gi << 16 | k) + 1));
		}
		free(c);
	}
}

/* ---- what a matched collective says ------------------------------------ */

/* The step of its steady steps that t (its own clock) falls in, + 1;
 * 0 outside them. */
static size_t step_at(const struct rank_dump *r, uint64_t t)
{
	const uint64_t *b;
	size_t n, lo = 0, hi;

	if (!r->steady_steps || t < r->steady_t0 || t >= r->steady_t1 ||
	    !facts_step_bounds(r->m, &b, &n))
		return 0;
	hi = n;
	while (hi - lo > 1) {           /* b[lo] <= t < b[hi] */
		size_t mid = lo + (hi - lo) / 2;

		if (b[mid] <= t)
			lo = mid;
		else
			hi = mid;
	}
	return lo + 1;
}

/* The last rank entered at t (its clock), lead after the one before it
 * ([from, to] on the aligned clock): per step, the largest lead counts;
 * without steps, the time its leads cover. */
static void lead(struct rank_dump *r, uint64_t t, uint64_t from, uint64_t to)
{
	size_t step;

	if (!r->steady_steps) {
		from = from > r->lead_until ? from : r->lead_until;
		r->lead_ns += to > from ? to - from : 0;
		r->lead_until = to > r->lead_until ? to : r->lead_until;
		return;
	}
	if (!(step = step_at(r, t)))
		return;
	if (step != r->lead_step) {
		r->lead_ns += r->lead_max;
		r->lead_max = 0;
		r->lead_step = step;
	}
	if (to - from > r->lead_max)
		r->lead_max = to - from;
}

static void account(struct match *mt, const struct group *g,
		    const struct entry *in)
{
	struct ranks *rk = mt->rk;
	uint64_t e[g->n], emax = 0, e2 = 0, sum = 0;
	size_t k, last = 0;

	for (k = 0; k < g->n; k++) {
		e[k] = in[k].t0 + (uint64_t)rk->dumps[g->dump[k]].offset_ns;
		if (!k || e[k] > emax) {
			emax = e[k];
			last = k;
		}
	}
	for (k = 0; k < g->n; k++) {
		struct rank_dump *r = &rk->r[g->dump[k]];
		uint64_t from = e[k] > r->wait_until ? e[k] : r->wait_until;
		uint64_t w = emax > from ? emax - from : 0;

		if (k != last && (e2 == 0 || e[k] > e2))
			e2 = e[k];
		r->wait_until = emax > r->wait_until ? emax : r->wait_until;
		r->colls++;
		r->waited_ns += w;
		sum += w;
	}
	lead(&rk->r[g->dump[last]], in[last].t0, e2, emax);
	rk->r[g->dump[last]].last++;
	rk->r[g->dump[last]].caused_ns += sum;
	if (in[last].op < RANKS_COLLECTIVES)
		rk->wait_by_op[in[last].op] += sum;
	rk->wait_ns += sum;
	rk->matched++;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* The earliest entry among the members on host h, or 0 if none. */
static int earliest(struct match *mt, const struct held *hd, size_t h,
		    int64_t *out)
{
	const struct group *g = &mt->g[hd->group];
	int found = 0;

	for (size_t k = 0; k < g->n; k++) {
		size_t d = g->dump[k];
		int64_t e = (int64_t)(hd->e[k].t0 + (uint64_t)mt->rk->dumps[d].offset_ns);

		if (mt->host[d] == h && (!found || e < *out)) {
			*out = e;
			found = 1;
		}
	}
	return found;
}

/* Align host h on host 0: the median shift of their earliest entries. */
static size_t align_host(struct match *mt, size_t h)
{
	int64_t *diff = xcalloc(mt->nheld + 1, sizeof(*diff)), a = 0, b = 0;
	size_t n = 0;

	for (size_t i = 0; i < mt->nheld; i++)
		if (earliest(mt, &mt->held[i], 0, &a) &&
		    earliest(mt, &mt->held[i], h, &b))
			diff[n++] = a - b;
	if (n) {
		qsort(diff, n, sizeof(*diff), cmp_i64);
		for (size_t d = 0; d < mt->rk->n; d++)
			if (mt->host[d] == h)
				mt->rk->dumps[d].offset_ns += diff[n / 2];
	}
	free(diff);
	return n;
}

static void align(struct match *mt)
{
	struct ranks *rk = mt->rk;
	size_t used = 0, missed = 0, n;

	mt->aligned = 1;
	for (size_t h = 1; h < rk->hosts; h++) {
		n = align_host(mt, h);
		used = n > used ? n : used;
		missed += !n;
	}
	if (rk->hosts > 1 && used)
		snprintf(rk->clock, sizeof(rk->clock), "%zu hosts: aligned on "
			 "%zu collective%s (the earliest rank of each host)%s",
			 rk->hosts, used, plural(used, "", "s"), missed ? "; some hosts on "
			 "CLOCK_REALTIME only" : "");
	for (size_t i = 0; i < mt->nheld; i++) {
		account(mt, &mt->g[mt->held[i].group], mt->held[i].e);
		free(mt->held[i].e);
	}
	mt->nheld = 0;
}

static void matched(struct match *mt, size_t gi, const struct entry *e)
{
	struct held *hd;

	if (mt->aligned) {
		account(mt, &mt->g[gi], e);
		return;
	}
	hd = &mt->held[mt->nheld++];
	hd->group = gi;
	hd->e = xmalloc(mt->g[gi].n * sizeof(*e));
	memcpy(hd->e, e, mt->g[gi].n * sizeof(*e));
	if (mt->nheld == ALIGN_ON)
		align(mt);
}

/* ---- queues ---------------------------------------------------------------- */

static void push(struct queue *q, struct entry v)
{
	if (q->len == q->cap) {
		size_t cap = q->cap ? q->cap * 2 : 16;
		struct entry *nv = xmalloc(cap * sizeof(*nv));

		for (size_t i = 0; i < q->len; i++)
			nv[i] = q->v[(q->head + i) % q->cap];
		free(q->v);
		q->v = nv;
		q->cap = cap;
		q->head = 0;
	}
	q->v[(q->head + q->len++) % q->cap] = v;
}

static struct entry pop(struct queue *q)
{
	struct entry v = q->v[q->head];

	q->head = (q->head + 1) % q->cap;
	q->len--;
	return v;
}

static void try_match(struct match *mt, size_t gi)
{
	struct group *g = &mt->g[gi];
	struct entry e[g->n];
	size_t k;

	for (;;) {
		for (k = 0; k < g->n && g->q[k].len; k++)
			;
		if (k < g->n)
			return;
		for (k = 0; k < g->n; k++)
			e[k] = pop(&g->q[k]);
		matched(mt, gi, e);
	}
}

static void collective(struct match *mt, size_t d, const struct dump_event *ev,
		       size_t op)
{
	uintptr_t v = (uintptr_t)hmap_get_int(&mt->local[d], ev->arg[GT_ARG_NCCL_COMM]);
	struct rank_dump *r = &mt->rk->r[d];
	struct group *g;
	size_t gi = (v - 1) >> 16, k = (v - 1) & 0xffff;

	if (!r->have_tid) {
		r->have_tid = 1;
		r->coll_tid = ev->tid;
		r->first_coll = ev->t0;
	}
	if (ev->tid == r->coll_tid) {
		r->last_coll = ev->t0;
		r->traced_at_last = r->traced;
	}
	if (r->steady_steps && ev->t0 >= r->steady_t0 && ev->t0 < r->steady_t1) {
		r->steady_colls++;
		r->steady_bytes = sat_add(r->steady_bytes, ev->arg[GT_ARG_NCCL_BYTES]);
	}
	if (!v || (g = &mt->g[gi])->broken)
		return;
	if (g->q[k].len >= QUEUE_MAX) {
		warning_msg("collectives of one communicator do not match across "
			    "the dumps (over %u waiting): stragglers are not "
			    "counted for it", QUEUE_MAX);
		g->broken = 1;
		return;
	}
	push(&g->q[k], (struct entry){ .t0 = ev->t0, .op = op });
	try_match(mt, gi);
}

static void event(struct match *mt, size_t d, const struct dump_event *ev)
{
	struct rank_dump *r = &mt->rk->r[d];
	size_t op;

	if (r->have_tid && ev->tid == r->coll_tid && ev->t0 >= r->first_coll)
		r->traced += ev->dur;
	if (ev->op->kind == GT_KIND_NCCL && (op = collective_of(mt, d, ev->op)))
		collective(mt, d, ev, op - 1);
}

/* ---- reading side by side ------------------------------------------------- */

struct side {
	struct dump_reader *r;
	uint64_t now;               /* time since its start, last event */
	uint64_t base;              /* progress bar position of byte 0 */
	int done;
};

/* Read a batch of records from dump d: 0, or -1 (said). */
static int read_batch(struct match *mt, struct side *s, size_t d)
{
	struct dump_record rec;
	int rc = 1;

	for (int i = 0; i < READ_BATCH && (rc = dump_next(s->r, &rec)) > 0; i++) {
		progress_tick(s->base + rec.offset);
		if (rec.type == DUMP_OP) {
			hmap_put_int(&mt->ops[d], rec.op->id, NULL);
		} else if (rec.type == DUMP_EVENT) {
			uint64_t start = mt->rk->r[d].m->start_ns;

			s->now = rec.event.t0 > start ? rec.event.t0 - start : 0;
			event(mt, d, &rec.event);
		}
	}
	if (rc < 0) {
		progress_end();
		error_msg("%s", dump_error(s->r));
		return -1;
	}
	s->done = rc == 0;
	return 0;
}

static int read_all(struct match *mt, struct side *s)
{
	size_t n = mt->rk->n, pick;

	for (;;) {
		pick = n;
		for (size_t d = 0; d < n; d++)
			if (!s[d].done && (pick == n || s[d].now < s[pick].now))
				pick = d;
		if (pick == n)
			return 0;
		if (read_batch(mt, &s[pick], pick) < 0)
			return -1;
	}
}

static int open_all(struct match *mt, struct side *s)
{
	uint64_t base = 0;

	for (size_t d = 0; d < mt->rk->n; d++)
		base += progress_file_size(mt->rk->dumps[d].path);
	for (size_t d = 0; d < mt->rk->n; d++) {
		s[d].base = base;
		base += progress_file_size(mt->rk->dumps[d].path);
		if (dump_open(&s[d].r, mt->rk->dumps[d].path) < 0) {
			error_msg("%s", dump_error(s[d].r));
			return -1;
		}
	}
	return 0;
}

static void finish(struct match *mt)
{
	if (!mt->aligned)
		align(mt);
	for (size_t i = 0; i < mt->ng; i++) {
		struct group *g = &mt->g[i];
		size_t most = 0;

		for (size_t k = 0; k < g->n; k++) {
			most = g->q[k].len > most ? g->q[k].len : most;
			free(g->q[k].v);
		}
		if (g->n > 1)
			mt->rk->unmatched += most;
		free(g->q);
		free(g->dump);
	}
	for (size_t d = 0; d < mt->rk->n; d++) {
		struct rank_dump *r = &mt->rk->r[d];

		r->lead_ns += r->lead_max;      /* its last step */
		r->lead_max = 0;
		hmap_release(&mt->local[d]);
		hmap_release(&mt->ops[d]);
	}
}

static void host_indexes(struct match *mt)
{
	struct ranks *rk = mt->rk;
	size_t next = 0;

	for (size_t d = 0; d < rk->n; d++) {
		size_t j;

		for (j = 0; j < d && strcmp(rk->r[j].m->host, rk->r[d].m->host); j++)
			;
		mt->host[d] = j < d ? mt->host[j] : next++;
	}
}

int ranks_match(struct ranks *rk)
{
	struct match mt = { .rk = rk, .aligned = rk->hosts == 1 };
	struct side *s = xcalloc(rk->n, sizeof(*s));
	int rc;

	mt.local = xcalloc(rk->n, sizeof(*mt.local));
	mt.ops = xcalloc(rk->n, sizeof(*mt.ops));
	mt.host = xcalloc(rk->n, sizeof(*mt.host));
	host_indexes(&mt);
	make_groups(&mt);
	map_members(&mt);
	rc = open_all(&mt, s);
	if (rc == 0)
		rc = read_all(&mt, s);
	finish(&mt);
	for (size_t d = 0; d < rk->n; d++)
		dump_close(s[d].r);
	for (size_t i = 0; i < mt.nheld; i++)
		free(mt.held[i].e);
	free(s);
	free(mt.g);
	free(mt.local);
	free(mt.ops);
	free(mt.host);
	return rc;
}
