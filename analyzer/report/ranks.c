/* SPDX-License-Identifier: MIT */
/*
 * ranks.c - ranks_load(): read each dump into its model (first pass, the
 * dumps in parallel on the machine's cores), tell which rank each is,
 * order them by rank, put their clocks on one (ranks.h), then match
 * collectives (ranks_match.c, second pass), judge (ranks_report.c) and
 * give the job's verdict (ranks_verdict.c).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyzer/pipeline/family.h"
#include "analyzer/pipeline/loader.h"
#include "analyzer/passes/nccl.h"
#include "analyzer/pipeline/pipeline.h"
#include "analyzer/lib/progress.h"
#include "analyzer/report/ranks.h"
#include "analyzer/lib/util.h"

/* The rank in the dump's largest communicator, or -1. */
static int comm_rank(const struct model *m)
{
	size_t n, i;
	struct nccl_comm_row **c = nccl_comms(m, &n);
	int rank = -1, size = 0;

	for (i = 0; i < n; i++)
		if (c[i]->c.rank >= 0 && c[i]->c.nranks > size) {
			size = c[i]->c.nranks;
			rank = c[i]->c.rank;
		}
	free(c);
	return rank;
}

static uint32_t rank_of(const struct model *m, size_t index)
{
	int r = comm_rank(m);

	if (r >= 0)
		return (uint32_t)r;
	return m->rank != UINT32_MAX ? m->rank : (uint32_t)index;
}

static int by_rank(const void *a, const void *b)
{
	const struct rank_dump *x = a, *y = b;

	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return x->m->pid < y->m->pid ? -1 : x->m->pid > y->m->pid;
}

static uint64_t total_size(char **paths, size_t n)
{
	uint64_t t = 0;

	for (size_t i = 0; i < n; i++)
		t += progress_file_size(paths[i]);
	return t;
}

/*
 * The first pass over every dump, by up to one thread per core: each
 * takes the next dump not yet taken.  Their models land by index, and
 * what kept a dump out is said afterwards, in the order of the dumps.
 */
struct loader {
	char **paths;
	struct family *fam;         /* by index: the workers of each */
	size_t n;
	atomic_size_t next;
	_Atomic uint64_t bytes;     /* of the dumps read: the progress bar */
	unsigned want;              /* LOADER_*: what the models need */
	struct model **m;           /* by index, NULL when left out */
	char **why;                 /* ... and why */
};

#define LOADERS_MAX 64

static void *load_worker(void *arg)
{
	struct loader *l = arg;
	size_t i;

	while ((i = atomic_fetch_add(&l->next, 1)) < l->n) {
		struct model *m = xcalloc(1, sizeof(*m));

		family_give_workers(&l->fam[i], m);
		if (loader_try_model(l->paths[i], m, LOADER_NO_PROGRESS, l->want,
				     &l->why[i]) < 0) {
			free(m);
			m = NULL;
		}
		l->m[i] = m;
		atomic_fetch_add(&l->bytes, progress_file_size(l->paths[i]));
	}
	return NULL;
}

static void *load_thread(void *arg)
{
	progress_mute_thread(1);            /* the starting thread has the bar */
	return load_worker(arg);
}

static size_t loaders(size_t n)
{
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	size_t k = cores > 0 ? (size_t)cores : 1;

	k = k < n ? k : n;
	return k < LOADERS_MAX ? k : LOADERS_MAX;
}

/* The calling thread reads dumps too, beside one thread per other core;
 * the bar moves once all are read. */
static void load_parallel(struct loader *l)
{
	pthread_t t[LOADERS_MAX];
	size_t k = loaders(l->n), started = 0;

	while (started + 1 < k &&
	       pthread_create(&t[started], NULL, load_thread, l) == 0)
		started++;
	progress_mute_thread(1);            /* no bar of its own per dump */
	load_worker(l);
	progress_mute_thread(0);
	for (size_t i = 0; i < started; i++)
		pthread_join(t[i], NULL);
}

/* Keep the models read, in the order of the dumps; say what was left out. */
static void keep(struct ranks *rk, struct loader *l)
{
	for (size_t i = 0; i < l->n; i++) {
		if (!l->m[i]) {
			warning_msg("%s; left out, the other dumps are read",
				    l->why[i] ? l->why[i] : l->paths[i]);
			free(l->why[i]);
			rk->skipped++;
			continue;
		}
		rk->r[rk->n].m = l->m[i];
		rk->r[rk->n].rank = rank_of(l->m[i], rk->n);
		rk->dumps[rk->n++].path = l->paths[i];  /* reordered below */
	}
}

/* First pass: every model that can be read; 0, or -1 if none can. */
static int load_models(struct ranks *rk, char **paths, struct family *f,
		       size_t n, unsigned want)
{
	struct loader l = { .paths = paths, .fam = f, .n = n, .want = want };

	l.m = xcalloc(n, sizeof(*l.m));
	l.why = xcalloc(n, sizeof(*l.why));
	load_parallel(&l);
	progress_tick(atomic_load(&l.bytes));
	keep(rk, &l);
	free(l.m);
	free(l.why);
	if (rk->n)
		return 0;
	progress_end();
	error_msg("none of the %zu dumps could be read", n);
	return -1;
}

/* Sort the ranks, keeping each dump's path beside its model. */
static void order(struct ranks *rk)
{
	struct { struct rank_dump r; const char *path; } *v;
	size_t i;

	v = xcalloc(rk->n, sizeof(*v));
	for (i = 0; i < rk->n; i++) {
		v[i].r = rk->r[i];
		v[i].path = rk->dumps[i].path;
	}
	qsort(v, rk->n, sizeof(*v), by_rank);   /* r is the first member */
	for (i = 0; i < rk->n; i++) {
		rk->r[i] = v[i].r;
		rk->dumps[i].path = v[i].path;
	}
	free(v);
}

static int pid_unique(const struct ranks *rk, size_t i)
{
	for (size_t j = 0; j < rk->n; j++)
		if (j != i && rk->r[j].m->pid == rk->r[i].m->pid)
			return 0;
	return 1;
}

static int rank_unique(const struct ranks *rk, size_t i)
{
	for (size_t j = 0; j < rk->n; j++)
		if (j != i && rk->r[j].rank == rk->r[i].rank)
			return 0;
	return 1;
}

/* CLOCK_REALTIME - CLOCK_MONOTONIC of a dump, from its header (0 when
 * it has none). */
static int64_t realtime_shift(const char *path)
{
	struct gt_file_header h;

	if (loader_header(path, &h) < 0 || !h.start_realtime_ns)
		return 0;
	return (int64_t)(h.start_realtime_ns - h.start_ns);
}

/* Count the hosts; dumps of other hosts than the first get the offset
 * that CLOCK_REALTIME gives (ranks_match refines it). */
static void first_offsets(struct ranks *rk)
{
	int64_t ref = realtime_shift(rk->dumps[0].path);

	rk->hosts = 1;
	for (size_t i = 1; i < rk->n; i++) {
		size_t j;

		for (j = 0; j < i && strcmp(rk->r[j].m->host, rk->r[i].m->host); j++)
			;
		if (j == i)
			rk->hosts++;
		if (strcmp(rk->r[0].m->host, rk->r[i].m->host))
			rk->dumps[i].offset_ns = (int64_t)((uint64_t)realtime_shift(
				rk->dumps[i].path) - (uint64_t)ref);
		else
			rk->dumps[i].offset_ns = 0;
	}
	if (rk->hosts == 1)
		snprintf(rk->clock, sizeof(rk->clock),
			 "one host: the dumps share its CLOCK_MONOTONIC");
	else
		snprintf(rk->clock, sizeof(rk->clock), "%zu hosts: aligned on "
			 "CLOCK_REALTIME (no collective in common)", rk->hosts);
}

static void describe(struct ranks *rk)
{
	for (size_t i = 0; i < rk->n; i++) {
		struct export_dump *d = &rk->dumps[i];

		d->index = (uint32_t)i;
		d->start_ns = rk->r[i].m->start_ns;
		d->rank = rk->r[i].rank;
		d->trace_pid = pid_unique(rk, i) ? rk->r[i].m->pid : (uint32_t)i + 1;
		d->label = rank_unique(rk, i) ?
			xasprintf("rank %u", rk->r[i].rank) :
			xasprintf("rank %u pid %u", rk->r[i].rank, rk->r[i].m->pid);
		d->t_to = UINT64_MAX;
		rank_steps(&rk->r[i]);
	}
}

struct ranks *ranks_load(struct family *f, size_t n, unsigned want)
{
	struct ranks *rk = xcalloc(1, sizeof(*rk));
	char **paths = xcalloc(n, sizeof(*paths));
	int rc;

	for (size_t i = 0; i < n; i++)
		paths[i] = (char *)f[i].path;
	rk->r = xcalloc(n, sizeof(*rk->r));
	rk->dumps = xcalloc(n, sizeof(*rk->dumps));
	rk->slow = rk->why = -1;
	progress_begin("reading dumps", 2 * total_size(paths, n));
	rc = load_models(rk, paths, f, n, want);
	free(paths);    /* the models keep the families' paths */
	if (rc < 0) {
		ranks_free(rk);
		return NULL;
	}
	order(rk);
	describe(rk);
	first_offsets(rk);
	if (ranks_match(rk) < 0) {
		ranks_free(rk);
		return NULL;
	}
	progress_end();
	ranks_judge(rk);
	ranks_verdict(rk);
	return rk;
}

void ranks_free(struct ranks *rk)
{
	if (!rk)
		return;
	for (size_t i = 0; i < rk->n; i++) {
		pipeline_release(rk->r[i].m);
		free(rk->r[i].m);
		free(rk->dumps[i].label);
	}
	free(rk->r);
	free(rk->dumps);
	free(rk);
}
