/* SPDX-License-Identifier: MIT */
/*
 * whatif.c - how much of the step time each change should save, as a
 * range, from the timeline itself: the idle time the change removes.
 *
 *   data supply, CPU    the idle time spent waiting on data; at least
 *                       60% (30% for CPU work, which is harder to move)
 *   copies              at most all copy idle time (copies overlapped);
 *                       at least what is left when the uploads still run
 *                       on the critical path at the measured pinned
 *                       bandwidth (25 GB/s when none was measured)
 *   small batch         per sample: at least the launch gaps, at most all
 *                       but the busy time that does not shrink per sample
 *                       (the class's gain is then in time per sample)
 *   sync bubbles        at most all of them, at least half
 *   NCCL                at most all of it, at least a fifth (overlap is
 *                       partial)
 *   launch gaps         graph replay leaves 1-3 us per kernel
 *   environment         at most the score, at least a third; with
 *                       CUDA_LAUNCH_BLOCKING set, what unsetting it
 *                       saves (verdict_env.c)
 */
#include "analyzer/diagnosis/diagnosis_internal.h"

#define DEFAULT_PINNED_GBPS 25.0
#define GRAPH_GAP_LO_NS 1000.0      /* per kernel left by graph replay */
#define GRAPH_GAP_HI_NS 3000.0

static double pinned_gbps(const struct diagnosis *d)
{
	if (d->bw.ns[0][1] && d->bw.bytes[0][1] >= (1u << 20))
		return (double)d->bw.bytes[0][1] / (double)d->bw.ns[0][1];
	return DEFAULT_PINNED_GBPS;
}

static double clamp(double x)
{
	return x < 0 ? 0 : x > 0.95 ? 0.95 : x;
}

static void memory_gain(const struct diagnosis *d, double T, double *lo,
			double *hi)
{
	const struct breakdown *b = &d->steady;
	double copy = (double)(b->cause[IC_COPY] + b->sync_kind[SK_UPLOAD]);
	double left = (double)d->region_htod_bytes / pinned_gbps(d);
	double low = verdict_batch(d), busy = b->busy_ns / T;
	double launch = (double)(b->cause[IC_LAUNCH] + b->cause[IC_LATENCY]) / T;

	/* a larger batch, per sample: at least the launch gaps amortized, at
	 * most all but the busy time that does not shrink per sample */
	*hi = copy / T + low * (1 - busy * (1 - 0.9 * low));
	*lo = (copy > left ? copy - left : 0) / T + low * launch;
}

static void kernel_gain(const struct diagnosis *d, double T, double *lo,
			double *hi)
{
	const struct breakdown *b = &d->steady;
	double gap = (double)(b->cause[IC_LAUNCH] + b->cause[IC_LATENCY]) *
		     (1 - verdict_batch(d));
	double k = (double)d->region_kernels;

	*hi = (gap - k * GRAPH_GAP_LO_NS) / T;
	*lo = (gap - k * GRAPH_GAP_HI_NS) / T;
}

static void comm_gain(const struct diagnosis *d, double T, double *lo,
		      double *hi)
{
	const struct breakdown *b = &d->steady;
	double sync = (double)(b->sync_kind[SK_OTHER] + b->sync_kind[SK_READBACK]);
	double nccl = (double)b->cause[IC_COMM];

	*hi = (sync + nccl) / T;
	*lo = (0.5 * sync + 0.2 * nccl) / T;
}

void whatif_gain(const struct model *m, const struct diagnosis *d,
		 struct verdict *v)
{
	int gpu = d->have_gpu && d->steady.span_ns;
	double T = (double)(gpu ? d->steady.span_ns : d->host.span_ns);
	double lo = 0, hi = 0;

	(void)m;
	switch (v->cls) {
	case VC_DATA:
		hi = v->score, lo = 0.6 * hi;
		break;
	case VC_CPU:
		hi = v->score, lo = 0.3 * hi;
		break;
	case VC_MEMORY:         /* the batch's part is per sample */
		if (gpu)
			memory_gain(d, T, &lo, &hi);
		else
			hi = v->score, lo = 0.5 * hi;
		v->per_sample = (gpu ? verdict_batch(d) : verdict_lowfill_launches(d)) > 0;
		break;
	case VC_COMM:
		if (gpu)
			comm_gain(d, T, &lo, &hi);
		else
			hi = v->score, lo = (0.5 * (double)d->host.drained +
					     0.2 * (double)d->host.state[HC_NCCL]) / T;
		break;
	case VC_KERNEL:
		if (gpu)
			kernel_gain(d, T, &lo, &hi);
		else
			hi = 0.5 * v->score, lo = 0;
		break;
	case VC_ENV:
		verdict_env_gain(d, v->score, &lo, &hi);
		break;
	default:
		break;
	}
	v->gain_hi = clamp(hi);
	v->gain_lo = clamp(lo) < v->gain_hi ? clamp(lo) : v->gain_hi;
}
