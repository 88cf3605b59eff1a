/* SPDX-License-Identifier: MIT */
/*
 * w_hostcpu.c - CPU burnt outside CUDA calls in functions with known
 * names, for the host stack sampler's tests (test/t/415-hostsample*.t).
 * Built with -g -O1 -fno-omit-frame-pointer -rdynamic, so that every
 * unwinder finds the functions and dladdr gives their extent.
 *
 *   w_hostcpu burn MS [T [IDLE]]
 *                           20 rounds of a launch, a sync and MS/20 ms of
 *                           the main thread's CPU time in burn_main; then
 *                           T threads each make one launch and burn MS ms
 *                           in burn_thread; then the main thread sleeps
 *                           IDLE ms in nanosleep
 *   w_hostcpu prof HOW MS   the program's own SIGPROF: its handler counts,
 *                           setitimer(ITIMER_PROF) every 5 ms; HOW is
 *                           sigaction (set before the first CUDA call),
 *                           late (after it) or signal (signal(), after);
 *                           then as burn MS
 *   w_hostcpu fork MS       launch, fork a child that burns MS ms in
 *                           burn_child and _exits without a CUDA call (a
 *                           DataLoader worker), wait for it, launch again
 *   w_hostcpu exec N MS     launch, burn MS ms, then exec itself with N-1,
 *                           down to 0, which prints "exec chain done"
 *   w_hostcpu remote MS     another thread makes the first CUDA calls (and
 *                           the dump); the main thread, which makes none,
 *                           then burns MS ms in burn_main
 *   w_hostcpu ignexec       SIGPROF ignored, a launch, then exec itself as
 *                           "w_hostcpu shown", which prints "prof ignored=1"
 *                           when it finds SIGPROF still ignored (else 0)
 *
 * Prints, for the test to compare with the dump:
 *   fn NAME LO HI              where a burn function's code is
 *   cpu tid=T ns=N             a thread's CPU time from its first CUDA call
 *                              (burn: the main thread's from its first)
 *   prof count=C leaked=L mask=M query=ok|bad   (prof) the handler's calls,
 *                              calls that were not the program's timer's,
 *                              calls that ran with a mask other than the
 *                              kernel gives (SIGPROF and, with sigaction,
 *                              its sa_mask's SIGUSR1 blocked; SIGUSR2 not),
 *                              and whether sigaction()/signal() show its
 *                              handler
 *   child pid=P                (fork)
 */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>

#include "test/workloads/launcher.h"

#define NOINLINE __attribute__((noinline))

static struct launcher L;
static volatile uint64_t sink;
static atomic_long prof_count, prof_leaked, prof_mask_bad;
static int prof_usr1;                   /* SIGUSR1 in the handler's sa_mask */

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Spin until the calling thread has used ms more milliseconds of CPU. */
#define BURN_BODY(ms)                                                        \
	do {                                                                 \
		uint64_t until_ = thread_cpu_ns() + (uint64_t)(ms) * 1000000u; \
		uint64_t x_ = sink;                                          \
		while (thread_cpu_ns() < until_)                             \
			for (int i_ = 0; i_ < 20000; i_++)                   \
				x_ = x_ * 6364136223846793005ull + 1442695040888963407ull; \
		sink = x_;                                                   \
	} while (0)

NOINLINE void burn_main(long ms) { BURN_BODY(ms); }
NOINLINE void burn_thread(long ms) { BURN_BODY(ms); }
NOINLINE void burn_child(long ms) { BURN_BODY(ms); }

/* "fn NAME LO HI": the function's extent, from its dynamic symbol. */
static void say_fn(const char *name, void *fn)
{
	Dl_info info;
	const ElfW(Sym) *sym = NULL;

	if (!dladdr1(fn, &info, (void **)&sym, RTLD_DL_SYMENT) || !sym) {
		printf("fn %s %p %p\n", name, fn, (void *)((char *)fn + 1));
		return;
	}
	printf("fn %s %p %p\n", name, fn, (void *)((char *)fn + sym->st_size));
}

static void say_cpu(uint64_t ns)
{
	printf("cpu tid=%d ns=%llu\n", (int)gettid(), (unsigned long long)ns);
}

static void *thread_main(void *arg)
{
	long ms = (long)arg;
	CUstream s = ln_thread_stream(&L);
	uint64_t t0 = thread_cpu_ns();

	ln_run(&L, s, 1, 1);
	burn_thread(ms);
	say_cpu(thread_cpu_ns() - t0);
	return NULL;
}

static void burn(long ms, long threads)
{
	pthread_t t[64];
	uint64_t t0 = thread_cpu_ns();

	for (int round = 0; round < 20; round++) {
		ln_run(&L, L.stream, 1, 1);
		burn_main(ms / 20);
	}
	say_cpu(thread_cpu_ns() - t0);
	for (long i = 0; i < threads && i < 64; i++)
		pthread_create(&t[i], NULL, thread_main, (void *)ms);
	for (long i = 0; i < threads && i < 64; i++)
		pthread_join(t[i], NULL);
}

/* ---- the program's own SIGPROF ------------------------------------------ */

/* The mask a handler runs with, as the kernel sets it. */
static void check_mask(void)
{
	sigset_t m;

	pthread_sigmask(SIG_BLOCK, NULL, &m);
	if (!sigismember(&m, SIGPROF) || sigismember(&m, SIGUSR2) ||
	    sigismember(&m, SIGUSR1) != prof_usr1)
		atomic_fetch_add(&prof_mask_bad, 1);
}

static void on_prof_info(int sig, siginfo_t *si, void *uc)
{
	(void)sig, (void)uc;
	check_mask();
	if (si->si_code == SI_TIMER)    /* a timer_create timer: not ours */
		atomic_fetch_add(&prof_leaked, 1);
	else
		atomic_fetch_add(&prof_count, 1);
}

static void on_prof_plain(int sig)
{
	(void)sig;
	check_mask();
	atomic_fetch_add(&prof_count, 1);
}

static int set_handler(const char *how)
{
	struct sigaction sa;

	if (!strcmp(how, "signal"))
		return signal(SIGPROF, on_prof_plain) == SIG_ERR ? -1 : 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_prof_info;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGUSR1);
	prof_usr1 = 1;
	return sigaction(SIGPROF, &sa, NULL);
}

/* Whether what the program is shown is its own handler. */
static int shows_own(const char *how)
{
	struct sigaction q;

	if (!strcmp(how, "signal"))
		return signal(SIGPROF, on_prof_plain) == on_prof_plain;
	return sigaction(SIGPROF, NULL, &q) == 0 && (q.sa_flags & SA_SIGINFO) &&
	       q.sa_sigaction == on_prof_info;
}

static void prof(const char *how, long ms)
{
	struct itimerval it = { { 0, 5000 }, { 0, 5000 } };
	struct itimerval off = { { 0, 0 }, { 0, 0 } };
	int early = !strcmp(how, "sigaction");

	if (early && set_handler(how))
		exit(WL_EXIT_FAIL);
	ln_open(&L);
	ln_run(&L, L.stream, 1, 1);
	if (!early && set_handler(how))
		exit(WL_EXIT_FAIL);
	setitimer(ITIMER_PROF, &it, NULL);
	burn(ms, 0);
	setitimer(ITIMER_PROF, &off, NULL);
	printf("prof count=%ld leaked=%ld mask=%ld query=%s\n", atomic_load(&prof_count),
	       atomic_load(&prof_leaked), atomic_load(&prof_mask_bad),
	       shows_own(how) ? "ok" : "bad");
}

/* ---- a DataLoader worker ------------------------------------------------ */

static void fork_child(long ms)
{
	pid_t pid;
	int status;

	ln_run(&L, L.stream, 1, 1);
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		uint64_t t0 = thread_cpu_ns();

		burn_child(ms);
		say_cpu(thread_cpu_ns() - t0);
		fflush(stdout);
		exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		exit(WL_EXIT_FAIL);
	printf("child pid=%d\n", (int)pid);
	ln_run(&L, L.stream, 1, 1);
}

/* A chain of images, each sampled while it burns right up to its exec. */
static void exec_chain(const char *self, long n, long ms)
{
	char next[32], burn_ms[32];

	ln_open(&L);
	ln_run(&L, L.stream, 1, 1);
	burn_main(ms);
	if (n <= 0) {
		printf("exec chain done\n");
		return;
	}
	snprintf(next, sizeof(next), "%ld", n - 1);
	snprintf(burn_ms, sizeof(burn_ms), "%ld", ms);
	execl(self, self, "exec", next, burn_ms, (char *)NULL);
	exit(WL_EXIT_FAIL);
}

static void *first_calls(void *arg)
{
	(void)arg;
	ln_open(&L);
	ln_run(&L, L.stream, 1, 1);
	return NULL;
}

/* The main thread sampled without a CUDA call of its own. */
static void remote(long ms)
{
	pthread_t t;
	uint64_t t0;

	pthread_create(&t, NULL, first_calls, NULL);
	pthread_join(t, NULL);
	t0 = thread_cpu_ns();
	burn_main(ms);
	say_cpu(thread_cpu_ns() - t0);
}

/* SIGPROF ignored before an exec stays ignored after it. */
static void ignored_across_exec(const char *self, const char *mode)
{
	struct sigaction q;

	if (!strcmp(mode, "shown")) {
		sigaction(SIGPROF, NULL, &q);
		printf("prof ignored=%d\n", q.sa_handler == SIG_IGN);
		return;
	}
	signal(SIGPROF, SIG_IGN);
	ln_open(&L);
	ln_run(&L, L.stream, 1, 1);
	execl(self, self, "shown", (char *)NULL);
	exit(WL_EXIT_FAIL);
}

/* Sleep ms, whatever signals come meanwhile. */
static void idle(long ms)
{
	struct timespec left = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&left, &left) && errno == EINTR)
		;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "burn";

	setvbuf(stdout, NULL, _IOLBF, 0);
	say_fn("burn_main", (void *)burn_main);
	say_fn("burn_thread", (void *)burn_thread);
	say_fn("burn_child", (void *)burn_child);
	if (!strcmp(mode, "exec") && argc > 3) {
		exec_chain(argv[0], atol(argv[2]), atol(argv[3]));
		return 0;
	}
	if (!strcmp(mode, "remote") && argc > 2) {
		remote(atol(argv[2]));
		return 0;
	}
	if (!strcmp(mode, "ignexec") || !strcmp(mode, "shown")) {
		ignored_across_exec(argv[0], mode);
		return 0;
	}
	if (!strcmp(mode, "prof") && argc > 3) {
		prof(argv[2], atol(argv[3]));
		return 0;
	}
	ln_open(&L);
	if (!strcmp(mode, "fork"))
		fork_child(argc > 2 ? atol(argv[2]) : 300);
	else
		burn(argc > 2 ? atol(argv[2]) : 500, argc > 3 ? atol(argv[3]) : 0);
	if (!strcmp(mode, "burn") && argc > 4)
		idle(atol(argv[4]));
	return 0;
}
