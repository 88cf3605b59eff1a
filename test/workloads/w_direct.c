/* SPDX-License-Identifier: MIT */
/*
 * w_direct.c - a workload linked with -lcuda that calls the driver by name,
 * as a C program including cuda.h does; the same op sequence as w_cudart.
 * Built twice: w_direct, and w_direct_ptsz with
 * -DCUDA_API_PER_THREAD_DEFAULT_STREAM, where cuda.h turns the calls into
 * their _ptsz/_ptds symbols.
 *
 *   w_direct [--exit=N] [-v] [ITERS [CTX_EVERY]]
 */
#define WL_CALL(f) f
#include "test/fake/workload.h"

int main(int argc, char **argv)
{
	int verbose = 0, i, nargs = 0, nr;
	long iters = 20, every = 5, code = 0;
	struct wl_env e;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-v"))
			verbose = 1;
		else if (wl_opt_int(argv[i], "--exit", &code))
			;
		else if (nargs++ == 0)
			iters = strtol(argv[i], NULL, 10);
		else
			every = strtol(argv[i], NULL, 10);
	}

	WL_CK(cuInit(0));
	wl_setup(&e);
	for (i = 0; i < iters; i++)
		wl_iteration(&e, i, (int)every);
	nr = wl_tail(&e);
	if (verbose)
		printf("iters %ld every %ld not_ready %d\n", iters, every, nr);
	return (int)code;
}
