/* SPDX-License-Identifier: MIT */
/*
 * w_life.c - how a process lives and ends, where a tracer must not get in
 * the way (test/t/78-hostile-life.t).
 *
 *   w_life run N             N launches, a stream sync after each
 *
 * Each mode that launches prints its truth line (launcher.h).
 */
#include <stdlib.h>
#include <string.h>

#include "test/workloads/launcher.h"

static struct launcher L;

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	long n = argc > 2 ? atol(argv[2]) : 0;

	if (argc < 3) {
		fprintf(stderr, "usage: w_life MODE N ...\n");
		return 2;
	}
	ln_open(&L);
	if (!strcmp(mode, "run")) {
		ln_run(&L, L.stream, n, 1);
		ln_truth(&L);
		return 0;
	}
	fprintf(stderr, "w_life: unknown mode '%s'\n", mode);
	return 2;
}
