/* SPDX-License-Identifier: MIT */
/*
 * verdict_env.c - the facts the verdict draws from the environment and
 * sample records (env.h): CPU use against what the process may use,
 * worker processes, the GPU's SMs and memory, throttling, other
 * processes on the GPU, the PCIe link, the CUDA versions and the
 * settings the program was started with (CUDA_LAUNCH_BLOCKING, NCCL's
 * transports, CUDA_MODULE_LOADING).  Only what is wrong weighs on the
 * environment's score: clocks held down for heat or a hardware slowdown
 * (the power limit under full load is normal), the program's own kernels
 * slower than their fast runs while another process was on the GPU (not
 * its mere presence: the GPU's heavy user beside a light process is not
 * slowed), a PCIe link narrower than it can be, and bad settings.
 */
#include <stdlib.h>
#include <strings.h>

#include "analyzer/diagnosis/diagnosis_internal.h"
#include "analyzer/passes/env_internal.h"

#define DEV(d, key) (&(d)->f[(key) - 32])

/* Reasons that hold clocks down for heat or a hardware slowdown (NVML
 * bits).  The software power cap (bit 2) is left out: a GPU busy with
 * heavy kernels runs at its power limit, which is no fault. */
#define THROTTLE_BITS (1u << 3 | 1u << 5 | 1u << 6 | 1u << 7)
#define POWER_CAP_BIT 2
#define THROTTLE_MIN 0.2        /* of the samples: clocks held down */
#define OTHER_MIN 0.2           /* of the samples: another process there */
#define CONTENTION_MIN 0.05     /* of the kernel time lost: slowed */

static int64_t num(const struct env_fact *f, int64_t dflt)
{
	int64_t v;

	return env_fact_num(f, &v) ? v : dflt;
}

static void cpu_facts(const struct env_stats *s, struct env_facts *e)
{
	const struct env_fact *h = s->host;
	double v;

	e->have_cpu = env_cpu_cores(s, GT_SAMPLE_CPU_USER, GT_SAMPLE_CPU_SYS,
				    &e->proc_cores);
	if (env_cpu_cores(s, GT_SAMPLE_CHILD_USER, GT_SAMPLE_CHILD_SYS, &v))
		e->child_cores = v;
	if (env_host_share(s, GT_SAMPLE_HOST_IOWAIT, &v))
		e->iowait_share = v;
	e->children_max = s->children_max;
	e->allowed_cores = (double)num(&h[GT_ENV_CPU_AFFINITY], 0);
	if (num(&h[GT_ENV_CPU_QUOTA], 0) > 0 &&
	    (e->allowed_cores <= 0 ||
	     num(&h[GT_ENV_CPU_QUOTA], 0) / 1000.0 < e->allowed_cores))
		e->allowed_cores = num(&h[GT_ENV_CPU_QUOTA], 0) / 1000.0;
	if (e->allowed_cores <= 0)
		e->allowed_cores = (double)num(&h[GT_ENV_CPU_CORES], 0);
	e->saturated = e->have_cpu && e->allowed_cores > 0 &&
		       e->proc_cores + e->child_cores >= 0.85 * e->allowed_cores;
	e->driver_version = num(&h[GT_ENV_DRIVER_VERSION], 0);
	e->runtime_version = num(&h[GT_ENV_RUNTIME_VERSION], 0);
}

static void gpu_samples(const struct env_device *n, struct env_facts *e)
{
	const struct env_gpu_samples *g = &n->s;
	uint64_t worst = 0;

	for (unsigned b = 0; b < ENV_REASON_BITS; b++) {
		if (!(THROTTLE_BITS >> b & 1) || !g->reason_n[b])
			continue;
		e->throttle_bits |= 1u << b;
		if (g->reason_n[b] > worst)
			worst = g->reason_n[b];
	}
	e->throttle_share = g->reasons_n ? (double)worst / (double)g->reasons_n : 0;
	e->power_cap_share = g->reasons_n ? (double)g->reason_n[POWER_CAP_BIT] /
					    (double)g->reasons_n : 0;
	e->other_share = g->n ? (double)g->other_n / (double)g->n : 0;
	e->self_mem = g->self_mem_max;
}

/* A variable set to a number other than 0 ("1"): CUDA's and NCCL's own
 * reading of their switches. */
static int switched_on(const struct env_stats *s, const char *name)
{
	const char *v = env_setting(s, name);

	return v && strtol(v, NULL, 0) != 0;
}

static void setting_facts(const struct env_stats *s, struct env_facts *e)
{
	const char *mod = env_setting(s, "CUDA_MODULE_LOADING");

	e->launch_blocking = switched_on(s, "CUDA_LAUNCH_BLOCKING");
	e->p2p_off = switched_on(s, "NCCL_P2P_DISABLE");
	e->ib_off = switched_on(s, "NCCL_IB_DISABLE");
	e->eager_modules = mod && !strcasecmp(mod, "EAGER");
}

void verdict_env_facts(const struct model *m, struct diagnosis *d)
{
	const struct env_stats *s = m->env;
	struct env_facts *e = &d->env;
	int i, c;

	if (!s)
		return;
	cpu_facts(s, e);
	setting_facts(s, e);
	i = env_main_nvml(m);
	c = i >= 0 ? env_cuda_of(m, i) : -1;
	if (c < 0 && s->n_cuda)
		c = 0;
	if (c >= 0)
		e->sm_count = (int)num(DEV(&s->cuda[c], GT_ENV_SM_COUNT), 0);
	e->gpu_mem = env_gpu_memory(m, i, &e->gpu_mem_source);
	if (i < 0)
		return;
	gpu_samples(&s->nvml[i], e);
	e->contention = contention_share(d);
	e->pcie_gen = (int)num(DEV(&s->nvml[i], GT_ENV_PCIE_GEN), 0);
	e->pcie_gen_max = (int)num(DEV(&s->nvml[i], GT_ENV_PCIE_GEN_MAX), 0);
	e->pcie_width = (int)num(DEV(&s->nvml[i], GT_ENV_PCIE_WIDTH), 0);
	e->pcie_width_max = (int)num(DEV(&s->nvml[i], GT_ENV_PCIE_WIDTH_MAX), 0);
}

double verdict_env_contention(const struct diagnosis *d)
{
	const struct env_facts *e = &d->env;

	return e->other_share >= OTHER_MIN && e->contention >= CONTENTION_MIN ?
	       e->contention : 0;
}

double verdict_env_throttle(const struct diagnosis *d)
{
	const struct env_facts *e = &d->env;

	return e->throttle_share >= THROTTLE_MIN ? 0.25 * e->throttle_share : 0;
}

double verdict_env_link(const struct diagnosis *d)
{
	const struct env_facts *e = &d->env;

	return e->pcie_width > 0 && e->pcie_width < e->pcie_width_max ?
	       1 - (double)e->pcie_width / e->pcie_width_max : 0;
}

/*
 * CUDA_LAUNCH_BLOCKING unset: the host no longer waits inside a launch for
 * its kernel, so its work overlaps the GPU's.  The wait is the time in
 * launch calls, at most the kernels' time (GPU records); the overlap it
 * can win is at most the GPU's idle time (without GPU records: the host's
 * time outside launches).  The high end is that overlap in full, the low
 * end half of it: waits the program makes itself (.item()) keep part of
 * the run serial.
 */
double verdict_blocking_gain(const struct diagnosis *d)
{
	int gpu = d->have_gpu && d->steady.span_ns;
	double T = (double)(gpu ? d->steady.span_ns : d->host.span_ns);
	double wait = (double)d->region_launch_ns, idle;

	if (gpu) {
		wait = wait < (double)d->steady.busy_ns ? wait :
		       (double)d->steady.busy_ns;
		idle = T - (double)d->steady.busy_ns;
	} else {
		idle = T - wait;
	}
	return T > 0 && idle > 0 ? (wait < idle ? wait : idle) / T : 0;
}

void verdict_env_gain(const struct diagnosis *d, double score, double *lo,
		      double *hi)
{
	double rest = score - d->env.blocking_score, b = 0;

	if (d->env.launch_blocking)
		b = verdict_blocking_gain(d);
	rest = rest > 0 ? rest : 0;
	*hi = b + rest;
	*lo = b / 2 + rest / 3;
}
