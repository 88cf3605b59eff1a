/* SPDX-License-Identifier: MIT */
/*
 * w_hostburn.c - CPU burnt between launches in functions whose shares are
 * known, for the analyzer's breakdown of host samples by idle cause
 * (test/t/418-hostsample-report.t).  Each burn spins until its thread
 * has used so much more CPU time, so that the shares hold whatever the
 * machine's load.  A round's length varies (a unit of 0.5 to 1.5 ms,
 * drawn from a fixed sequence), the shares within it do not: a round
 * that took a whole number of the kernel's ticks would see its samples
 * fall at the same places each time.
 *
 *   w_hostburn burn ROUNDS A B
 *                   ROUNDS rounds of a launch, a stream sync, then A
 *                   units of CPU time in burn_a and B in burn_b
 *   w_hostburn worker ROUNDS D G
 *                   a forked worker process (no CUDA call, as a
 *                   DataLoader worker) serves ROUNDS requests: D units in
 *                   decode and G in augment each; the main process
 *                   launches, syncs and waits for its reply each round
 *
 * Prints "worker pid=P" (worker), then "done".
 */
#include <sys/wait.h>
#include <time.h>

#include "test/workloads/launcher.h"

#define NOINLINE __attribute__((noinline))

static struct launcher L;
static volatile uint64_t sink;
static uint64_t seed = 42;

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The next round's unit of CPU time: 500 to 1500 us. */
static long unit_us(void)
{
	seed = seed * 6364136223846793005ull + 1442695040888963407ull;
	return 500 + (long)(seed >> 33) % 1000;
}

/* Spin until the thread has used us more microseconds of CPU time. */
static inline void spin(long us)
{
	uint64_t until = thread_cpu_ns() + (uint64_t)us * 1000u, x = sink;

	while (thread_cpu_ns() < until)
		for (int i = 0; i < 20000; i++)
			x = x * 6364136223846793005ull + 1442695040888963407ull;
	sink = x;
}

NOINLINE void burn_a(long us) { spin(us); }
NOINLINE void burn_b(long us) { spin(us); }
NOINLINE void decode(long us) { spin(us); }
NOINLINE void augment(long us) { spin(us); }

static void step(void)
{
	void *args[] = { &L.buf };

	WL_CK(L.launch(L.kernel, 1, 1, 1, 1, 1, 1, 0, L.stream, args, NULL));
	WL_CK(L.sync(L.stream));
}

static void burn(long rounds, long a, long b)
{
	for (long i = 0; i < rounds; i++) {
		long u = unit_us();

		step();
		burn_a(a * u);
		burn_b(b * u);
	}
}

/* The worker: a byte in, decode and augment, a byte out. */
static void serve(int in, int out, long d, long g)
{
	char c;

	while (read(in, &c, 1) == 1) {
		long u = unit_us();

		decode(d * u);
		augment(g * u);
		if (write(out, &c, 1) != 1)
			break;
	}
	_exit(0);
}

static void worker(long rounds, long d, long g)
{
	int req[2], rep[2];
	pid_t pid;
	char c = 'x';

	if (pipe(req) || pipe(rep))
		exit(1);
	step();                 /* CUDA in use when the worker is forked */
	pid = fork();
	if (pid < 0)
		exit(1);
	if (pid == 0) {
		close(req[1]);
		close(rep[0]);
		serve(req[0], rep[1], d, g);
	}
	close(req[0]);
	close(rep[1]);
	printf("worker pid=%d\n", (int)pid);
	for (long i = 0; i < rounds; i++) {
		step();
		if (write(req[1], &c, 1) != 1 || read(rep[0], &c, 1) != 1)
			exit(1);
	}
	close(req[1]);
	waitpid(pid, NULL, 0);
}

int main(int argc, char **argv)
{
	if (argc != 5) {
		fprintf(stderr, "usage: w_hostburn burn|worker ROUNDS MS MS\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IONBF, 0);
	ln_open(&L);
	if (!strcmp(argv[1], "burn"))
		burn(atol(argv[2]), atol(argv[3]), atol(argv[4]));
	else
		worker(atol(argv[2]), atol(argv[3]), atol(argv[4]));
	printf("done\n");
	return 0;
}
