/* SPDX-License-Identifier: MIT */
/*
 * launch_cost.c - the tracer's added time per launch, on the fake driver,
 * with the cache as a real driver leaves it: a real cuLaunchKernel runs
 * 2-4 us of driver code and data between two of our wrappers and evicts
 * their lines, which a fake launch of a few ns does not.  Each iteration
 * launches once, then reads and writes --touch-kb KiB of its own (the
 * driver's share of the caches); only the launch call is timed (the CPU's
 * time-stamp counter, fenced, around it), so traced minus untraced is what
 * the wrapper costs from a cold-ish cache.  Linked with -lcuda (the fake).
 *
 *   launch_cost [--touch-kb=K] [--launches=N] [--reps=R] [--sync=1]
 *
 * --sync=1 times a cuStreamSynchronize instead (run with
 * FAKE_CUDA_SYNC_NS=0): what a wait's call stack costs.
 *
 * Prints "truth ns_per_launch=<median of R> touch_kb=K launches=N".
 * test/bench/launch_cost.sh runs it untraced and traced, interleaved.
 */
#define WL_CALL(f) f
#include <x86intrin.h>

#include "test/bench/bench_time.h"
#include "test/fake/workload.h"

int main(int argc, char **argv)
{
	long touch_kb = 256, launches = 200000, reps = 7, sync = 0;
	struct wl_env e;
	volatile unsigned char *pollute;
	double per[64];
	int n = 1024;
	void *args[] = { &e.da, &e.db, &e.db, &n };

	for (int i = 1; i < argc; i++)
		if (!wl_opt_int(argv[i], "--touch-kb", &touch_kb) &&
		    !wl_opt_int(argv[i], "--launches", &launches) &&
		    !wl_opt_int(argv[i], "--reps", &reps) &&
		    !wl_opt_int(argv[i], "--sync", &sync))
			wl_fail(__FILE__, __LINE__, argv[i], 0);
	if (reps < 1 || reps > 64 || touch_kb < 0 || launches < 1)
		wl_fail(__FILE__, __LINE__, "arguments in range", 0);
	pollute = calloc(1, (size_t)touch_kb * 1024 + 64);
	if (!pollute)
		exit(WL_EXIT_FAIL);
	WL_CK(cuInit(0));
	wl_setup(&e);
	for (long r = 0; r < reps; r++) {
		double t0 = now_ns(), ticks = 0;
		uint64_t c0 = __rdtsc();

		for (long i = 0; i < launches; i++) {
			uint64_t a, b;

			_mm_lfence();
			a = __rdtsc();
			_mm_lfence();
			if (sync)
				WL_CK(cuStreamSynchronize(e.stream));
			else
				WL_CK(cuLaunchKernel(e.vecadd, 4, 1, 1, 256, 1, 1, 0,
						     e.stream, args, NULL));
			_mm_lfence();
			b = __rdtsc();
			ticks += (double)(b - a);
			for (long k = 0; k < touch_kb * 1024; k += 64)
				pollute[k]++;
		}
		/* ticks to ns by this repetition's own TSC rate */
		per[r] = ticks / (double)launches *
			 (now_ns() - t0) / (double)(__rdtsc() - c0);
		WL_CK(cuStreamSynchronize(e.stream));
	}
	qsort(per, (size_t)reps, sizeof(per[0]), cmp_double);
	printf("truth ns_per_launch=%.1f touch_kb=%ld launches=%ld\n",
	       per[reps / 2], touch_kb, launches);
	return 0;
}
