/* SPDX-License-Identifier: MIT */
/*
 * env_report.c - the environment and machine-state sections of the text
 * report: versions, each GPU and its links, the CPUs, the settings in the
 * program's environment (CUDA_LAUNCH_BLOCKING, NCCL_*...); then what the
 * samples saw: utilization, clocks and why they were held down,
 * temperature, power, other processes on the GPU, CPU use.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "analyzer/passes/env_internal.h"
#include "analyzer/report/report.h"
#include "analyzer/lib/units.h"
#include "analyzer/lib/util.h"

#define DEV(d, key) (&(d)->f[(key) - 32])
#define MAX_SHOWN 8
#define SETTING_SHOWN 60            /* "NAME=value" cut to this, and "..." */

static int64_t numv(const struct env_fact *f, int64_t def)
{
	int64_t v;

	return env_fact_num(f, &v) ? v : def;
}

static void cuda_version(char *buf, size_t cap, int64_t v)
{
	if (v > 0)
		snprintf(buf, cap, "%lld.%lld", (long long)v / 1000,
			 (long long)v % 1000 / 10);
	else
		snprintf(buf, cap, "?");
}

static void versions(FILE *out, const struct model *m, const struct env_stats *s)
{
	const struct env_fact *h = s->host;
	const struct env_fact *rel = &h[GT_ENV_DRIVER_RELEASE];
	char drv[48], rt[48], cupti[48];

	cuda_version(drv, sizeof(drv), numv(&h[GT_ENV_DRIVER_VERSION], 0));
	cuda_version(rt, sizeof(rt), numv(&h[GT_ENV_RUNTIME_VERSION], 0));
	snprintf(cupti, sizeof(cupti), "%lld",
		 (long long)numv(&h[GT_ENV_CUPTI_VERSION], 0));
	report_line(out, "  driver %s (CUDA %s), runtime %s, CUPTI %s%s%s%s, NVML %s",
		rel->have && rel->text ? rel->text : "?", drv,
		numv(&h[GT_ENV_RUNTIME_VERSION], 0) > 0 ? rt : "not seen",
		env_cupti(m), numv(&h[GT_ENV_CUPTI_VERSION], 0) > 0 ? " (API " : "",
		numv(&h[GT_ENV_CUPTI_VERSION], 0) > 0 ? cupti : "",
		numv(&h[GT_ENV_CUPTI_VERSION], 0) > 0 ? ")" : "", env_nvml_word(s));
}

static void gpu_line(FILE *out, const struct model *m, uint32_t i)
{
	const struct env_device *n = &m->env->nvml[i];
	int cu = env_cuda_of(m, (int)i);
	const struct env_device *c = cu >= 0 ? &m->env->cuda[cu] : NULL;
	const struct env_fact *name = DEV(n, GT_ENV_NAME);
	int64_t cc = numv(DEV(n, GT_ENV_CC), -1), sms = c ? numv(DEV(c, GT_ENV_SM_COUNT), -1) : -1;
	char mem[UNITS_BUF], sm[32] = "", links[32] = "n/a";
	const char *source;
	uint64_t total = env_gpu_memory(m, (int)i, &source);
	int64_t up;

	if (sms > 0)
		snprintf(sm, sizeof(sm), ", %lld SMs", (long long)sms);
	if (env_fact_num(DEV(n, GT_ENV_NVLINK_ACTIVE), &up))
		snprintf(links, sizeof(links), "%lld up", (long long)up);
	report_line(out, "  GPU %u: %s%s, %s memory (%s), compute capability "
		    "%lld.%lld%s", i, name->have && name->text ? name->text : "?", sm,
		    fmt_bytes(mem, sizeof(mem), total), source,
		    (long long)cc / 10, (long long)cc % 10,
		    n->s.self_n ? " (this program's)" : "");
	report_line(out, "    PCIe gen%lld x%lld (max gen%lld x%lld), NVLink %s, "
		    "ECC %s, persistence %s",
		    (long long)numv(DEV(n, GT_ENV_PCIE_GEN), 0),
		    (long long)numv(DEV(n, GT_ENV_PCIE_WIDTH), 0),
		    (long long)numv(DEV(n, GT_ENV_PCIE_GEN_MAX), 0),
		    (long long)numv(DEV(n, GT_ENV_PCIE_WIDTH_MAX), 0),
		    links,
		    numv(DEV(n, GT_ENV_ECC), -1) < 0 ? "n/a" :
		    numv(DEV(n, GT_ENV_ECC), 0) ? "on" : "off",
		    numv(DEV(n, GT_ENV_PERSISTENCE), 0) ? "on" : "off");
}

static void topology_line(FILE *out, const struct env_stats *s)
{
	int any = 0;

	for (uint32_t i = 0; i < s->n_nvml && i < MAX_SHOWN; i++)
		for (uint32_t k = 0; k < s->nvml[i].ntopo; k++) {
			uint32_t to = (uint32_t)(s->nvml[i].topo[k] >> 32);

			if (to <= i || to >= MAX_SHOWN)
				continue;
			fprintf(out, "%s%u-%u %s", any++ ? ", " : "  topology: ", i, to,
				env_topology_word((int64_t)(s->nvml[i].topo[k] & 0xffffffffu)));
		}
	if (any)
		fputc('\n', out);
}

static void cpu_line(FILE *out, const struct env_stats *s)
{
	const struct env_fact *h = s->host;
	const struct env_fact *aff = &h[GT_ENV_CPU_AFFINITY];
	int64_t quota;
	char q[64] = "";

	if (env_fact_num(&h[GT_ENV_CPU_QUOTA], &quota))
		snprintf(q, sizeof(q), ", cgroup quota %.1f CPUs", (double)quota / 1000);
	report_line(out, "  CPU: %lld cores, this process may use %lld (%s)%s",
		    (long long)numv(&h[GT_ENV_CPU_CORES], 0),
		    (long long)numv(aff, 0), aff->text ? aff->text : "?", q);
}

/* "settings: A=1, B=2", wrapped, long ones cut (the JSON has them
 * whole); nothing for a dump that does not say. */
static void settings_line(FILE *out, const struct env_stats *s)
{
	const char *mod = env_setting(s, "CUDA_MODULE_LOADING");
	size_t len = 0;
	char *list;

	if (!env_settings_known(s))
		return;
	list = xcalloc(s->nsettings + 1, SETTING_SHOWN + 6);
	for (uint32_t i = 0; i < s->nsettings; i++) {
		len += (size_t)sprintf(list + len, "%s%.*s%s", i ? ", " : "",
				       SETTING_SHOWN, s->settings[i],
				       strlen(s->settings[i]) > SETTING_SHOWN ?
				       "..." : "");
	}
	report_line(out, "  settings: %s", s->nsettings ? list :
		    "none of CUDA_*, NCCL_*, OMP_NUM_THREADS, MKL_NUM_THREADS");
	free(list);
	if (mod && !strcasecmp(mod, "EAGER"))
		report_line(out, "  note: CUDA_MODULE_LOADING=EAGER loads every "
			    "kernel of every library at start: a slower start and "
			    "more GPU memory, no faster steps");
}

static void environment(FILE *out, const struct model *m)
{
	const struct env_stats *s = m->env;

	fprintf(out, "\nEnvironment\n");
	versions(out, m, s);
	for (uint32_t i = 0; i < s->n_nvml && i < MAX_SHOWN; i++)
		gpu_line(out, m, i);
	if (s->n_nvml > MAX_SHOWN)
		fprintf(out, "  ... %u more GPUs\n", s->n_nvml - MAX_SHOWN);
	if (!s->n_nvml && strcmp(env_nvml_word(s), "ok"))
		fprintf(out, "  NVML %s: no GPU facts or samples (is "
			"libnvidia-ml.so.1 installed?)\n", env_nvml_word(s));
	topology_line(out, s);
	cpu_line(out, s);
	settings_line(out, s);
}

static void gpu_state(FILE *out, const struct env_stats *s, uint32_t i)
{
	const struct env_gpu_samples *g = &s->nvml[i].s;
	char mem[UNITS_BUF], line[512] = "", reasons[512] = "", pids[256] = "";
	char more[48] = "";
	size_t at = 0;

	if (!g->n)
		return;
	if (g->util_n)
		report_line(out, "  GPU %u: nvidia-smi utilization %.0f%% mean, %" PRIu64
			    "%% max", i, (double)g->util_sum / (double)g->util_n,
			    g->util_max);
	else
		report_line(out, "  GPU %u: nvidia-smi utilization not available", i);
	if (g->mem_used_max)
		at += (size_t)snprintf(line + at, sizeof(line) - at, " device memory in "
				       "use (all processes) up to %s;",
				       fmt_bytes(mem, sizeof(mem), g->mem_used_max));
	if (g->sm_max && at < sizeof(line))
		at += (size_t)snprintf(line + at, sizeof(line) - at, " SM clock %" PRIu64
				       "-%" PRIu64 " MHz;", g->sm_min, g->sm_max);
	if (g->temp_max && at < sizeof(line))
		at += (size_t)snprintf(line + at, sizeof(line) - at, " up to %" PRIu64
				       " C;", g->temp_max);
	if (g->power_n && at < sizeof(line))
		snprintf(line + at, sizeof(line) - at, " power %.0f W mean, %.0f W max",
			 (double)g->power_sum / (double)g->power_n / 1000,
			 (double)g->power_max / 1000);
	if (*line)
		report_line(out, "   %s", line);
	at = 0;
	for (unsigned b = 0; b < ENV_REASON_BITS && at < sizeof(reasons); b++)
		if (g->reason_n[b])
			at += (size_t)snprintf(reasons + at, sizeof(reasons) - at, "%s%s %.0f%%",
					       at ? ", " : "", env_reason_name(b),
					       100.0 * (double)g->reason_n[b] /
					       (double)(g->reasons_n ? g->reasons_n : 1));
	if (*reasons)
		report_line(out, "    clocks held down: %s (of samples)", reasons);
	at = 0;
	for (uint32_t k = 0; k < g->npids && k < 4 && at < sizeof(pids); k++)
		at += (size_t)snprintf(pids + at, sizeof(pids) - at, "%spid %u (%s)",
				       k ? ", " : "", g->pids[k],
				       fmt_bytes(mem, sizeof(mem), g->pid_mem[k]));
	if (g->npids > 4)
		snprintf(more, sizeof(more), ", ... %u more", g->npids - 4);
	if (g->npids)
		report_line(out, "    other processes: %s%s in %.0f%% of samples", pids,
			    more,
			    100.0 * (double)g->other_n / (double)g->n);
}

static void cpu_state(FILE *out, const struct env_stats *s)
{
	char line[256] = "", *at = line, *end = line + sizeof(line);
	double v;

	if (env_cpu_cores(s, GT_SAMPLE_CPU_USER, GT_SAMPLE_CPU_SYS, &v))
		at += snprintf(at, (size_t)(end - at), " this process %.2f cores", v);
	if (env_cpu_cores(s, GT_SAMPLE_CHILD_USER, GT_SAMPLE_CHILD_SYS, &v) && at < end)
		at += snprintf(at, (size_t)(end - at), ", its child processes %.2f cores", v);
	if (s->children_known && at < end)
		snprintf(at, (size_t)(end - at), " (%" PRIu64 " alive at most)",
			 s->children_max);
	report_line(out, "  CPU:%s", line);
	if (env_host_share(s, GT_SAMPLE_HOST_IOWAIT, &v))
		fprintf(out, "    machine: iowait %.1f%%", 100 * v);
	if (env_host_share(s, GT_SAMPLE_HOST_IDLE, &v))
		fprintf(out, ", idle %.0f%%\n", 100 * v);
}

void env_report_text(FILE *out, const struct model *m)
{
	const struct env_stats *s = m->env;
	int64_t ms;

	if (!s)
		return;
	environment(out, m);
	if (!s->host_samples)
		return;
	fprintf(out, "\nMachine state (%" PRIu64 " sample%s", s->host_samples,
		plural(s->host_samples, "", "s"));
	if (env_fact_num(&s->host[GT_ENV_SAMPLE_MS], &ms))
		fprintf(out, ", every %lld ms", (long long)ms);
	fprintf(out, ")\n");
	for (uint32_t i = 0; i < s->n_nvml && i < MAX_SHOWN; i++)
		gpu_state(out, s, i);
	cpu_state(out, s);
}
