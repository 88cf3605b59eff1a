/* SPDX-License-Identifier: MIT */
/*
 * w_kill.c - a program that ends without exit(): killed (SIGKILL, as the
 * out-of-memory killer does) or leaving through _exit (as Python's
 * os._exit and multiprocessing's children do).  Its dump has no END; it
 * must still be readable up to the last data the tracer flushed.
 *
 *   w_kill kill|_exit N [--wait MS] [--threads T]
 *
 * N launches and syncs, the truth line, then MS milliseconds (default
 * 300) before the end.  With --threads, T threads launch and sync without
 * pause until the end (the truth line is then a lower bound).
 */
#include <pthread.h>
#include <signal.h>

#include "test/workloads/launcher.h"

static struct launcher L;

static void *busy(void *arg)
{
	CUstream s = ln_thread_stream(&L);

	(void)arg;
	for (;;)
		ln_run(&L, s, 1, 1);
	return NULL;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	long n = argc > 2 ? atol(argv[2]) : 10, wait_ms = 300, threads = 0;
	pthread_t tid;

	for (int i = 3; i + 1 < argc; i++) {
		if (!strcmp(argv[i], "--wait"))
			wait_ms = atol(argv[++i]);
		else if (!strcmp(argv[i], "--threads"))
			threads = atol(argv[++i]);
	}
	ln_open(&L);
	for (long i = 0; i < threads; i++)
		pthread_create(&tid, NULL, busy, NULL);
	ln_run(&L, L.stream, n, 1);
	ln_truth(&L);
	usleep((useconds_t)wait_ms * 1000);
	if (!strcmp(mode, "kill"))
		raise(SIGKILL);
	else if (!strcmp(mode, "_exit"))
		_exit(0);
	return 2;
}
