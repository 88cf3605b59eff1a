/* SPDX-License-Identifier: MIT */
/*
 * test_analyzer_replay_physics.c - the physics the what-if's batch and
 * precision fixes rest on, on numbers worked out by hand: how a kernel
 * grows with the batch (its bounds), which evidence lets a larger batch
 * apply, what precision a kernel's name says, the factor bf16 and
 * channels_last give, and that a program already in bf16 is not told to
 * use it.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "analyzer/diagnosis/diagnosis_internal.h"
#include "analyzer/diagnosis/replay_fix.h"

#define MAXN 16

struct fixture {
	struct rp_item items[MAXN];
	struct rp_op ops[MAXN];
	struct rp_thread th[1];
	uint64_t backlog[1];
	struct rp_graph g;
};

/* One step: n launches of own ns, each queuing a kernel of dur ns with
 * the given fills. */
static void launches(struct fixture *f, size_t n, uint64_t own, uint64_t dur,
		     const float *fill)
{
	memset(f, 0, sizeof(*f));
	f->g.items = f->items;
	f->g.ops = f->ops;
	f->g.th = f->th;
	f->g.nth = 1;
	f->g.backlog = f->backlog;
	f->g.nstreams = 1;
	f->g.steps = 1;
	for (size_t i = 0; i < n; i++) {
		f->items[i].kind = RK_LAUNCH;
		f->items[i].own = own;
		f->items[i].op = (uint32_t)i + 1;
		f->ops[i].dur = dur;
		f->ops[i].item = (uint32_t)i;
		f->ops[i].fill = fill[i];
		f->ops[i].kind = RO_KERNEL;
	}
	f->g.nitems = f->g.nops = n;
	f->th[0].n = n;
}

/* Fill 0.05 at 32x: the point 32 x 0.05 = 1.6, the low end
 * 1 + 31 x 0.05 = 2.55; fill 0.01: the point stays 1, the low end 1.31;
 * a kernel filling the GPU (or asking for 3 GPUs) grows as the batch at
 * both ends; an unknown grid grows as the batch. */
static void test_kernel_growth(void **state)
{
	(void)state;
	assert_float_equal(rp_kernel_growth(0.05, 32, RP_POINT), 1.6, 1e-9);
	assert_float_equal(rp_kernel_growth(0.05, 32, RP_LOW), 2.55, 1e-9);
	assert_float_equal(rp_kernel_growth(0.01, 32, RP_POINT), 1, 0);
	assert_float_equal(rp_kernel_growth(0.01, 32, RP_LOW), 1.31, 1e-9);
	assert_float_equal(rp_kernel_growth(1, 32, RP_POINT), 32, 0);
	assert_float_equal(rp_kernel_growth(3, 32, RP_POINT), 32, 0);
	assert_float_equal(rp_kernel_growth(3, 32, RP_LOW), 32, 0);
	assert_float_equal(rp_kernel_growth(0, 8, RP_POINT), 8, 0);
	/* never below 1, never above the batch */
	for (double fill = 0.001; fill < 4; fill *= 1.7)
		for (double k = 2; k <= 256; k *= 2)
			for (int e = RP_POINT; e <= RP_LOW; e++) {
				double g = rp_kernel_growth(fill, k, (enum rp_end)e);

				assert_true(g >= 1 && g <= k);
				assert_true(rp_kernel_growth(fill, k, RP_LOW) >=
					    rp_kernel_growth(fill, k, RP_POINT));
			}
}

/* Three launches of 1000 ns, kernels of 100 ns: two asking for 5% of the
 * GPU, one for 50%: 2/3 of the kernel time latency-bound.  Without the
 * rules' evidence the batch applies only in a framework that batches;
 * there, k = 16 and beyond: the 5% kernels stay 100 until k = 20, the
 * 50% one 100 until k = 2, 800 at 16: the host's 3000 still leads, per
 * sample 3000 / 16 at least 16x better. */
static void test_batch_latency_gate(void **state)
{
	static const float fill[3] = { 0.05f, 0.05f, 0.5f };
	struct fixture f;
	struct rp_fix_result r;
	struct rp_env e = { 0 };
	uint64_t base;

	(void)state;
	launches(&f, 3, 1000, 100, fill);
	assert_float_equal(rp_latency_share(&f.g), 2.0 / 3, 1e-9);
	base = replay_run(&f.g, NULL);
	assert_int_equal(base, 3000);
	replay_fix(&f.g, &e, FIX_BATCH, base, &r, NULL, NULL);
	assert_false(r.applies);                /* a CUDA program: no batch */
	e.batched = 1;
	replay_fix(&f.g, &e, FIX_BATCH, base, &r, NULL, NULL);
	assert_true(r.applies);
	assert_int_equal(r.cls, VC_MEMORY);
	assert_true(r.k >= 16);
	assert_true(r.gain >= 1 - 1.0 / 16);
	assert_true(r.gain_lo <= r.gain && r.gain <= r.gain_hi);
	assert_non_null(strstr(r.assume, "67% of it in grids under 10%"));

	/* the kernels fill the GPU: no evidence, no fix */
	f.ops[0].fill = f.ops[1].fill = 0.5f;
	assert_float_equal(rp_latency_share(&f.g), 0, 0);
	replay_fix(&f.g, &e, FIX_BATCH, base, &r, NULL, NULL);
	assert_false(r.applies);
	f.ops[0].fill = f.ops[1].fill = f.ops[2].fill = 0;
	assert_float_equal(rp_latency_share(&f.g), -1, 0);
}

static void test_precision_names(void **state)
{
	static const struct {
		const char *name;
		enum rp_prec_kind kind;
	} cases[] = {
		{ "sm90_xmma_gemm_f32f32_tf32f32_f32_nn_n_tilesize128x256x32_"
		  "warpgroupsize2x1x1_execute_segment_k_off_kernel__5x_cublas", RPK_MM32 },
		{ "sm90_xmma_fprop_implicit_gemm_f32f32_tf32f32_f32_nhwckrsc_nhwc_"
		  "tilesize128x128x32_warpgroupsize1x1x1_g1_execute_segment_k_off_"
		  "kernel__5x_cudnn", RPK_CONV32 },
		{ "sm90_xmma_wgrad_indexed_implicit_gemm_f32f32_tf32f32_f32_nhwckrsc_"
		  "nhwc_tilesize64x64x32", RPK_CONV32 },
		{ "void cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_128x128_32x3_"
		  "tn_align4>(cutlass_80_tensorop_s1688gemm_128x128_32x3_tn_align4::"
		  "Params)", RPK_MM32 },
		{ "volta_sgemm_128x64_nn", RPK_MM32 },
		{ "sm90_xmma_fprop_implicit_gemm_bf16bf16_bf16f32_f32_nhwckrsc_nhwc_"
		  "tilesize128x128x64", RPK_MM16 },
		{ "void cutlass::Kernel2<cutlass_80_tensorop_s16816gemm_bf16_64x128_"
		  "64x4_nt_align8>(cutlass_80_tensorop_s16816gemm_bf16_64x128_64x4_"
		  "nt_align8::Params)", RPK_MM16 },
		{ "ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_stages_32x5_nn", RPK_MM16 },
		{ "nvjet_sm90_tst_64x8_64x16_1x2_h_bz_bias_TNT", RPK_OTHER },
		{ "void cudnn::bn_bw_1C11_kernel_new<float, float, float2, 128, true, "
		  "1>(float, float, float, float)", RPK_MEM32 },
		{ "void at::native::vectorized_elementwise_kernel<4, at::native::"
		  "CUDAFunctor_add<float>, std::array<char*, 3ul> >(int)", RPK_MEM32 },
		{ "void at::native::vectorized_elementwise_kernel<8, at::native::"
		  "CUDAFunctor_add<c10::BFloat16>, std::array<char*, 3ul> >(int)",
		  RPK_OTHER },
		{ "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<"
		  "at::native::(anonymous namespace)::TensorListMetadata<2>, float>",
		  RPK_OTHER },
		{ "void cudnn::engines_precompiled::nchwToNhwcKernel<float, float, "
		  "float, false, true, (cudnnKernelDataType_t)0>(int)", RPK_LAYOUT },
		{ "void cudnn::engines_precompiled::nhwcToNchwKernel<float, float>", RPK_LAYOUT },
		{ "void at::native::floaty_kernel<int>(int)", RPK_OTHER },
		{ NULL, RPK_OTHER },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_int_equal(rp_precision_kind(cases[i].name), cases[i].kind);
}

/* 30% TF32 convolutions, 10% TF32 GEMMs, 40% fp32 elementwise, 10%
 * conversions, 10% else: the point 0.1 + 0.4 / 2 + 0.4 / 2 + 0 = 0.5,
 * the low end 0.1 + 0.4 / 1.5 + 0.4 / 1.5 + 0.1 / 2 = 0.6833. */
static void test_precision_factor(void **state)
{
	struct rp_precision p = { .conv32 = 0.3, .mm32 = 0.4, .mem32 = 0.4,
				  .layout = 0.1 };

	(void)state;
	assert_true(rp_precision_applies(&p));
	assert_float_equal(rp_precision_factor(&p, RP_POINT), 0.5, 1e-9);
	assert_float_equal(rp_precision_factor(&p, RP_LOW), 0.1 + 0.8 / 1.5 + 0.05,
			   1e-9);
	/* bf16 GEMMs a third of the GEMMs' time: already in bf16 */
	p.mm16 = 0.2;
	assert_false(rp_precision_applies(&p));
	/* TF32 GEMMs alone (no convolution, no conversion): left alone */
	p = (struct rp_precision){ .mm32 = 0.9, .mem32 = 0.05 };
	assert_false(rp_precision_applies(&p));
	p.layout = 0.05;
	assert_true(rp_precision_applies(&p));
}

/* A GPU-bound step: a launch of 100 queuing a kernel of 1000, the shares
 * above: the kernel 500, the step 500 (-50%), the band's low end 683;
 * a program in bf16 gets nothing. */
static void test_fix_precision(void **state)
{
	static const float fill[1] = { 1 };
	struct fixture f;
	struct rp_fix_result r;
	struct rp_env e = { .prec = { .conv32 = 0.3, .mm32 = 0.4, .mem32 = 0.4,
				      .layout = 0.1 } };
	uint64_t base;

	(void)state;
	launches(&f, 1, 100, 1000, fill);
	base = replay_run(&f.g, NULL);
	assert_int_equal(base, 1000);
	replay_fix(&f.g, &e, FIX_PRECISION, base, &r, NULL, NULL);
	assert_true(r.applies);
	assert_int_equal(r.cls, VC_KERNEL);
	assert_in_range(r.span, 499, 500);      /* 0.5 in floating point */
	assert_float_equal(r.gain, 0.5, 2e-3);
	assert_float_equal(r.gain_lo, 1 - 683.0 / 1000, 2e-3);
	assert_float_equal(r.gain_hi, r.gain, 1e-9);
	assert_non_null(strstr(r.assume, "40% fp32/TF32 GEMMs"));
	e.prec.mm16 = 0.5;
	replay_fix(&f.g, &e, FIX_PRECISION, base, &r, NULL, NULL);
	assert_false(r.applies);
	assert_float_equal(r.gain, 0, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kernel_growth),
		cmocka_unit_test(test_batch_latency_gate),
		cmocka_unit_test(test_precision_names),
		cmocka_unit_test(test_precision_factor),
		cmocka_unit_test(test_fix_precision),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
