/* SPDX-License-Identifier: MIT */
/*
 * replay_precision.c - mixed precision (bf16 autocast) and channels_last,
 * replayed.
 *
 * What a kernel computes in is read from its name: GEMMs and
 * convolutions (cuBLAS, cuDNN, CUTLASS, nvjet) in fp32 or TF32 (sgemm,
 * f32f32_tf32, s1688: the TF32 tensor-core shape) against bf16, fp16 or
 * fp8 ones (bf16, f16, h1688, s16816: the 16-bit shapes); memory-bound
 * kernels on float tensors (elementwise, norms, pooling; an optimizer's
 * kernels apart: autocast keeps the weights in fp32); cuDNN's layout
 * conversions around NCHW convolutions (nchwToNhwc, nhwcToNchw).  The
 * dump's kernel time is split so, once (replay_env).
 *
 * The fix applies to a convolutional network run in fp32 (its fp32
 * convolutions, or the conversions cuDNN makes around them, hold a
 * share of the kernel time) whose GEMMs and convolutions are not already
 * mostly 16-bit: a program that already runs bf16/fp16 kernels is never
 * told to.  A program of TF32 GEMMs alone is left alone: it runs on the
 * tensor cores already, and whether its numbers may lose precision is
 * not the dump's to say.  The physics, per kernel time: bf16 tensor cores
 * do twice TF32's work (dense peak, H100/H200), so the GEMMs and
 * convolutions take half as long (the low end 1/1.5: not all of them run
 * at the peak); memory-bound kernels move half the bytes (the low end
 * 1/1.5: statistics stay fp32, autocast adds casts); the conversions go
 * with channels_last (the low end: half as long, in bf16).  The dump
 * gives shares, not kernels: every kernel of the span is scaled by the
 * one factor the shares give.
 */
#include <string.h>
#include <strings.h>

#include "analyzer/diagnosis/diagnosis_internal.h"
#include "analyzer/diagnosis/replay_fix.h"
#include "analyzer/model/model.h"
#include "analyzer/passes/gpu.h"
#include "analyzer/lib/util.h"

#define PREC_CONV_MIN 0.10      /* fp32 convolutions: this share at least */
#define PREC_LAYOUT_MIN 0.05    /* ...or layout conversions this share */
#define PREC_MM16_MAX (1.0 / 3) /* 16-bit GEMMs' share of the GEMMs' time:
				   at or above it, the program runs bf16 */
#define PREC_TC 2.0             /* bf16 over TF32 tensor throughput */
#define PREC_TC_LOW 1.5
#define PREC_BYTES 2.0          /* fp32 bytes over bf16 */
#define PREC_BYTES_LOW 1.5

static int has_any(const char *name, const char *const *words, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcasestr(name, words[i]))
			return 1;
	return 0;
}

static int is_16bit(const char *name)
{
	static const char *const w[] = {
		"bf16", "f16", "half", "bfloat16", "16816", "h1688", "h884",
		"hgemm", "e4m3", "e5m2", "fp8", "int8", "i8i8",
	};

	return has_any(name, w, ARRAY_SIZE(w));
}

static int is_matmul(const char *name)
{
	static const char *const w[] = {
		"gemm", "conv", "fprop", "dgrad", "wgrad", "xmma", "nvjet",
		"cutlass", "cublas", "gemv", "winograd",
	};

	return has_any(name, w, ARRAY_SIZE(w));
}

static int is_conv(const char *name)
{
	static const char *const w[] = {
		"conv", "fprop", "dgrad", "wgrad", "winograd",
	};

	return has_any(name, w, ARRAY_SIZE(w));
}

/* A float element type among a kernel's template arguments. */
static int on_floats(const char *name)
{
	for (const char *p = name; (p = strstr(p, "float")); p += 5) {
		char before = p > name ? p[-1] : ' ', after = p[5];

		if (strchr("<, (", before) && strchr(",>2 )", after))
			return 1;
	}
	return 0;
}

enum rp_prec_kind rp_precision_kind(const char *name)
{
	static const char *const tf32[] = {
		"tf32", "f32f32", "sgemm", "s1688", "s884", "fp32",
	};
	static const char *const layout[] = { "nchwtonhwc", "nhwctonchw" };

	if (!name)
		return RPK_OTHER;
	if (has_any(name, layout, ARRAY_SIZE(layout)))
		return RPK_LAYOUT;
	if (is_matmul(name)) {
		if (is_16bit(name))
			return RPK_MM16;
		if (has_any(name, tf32, ARRAY_SIZE(tf32)) || on_floats(name))
			return is_conv(name) ? RPK_CONV32 : RPK_MM32;
		return RPK_OTHER;
	}
	if (!is_16bit(name) && on_floats(name) && !diag_optimizer_kernel(name))
		return RPK_MEM32;
	return RPK_OTHER;
}

void rp_precision_shares(const struct model *m, struct rp_precision *p)
{
	double t[RPK_KINDS] = { 0 }, all = 0;
	const struct row *r;
	size_t pos = 0;

	memset(p, 0, sizeof(*p));
	while ((r = hmap_next(&m->rows[ROW_KERNEL], &pos))) {
		if (!r->gpu || !r->gpu->total_ns)
			continue;
		t[rp_precision_kind(r->name)] += (double)r->gpu->total_ns;
		all += (double)r->gpu->total_ns;
	}
	if (all <= 0)
		return;
	p->conv32 = t[RPK_CONV32] / all;
	p->mm32 = (t[RPK_CONV32] + t[RPK_MM32]) / all;
	p->mm16 = t[RPK_MM16] / all;
	p->mem32 = t[RPK_MEM32] / all;
	p->layout = t[RPK_LAYOUT] / all;
}

int rp_precision_applies(const struct rp_precision *p)
{
	double mm = p->mm32 + p->mm16;

	if (mm > 0 && p->mm16 / mm >= PREC_MM16_MAX)
		return 0;
	return p->conv32 >= PREC_CONV_MIN || p->layout >= PREC_LAYOUT_MIN;
}

double rp_precision_factor(const struct rp_precision *p, enum rp_end end)
{
	double tc = end == RP_LOW ? PREC_TC_LOW : PREC_TC;
	double bytes = end == RP_LOW ? PREC_BYTES_LOW : PREC_BYTES;
	double layout = end == RP_LOW ? 1 / PREC_BYTES : 0;
	double f = 1 - p->mm32 - p->mem32 - p->layout;

	f = f < 0 ? 0 : f;
	return f + p->mm32 / tc + p->mem32 / bytes + p->layout * layout;
}

int fix_precision(struct edit *ed, const struct rp_env *e, enum rp_end end,
		  struct rp_fix_result *r)
{
	double f = rp_precision_factor(&e->prec, end);
	struct rp_graph *g;
	int changed = 0;

	if (!rp_precision_applies(&e->prec) || f >= 1)
		return 0;
	g = fix_writable(ed);
	for (size_t i = 0; i < g->nops; i++)
		if (g->ops[i].kind == RO_KERNEL && g->ops[i].dur) {
			g->ops[i].dur = sat_from_double((double)g->ops[i].dur * f);
			changed = 1;
		}
	r->k = f;
	if (changed && end == RP_POINT)
		fix_assume(r, "kernel time by name: %.0f%% fp32/TF32 GEMMs and "
			   "convolutions (half as long in bf16 on tensor cores, the "
			   "low end 1/%.1f), %.0f%% fp32 memory-bound kernels (half "
			   "the bytes, the low end 1/%.1f), %.0f%% layout conversions "
			   "(gone with channels_last, the low end halved): kernels "
			   "%.2fx as long (%.2fx the low end), every kernel alike",
			   100 * e->prec.mm32, PREC_TC_LOW, 100 * e->prec.mem32,
			   PREC_BYTES_LOW, 100 * e->prec.layout, f,
			   rp_precision_factor(&e->prec, RP_LOW));
	return changed;
}
