/* SPDX-License-Identifier: MIT */
/*
 * verdict.c - score the six bottleneck classes from
 * the attributed idle time, and order them.
 *
 * A class's score is the share of the steady state's GPU time it
 * explains:
 *   data supply        idle waiting on worker processes (CPU not
 *                      saturated), on I/O, on work in the main process
 *                      when there are no workers, or on nothing known
 *   CPU preprocessing  the same when the CPUs the process may use were
 *                      saturated, or main-process CPU work beside workers
 *   memory & batch     copies, uploads waited for at once, and launch
 *                      gaps and busy time as far as the batch is too
 *                      small (kernels filling under half the SMs, or an
 *                      optimizer step taking a large share of GPU time:
 *                      verdict_batch; without GPU records the host's
 *                      launching as far as launches have such grids)
 *   communication      NCCL alone, sync bubbles after reading results,
 *                      host work behind a readback (idle_readback.c;
 *                      without GPU records: host time outside CUDA right
 *                      after a wait that emptied the queue)
 *   kernel efficiency  launch gaps and launch latency of kernels that do
 *                      fill the GPU: too many, too small
 *   environment        work queued while another process ran; clocks
 *                      held down for heat or a hardware slowdown, and the
 *                      kernels' time lost beyond their fast runs while
 *                      another process was on the GPU, weigh on busy time
 *                      (another process there, or the power limit, alone
 *                      are no evidence); a narrow PCIe link on copies;
 *                      with CUDA_LAUNCH_BLOCKING set, the launch gaps and
 *                      the waits for no copy (every launch waited for
 *                      its kernel: the program's own launching cannot be
 *                      told from it); NCCL_P2P_DISABLE or NCCL_IB_DISABLE
 *                      weigh on NCCL time
 * "Healthy" (busy above 85% and nothing else above 15%) points at
 * kernel-level tools.  Without GPU records the host's time is scored
 * instead, and the verdict says the GPU side is unknown.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/diagnosis/diagnosis_internal.h"
#include "analyzer/lib/util.h"

#define HEALTHY_BUSY 0.85
#define HEALTHY_OTHERS 0.15
#define MIN_SCORE 0.02
#define GRAPHS_USED 0.5         /* of the kernels in CUDA graphs: the step
				   is a graph already */

static const char *const class_names[VC_KINDS] = {
	"data_supply", "cpu_preprocessing", "memory_batch", "communication",
	"kernel_efficiency", "environment", "healthy",
};

static const char *const class_titles[VC_KINDS] = {
	"data supply", "CPU preprocessing", "memory & batch configuration",
	"communication & sync", "kernel efficiency", "environment & driver",
	"healthy (compute-bound)",
};

const char *verdict_class_name(enum vclass c)
{
	return c < VC_KINDS ? class_names[c] : "?";
}

const char *verdict_class_title(enum vclass c)
{
	return c < VC_KINDS ? class_titles[c] : "?";
}

void verdict_add_text(struct verdict *v, int advice, const char *fmt, ...)
{
	char **list = advice ? v->advice : v->evidence;
	size_t *n = advice ? &v->nadv : &v->nev;
	va_list ap;
	char *s;

	if (*n == VERDICT_TEXTS)
		return;
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		die("out of memory");
	va_end(ap);
	list[(*n)++] = s;
}

/* Share of compute kernel time in kernels filling under half the SMs. */
double verdict_lowfill(const struct diagnosis *d)
{
	return d->region_fill_known_ns ?
	       (double)d->region_lowfill_ns / (double)d->region_fill_known_ns : 0;
}

/* Without GPU records: share of launches whose grids fill under half the
 * SMs (by count: no kernel times). */
double verdict_lowfill_launches(const struct diagnosis *d)
{
	return d->region_fill_known_launches ?
	       (double)d->region_lowfill_launches /
	       (double)d->region_fill_known_launches : 0;
}

double verdict_opt_share(const struct diagnosis *d)
{
	uint64_t compute = d->region_kernel_ns > d->region_nccl_ns ?
			   d->region_kernel_ns - d->region_nccl_ns : 0;

	return compute ? (double)d->region_opt_ns / (double)compute : 0;
}

double verdict_batch(const struct diagnosis *d)
{
	double opt = (verdict_opt_share(d) - 0.10) / 0.15;
	double low = verdict_lowfill(d);

	opt = opt < 0 ? 0 : opt > 1 ? 1 : opt;
	return low > opt ? low : opt;
}

double verdict_graph_share(const struct diagnosis *d)
{
	uint64_t direct = d->region_launches > d->region_graphs ?
			  d->region_launches - d->region_graphs : 0;

	if (!d->region_graphs)
		return 0;
	if (!d->region_kernels)         /* no GPU records: a graph holds one at least */
		return (double)d->region_graphs / (double)d->region_launches;
	return d->region_kernels > direct ?
	       (double)(d->region_kernels - direct) / (double)d->region_kernels : 0;
}

int verdict_graphs_used(const struct diagnosis *d)
{
	return verdict_graph_share(d) >= GRAPHS_USED;
}

static void gpu_scores(const struct diagnosis *d, double *s)
{
	const struct breakdown *b = &d->steady;
	const struct env_facts *e = &d->env;
	double T = (double)b->span_ns, busy = b->busy_ns / T;
	const uint64_t *c = b->cause;
	double low = verdict_batch(d), launch = (c[IC_LAUNCH] + c[IC_LATENCY]) / T;
	int workers = e->children_max > 0 || e->child_cores > 0.1;

	s[VC_DATA] = ((e->saturated ? 0 : c[IC_LOADER]) + c[IC_IO] + c[IC_OUTSIDE] +
		      (workers || e->saturated ? 0 : c[IC_CPU])) / T;
	s[VC_CPU] = ((e->saturated ? c[IC_LOADER] : 0) +
		     (workers || e->saturated ? c[IC_CPU] : 0)) / T;
	s[VC_MEMORY] = (c[IC_COPY] + b->sync_kind[SK_UPLOAD]) / T +
		       launch * low + 0.5 * busy * low;
	s[VC_COMM] = (c[IC_COMM] + b->sync_kind[SK_OTHER] +
		      b->sync_kind[SK_READBACK]) / T;
	s[VC_KERNEL] = launch * (1 - low);
	s[VC_ENV] = c[IC_ENV] / T + busy * (verdict_env_contention(d) +
					    verdict_env_throttle(d)) +
		    verdict_env_link(d) * (c[IC_COPY] + b->sync_kind[SK_UPLOAD]) / T;
	s[VC_HEALTHY] = busy;
}

static void host_scores(const struct diagnosis *d, double *s)
{
	const struct host_breakdown *h = &d->host;
	const struct env_facts *e = &d->env;
	double T = (double)h->span_ns;
	int workers = e->children_max > 0 || e->child_cores > 0.1;
	double low = verdict_lowfill_launches(d), feed = h->state[HC_FEED] / T;

	s[VC_DATA] = ((e->saturated ? 0 : h->outside[1]) + h->outside[2] +
		      h->outside[3] + (workers || e->saturated ? 0 : h->outside[0])) / T;
	s[VC_CPU] = ((e->saturated ? h->outside[1] : 0) +
		     (workers || e->saturated ? h->outside[0] : 0)) / T;
	s[VC_MEMORY] = (h->state[HC_STAGE] + h->state[HC_ALLOC] + h->wait_upload) / T +
		       feed * low;
	s[VC_COMM] = (h->state[HC_NCCL] + h->drained) / T;
	s[VC_KERNEL] = feed * (1 - low);
	s[VC_ENV] = verdict_env_throttle(d) +
		    verdict_env_link(d) * h->state[HC_STAGE] / T;
	s[VC_HEALTHY] = (h->state[HC_WAIT] - h->wait_upload) / T;
}

/* Move what CUDA_LAUNCH_BLOCKING explains from the kernel and sync
 * scores to the environment's, which is at least what unsetting it saves
 * (so it shows beside a larger class); NCCL's transports turned off
 * weigh on its time. */
static void setting_scores(struct diagnosis *d, double *s)
{
	struct env_facts *e = &d->env;
	int gpu = d->have_gpu && d->steady.span_ns;
	double T = (double)(gpu ? d->steady.span_ns : d->host.span_ns);
	double waits, nccl;

	if (e->launch_blocking) {
		waits = (double)(gpu ? d->steady.sync_kind[SK_OTHER] :
				 d->host.drained) / T;
		waits = waits < s[VC_COMM] ? waits : s[VC_COMM];
		e->blocking_score = s[VC_KERNEL] + waits;
		if (e->blocking_score < verdict_blocking_gain(d))
			e->blocking_score = verdict_blocking_gain(d);
		s[VC_ENV] += e->blocking_score;
		s[VC_COMM] -= waits;
		s[VC_KERNEL] = 0;
	}
	nccl = (double)(gpu ? d->region_nccl_ns : d->host.state[HC_NCCL]) / T;
	if ((e->p2p_off || e->ib_off) && nccl > 0) {
		e->nccl_share = nccl;
		s[VC_ENV] += 0.25 * nccl;
	}
}

static int by_score(const void *a, const void *b)
{
	const struct verdict *x = a, *y = b;

	if (x->score != y->score)
		return x->score < y->score ? 1 : -1;
	return (int)x->cls - (int)y->cls;
}

static void order(struct diagnosis *d, const double *s)
{
	double others = 0;
	int healthy;

	for (int c = 0; c < VC_HEALTHY; c++)
		others = s[c] > others ? s[c] : others;
	healthy = s[VC_HEALTHY] >= HEALTHY_BUSY && others < HEALTHY_OTHERS;
	d->nv = 0;
	for (int c = 0; c < VC_HEALTHY; c++)
		if (s[c] >= MIN_SCORE)
			d->v[d->nv++] = (struct verdict){ .cls = c, .score = s[c] };
	qsort(d->v, d->nv, sizeof(*d->v), by_score);
	if (healthy || (!d->nv && s[VC_HEALTHY] > 0)) {
		memmove(&d->v[1], &d->v[0], d->nv * sizeof(*d->v));
		d->v[0] = (struct verdict){ .cls = VC_HEALTHY, .score = s[VC_HEALTHY] };
		d->nv++;
	}
}

void verdict_finish(struct model *m, struct diagnosis *d)
{
	double s[VC_KINDS] = { 0 };

	if (d->have_gpu && d->steady.span_ns)
		gpu_scores(d, s);
	else if (d->host.span_ns)
		host_scores(d, s);
	else
		return;
	setting_scores(d, s);
	memcpy(d->score, s, sizeof(d->score));
	order(d, s);
	for (size_t i = 0; i < d->nv; i++) {
		verdict_texts(m, d, &d->v[i]);
		whatif_gain(m, d, &d->v[i]);
	}
}

void verdict_release(struct diagnosis *d)
{
	for (size_t i = 0; i < d->nv; i++) {
		for (size_t k = 0; k < d->v[i].nev; k++)
			free(d->v[i].evidence[k]);
		for (size_t k = 0; k < d->v[i].nadv; k++)
			free(d->v[i].advice[k]);
	}
	d->nv = 0;
}
