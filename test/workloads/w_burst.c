/* SPDX-License-Identifier: MIT */
/*
 * w_burst.c - one thread launching as fast as it can: how many events per
 * second the tracer's ring and writer thread take from one thread without
 * dropping any.  Linked with -lcuda (the fake driver).
 *
 *   w_burst [--launches=N] [--shapes=S]      (defaults 20000000 and 8)
 *
 * Launches vecAdd N times on one stream, cycling through S grid sizes (so
 * the writer's shape map is looked up, not just one entry), then syncs
 * once.  Prints "burst launches=N seconds=T rate=R" on stdout, R in
 * launches per second of wall time (a figure, not a check: the machine
 * may be busy), then "thread tid=T main=M cpu_ms=C wait_ms=W" for each
 * thread (the tracer's writer among them, when traced): its user + system
 * time so far, and how long it waited for a CPU while runnable (how busy
 * the machine was), from /proc/self/task.
 */
#define WL_CALL(f) f
#include <dirent.h>
#include <time.h>
#include <unistd.h>

#include "test/fake/workload.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* utime + stime of thread tid in ms, from its stat line; -1 if unreadable. */
static long thread_cpu_ms(const char *tid)
{
	char path[320], line[1024], *p;
	unsigned long ut = 0, st = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%s/stat", tid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	p = fgets(line, sizeof(line), f) ? strrchr(line, ')') : NULL;
	fclose(f);
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu",
			 &ut, &st) != 2)
		return -1;
	return (long)((ut + st) * 1000 / (unsigned long)sysconf(_SC_CLK_TCK));
}

/* Time thread tid waited for a CPU while runnable, in ms (schedstat's
 * second field); -1 if unreadable. */
static long thread_wait_ms(const char *tid)
{
	char path[320];
	unsigned long long run = 0, wait = 0;
	FILE *f;
	int n;

	snprintf(path, sizeof(path), "/proc/self/task/%s/schedstat", tid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	n = fscanf(f, "%llu %llu", &run, &wait);
	fclose(f);
	return n == 2 ? (long)(wait / 1000000u) : -1;
}

static void print_threads(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *de;
	long self = (long)getpid();

	while (d && (de = readdir(d)) != NULL)
		if (de->d_name[0] != '.')
			printf("thread tid=%s main=%d cpu_ms=%ld wait_ms=%ld\n",
			       de->d_name, atol(de->d_name) == self,
			       thread_cpu_ms(de->d_name), thread_wait_ms(de->d_name));
	if (d)
		closedir(d);
}

int main(int argc, char **argv)
{
	long launches = 20000000, shapes = 8;
	struct wl_env e;
	int n = 1024;
	void *args[] = { &e.da, &e.db, &e.db, &n };
	double t0, t;

	for (int i = 1; i < argc; i++)
		if (!wl_opt_int(argv[i], "--launches", &launches) &&
		    !wl_opt_int(argv[i], "--shapes", &shapes))
			wl_fail(__FILE__, __LINE__, argv[i], 0);
	if (launches < 1 || shapes < 1 || shapes > 1024)
		wl_fail(__FILE__, __LINE__, "arguments in range", 0);
	WL_CK(cuInit(0));
	wl_setup(&e);
	t0 = now_s();
	for (long i = 0; i < launches; i++)
		WL_CK(cuLaunchKernel(e.vecadd, (unsigned)(1 + i % shapes), 1, 1,
				     256, 1, 1, 0, e.stream, args, NULL));
	t = now_s() - t0;
	WL_CK(cuStreamSynchronize(e.stream));
	printf("burst launches=%ld seconds=%.3f rate=%.0f\n", launches, t,
	       (double)launches / (t > 0 ? t : 1e-9));
	print_threads();
	return 0;
}
