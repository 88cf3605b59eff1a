/* SPDX-License-Identifier: MIT */
/*
 * replay_supply.c - DataLoader workers, replayed as a supply of batches.
 *
 * Where a DataLoader is seen (its worker processes, or its frames in the
 * stacks), each step's time waiting on data (stretches of the main
 * thread's own work flagged RPF_DATA: the batch fetch without workers,
 * the wait for theirs with them) becomes a take from the workers: it
 * costs the main process RP_HANDOFF_NS and ends no earlier than the
 * workers have the batch ready; they hand one over every interval:
 *
 *   no workers   the fetch's time in the main thread over the workers
 *   n workers    the steps' pace now (a batch a step) times n over the
 *                workers
 *
 * and no faster than the CPU allows: the workers' CPU time per batch
 * (the fetch's time without workers; theirs, sampled, with them) over
 * the cores the process may use less one.  The workers: RP_MAX_WORKERS,
 * or twice those now, at most the cores less one.  The main loop's work
 * then overlaps the workers', batches prefetched.  Where the CPU is
 * saturated it is CPU preprocessing: the data time halved.
 */
#include <stdlib.h>

#include "analyzer/diagnosis/diagnosis_internal.h"
#include "analyzer/diagnosis/replay_fix.h"
#include "analyzer/lib/util.h"

/* The steps' mean time in data stretches (steps with some), their
 * count in *with. */
static double mean_data(const struct rp_graph *g, size_t *with)
{
	uint64_t *v = fix_data_per_step(g);
	double sum = 0;

	*with = 0;
	for (uint32_t s = 0; s < g->steps; s++)
		if (v[s]) {
			sum += (double)v[s];
			(*with)++;
		}
	free(v);
	return *with ? sum / (double)*with : 0;
}

void fix_supply_items(struct edit *ed, uint64_t interval, uint64_t res)
{
	struct rp_graph *g = fix_writable(ed);
	uint32_t last = UINT32_MAX;

	if (!g->nth)
		return;
	for (size_t i = g->th[0].first; i < g->th[0].first + g->th[0].n; i++) {
		struct rp_item *it = &g->items[i];

		if (!(it->flags & RPF_DATA) || it->kind != RK_CPU)
			continue;
		if (it->step == last) {
			it->own = 0;
			continue;
		}
		last = it->step;
		it->own = it->own < res ? it->own : res;
		it->wkind = RW_SUPPLY;
		it->ret = interval;
	}
}

/* The workers after the fix, 0 none more (a core of their own for one
 * at least: with fewer than two the main process would share its own). */
static int workers_after(const struct rp_env *e)
{
	int free_cores = e->cores > 1 ? (int)e->cores - 1 : 1;
	int n = free_cores < RP_MAX_WORKERS ? free_cores : RP_MAX_WORKERS;

	if (e->cores < 2)
		return 0;
	if (n <= e->nworkers)
		n = 2 * e->nworkers < free_cores ? 2 * e->nworkers : free_cores;
	return n > e->nworkers ? n : 0;
}

uint64_t fix_step_pace(const struct rp_graph *g)
{
	return g->steps ? g->measured / g->steps : 0;
}

/* The CPU time the workers take per batch: without workers, the fetch
 * in the main thread; with them, their sampled CPU time per step. */
double fix_worker_cpu(const struct rp_graph *g, const struct rp_env *e,
		      double fetch)
{
	return e->nworkers ? e->child_cores * (double)fix_step_pace(g) : fetch;
}

static int halve_cpu(struct edit *ed, const struct rp_env *e,
		     struct rp_fix_result *r)
{
	int changed = 0;

	r->k = 2;
	for (size_t i = 0; i < ed->g->nitems; i++) {
		const struct rp_item *it = &ed->g->items[i];
		uint64_t part = e->workers ? it->loader :
				(it->flags & RPF_DATA) ? it->own : 0;

		if (it->kind != RK_CPU || !part || part > it->own)
			continue;
		fix_item(ed, i)->own -= part - part / 2;
		changed = 1;
	}
	if (changed)
		fix_assume(r, "the CPU is saturated: the data preparation's CPU "
			   "time halved");
	return changed;
}

int fix_workers(struct edit *ed, const struct rp_env *e, enum rp_end end,
		struct rp_fix_result *r)
{
	size_t with;
	double fetch = mean_data(ed->g, &with), interval, cpu, free_cores;
	int n = workers_after(e);

	(void)end;
	r->cls = e->saturated ? VC_CPU : VC_DATA;
	if (!e->dataloader || !with)
		return 0;
	if (e->saturated)
		return halve_cpu(ed, e, r);
	if (!n)
		return 0;
	r->k = n;
	free_cores = e->cores > 1 ? e->cores - 1 : 1;
	interval = e->nworkers ? (double)fix_step_pace(ed->g) * e->nworkers / n :
		   fetch / n;
	cpu = fix_worker_cpu(ed->g, e, fetch) / free_cores;
	interval = interval > cpu ? interval : cpu;
	fix_supply_items(ed, sat_from_double(interval), RP_HANDOFF_NS);
	if (e->nworkers)
		fix_assume(r, "%d workers hand over a batch every %.1f ms, %d now "
			   "every step (%.1f ms): they keep pace with more of them",
			   n, interval / 1e6, e->nworkers,
			   (double)fix_step_pace(ed->g) / 1e6);
	else
		fix_assume(r, "the batch fetch (%.1f ms a step in the main "
			   "thread) runs in %d worker processes, a batch every "
			   "%.1f ms, prefetched", fetch / 1e6, n, interval / 1e6);
	fix_assume(r, "%.0f cores free for them", free_cores);
	return 1;
}
