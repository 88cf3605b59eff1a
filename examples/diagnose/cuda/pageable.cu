// SPDX-License-Identifier: MIT
// pageable.cu - upload 32 MiB from pageable memory with cudaMemcpy, then
// run a short kernel on it, over and over.
// Expected: memory_batch.  Fixed twin: --pinned (cudaMallocHost and
// cudaMemcpyAsync: the copy runs at full speed, the host does not stage).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

__global__ void touch(float *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		x[i] = x[i] * 0.5f + 1.0f;
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
	int pinned = argc > 1 && !strcmp(argv[1], "--pinned");
	int steps = 150, warm = 5;
	size_t n = 8u << 20, bytes = n * sizeof(float);
	float *h, *d;

	if (pinned)
		cudaMallocHost(&h, bytes);
	else
		h = (float *)malloc(bytes);
	memset(h, 0, bytes);
	cudaMalloc(&d, bytes);
	auto t0 = std::chrono::steady_clock::now();
	int i;
	for (i = 0; more(i, warm, steps, begin); i++) {
		if (i == warm) {
			cudaDeviceSynchronize();
			t0 = std::chrono::steady_clock::now();
		}
		if (pinned)
			cudaMemcpyAsync(d, h, bytes, cudaMemcpyHostToDevice, 0);
		else
			cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice);
		touch<<<(unsigned)((n + 255) / 256), 256>>>(d, (int)n);
	}
	cudaDeviceSynchronize();
	double ms = std::chrono::duration<double, std::milli>(
		std::chrono::steady_clock::now() - t0).count() / (i - warm);
	printf("truth ms_per_step=%.4f batch=1 steps=%d\n", ms, i - warm);
	return 0;
}
