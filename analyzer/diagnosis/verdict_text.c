/* SPDX-License-Identifier: MIT */
/*
 * verdict_text.c - the evidence behind each class, with its numbers, and
 * the change to make, in the terms of the framework the program uses
 * (framework_words: PyTorch's DataLoader, pin_memory/non_blocking, CUDA
 * graphs and torch.compile, .item(); JAX's jit and device_put; CUDA's
 * cudaMemcpyAsync, cudaHostAlloc and graphs), never a fix the program
 * already has: uploads already pinned and asynchronous, a step already
 * launched as CUDA graphs, DataLoader workers already as many as the CPUs
 * can run (then how many it would take).
 */
#include <stdio.h>
#include <stdlib.h>

#include "analyzer/diagnosis/diagnosis_internal.h"
#include "analyzer/passes/env.h"
#include "analyzer/passes/framework.h"
#include "analyzer/passes/gpu.h"
#include "analyzer/passes/memory.h"
#include "analyzer/lib/units.h"
#include "analyzer/lib/util.h"

struct ctx {
	const struct model *m;
	const struct diagnosis *d;
	struct verdict *v;
	double T;                   /* steady-state time (GPU) or host time */
	int gpu;
	const char *site;           /* the top sync bubble's call site */
	const struct framework *fw;
};

static double share(const struct ctx *c, uint64_t ns)
{
	return c->T > 0 ? (double)ns / c->T : 0;
}

/* "12.3 ms per step" when steps are known, else "" */
static const char *per_step(const struct ctx *c, uint64_t ns, char *buf)
{
	char t[UNITS_BUF];

	buf[0] = 0;
	if (c->d->steps.mean && c->T > 0)
		snprintf(buf, 64, ", %s per step",
			 fmt_ns(t, sizeof(t), sat_from_double(share(c, ns) *
					      (double)c->d->steps.mean)));
	return buf;
}

#define CHANGE(...) snprintf(c->v->change, sizeof(c->v->change), __VA_ARGS__)
#define EV(...) verdict_add_text(c->v, 0, __VA_ARGS__)
#define ADV(...) verdict_add_text(c->v, 1, __VA_ARGS__)
#define WORDS(t) framework_words(c->fw, (t))

static void outside_evidence(struct ctx *c)
{
	const struct env_facts *e = &c->d->env;
	uint64_t cpu, loader, io, other;
	char b[64];

	if (c->gpu) {
		const uint64_t *x = c->d->steady.cause;

		cpu = x[IC_CPU], loader = x[IC_LOADER], io = x[IC_IO], other = x[IC_OUTSIDE];
	} else {
		const uint64_t *x = c->d->host.outside;

		cpu = x[0], loader = x[1], io = x[2], other = x[3];
	}
	EV("%s outside CUDA%s: CPU-bound in this process %.0f%%, waiting on "
	   "%s %.0f%%, I/O wait %.0f%%, other %.0f%%",
	   c->gpu ? "GPU idle while the host was" : "host",
	   per_step(c, cpu + loader + io + other, b), 100 * share(c, cpu),
	   framework_dataloader(c->fw) ? "DataLoader workers" : "child processes",
	   100 * share(c, loader), 100 * share(c, io), 100 * share(c, other));
	if (e->have_cpu)
		EV("CPU: this process %.2f cores, its child processes %.2f cores "
		   "(%llu alive at most), of %.0f it may use%s", e->proc_cores,
		   e->child_cores, (unsigned long long)e->children_max,
		   e->allowed_cores, e->saturated ? ": saturated" : "");
	else
		EV("no CPU samples (GPUTRACE_SAMPLE_MS=0): data loading cannot be "
		   "told from other host work");
}

/* Time outside CUDA the GPU waited through (data supply's), a share. */
static double outside_share(const struct ctx *c)
{
	const uint64_t *x = c->d->steady.cause, *h = c->d->host.outside;

	return c->gpu ? share(c, x[IC_CPU] + x[IC_LOADER] + x[IC_IO] + x[IC_OUTSIDE]) :
	       share(c, h[0] + h[1] + h[2] + h[3]);
}

/*
 * A DataLoader with workers that do not keep up.  They deliver a batch a
 * step; for the GPU not to wait they must deliver one in the step less
 * the wait: about n / (1 - wait) of them at their pace.  Each takes its
 * share of the workers' CPU; when the extra ones need more cores than are
 * free, the workers are the bottleneck and the samples must get cheaper.
 */
static void worker_texts(struct ctx *c)
{
	const struct env_facts *e = &c->d->env;
	unsigned long long n = c->fw->workers;
	double wait = outside_share(c), each = c->fw->worker_cores / (double)n;
	double free_cores = e->allowed_cores > 0 ? e->allowed_cores - e->proc_cores -
			    c->fw->worker_cores : 1e9;     /* not known: room */
	unsigned long long need = (unsigned long long)((double)n /
				  (1 - (wait < 0.9 ? wait : 0.9)) + 0.999);

	need = need > n ? need : n + 1;
	if (each < 0.3 || (double)(need - n) * each <= free_cores) {
		CHANGE("raise num_workers from %llu to about %llu, prefetch_factor", n, need);
		ADV("the %llu DataLoader workers do not keep up: about %llu would at "
		    "the pace each has now (the GPU waits %.0f%% of the time; each "
		    "worker uses %.2f cores): num_workers=%llu, persistent_workers=True, "
		    "prefetch_factor=4", n, need, 100 * wait, each, need);
		return;
	}
	CHANGE("the %llu DataLoader workers are the bottleneck: cheaper samples, "
	       "or more CPUs", n);
	ADV("the %llu DataLoader workers are the bottleneck: at their pace it "
	    "would take about %llu (%.2f cores each) and %.1f cores are free: "
	    "make each sample cheaper (decode once and cache, smaller inputs, "
	    "augmentation on the GPU) or give the job more CPUs", n, need, each,
	    free_cores > 0 ? free_cores : 0);
}

/* No workers: load batches in some, in the framework's terms. */
static void no_worker_texts(struct ctx *c, int k)
{
	if (framework_dataloader(c->fw)) {
		CHANGE("load batches in DataLoader workers (num_workers=%d, "
		       "persistent_workers=True)", k);
		ADV("load batches in worker processes: DataLoader(num_workers=%d, "
		    "persistent_workers=True, pin_memory=True, prefetch_factor=2); "
		    "start near the physical cores and measure the knee", k);
		return;
	}
	CHANGE(WORDS(FW_DATA_CHANGE), k);
	ADV(WORDS(FW_DATA_ADVICE), k);
}

static void data_texts(struct ctx *c)
{
	const struct env_facts *e = &c->d->env;
	int k = e->allowed_cores > 32 ? 16		/* also a corrupt huge count */
	      : e->allowed_cores > 2 ? (int)(e->allowed_cores / 2) : 2;

	outside_evidence(c);
	if (framework_dataloader(c->fw) && c->fw->workers)
		worker_texts(c);
	else
		no_worker_texts(c, k > 16 ? 16 : k);
	if (c->gpu ? c->d->steady.cause[IC_IO] : c->d->host.outside[2])
		ADV("I/O wait: copy the dataset to local disk or memory, read "
		    "larger files (WebDataset, LMDB), check iostat -x");
	if (c->gpu ? c->d->steady.cause[IC_OUTSIDE] : c->d->host.outside[3])
		ADV("time outside CUDA with the CPU idle (sleep, lock, network, an "
		    "RL environment) can be normal: judge by end-to-end throughput");
}

static void cpu_texts(struct ctx *c)
{
	outside_evidence(c);
	CHANGE("move preprocessing to the GPU, or give the job more CPUs");
	ADV("%s", WORDS(FW_CPU_ADVICE));
	ADV("decode once and cache preprocessed samples, or give the job more "
	    "CPUs (it may use %.0f)", c->d->env.allowed_cores);
}

static void findings_evidence(struct ctx *c, int *pageable, int *waited)
{
	struct finding f[FIND_KINDS];
	int n = memory_findings(c->m, f);

	for (int i = 0; i < n; i++) {
		char b[UNITS_BUF], t[UNITS_BUF];

		EV("%s: %llu call%s, %s, %s of host time", f[i].id,
		   (unsigned long long)f[i].calls, plural(f[i].calls, "", "s"),
		   fmt_bytes(b, sizeof(b), f[i].bytes),
		   fmt_ns(t, sizeof(t), f[i].ns));
		*pageable |= f[i].kind == FIND_PAGEABLE || f[i].kind == FIND_STAGED;
		*waited |= f[i].kind == FIND_SYNC_PINNED;
		if (f[i].kind == FIND_STEADY_ALLOC)
			ADV("pinned allocations after start-up: allocate pinned "
			    "buffers once and reuse them");
	}
}

/* The batch is small: the evidence and the change. */
static void batch_texts(struct ctx *c)
{
	const struct diagnosis *d = c->d;
	const struct env_facts *e = &d->env;
	double low = verdict_lowfill(d);
	char b[64], m1[UNITS_BUF], m2[UNITS_BUF];

	if (c->gpu)
		EV("GPU idle between short kernels%s: %.0f%% (launching %.0f%%), GPU "
		   "busy %.1f%%", per_step(c, d->steady.cause[IC_LAUNCH] +
				      d->steady.cause[IC_LATENCY], b),
		   100 * share(c, d->steady.cause[IC_LAUNCH] + d->steady.cause[IC_LATENCY]),
		   100 * share(c, d->steady.cause[IC_LAUNCH]),
		   100 * share(c, d->steady.busy_ns));
	if (low >= 0.3 && e->sm_count)
		EV("%.0f%% of kernel time is in kernels whose grids fill under half "
		   "of the %d SMs", 100 * low, e->sm_count);
	if (!c->gpu && verdict_lowfill_launches(d) >= 0.3 && e->sm_count)
		EV("host launching %.0f%% of the time; %.0f%% of the launches have "
		   "grids that fill under half of the %d SMs (GPU side unknown)",
		   100 * share(c, d->host.state[HC_FEED]),
		   100 * verdict_lowfill_launches(d), e->sm_count);
	if (verdict_opt_share(d) >= 0.15)
		EV("the optimizer's kernels take %.0f%% of the GPU time: each step "
		   "does little work besides updating the weights",
		   100 * verdict_opt_share(d));
	if (e->gpu_mem && e->self_mem)
		EV("GPU memory this process used at most %s (NVML's samples) of %s "
		   "(%s)", fmt_bytes(m1, sizeof(m1), e->self_mem),
		   fmt_bytes(m2, sizeof(m2), e->gpu_mem), e->gpu_mem_source);
	ADV("raise the batch size until GPU memory is 80-90%% used; if the batch "
	    "must stay small, keep the effective batch with gradient "
	    "accumulation%s", verdict_graphs_used(d) ? "" : WORDS(FW_BATCH_OVERHEAD));
}

static void memory_texts(struct ctx *c)
{
	const struct diagnosis *d = c->d;
	const struct breakdown *s = &d->steady;
	double batch = verdict_batch(d);
	uint64_t copies = s->cause[IC_COPY] + s->sync_kind[SK_UPLOAD];
	int pageable = 0, waited = 0, batch_first;
	char b[64];

	if (c->gpu)
		batch_first = batch >= 0.3 &&
			      batch * (s->busy_ns + s->cause[IC_LAUNCH] +
				       s->cause[IC_LATENCY]) >= copies;
	else
		batch_first = verdict_lowfill_launches(d) >= 0.3 &&
			      verdict_lowfill_launches(d) * d->host.state[HC_FEED] >=
			      d->host.state[HC_STAGE] + d->host.state[HC_ALLOC] +
			      d->host.wait_upload;
	if (batch_first) {
		CHANGE(VERDICT_BATCH_CHANGE);
		batch_texts(c);
	}
	if (c->gpu && copies)
		EV("GPU idle on copies%s (%.0f%%), on uploads waited for at once "
		   "%.0f%%", per_step(c, s->cause[IC_COPY], b),
		   100 * share(c, s->cause[IC_COPY]),
		   100 * share(c, s->sync_kind[SK_UPLOAD]));
	findings_evidence(c, &pageable, &waited);
	waited |= c->gpu && s->sync_kind[SK_UPLOAD];
	if (!batch_first)
		CHANGE("%s", pageable ? WORDS(FW_PIN_CHANGE) : waited ?
		       WORDS(FW_ASYNC_CHANGE) : "move less data per step, or keep it on "
		       "the GPU");
	if (pageable)
		ADV("%s", WORDS(FW_PIN_ADVICE));
	if (waited)
		ADV("%s", WORDS(FW_ASYNC_ADVICE));
	if (!pageable && !waited && memory_uploads_async(c->m))
		ADV("the uploads already come from pinned memory, asynchronously: "
		    "move less data (compact types such as uint8 images, converted "
		    "on the GPU), keep what does not change on the GPU, and copy "
		    "the next batch during this step's compute");
	if (!batch_first && (c->gpu ? batch : verdict_lowfill_launches(d)) >= 0.3)
		batch_texts(c);
}

static void sync_sites(struct ctx *c)
{
	const struct diagnosis *d = c->d;
	uint64_t best[3] = { 0 };
	uint32_t stack[3] = { 0 };
	size_t pos = 0;
	const struct sync_site *s;

	while ((s = hmap_next(&d->sync_sites, &pos))) {
		for (int k = 0; k < 3; k++) {
			if (s->ns <= best[k])
				continue;
			for (int j = 2; j > k; j--)
				best[j] = best[j - 1], stack[j] = stack[j - 1];
			best[k] = s->ns;
			stack[k] = s->stack;
			break;
		}
	}
	for (int k = 0; k < 3 && best[k]; k++) {
		const char *site = diagnosis_site(c->m, stack[k]);
		char b[64];

		if (site && !c->site)
			c->site = site;
		if (site)
			EV("sync bubble at %s: %.0f%% of the time%s", site,
			   100 * share(c, best[k]), per_step(c, best[k], b));
	}
}

/* The host work behind readbacks (idle_readback.c), ns of it. */
static void behind_readback_text(struct ctx *c, uint64_t ns)
{
	const struct readback_host *rb = &c->d->rb;
	char b[64];

	if (!ns)
		return;
	if (rb->sampled && rb->top[0])
		EV("host work behind a readback (from its return to the next launch, "
		   "the GPU idle): %.0f%% of the time%s; the host ran %s %.0f%% (self, "
		   "of %llu samples there)", 100 * share(c, ns), per_step(c, ns, b),
		   rb->top, 100 * rb->top_share, (unsigned long long)rb->samples);
	else
		EV("host work behind a readback (from its return to the next launch, "
		   "the GPU idle): %.0f%% of the time%s; no host samples there: "
		   "by the timing alone", 100 * share(c, ns), per_step(c, ns, b));
}

static void comm_texts(struct ctx *c)
{
	const struct diagnosis *d = c->d;
	const struct breakdown *s = &d->steady;
	char b[64];

	CHANGE("overlap NCCL with compute, all-reduce less often");
	if (!c->gpu) {
		const struct host_breakdown *h = &d->host;

		if (h->drained) {
			EV("host outside CUDA right after waits that emptied the GPU's "
			   "queue: %.0f%% of the time%s; the GPU idles then (one stream "
			   "assumed)", 100 * share(c, h->drained), per_step(c, h->drained, b));
			behind_readback_text(c, h->behind_readback);
			sync_sites(c);
		}
		if (h->drained >= h->state[HC_NCCL]) {
			CHANGE("remove the per-step sync (%s)%s%s", WORDS(FW_READBACK),
			       c->site ? " at " : "", c->site ? c->site : "");
			ADV("%s", WORDS(FW_SYNC_ADVICE));
		}
		if (h->state[HC_NCCL])
			EV("host inside NCCL calls %.0f%% of the time",
			   100 * share(c, h->state[HC_NCCL]));
	} else {
		uint64_t sync = s->sync_kind[SK_OTHER] + s->sync_kind[SK_READBACK];

		if (sync)
			EV("sync bubbles: GPU idle %.0f%% after host waits%s (%.0f%% "
			   "after reading a result back: %s)",
			   100 * share(c, sync), per_step(c, sync, b),
			   100 * share(c, s->sync_kind[SK_READBACK]), WORDS(FW_READBACK));
		behind_readback_text(c, s->behind_readback);
		sync_sites(c);
		if (sync >= s->cause[IC_COMM])
			CHANGE("remove the per-step sync (%s)%s%s", WORDS(FW_READBACK),
			       c->site ? " at " : "", c->site ? c->site : "");
		else
			CHANGE("overlap NCCL with compute, all-reduce less often");
		if (sync)
			ADV("%s", WORDS(FW_SYNC_ADVICE));
		if (s->cause[IC_COMM])
			EV("GPU waiting on NCCL (collectives running alone or host "
			   "in NCCL)%s: %.0f%%", per_step(c, s->cause[IC_COMM], b),
			   100 * share(c, s->cause[IC_COMM]));
	}
	if (c->gpu ? s->cause[IC_COMM] : d->host.state[HC_NCCL])
		ADV("%s", WORDS(FW_NCCL_ADVICE));
}

/* The step already launches CUDA graphs: what is left between kernels. */
static void graphs_texts(struct ctx *c)
{
	const struct diagnosis *d = c->d;

	EV("the step already runs as CUDA graphs: %llu graph launch%s, %.0f%% of "
	   "the kernels in them", (unsigned long long)d->region_graphs,
	   plural(d->region_graphs, "", "es"), 100 * verdict_graph_share(d));
	CHANGE("fewer, larger kernels (the step is already a CUDA graph)");
	ADV("the gaps are between the kernels of the graphs: fuse small kernels "
	    "and give each more work (a larger batch, fused ops); a graph does "
	    "not remove the time a kernel takes to start after the one before");
}

static void kernel_texts(struct ctx *c)
{
	const struct diagnosis *d = c->d;
	char a[UNITS_BUF], b[UNITS_BUF], p[64];
	uint64_t k = d->region_kernels;

	if (c->gpu) {
		EV("GPU idle while the host was launching%s: %.0f%%, waiting for "
		   "queued work to start %.0f%%",
		   per_step(c, d->steady.cause[IC_LAUNCH], p),
		   100 * share(c, d->steady.cause[IC_LAUNCH]),
		   100 * share(c, d->steady.cause[IC_LATENCY]));
		if (k)
			EV("%llu kernel%s, %.0f%% under 10 us; mean GPU time %s per "
			   "kernel against %s of host launch time",
			   (unsigned long long)k, plural(k, "", "s"), 100.0 * d->region_small / k,
			   fmt_ns(a, sizeof(a), d->region_kernel_ns / k),
			   fmt_ns(b, sizeof(b), d->region_launches ?
				  d->region_launch_ns / d->region_launches : 0));
		if (k && d->steps.mean && d->steps.period)
			EV("%u GPU call%s per step", d->steps.period,
			   plural(d->steps.period, "", "s"));
	} else {
		EV("host inside launch calls %.0f%% of the time (GPU side unknown)",
		   100 * share(c, d->host.state[HC_FEED]));
	}
	if (verdict_graphs_used(d)) {
		graphs_texts(c);
		return;
	}
	CHANGE("%s", WORDS(FW_GRAPH_CHANGE));
	ADV("%s", WORDS(FW_GRAPH_ADVICE));
}

/* The settings' evidence; 1 when one of them gives the change. */
static int setting_texts(struct ctx *c)
{
	const struct env_facts *e = &c->d->env;
	const struct diagnosis *d = c->d;
	const char *nccl = e->p2p_off && e->ib_off ? "NCCL_P2P_DISABLE and "
			   "NCCL_IB_DISABLE" : e->p2p_off ? "NCCL_P2P_DISABLE" :
			   "NCCL_IB_DISABLE";
	char b[UNITS_BUF];

	if (e->launch_blocking)
		EV("CUDA_LAUNCH_BLOCKING=%s: every launch waited for its kernel; "
		   "launch calls took %.0f%% of the time (%s per launch), the "
		   "GPU idle time it explains %.0f%%",
		   env_setting(c->m->env, "CUDA_LAUNCH_BLOCKING"),
		   100 * share(c, d->region_launch_ns),
		   fmt_ns(b, sizeof(b), d->region_launches ?
			  d->region_launch_ns / d->region_launches : 0),
		   100 * e->blocking_score);
	if (e->nccl_share > 0)
		EV("%s set while NCCL ran %.0f%% of the time: NCCL moves data "
		   "through host memory or sockets instead", nccl,
		   100 * e->nccl_share);
	if (e->eager_modules)
		EV("CUDA_MODULE_LOADING=EAGER: a slower start and more GPU "
		   "memory, no faster steps");
	if (e->launch_blocking) {
		CHANGE("unset CUDA_LAUNCH_BLOCKING");
		ADV("CUDA_LAUNCH_BLOCKING=1 is for debugging: remove it from the "
		    "job's environment (shell profile, launch script, container); "
		    "then trace again: the launch gaps left are the program's");
		return 1;
	}
	if (e->nccl_share > 0) {
		CHANGE("unset %s", nccl);
		ADV("turn NCCL's transports off only to work around a fault; "
		    "NCCL_DEBUG=INFO shows which transport each channel uses");
		return 1;
	}
	return 0;
}

/* The machine's evidence: only what is wrong (verdict_env.c); the
 * change for the largest part of it. */
static void machine_texts(struct ctx *c, int set)
{
	const struct env_facts *e = &c->d->env;
	const struct diagnosis *d = c->d;
	double shared = verdict_env_contention(d) + (c->gpu ? share(c, d->steady.cause[IC_ENV]) : 0);
	double heat = verdict_env_throttle(d), link = verdict_env_link(d);

	if (c->gpu && d->steady.cause[IC_ENV])
		EV("work queued while another process held the GPU: %.0f%%",
		   100 * share(c, d->steady.cause[IC_ENV]));
	if (verdict_env_contention(d) > 0)
		EV("this process's kernels took %.0f%% of their time beyond their "
		   "fast runs (each function and grid's 10th percentile) while "
		   "another process was on the GPU in %.0f%% of the samples",
		   100 * e->contention, 100 * e->other_share);
	if (heat > 0)
		EV("clocks held down (thermal or hardware slowdown) in %.0f%% of the "
		   "samples", 100 * e->throttle_share);
	if (link > 0)
		EV("PCIe link x%d of x%d: copies run at %.0f%% of the link's speed",
		   e->pcie_width, e->pcie_width_max, 100 * (1 - link));
	if (e->driver_version && e->runtime_version &&
	    e->driver_version < e->runtime_version)
		EV("driver supports CUDA %lld.%lld, older than the program's runtime "
		   "%lld.%lld", (long long)e->driver_version / 1000,
		   (long long)e->driver_version % 1000 / 10,
		   (long long)e->runtime_version / 1000,
		   (long long)e->runtime_version % 1000 / 10);
	if (set)
		return;
	if (shared >= heat && shared >= link) {
		CHANGE("run alone on the GPU: another process's work slows this one's");
		ADV("another process computes on the same GPU (nvidia-smi shows it): "
		    "run the job on a GPU of its own, or give each process a share "
		    "(MIG, MPS) so that they stop taking turns");
	} else if (heat >= link) {
		CHANGE("fix the cooling or the hardware slowdown holding clocks down");
		ADV("check clocks and their reasons (nvidia-smi -q -d "
		    "CLOCK,PERFORMANCE,TEMPERATURE): thermal slowdown needs airflow "
		    "or a cooler room, a hardware slowdown a look at the power supply");
	} else {
		CHANGE("put the GPU in a full-width PCIe slot");
		ADV("the link runs narrower than the GPU can: reseat it in a x%d "
		    "slot, check the BIOS's lane settings (nvidia-smi -q -d PCIE)",
		    e->pcie_width_max);
	}
}

static void env_texts(struct ctx *c)
{
	machine_texts(c, setting_texts(c));
}

static void healthy_texts(struct ctx *c)
{
	if (c->gpu)
		EV("GPU busy %.1f%% (compute kernels running, steady state)",
		   100 * share(c, c->d->steady.busy_ns));
	else
		EV("host waiting on the GPU %.0f%% of the time (GPU side unknown)",
		   100 * share(c, c->d->host.state[HC_WAIT]));
	CHANGE("nothing big outside the kernels: tune them (Nsight Compute)");
	ADV("compute-bound: look inside the kernels (Nsight Compute: memory "
	    "throughput near 100%% means memory-bound: %s)", WORDS(FW_FUSE));
	ADV("utilization is not the goal: judge by end-to-end throughput");
}

int verdict_has_gain(const struct verdict *v)
{
	return v->replayed || v->gain_hi >= 0.005;
}

const char *verdict_gain_text(const struct verdict *v, int short_form,
			      char *buf, size_t size)
{
	const char *what = v->per_sample ? "time per sample" : "step time";
	char batch[64] = "";

	if (v->per_sample)
		snprintf(batch, sizeof(batch), v->batch >= 2 ? " with a batch %.0fx "
			 "larger" : " with a larger batch", v->batch);
	if (v->replayed && short_form)
		snprintf(buf, size, "%s -%.0f%%%s", what, 100 * v->gain, batch);
	else if (v->replayed)
		snprintf(buf, size, "replayed: %s -%.0f%% (-%.0f%% to -%.0f%%)%s", what,
			 100 * v->gain, 100 * v->gain_lo, 100 * v->gain_hi, batch);
	else
		snprintf(buf, size, "%s%s -%.0f%% to -%.0f%%%s", short_form ? "" :
			 "estimated: ", what, 100 * v->gain_lo, 100 * v->gain_hi, batch);
	return buf;
}

void verdict_texts(const struct model *m, const struct diagnosis *d,
		   struct verdict *v)
{
	struct ctx c = { m, d, v, 0, d->have_gpu && d->steady.span_ns, NULL,
			 framework_of(m) };

	c.T = (double)(c.gpu ? d->steady.span_ns : d->host.span_ns);
	if (!c.gpu && gpu_no_window_yet(m))
		verdict_add_text(v, 0, "no GPU records: the run ended before the "
				 "first GPU window (GPUTRACE_GPU=all for a short run)");
	else if (!c.gpu)
		verdict_add_text(v, 0, "no GPU records (CUPTI off, taken or "
				 "missing): the host side only");
	switch (v->cls) {
	case VC_DATA: data_texts(&c); break;
	case VC_CPU: cpu_texts(&c); break;
	case VC_MEMORY: memory_texts(&c); break;
	case VC_COMM: comm_texts(&c); break;
	case VC_KERNEL: kernel_texts(&c); break;
	case VC_ENV: env_texts(&c); break;
	default: healthy_texts(&c); break;
	}
}
