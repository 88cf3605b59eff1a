// SPDX-License-Identifier: MIT
// launch_bound.cu - launch a tiny kernel (about a microsecond of GPU time)
// over and over: the GPU drains faster than the host launches.
// Expected: kernel_efficiency.  Fixed twin: --graph (100 launches captured
// in a CUDA graph, replayed).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

__global__ void tiny(float *x)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	x[i] += 1.0f;
}

/* Run for DIAG_UNTIL seconds from the start of main, when set (so that a
 * GPU timing window of the tracer falls in the steady steps), else `steps`. */
static bool more(int i, int warm, int steps, std::chrono::steady_clock::time_point begin)
{
	static double until = getenv("DIAG_UNTIL") ? atof(getenv("DIAG_UNTIL")) : 0;

	if (until <= 0)
		return i < steps + warm;
	return i < warm + 3 || std::chrono::duration<double>(
		std::chrono::steady_clock::now() - begin).count() < until;
}

int main(int argc, char **argv)
{
	auto begin = std::chrono::steady_clock::now();
	int graph = argc > 1 && !strcmp(argv[1], "--graph");
	int per = 100, reps = 400, warm = 10;
	float *d;
	cudaStream_t s;
	cudaGraph_t g;
	cudaGraphExec_t ge;

	cudaMalloc(&d, 132 * 256 * sizeof(float));
	cudaStreamCreate(&s);
	if (graph) {
		cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
		for (int k = 0; k < per; k++)
			tiny<<<132, 256, 0, s>>>(d);
		cudaStreamEndCapture(s, &g);
		cudaGraphInstantiate(&ge, g, 0);
	}
	auto t0 = std::chrono::steady_clock::now();
	int i;
	for (i = 0; more(i, warm, reps, begin); i++) {
		if (i == warm) {
			cudaStreamSynchronize(s);
			t0 = std::chrono::steady_clock::now();
		}
		if (graph)
			cudaGraphLaunch(ge, s);
		else
			for (int k = 0; k < per; k++)
				tiny<<<132, 256, 0, s>>>(d);
	}
	cudaStreamSynchronize(s);
	double ms = std::chrono::duration<double, std::milli>(
		std::chrono::steady_clock::now() - t0).count() / (i - warm);
	printf("truth ms_per_step=%.4f batch=1 steps=%d\n", ms, i - warm);
	return 0;
}
