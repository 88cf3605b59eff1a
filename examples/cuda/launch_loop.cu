// SPDX-License-Identifier: MIT
// launch_loop.cu - what one kernel launch costs the host: empty-kernel
// launches in a C loop, timed around the launch calls only, for the
// overhead benchmark (test/gpu/check_overhead.py).
//
//   launch_loop [--reps R] [--batches B] [--batch N]
//
// R repetitions (default 7) of B batches (default 200) of N back-to-back
// launches (default 250: few enough that the launch queue never fills, so
// the GPU's pace does not hide the host's); a stream sync after each batch,
// not timed.  Prints each repetition's ns per launch, then
//   truth launches=L ns_per_launch=<median of the repetitions> ns_min=<min>
//         clock_ns=<one clock_gettime(CLOCK_MONOTONIC)>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
	fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_)); exit(1); } } while (0)

__global__ void empty_kernel() {}

static double now_ns()
{
	timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

// What the tracer pays twice per call: one clock read.
static double clock_cost_ns()
{
	const int n = 2000000;
	timespec ts;
	double t0 = now_ns();

	for (int i = 0; i < n; i++)
		clock_gettime(CLOCK_MONOTONIC, &ts);
	return (now_ns() - t0) / n;
}

static long arg(int argc, char **argv, const char *name, long def)
{
	for (int i = 1; i + 1 < argc; i++)
		if (!strcmp(argv[i], name))
			return atol(argv[i + 1]);
	return def;
}

int main(int argc, char **argv)
{
	long reps = arg(argc, argv, "--reps", 7);
	long batches = arg(argc, argv, "--batches", 200);
	long batch = arg(argc, argv, "--batch", 250);
	long launches = 0;
	std::vector<double> per;
	cudaStream_t s;

	CHECK(cudaStreamCreate(&s));
	for (int i = 0; i < 2000; i++, launches++)      // warm up
		empty_kernel<<<1, 1, 0, s>>>();
	CHECK(cudaStreamSynchronize(s));
	for (long r = 0; r < reps; r++) {
		double spent = 0;

		for (long b = 0; b < batches; b++) {
			double t0 = now_ns();

			for (long i = 0; i < batch; i++)
				empty_kernel<<<1, 1, 0, s>>>();
			spent += now_ns() - t0;
			launches += batch;
			CHECK(cudaStreamSynchronize(s));
		}
		per.push_back(spent / (batches * batch));
		printf("rep %ld ns_per_launch=%.1f\n", r, per.back());
	}
	CHECK(cudaGetLastError());
	std::sort(per.begin(), per.end());
	printf("truth launches=%ld ns_per_launch=%.2f ns_min=%.2f clock_ns=%.2f\n",
	       launches, per[per.size() / 2], per[0], clock_cost_ns());
	return 0;
}
