/* SPDX-License-Identifier: MIT */
/*
 * w_late.c - CUDA reached late, from a thread, and threads that come and
 * go: the program runs a while without CUDA (a thread, a sleep), then a
 * thread opens the driver (dlopen, cuInit), then WAVES waves of THREADS
 * short-lived threads each make M launches and syncs and exit, so buffers
 * of exited threads must be drained and reused.
 *
 *   w_late WAVES THREADS M
 *
 * Prints its truth line (launcher.h) at the end.
 */
#include <pthread.h>

#include "test/workloads/launcher.h"

static struct launcher L;
static long per_thread;

static void *opener(void *arg)
{
	(void)arg;
	ln_open(&L);
	return NULL;
}

static void *worker(void *arg)
{
	CUstream s = ln_thread_stream(&L);

	(void)arg;
	ln_run(&L, s, per_thread, 1);
	return NULL;
}

static void run_thread(void *(*fn)(void *), pthread_t *t)
{
	if (pthread_create(t, NULL, fn, NULL)) {
		perror("pthread_create");
		exit(WL_EXIT_FAIL);
	}
}

int main(int argc, char **argv)
{
	long waves = argc > 1 ? atol(argv[1]) : 4;
	long threads = argc > 2 ? atol(argv[2]) : 8;
	pthread_t t[256];

	per_thread = argc > 3 ? atol(argv[3]) : 100;
	if (threads < 1 || threads > 256)
		return 2;
	usleep(50 * 1000);              /* a while without CUDA */
	run_thread(opener, &t[0]);
	pthread_join(t[0], NULL);
	for (long w = 0; w < waves; w++) {
		for (long i = 0; i < threads; i++)
			run_thread(worker, &t[i]);
		for (long i = 0; i < threads; i++)
			pthread_join(t[i], NULL);
	}
	ln_truth(&L);
	return 0;
}
