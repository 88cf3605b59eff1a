/* SPDX-License-Identifier: MIT */
/*
 * w_signal.c - a program that dies of a signal, or handles one, after
 * using CUDA; and one that checks that the tracer's signal handlers are
 * invisible.
 *
 *   w_signal SIGNAME N [--handler] [--threads T]
 *       N launches and syncs, then SIGNAME: INT, TERM, HUP, QUIT sent
 *       with kill(), ABRT by abort(), SEGV by a store through NULL, FPE
 *       by raise().  With --handler the program first installs its own
 *       handler (sigaction), which prints "handled SIGNAME" and calls
 *       exit(3).  With --threads, T threads launch and sync without pause
 *       meanwhile.  The truth line is printed just before the signal.
 *   w_signal query
 *       after CUDA is in use, checks what sigaction() and signal() say
 *       about watched signals through a round of changes: "ok ..." or
 *       "FAIL ..." lines.
 * Core dumps are turned off (RLIMIT_CORE 0).
 */
#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>

#include "test/workloads/launcher.h"

static struct launcher L;
static atomic_int stop;
static const char *signame;

static const struct { const char *name; int sig; } sigs[] = {
	{ "INT", SIGINT }, { "TERM", SIGTERM }, { "HUP", SIGHUP },
	{ "QUIT", SIGQUIT }, { "ABRT", SIGABRT }, { "SEGV", SIGSEGV },
	{ "FPE", SIGFPE },
};

static void on_signal(int sig)
{
	(void)sig;
	printf("handled %s\n", signame);
	exit(3);
}

static void *busy(void *arg)
{
	CUstream s = ln_thread_stream(&L);

	(void)arg;
	while (!atomic_load(&stop))
		ln_run(&L, s, 1, 1);
	return NULL;
}

static void die_of(int sig)
{
	if (sig == SIGABRT)
		abort();
	if (sig == SIGSEGV)
		*(volatile int *)(uintptr_t)atoi("0") = 1;
	kill(getpid(), sig);
	sleep(5);                       /* the signal is delivered meanwhile */
}

static void check(int ok, const char *what)
{
	printf("%s %s\n", ok ? "ok" : "FAIL", what);
}

/* What the program sees must be what it set, never the tracer's handler. */
static int query(void)
{
	struct sigaction sa, old;

	ln_run(&L, L.stream, 10, 1);
	usleep(200 * 1000);             /* a few writer cycles: handlers armed */
	sigaction(SIGTERM, NULL, &old);
	check(old.sa_handler == SIG_DFL, "SIGTERM shows SIG_DFL");
	sigaction(SIGSEGV, NULL, &old);
	check(old.sa_handler == SIG_DFL && !(old.sa_flags & SA_SIGINFO),
	      "SIGSEGV shows SIG_DFL without SA_SIGINFO");
	check(signal(SIGINT, on_signal) == SIG_DFL, "signal(SIGINT) returns SIG_DFL");
	check(signal(SIGINT, SIG_DFL) == on_signal, "then the program's handler");
	sigaction(SIGINT, NULL, &old);
	check(old.sa_handler == SIG_DFL, "SIGINT back at SIG_DFL");
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_RESTART;
	check(sigaction(SIGHUP, &sa, &old) == 0 && old.sa_handler == SIG_DFL,
	      "sigaction(SIGHUP) set, was SIG_DFL");
	sigaction(SIGHUP, NULL, &old);
	check(old.sa_handler == on_signal && (old.sa_flags & SA_RESTART),
	      "SIGHUP shows the program's handler and flags");
	sa.sa_handler = SIG_DFL;
	sa.sa_flags = SA_NODEFER;
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGHUP, NULL, &old);
	check(old.sa_handler == SIG_DFL && (old.sa_flags & SA_NODEFER),
	      "SIGHUP back at SIG_DFL with the program's flags");
	sa.sa_handler = SIG_IGN;
	sigaction(SIGQUIT, &sa, NULL);
	check(signal(SIGQUIT, SIG_DFL) == SIG_IGN, "SIGQUIT was SIG_IGN");
	check(sigaction(SIGKILL, &sa, NULL) == -1, "SIGKILL cannot be caught");
	ln_truth(&L);
	return 0;
}

int main(int argc, char **argv)
{
	struct rlimit no_core = { 0, 0 };
	struct sigaction sa;
	pthread_t tid[64];
	long n = argc > 2 ? atol(argv[2]) : 10, threads = 0;
	int sig = 0, handler = 0;

	setrlimit(RLIMIT_CORE, &no_core);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		signal(sigs[i].sig, SIG_DFL);   /* whatever the caller left */
	signame = argc > 1 ? argv[1] : "";
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		if (!strcmp(signame, sigs[i].name))
			sig = sigs[i].sig;
	for (int i = 3; i < argc; i++) {
		if (!strcmp(argv[i], "--handler"))
			handler = 1;
		else if (!strcmp(argv[i], "--threads") && i + 1 < argc)
			threads = atol(argv[++i]);
	}
	ln_open(&L);
	if (!strcmp(signame, "query"))
		return query();
	if (!sig || threads > 64)
		return 2;
	if (handler) {
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_signal;
		sigaction(sig, &sa, NULL);
	}
	for (long i = 0; i < threads; i++)
		pthread_create(&tid[i], NULL, busy, NULL);
	ln_run(&L, L.stream, n, 1);
	usleep(50 * 1000);
	ln_truth(&L);
	die_of(sig);
	return 0;
}
