// SPDX-License-Identifier: MIT
// vecadd.cu - a plain CUDA C program, built with nvcc's defaults (static
// cudart), that does a known number of launches, copies and waits and says
// how many, so a trace of it can be checked against the truth.
//
//   vecadd [iterations] [--empty N]
//     per iteration: 1 HtoD copy, 3 kernel launches, 1 DtoH async copy,
//     1 memset, 1 stream sync; cudaDeviceSynchronize every 10 iterations.
//     --empty N: then N back-to-back empty-kernel launches, timed.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <chrono>
#include <cuda_runtime.h>

#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
	fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_)); exit(1); } } while (0)

__global__ void vec_add(const float *a, const float *b, float *c, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		c[i] = a[i] + b[i];
}

__global__ void scale(float *c, float s, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		c[i] *= s;
}

__global__ void empty_kernel() {}

int main(int argc, char **argv)
{
	int iters = argc > 1 ? atoi(argv[1]) : 100;
	int empty = argc > 3 && !strcmp(argv[2], "--empty") ? atoi(argv[3]) : 0;
	const int n = 1 << 20;
	size_t bytes = n * sizeof(float);
	float *h_a = (float *)malloc(bytes), *h_c = (float *)malloc(bytes);
	float *d_a, *d_b, *d_c;
	cudaStream_t s;
	long launches = 0, htod = 0, dtoh = 0, sets = 0, stream_syncs = 0, ctx_syncs = 0;

	for (int i = 0; i < n; i++)
		h_a[i] = (float)i;
	CHECK(cudaMalloc(&d_a, bytes));
	CHECK(cudaMalloc(&d_b, bytes));
	CHECK(cudaMalloc(&d_c, bytes));
	CHECK(cudaStreamCreate(&s));
	for (int it = 0; it < iters; it++) {
		CHECK(cudaMemcpy(d_a, h_a, bytes, cudaMemcpyHostToDevice)); htod++;
		CHECK(cudaMemsetAsync(d_b, 0, bytes, s)); sets++;
		vec_add<<<(n + 255) / 256, 256, 0, s>>>(d_a, d_b, d_c, n); launches++;
		scale<<<(n + 127) / 128, 128, 0, s>>>(d_c, 2.0f, n); launches++;
		vec_add<<<(n + 255) / 256, 256, 0, s>>>(d_c, d_a, d_c, n); launches++;
		CHECK(cudaGetLastError());
		CHECK(cudaMemcpyAsync(h_c, d_c, bytes, cudaMemcpyDeviceToHost, s)); dtoh++;
		CHECK(cudaStreamSynchronize(s)); stream_syncs++;
		if (it % 10 == 9) {
			CHECK(cudaDeviceSynchronize()); ctx_syncs++;
		}
	}
	if (h_c[3] != 2.0f * 3.0f + 3.0f) {
		fprintf(stderr, "wrong result %f\n", h_c[3]);
		return 1;
	}
	double us_per_launch = 0;
	if (empty) {
		for (int i = 0; i < 1000; i++)
			empty_kernel<<<1, 1, 0, s>>>();
		CHECK(cudaStreamSynchronize(s)); stream_syncs++;
		launches += 1000;
		auto t0 = std::chrono::steady_clock::now();
		for (int i = 0; i < empty; i++)
			empty_kernel<<<1, 1, 0, s>>>();
		auto t1 = std::chrono::steady_clock::now();
		CHECK(cudaStreamSynchronize(s)); stream_syncs++;
		launches += empty;
		us_per_launch = std::chrono::duration<double, std::micro>(t1 - t0).count() / empty;
	}
	printf("truth launches=%ld htod=%ld dtoh=%ld sets=%ld stream_syncs=%ld ctx_syncs=%ld"
	       " bytes=%zu us_per_launch=%.4f\n",
	       launches, htod, dtoh, sets, stream_syncs, ctx_syncs, bytes, us_per_launch);
	return 0;
}
