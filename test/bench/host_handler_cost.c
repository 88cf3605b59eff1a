/* SPDX-License-Identifier: MIT */
/*
 * host_handler_cost.c - the time the host sampler's SIGPROF handler takes
 * for one sample of a C thread (the unwind of GPUTRACE_HOST_NATIVE
 * frames, the stack's id, the record): the library's code linked into
 * this program, as test/tsan/stress.c does, and the handler called
 * directly, in a loop, with the siginfo and context of a real tick of the
 * thread's own timer, from 40 calls deep (so that the unwinder walks as
 * far as it ever does: GPUTRACE_HOST_NATIVE frames and the handler's).
 * The kernel's part (delivering the signal, the return through
 * sigreturn) is not in it: it is measured apart, as a raise() of a signal
 * whose handler does nothing (a timer's signal needs no system call to be
 * sent, so this is more than the kernel's part of a tick).  Settings come
 * from the environment (GPUTRACE_UNWIND, GPUTRACE_HOST_NATIVE...), read
 * at start.
 *
 *   host_handler_cost [ROUNDS]
 *
 * Prints "truth ns_per_sample=<median of ROUNDS rounds of 20000>
 * ns_per_signal=<the same for an empty handler, raise() included>
 * unwinder=U".
 */
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "include/gputrace/format.h"
#include "preload/base/ops.h"
#include "preload/hooks/fill.h"
#include "preload/record/ring.h"
#include "preload/stack/hostsample.h"
#include "preload/stack/stack_unwind.h"
#include "test/bench/bench_time.h"
#include "test/tsan/standins.h"

#define CALLS 20000
#define ROUNDS_MAX 64

static siginfo_t tick_si;
static ucontext_t tick_uc;
static volatile sig_atomic_t have_tick;

/* The library's SIGPROF handler (signals.c), reduced to what a tick of
 * ours needs: the first one is kept to be replayed. */
static void on_prof(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	if (!have_tick) {
		tick_si = *si;
		memcpy(&tick_uc, uc, sizeof(tick_uc));
		have_tick = 1;
	}
	gt_hostsample_signal(si, uc);
}

/* SIGPROF kept, as signals.c does when it arms. */
static void keep_prof(void)
{
	struct sigaction sa = { .sa_sigaction = on_prof,
				.sa_flags = SA_SIGINFO | SA_RESTART };

	sigaction(SIGPROF, &sa, NULL);
	gt_hostsample_prof(1);
}

/* One traced call's record: the dump opens, the thread is sampled. */
static void record_one(void)
{
	struct gt_rec *r = gt_rec_begin();

	if (!r)
		return;
	gt_fill_obj(r, 0, NULL);
	r->t0 = r->t1 = gt_now();
	gt_rec_commit(r, GT_OP_cuStreamSynchronize, 0);
}

static void on_usr1(int sig)
{
	(void)sig;
}

/* A round of raise() to a handler that does nothing: ns per signal. */
static double empty_round(void)
{
	double t0 = now_ns();

	for (int i = 0; i < CALLS; i++)
		raise(SIGUSR1);
	return (now_ns() - t0) / CALLS;
}

/* One round of replayed ticks, depth calls down: ns per tick. */
__attribute__((noinline)) static double round_at(int depth)
{
	double t0, ns;

	if (depth > 0) {
		ns = round_at(depth - 1);
		__asm__ __volatile__("" ::: "memory");  /* no tail call */
		return ns;
	}
	t0 = now_ns();
	for (int i = 0; i < CALLS; i++)
		gt_hostsample_signal(&tick_si, &tick_uc);
	return (now_ns() - t0) / CALLS;
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 7;
	double per[ROUNDS_MAX], sig[ROUNDS_MAX];
	volatile uint64_t spin = 0;

	if (rounds < 1 || rounds > ROUNDS_MAX)
		return 2;
	keep_prof();
	record_one();
	while (!have_tick)                  /* a real tick of our timer */
		spin++;
	signal(SIGUSR1, on_usr1);
	for (long r = 0; r < rounds; r++) {
		per[r] = round_at(40);
		sig[r] = empty_round();
		usleep(100000);             /* the writer drains the ring */
	}
	qsort(per, (size_t)rounds, sizeof(per[0]), cmp_double);
	qsort(sig, (size_t)rounds, sizeof(sig[0]), cmp_double);
	printf("truth ns_per_sample=%.0f ns_per_signal=%.0f unwinder=%s\n",
	       per[rounds / 2], sig[rounds / 2], gt_unwind_name());
	return 0;
}
