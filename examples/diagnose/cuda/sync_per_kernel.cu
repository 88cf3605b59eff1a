// SPDX-License-Identifier: MIT
// sync_per_kernel.cu - run a 40 us kernel, wait for it with
// cudaDeviceSynchronize, do 15 us of host work, repeat.
// Expected: communication (sync bubbles: the GPU idles after every wait).
// Fixed twin: --no-sync (one wait at the end: host work overlaps kernels).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

__global__ void spin(long long cycles)
{
	long long start = clock64();

	while (clock64() - start < cycles)
		;
}

static void host_work(double us)
{
	auto end = std::chrono::steady_clock::now() +
		   std::chrono::duration<double, std::micro>(us);

	while (std::chrono::steady_clock::now() < end)
		;
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
	int sync = !(argc > 1 && !strcmp(argv[1], "--no-sync"));
	int steps = 20000, warm = 100;
	long long cycles = 40LL * 1980;     /* ~40 us at 1.98 GHz */

	auto t0 = std::chrono::steady_clock::now();
	int i;
	for (i = 0; more(i, warm, steps, begin); i++) {
		if (i == warm) {
			cudaDeviceSynchronize();
			t0 = std::chrono::steady_clock::now();
		}
		spin<<<132, 128>>>(cycles);
		if (sync)
			cudaDeviceSynchronize();
		host_work(15.0);
	}
	cudaDeviceSynchronize();
	double ms = std::chrono::duration<double, std::milli>(
		std::chrono::steady_clock::now() - t0).count() / (i - warm);
	printf("truth ms_per_step=%.4f batch=1 steps=%d\n", ms, i - warm);
	return 0;
}
