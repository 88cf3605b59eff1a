/* SPDX-License-Identifier: MIT */
/*
 * env_samples.c - add up the sampler's records as they stream by: per NVML
 * device utilization, clocks, throttle reasons, temperature, power,
 * memory and the other processes on it; for the host, the first and last
 * value of each cumulative CPU counter.  Fixed memory per device.
 */
#include <string.h>

#include "analyzer/passes/env_internal.h"

static void minmax(uint64_t *min, uint64_t *max, uint64_t v, int first)
{
	if (first || v < *min)
		*min = v;
	if (v > *max)
		*max = v;
}

static void other_process(struct env_gpu_samples *g, uint32_t pid, uint64_t mem)
{
	uint32_t i;

	for (i = 0; i < g->npids && g->pids[i] != pid; i++)
		;
	if (i == ENV_MAX_PIDS)
		return;
	if (i == g->npids)
		g->pids[g->npids++] = pid;
	if (mem > g->pid_mem[i])
		g->pid_mem[i] = mem;
}

/* One item of a device sample; *util and *self carry across items. */
static void gpu_item(struct env_gpu_samples *g, const struct env_item *it,
		     int64_t *util, int *self, uint32_t *pid)
{
	uint64_t v = it->value > 0 ? (uint64_t)it->value : 0;

	if (it->status != GT_INFO_OK) {
		if (it->key == GT_SAMPLE_UTIL_GPU)
			g->util_status = it->status;
		return;
	}
	switch (it->key) {
	case GT_SAMPLE_UTIL_GPU: *util = (int64_t)v; break;
	case GT_SAMPLE_CLOCK_SM: minmax(&g->sm_min, &g->sm_max, v, !g->sm_max); break;
	case GT_SAMPLE_CLOCK_MEM: minmax(&g->mem_min, &g->mem_max, v, !g->mem_max); break;
	case GT_SAMPLE_TEMP: if (v > g->temp_max) g->temp_max = v; break;
	case GT_SAMPLE_MEM_USED: if (v > g->mem_used_max) g->mem_used_max = v; break;
	case GT_SAMPLE_OTHER_PID: *pid = (uint32_t)v; *self |= 2; break;
	case GT_SAMPLE_OTHER_MEM: other_process(g, *pid, v); break;
	case GT_SAMPLE_SELF_MEM:
		*self |= v > 0;
		if (v > g->self_mem_max)
			g->self_mem_max = v;
		break;
	case GT_SAMPLE_POWER:
		g->power_n++;
		g->power_sum += v;
		if (v > g->power_max)
			g->power_max = v;
		break;
	case GT_SAMPLE_CLOCK_REASONS:
		g->reasons_n++;
		for (unsigned b = 0; b < ENV_REASON_BITS; b++)
			g->reason_n[b] += v >> b & 1;
		break;
	}
}

static void gpu_sample(struct env_gpu_samples *g, const void *pos,
		       const void *end)
{
	struct env_item it;
	int64_t util = -1;
	int self = 0;
	uint32_t pid = 0;

	while (env_item_next(&pos, end, &it))
		gpu_item(g, &it, &util, &self, &pid);
	g->n++;
	g->other_n += (self & 2) != 0;
	if (util < 0)
		return;
	g->util_n++;
	g->util_sum += (uint64_t)util;
	if ((uint64_t)util > g->util_max)
		g->util_max = (uint64_t)util;
	if (self & 1) {
		g->self_n++;
		g->self_util_sum += (uint64_t)util;
	}
}

static void host_sample(struct env_stats *s, uint64_t t, const void *pos,
			const void *end)
{
	struct env_item it;
	struct env_counter *c;

	s->host_samples++;
	while (env_item_next(&pos, end, &it)) {
		if (it.key == GT_SAMPLE_CHILDREN) {
			s->children_known |= it.status == GT_INFO_OK;
			if (it.status == GT_INFO_OK && (uint64_t)it.value > s->children_max)
				s->children_max = (uint64_t)it.value;
			continue;
		}
		if (it.key < GT_SAMPLE_CPU_USER || it.key >= GT_SAMPLE_CPU_USER + 8 ||
		    it.status != GT_INFO_OK || it.value < 0)
			continue;
		c = &s->cpu[it.key - GT_SAMPLE_CPU_USER];
		if (!c->have) {
			c->have = 1;
			c->t_first = t;
			c->first = (uint64_t)it.value;
		}
		c->t_last = t;
		c->last = (uint64_t)it.value;
	}
}

void env_sample(struct env_stats *s, const struct dump_record *rec)
{
	const void *pos = rec->info.items;
	const void *end = (const uint8_t *)pos + rec->info.size;
	uint32_t scope = rec->info.h.scope;

	if (scope == GT_SCOPE_HOST)
		host_sample(s, rec->info.h.time_ns, pos, end);
	else if (scope < ENV_MAX_DEVICES) {
		if (scope >= s->n_nvml)
			s->n_nvml = scope + 1;
		gpu_sample(&s->nvml[scope].s, pos, end);
	}
}

int env_cpu_cores(const struct env_stats *s, int user_key, int sys_key,
		  double *cores)
{
	const struct env_counter *u = &s->cpu[user_key - GT_SAMPLE_CPU_USER];
	const struct env_counter *y = &s->cpu[sys_key - GT_SAMPLE_CPU_USER];
	uint64_t used;

	if (!u->have || !y->have || u->t_last <= u->t_first)
		return 0;
	used = (u->last > u->first ? u->last - u->first : 0) +
	       (y->last > y->first ? y->last - y->first : 0);
	*cores = (double)used / (double)(u->t_last - u->t_first);
	return 1;
}

int env_host_share(const struct env_stats *s, int key, double *share)
{
	const struct env_counter *t = &s->cpu[GT_SAMPLE_HOST_TOTAL - GT_SAMPLE_CPU_USER];
	const struct env_counter *c = &s->cpu[key - GT_SAMPLE_CPU_USER];

	if (!t->have || !c->have || t->last <= t->first || c->last < c->first)
		return 0;
	*share = (double)(c->last - c->first) / (double)(t->last - t->first);
	return 1;
}
