/* SPDX-License-Identifier: MIT */
/*
 * w_life.c - how a process lives and ends, where a tracer must not get in
 * the way (test/t/78-hostile-life.t).
 *
 *   w_life run N             N launches, a stream sync after each
 *   w_life mainexit N        a thread makes N launches and syncs, prints
 *                            the truth; the main thread ends with
 *                            pthread_exit (the process ends with the
 *                            thread, status 0)
 *   w_life watchdog N HOW    a stream sync that hangs (FAKE_CUDA_SYNC_NS
 *                            set high), left by siglongjmp from a SIGPROF
 *                            handler (a watchdog on CPU time); then N
 *                            launches from the same function (HOW same) or
 *                            from a function a few calls deeper (deep).
 *                            The sync counts as a call made
 *   w_life sigfork N         a stream sync that hangs; the SIGPROF handler
 *                            forks: the child makes N launches in it and
 *                            exits through exit(); the parent reaps it and
 *                            leaves the sync as watchdog does, then makes
 *                            10 launches; "children ok 1" when the child
 *                            exited 0.  The child counts the sync it was
 *                            made in as its own call
 *   w_life handler K T       stream syncs (the null stream) in a loop
 *                            while a SIGPROF handler, every ms of CPU
 *                            time, makes K launches, T times
 *   w_life pipe P            SIGPIPE blocked (P 1: one raised, pending);
 *                            one launch; prints "sigpipe pending=0|1"
 *   w_life quick N           N launches and syncs, then quick_exit(0)
 *
 * Each mode that launches prints its truth line (launcher.h).
 */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>

#include "test/workloads/launcher.h"

static struct launcher L;
static sigjmp_buf watchdog;
static long child_launches;
static volatile sig_atomic_t child_ok;
static atomic_long ticks;
static long ticks_max, per_tick;

static void timer_start(long us, int repeat)
{
	struct itimerval it = { .it_value = { .tv_usec = us } };

	if (repeat)
		it.it_interval = it.it_value;
	setitimer(ITIMER_PROF, &it, NULL);
}

static void on_signal(int sig, void (*fn)(int))
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = fn;
	sigaction(sig, &sa, NULL);
}

static void leave_sync(int sig)
{
	(void)sig;
	siglongjmp(watchdog, 1);
}

/* One launch from a few frames down. */
static __attribute__((noinline)) void launch_deep(int depth)
{
	volatile char pad[64];

	pad[0] = (char)depth;
	if (depth > 0) {
		launch_deep(depth - 1);
		return;
	}
	ln_run(&L, NULL, 1, 0);
	(void)pad[0];
}

/* A sync that never returns on its own, then n launches. */
static int do_watchdog(long n, const char *how)
{
	int arg = 1;
	void *args[] = { &L.buf, &arg };

	if (!sigsetjmp(watchdog, 1)) {
		on_signal(SIGPROF, leave_sync);
		timer_start(20000, 0);
		atomic_fetch_add(&L.syncs, 1);
		L.sync(NULL);
		fprintf(stderr, "the sync returned\n");
		return WL_EXIT_FAIL;
	}
	for (long i = 0; i < n; i++) {
		if (!strcmp(how, "deep")) {
			launch_deep(3);
			continue;
		}
		WL_CK(L.launch(L.kernel, 4, 1, 1, 32, 1, 1, 0, NULL, args, NULL));
		atomic_fetch_add(&L.launches, 1);
	}
	ln_truth(&L);
	return 0;
}

/* In the handler: the child makes its launches and exits; the parent
 * waits for it, then leaves the sync. */
static void fork_here(int sig)
{
	int status;
	pid_t pid = fork();

	(void)sig;
	if (pid == 0) {
		atomic_store(&L.launches, 0);
		atomic_store(&L.syncs, 1);      /* the one it is inside */
		ln_run(&L, NULL, child_launches, 0);
		ln_truth(&L);
		exit(0);
	}
	child_ok = pid > 0 && waitpid(pid, &status, 0) == pid &&
		   WIFEXITED(status) && WEXITSTATUS(status) == 0;
	siglongjmp(watchdog, 1);
}

static int do_sigfork(long n)
{
	int arg = 1;
	void *args[] = { &L.buf, &arg };

	child_launches = n;
	if (!sigsetjmp(watchdog, 1)) {
		on_signal(SIGPROF, fork_here);
		timer_start(20000, 0);
		atomic_fetch_add(&L.syncs, 1);
		L.sync(NULL);
		return WL_EXIT_FAIL;
	}
	for (int i = 0; i < 10; i++) {
		WL_CK(L.launch(L.kernel, 4, 1, 1, 32, 1, 1, 0, NULL, args, NULL));
		atomic_fetch_add(&L.launches, 1);
	}
	ln_truth(&L);
	printf("children ok %d\n", (int)child_ok);
	return child_ok ? 0 : 1;
}

static void launch_some(int sig)
{
	(void)sig;
	if (atomic_load(&ticks) >= ticks_max)
		return;
	ln_run(&L, NULL, per_tick, 0);
	atomic_fetch_add(&ticks, 1);
}

static int do_handler(long k, long t)
{
	per_tick = k;
	ticks_max = t;
	on_signal(SIGPROF, launch_some);
	timer_start(1000, 1);
	while (atomic_load(&ticks) < ticks_max) {
		WL_CK(L.sync(NULL));
		atomic_fetch_add(&L.syncs, 1);
	}
	timer_start(0, 0);
	ln_truth(&L);
	return 0;
}

/* Before the first traced call, which may write to stderr. */
static void pipe_blocked(int pending)
{
	sigset_t pipe;

	sigemptyset(&pipe);
	sigaddset(&pipe, SIGPIPE);
	sigprocmask(SIG_BLOCK, &pipe, NULL);
	if (pending)
		raise(SIGPIPE);
}

static int do_pipe(void)
{
	sigset_t now;

	ln_run(&L, NULL, 1, 0);
	sigpending(&now);
	printf("sigpipe pending=%d\n", sigismember(&now, SIGPIPE));
	return 0;
}

static void *worker(void *arg)
{
	long n = (long)arg;
	CUstream s = ln_thread_stream(&L);

	ln_run(&L, s, n, 1);
	ln_truth(&L);
	return NULL;
}

static int do_mainexit(long n)
{
	pthread_t t;

	if (pthread_create(&t, NULL, worker, (void *)n))
		return WL_EXIT_FAIL;
	pthread_exit(NULL);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	long n = argc > 2 ? atol(argv[2]) : 0;

	if (argc < 3) {
		fprintf(stderr, "usage: w_life MODE N ...\n");
		return 2;
	}
	if (!strcmp(mode, "pipe"))
		pipe_blocked((int)n);
	ln_open(&L);
	if (!strcmp(mode, "run")) {
		ln_run(&L, L.stream, n, 1);
		ln_truth(&L);
		return 0;
	}
	if (!strcmp(mode, "mainexit"))
		return do_mainexit(n);
	if (!strcmp(mode, "watchdog") && argc > 3)
		return do_watchdog(n, argv[3]);
	if (!strcmp(mode, "sigfork"))
		return do_sigfork(n);
	if (!strcmp(mode, "handler") && argc > 3)
		return do_handler(n, atol(argv[3]));
	if (!strcmp(mode, "pipe"))
		return do_pipe();
	if (!strcmp(mode, "quick")) {
		ln_run(&L, L.stream, n, 1);
		ln_truth(&L);
		quick_exit(0);
	}
	fprintf(stderr, "w_life: unknown mode '%s'\n", mode);
	return 2;
}
