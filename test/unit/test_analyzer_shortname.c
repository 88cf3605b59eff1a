/* SPDX-License-Identifier: MIT */
/*
 * test_analyzer_shortname.c - kernel names shortened for a table column
 * (shortname.h): each form folds what it says it folds; every name fits
 * its width; no two rows read alike, at every width, for PyTorch's and
 * cuBLAS's names that share most of themselves, for a name given twice,
 * for random names and for thousands that differ deep inside; names whose brackets do not match are served
 * whole or cut, never read past.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/lib/shortname.h"
#include "test/unit/test_rng.h"

/* Demangled names of the sample's kernels, alike in most of themselves. */
static const char *const torch[] = {
	"void at::native::vectorized_elementwise_kernel<4, at::native::"
	"GeluCUDAKernelImpl(at::TensorIteratorBase&, at::native::GeluType)::"
	"{lambda()#2}::operator()() const::{lambda()#2}::operator()() const::"
	"{lambda(float)#1}, std::array<char*, 2ul> >(int, at::native::"
	"GeluCUDAKernelImpl(at::TensorIteratorBase&, at::native::GeluType)::"
	"{lambda()#2}::operator()() const::{lambda()#2}::operator()() const::"
	"{lambda(float)#1}, std::array<char*, 2ul>)",
	"void at::native::vectorized_elementwise_kernel<4, at::native::"
	"GeluBackwardCUDAKernelImpl(at::TensorIteratorBase&, at::native::"
	"GeluType)::{lambda()#2}::operator()() const::{lambda()#2}::operator()"
	"() const::{lambda(float, float)#1}, std::array<char*, 3ul> >(int, "
	"at::native::GeluBackwardCUDAKernelImpl(at::TensorIteratorBase&, "
	"at::native::GeluType)::{lambda()#2}::operator()() const::{lambda()#2}"
	"::operator()() const::{lambda(float, float)#1}, std::array<char*, 3ul>)",
	"void at::native::vectorized_elementwise_kernel<4, at::native::"
	"FillFunctor<float>, std::array<char*, 1ul> >(int, at::native::"
	"FillFunctor<float>, std::array<char*, 1ul>)",
	"void at::native::vectorized_elementwise_kernel<4, at::native::"
	"AUnaryFunctor<float, float, float, at::native::binary_internal::"
	"MulFunctor<float> >, std::array<char*, 2ul> >(int, at::native::"
	"AUnaryFunctor<float, float, float, at::native::binary_internal::"
	"MulFunctor<float> >, std::array<char*, 2ul>)",
	"void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::"
	"native::(anonymous namespace)::TensorListMetadata<1>, at::native::"
	"(anonymous namespace)::BinaryOpScalarFunctor<float, 1, 1, 0>, "
	"std::multiplies<float>, float>(at::native::(anonymous namespace)::"
	"TensorListMetadata<1>, at::native::(anonymous namespace)::"
	"BinaryOpScalarFunctor<float, 1, 1, 0>, std::multiplies<float>, float)",
	"void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::"
	"native::(anonymous namespace)::TensorListMetadata<1>, at::native::"
	"(anonymous namespace)::BinaryOpScalarFunctor<float, 1, 1, 0>, "
	"std::plus<float>, float>(at::native::(anonymous namespace)::"
	"TensorListMetadata<1>, at::native::(anonymous namespace)::"
	"BinaryOpScalarFunctor<float, 1, 1, 0>, std::plus<float>, float)",
	"void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::"
	"native::(anonymous namespace)::TensorListMetadata<3>, at::native::"
	"(anonymous namespace)::PointwiseOpScalarFunctor<float, 3, 3, 0>, "
	"std::multiplies<float>, float>(at::native::(anonymous namespace)::"
	"TensorListMetadata<3>, at::native::(anonymous namespace)::"
	"PointwiseOpScalarFunctor<float, 3, 3, 0>, std::multiplies<float>, float)",
	"void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::"
	"native::(anonymous namespace)::TensorListMetadata<2>, at::native::"
	"(anonymous namespace)::UnaryOpFunctor<float, 2, 1, 1>, at::native::"
	"Sqrt<float> >(at::native::(anonymous namespace)::TensorListMetadata<2>"
	", at::native::(anonymous namespace)::UnaryOpFunctor<float, 2, 1, 1>, "
	"at::native::Sqrt<float>)",
	"sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize32x32x8_stage3_warpsize"
	"1x2x1_ffma_aligna4_alignc4_execute_kernel__5x_cublas",
	"sm80_xmma_gemm_f32f32_f32f32_f32_nt_n_tilesize32x32x8_stage3_warpsize"
	"1x2x1_ffma_aligna4_alignc4_execute_kernel__5x_cublas",
	"sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize32x32x8_stage3_warpsize"
	"1x2x1_ffma_aligna4_alignc4_execute_split_k_kernel__5x_cublas",
	"void at::native::(anonymous namespace)::vectorized_layer_norm_kernel"
	"<float, float, false>(int, float, float const*, float const*, float "
	"const*, float*, float*, float*)",
	"void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, "
	"at::native::MeanOps<float, float, float, float>, unsigned int, float, "
	"4, 4> >(at::native::ReduceOp<float, at::native::MeanOps<float, float, "
	"float, float>, unsigned int, float, 4, 4>)",
	"fusion_34",
};

#define NTORCH (sizeof(torch) / sizeof(torch[0]))

/* Every name within width, none alike; the result freed. */
static void check_column(const char *const *full, size_t n, size_t width)
{
	char **s = shortname_column(full, n, width);
	size_t w = width < SHORTNAME_MIN ? SHORTNAME_MIN : width;

	for (size_t i = 0; i < n; i++) {
		if (strlen(s[i]) > w)
			fail_msg("width %zu: \"%s\" is %zu long", width, s[i], strlen(s[i]));
		for (size_t k = 0; k < i; k++)
			if (!strcmp(s[i], s[k]))
				fail_msg("width %zu: rows %zu and %zu both \"%s\"", width,
					 k, i, s[i]);
	}
	shortname_free(s, n);
}

/* The one name's shown form at width. */
static char *one(const char *full, size_t width)
{
	char **s = shortname_column(&full, 1, width);
	char *r = s[0];

	free(s);
	return r;
}

static void test_forms(void **state)
{
	char *s;

	(void)state;
	s = one(torch[0], 200);
	assert_string_equal(s, "at::native::vectorized_elementwise_kernel<4, "
			    "GeluCUDAKernelImpl::{lambda#2}::{lambda#2}::{lambda#1}, "
			    "array<char*, 2ul>>");
	free(s);
	s = one(torch[0], 95);
	assert_string_equal(s, "at::native::vectorized_elementwise_kernel<4, "
			    "GeluCUDAKernelImpl::...::{lambda#1}, array<...>>");
	free(s);
	s = one(torch[0], 80);
	assert_string_equal(s, "vectorized_elementwise_kernel<4, "
			    "GeluCUDAKernelImpl::..., array<...>>");
	free(s);
	s = one(torch[11], 200);
	assert_string_equal(s, "at::native::(anon)::vectorized_layer_norm_kernel"
			    "<float, float, false>");
	free(s);
	s = one(torch[11], 50);
	assert_string_equal(s, "vectorized_layer_norm_kernel<float, float, false>");
	free(s);
	s = one(torch[13], 40);
	assert_string_equal(s, "fusion_34");
	free(s);
}

/* A flat name too long keeps its head and its tail. */
static void test_flat(void **state)
{
	char *s = one(torch[8], 40);

	(void)state;
	assert_true(strlen(s) <= 40);
	assert_true(!strncmp(s, "sm80_xmma_gemm", 14));
	assert_non_null(strstr(s, "cublas"));
	assert_non_null(strstr(s, "..."));
	free(s);
}

/* The cuBLAS names that differ in "nn"/"nt" and "split_k" show it. */
static void test_flat_apart(void **state)
{
	char **s = shortname_column(&torch[8], 3, 40);

	(void)state;
	assert_non_null(strstr(s[0], "nn"));
	assert_non_null(strstr(s[1], "nt"));
	assert_non_null(strstr(s[2], "split"));
	shortname_free(s, 3);
}

static void test_widths(void **state)
{
	(void)state;
	for (size_t w = 1; w <= 260; w++)
		check_column(torch, NTORCH, w);
}

/* The same name in two rows: told apart all the same. */
static void test_twice(void **state)
{
	const char *twice[] = { torch[0], torch[1], torch[0] };

	(void)state;
	for (size_t w = 10; w <= 200; w += 7)
		check_column(twice, 3, w);
}

/* Brackets that do not match, stray closers, empty names, an operator. */
static void test_odd(void **state)
{
	const char *odd[] = {
		"void f<int(", "a>b<<c", "", "void ", "x::y::", "::", "{lambda()#1}",
		"void ns::kern<(anonymous namespace)::T<1>, 2>(int)",
		"void ns::kern<(anonymous namespace)::T<2>, 2>(int)",
		"void S<int>::operator<<(S<int>&)", "void S<int>::operator()(int) const",
		"((((((((((((", ">>>>>>>>", "<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<",
	};

	(void)state;
	for (size_t w = 1; w <= 80; w++)
		check_column(odd, sizeof(odd) / sizeof(odd[0]), w);
}

/* Random names of template arguments, lambdas and words. */
static void random_name(char *buf, size_t size, int depth)
{
	static const char *const words[] = {
		"at", "native", "kernel", "float", "Functor", "x", "4", "sm90",
		"gemm", "tile", "(anonymous namespace)", "{lambda(float)#1}",
		"operator()() const", "std", "array",
	};
	size_t n = strlen(buf);
	int parts = 1 + (int)(rng() % 4);

	for (int p = 0; p < parts && n + 40 < size; p++) {
		n += (size_t)snprintf(buf + n, size - n, "%s%s", p ? "::" : "",
				      words[rng() % (sizeof(words) / sizeof(words[0]))]);
		if (depth < 3 && rng() % 3 == 0 && n + 80 < size) {
			int args = 1 + (int)(rng() % 3);

			strcat(buf, "<");
			for (int a = 0; a < args; a++) {
				if (a)
					strcat(buf, ", ");
				random_name(buf, size, depth + 1);
			}
			strcat(buf, ">");
			n = strlen(buf);
		}
		if (rng() % 5 == 0 && n + 10 < size) {
			strcat(buf, "(int)");
			n += 5;
		}
	}
}

static void test_random(void **state)
{
	enum { ROWS = 40 };
	static char names[ROWS][600];
	const char *full[ROWS];

	(void)state;
	for (int round = 0; round < 50; round++) {
		for (int i = 0; i < ROWS; i++) {
			names[i][0] = 0;
			if (rng() % 2)
				strcpy(names[i], "void ");
			random_name(names[i], sizeof(names[i]), 0);
			full[i] = names[i];
		}
		check_column(full, ROWS, 12 + rng() % 100);
	}
}

/* Thousands of names that differ only deep inside their arguments: told
 * apart by those words, without the last resort's " #n". */
static void test_many(void **state)
{
	enum { N = 3000 };
	char **full = calloc(N, sizeof(*full)), **s;

	(void)state;
	for (int i = 0; i < N; i++) {
		full[i] = malloc(256);
		snprintf(full[i], 256, "void at::native::vectorized_elementwise_kernel<4, "
			 "at::native::BinaryFunctor<float, at::native::Op%dFunctor<float, "
			 "%d> >, std::array<char*, 3ul> >(int)", i % 97, i / 97);
	}
	check_column((const char *const *)full, N, 60);
	s = shortname_column((const char *const *)full, N, 60);
	for (int i = 0; i < N; i++)
		if (strstr(s[i], " #"))
			fail_msg("\"%s\" needed a number", s[i]);
	shortname_free(s, N);
	for (int i = 0; i < N; i++)
		free(full[i]);
	free(full);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_forms),
		cmocka_unit_test(test_flat),
		cmocka_unit_test(test_flat_apart),
		cmocka_unit_test(test_widths),
		cmocka_unit_test(test_twice),
		cmocka_unit_test(test_odd),
		cmocka_unit_test(test_random),
		cmocka_unit_test(test_many),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
