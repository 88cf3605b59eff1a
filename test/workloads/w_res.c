/* SPDX-License-Identifier: MIT */
/*
 * w_res.c - a program that strains what the tracer holds: the driver it
 * loaded, its tables, and the file it writes.
 *
 *   w_res dlclose N          N launches, then dlclose of the driver at
 *                            once (the sampler thread, just started,
 *                            looks at the driver after it); if it is
 *                            unmapped, its addresses are taken by an
 *                            anonymous mapping, so that it comes back
 *                            elsewhere; a pause of 0.5 s; dlopen of it
 *                            again and everything set up anew (a new
 *                            kernel), N launches.  Prints
 *                            "driver_unmapped=0|1"
 *   w_res kernels FILL R     10 kernels, R rounds of a launch of each,
 *                            timed (CPU time of this thread); then FILL
 *                            launches, each of a kernel handle never seen
 *                            before (the fake refuses them; the tracer
 *                            sees them all); then 10 more kernels, one
 *                            round untimed and R rounds timed.  Prints
 *                            "cpu_ns_per_launch before=B after=A" and
 *                            "unnamed_launches_max=U": the launches made
 *                            after the first 10 kernels
 *   w_res intern N           two child processes, each N launches: one of
 *                            one shape on one stream, the other each
 *                            launch of a shape and a stream not seen
 *                            before (grids 1..N, stream handles the fake
 *                            refuses); prints "maxrss_kb same=S
 *                            distinct=D" (each child's peak resident
 *                            memory, wait4) and each child's truth line
 *   w_res fifo DIR N         N launches; the dump (the descriptor open on
 *                            a file in DIR) is renamed to DIR/moved.bin,
 *                            a FIFO that no one reads takes its name,
 *                            every descriptor from 3 up is closed; N
 *                            launches more
 *   w_res sigpipe N          stdout made the write end of a pipe whose
 *                            read end the program holds; N launches;
 *                            the read end closed; N launches more.
 *                            Prints "launched" on stderr
 *   w_res chdir SUB N        mkdir SUB, chdir into it, then N launches
 *                            (the dump is created there, by a relative
 *                            name); prints "cwd=PATH"
 *   w_res fsize BYTES N      RLIMIT_FSIZE set to BYTES, then N launches
 *                            without a wait
 *
 * Launches go through launcher.h; each process that made launches prints
 * its truth line.  Pacing pauses (intern, kernels) let the writer keep
 * up; what it could not take is counted as dropped all the same.
 */
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <limits.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>

#include "test/workloads/launcher.h"

#define KERNELS 10
#define PACE 4096                   /* launches between pauses */

static struct launcher L;

static void pause_ms(long ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Launch f on the main stream; the result is the fake's affair. */
static CUresult launch(CUfunction f, unsigned gx, CUstream s)
{
	int arg = 1;
	void *args[] = { &L.buf, &arg };
	CUresult rc = L.launch(f, gx, 1, 1, 32, 1, 1, 0, s, args, NULL);

	atomic_fetch_add(&L.launches, 1);
	return rc;
}

/* The lowest and highest addresses mapped from a file named *name*. */
static void mapped_range(const char *name, uintptr_t *lo, uintptr_t *hi)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[4096];

	*lo = UINTPTR_MAX;
	*hi = 0;
	while (f && fgets(line, sizeof(line), f)) {
		unsigned long a, b;

		if (!strstr(line, name) || sscanf(line, "%lx-%lx", &a, &b) != 2)
			continue;
		if (a < *lo)
			*lo = a;
		if (b > *hi)
			*hi = b;
	}
	if (f)
		fclose(f);
}

/*
 * Let go of the driver: dlclose, then take the addresses it had (if it
 * is gone from them), so that a later dlopen puts it elsewhere, as a
 * program's other mappings would.  Prints "driver_unmapped=0|1".
 */
static int let_go_of_driver(void)
{
	uintptr_t lo, hi, lo2, hi2;
	void *p;

	mapped_range("libcuda.so", &lo, &hi);
	if (dlclose(L.drv.lib))
		return -1;
	mapped_range("libcuda.so", &lo2, &hi2);
	if (lo < hi && lo2 >= hi2) {
		p = mmap((void *)lo, hi - lo, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS |
			 MAP_FIXED_NOREPLACE, -1, 0);
		if (p == MAP_FAILED)
			return -1;
	}
	printf("driver_unmapped=%d\n", lo2 >= hi2);
	return 0;
}

static int do_dlclose(long n)
{
	ln_open(&L);
	ln_run(&L, L.stream, n, 0);
	if (let_go_of_driver())
		return WL_EXIT_FAIL;
	pause_ms(500);
	ln_open(&L);                        /* dlopen again, a new kernel */
	ln_run(&L, L.stream, n, 1);
	ln_truth(&L);
	return 0;
}

/* KERNELS kernels named PREFIX0.. of a new module. */
static void get_kernels(const char *prefix, CUfunction *k)
{
	static const char image[] = "fake cubin";
	CUmodule mod;
	char name[32];

	WL_CK(LN_GET(&L, PFN_cuModuleLoadData_v2000, "cuModuleLoadData", 2000)(&mod, image));
	for (int i = 0; i < KERNELS; i++) {
		snprintf(name, sizeof(name), "%s%d", prefix, i);
		WL_CK(LN_GET(&L, PFN_cuModuleGetFunction_v2000, "cuModuleGetFunction",
			     2000)(&k[i], mod, name));
	}
}

/* CPU time per launch of rounds rounds over the kernels. */
static double timed_rounds(const CUfunction *k, long rounds)
{
	uint64_t t0 = thread_cpu_ns();

	for (long r = 0; r < rounds; r++)
		for (int i = 0; i < KERNELS; i++)
			WL_CK(launch(k[i], 4, L.stream));
	return (double)(thread_cpu_ns() - t0) / (double)(rounds * KERNELS);
}

static int do_kernels(long fill, long rounds)
{
	CUfunction a[KERNELS], b[KERNELS];
	double before, after;
	long first;

	ln_open(&L);
	get_kernels("kA", a);
	before = timed_rounds(a, rounds);
	first = atomic_load(&L.launches);
	for (long i = 0; i < fill; i++) {
		launch((CUfunction)(uintptr_t)(0x7e0000000000ull + 64u * (uint64_t)i), 4,
		       L.stream);
		if (i % PACE == PACE - 1)
			pause_ms(2);
	}
	get_kernels("kB", b);
	timed_rounds(b, 1);
	after = timed_rounds(b, rounds);
	printf("cpu_ns_per_launch before=%.1f after=%.1f\n", before, after);
	printf("unnamed_launches_max=%ld\n", atomic_load(&L.launches) - first);
	ln_truth(&L);
	return 0;
}

/* A child's n launches: distinct shapes and streams, or one of each. */
static void intern_child(long n, int distinct)
{
	ln_open(&L);
	for (long i = 0; i < n; i++) {
		CUstream s = distinct ? (CUstream)(uintptr_t)(0x7f0000000000ull +
							     64u * (uint64_t)i)
				      : L.stream;

		launch(L.kernel, distinct ? (unsigned)i + 1 : 4, s);
		if (i % PACE == PACE - 1)
			pause_ms(4);
	}
	ln_truth(&L);
}

/* The peak resident memory (KiB) of a child doing intern_child. */
static long intern_rss(long n, int distinct)
{
	struct rusage ru;
	int status;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		intern_child(n, distinct);
		exit(0);
	}
	if (wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		return -1;
	return ru.ru_maxrss;
}

static int do_intern(long n)
{
	long same = intern_rss(n, 0), distinct = intern_rss(n, 1);

	if (same < 0 || distinct < 0)
		return WL_EXIT_FAIL;
	printf("maxrss_kb same=%ld distinct=%ld\n", same, distinct);
	return 0;
}

static int do_fifo(const char *dir, long n)
{
	char path[PATH_MAX], moved[PATH_MAX];
	struct rlimit rl;

	ln_open(&L);
	ln_run(&L, L.stream, n, 1);
	if (wl_fd_in(dir, path) < 0) {
		fprintf(stderr, "no descriptor on a file in %s\n", dir);
		return WL_EXIT_FAIL;
	}
	snprintf(moved, sizeof(moved), "%s/moved.bin", dir);
	if (rename(path, moved) || mkfifo(path, 0600))
		return WL_EXIT_FAIL;
	fflush(NULL);
	getrlimit(RLIMIT_NOFILE, &rl);
	for (int fd = 3; fd < (int)rl.rlim_cur && fd < 65536; fd++)
		close(fd);                  /* as a daemon does */
	ln_run(&L, L.stream, n, 1);
	pause_ms(100);                      /* the writer drains meanwhile */
	ln_truth(&L);
	return 0;
}

static int do_sigpipe(long n)
{
	int p[2];

	if (pipe(p) || dup2(p[1], 1) < 0)
		return WL_EXIT_FAIL;
	close(p[1]);
	ln_open(&L);
	ln_run(&L, L.stream, n, 1);
	close(p[0]);                        /* the reader is gone */
	ln_run(&L, L.stream, n, 1);
	fprintf(stderr, "launched\n");
	return 0;
}

static int do_chdir(const char *sub, long n)
{
	char cwd[PATH_MAX];

	if ((mkdir(sub, 0700) && errno != EEXIST) || chdir(sub) || !getcwd(cwd, sizeof(cwd)))
		return WL_EXIT_FAIL;
	printf("cwd=%s\n", cwd);
	ln_open(&L);
	ln_run(&L, L.stream, n, 1);
	ln_truth(&L);
	return 0;
}

static int do_fsize(long bytes, long n)
{
	struct rlimit rl = { .rlim_cur = (rlim_t)bytes, .rlim_max = (rlim_t)bytes };

	if (setrlimit(RLIMIT_FSIZE, &rl))
		return WL_EXIT_FAIL;
	ln_open(&L);
	ln_run(&L, L.stream, n, 0);
	ln_truth(&L);
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	const char *a = argc > 2 ? argv[2] : "";
	const char *b = argc > 3 ? argv[3] : "";

	if (!strcmp(mode, "dlclose"))
		return do_dlclose(atol(a));
	if (!strcmp(mode, "kernels"))
		return do_kernels(atol(a), atol(b));
	if (!strcmp(mode, "intern"))
		return do_intern(atol(a));
	if (!strcmp(mode, "fifo"))
		return do_fifo(a, atol(b));
	if (!strcmp(mode, "sigpipe"))
		return do_sigpipe(atol(a));
	if (!strcmp(mode, "chdir"))
		return do_chdir(a, atol(b));
	if (!strcmp(mode, "fsize"))
		return do_fsize(atol(a), atol(b));
	return 2;
}
