/* SPDX-License-Identifier: MIT */
/*
 * w_fork.c - fork after CUDA is in use, as DataLoader workers do.
 *
 *   w_fork quiet N       N launches; then a child that makes no CUDA call
 *                        and exits, and one that leaves through _exit;
 *                        then N more launches
 *   w_fork busy N M      N launches; a child that makes M launches and
 *                        exits; N more launches
 *   w_fork storm T K M   T threads launch and sync without pause while
 *                        the main thread forks K children, one after the
 *                        other, each making M launches then exiting
 *
 * Each process that made CUDA calls prints its truth line (launcher.h).
 * The parent prints "children ok K" when every child exited 0 within 10 s
 * (a child stuck on a lock held across fork would not), and exits 1 if
 * one did not; of a stuck child it first prints, per thread, the system
 * call it is in and the mapping its user PC lies in (/proc), to tell
 * which lock (W_FORK_GDB=1: and gdb's backtrace of every thread).
 */
#include <pthread.h>
#include <dirent.h>
#include <signal.h>
#include <sys/wait.h>

#include "test/workloads/launcher.h"

static struct launcher L;
static atomic_int stop;

/* The mapping of /proc/PID/maps that holds pc, on stderr. */
static void say_mapping(pid_t pid, unsigned long pc)
{
	char path[64], line[512];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	if (!(f = fopen(path, "r")))
		return;
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi, off;

		if (sscanf(line, "%lx-%lx %*s %lx", &lo, &hi, &off) == 3 &&
		    pc >= lo && pc < hi) {
			fprintf(stderr, "    pc %#lx = offset %#lx in %s", pc,
				pc - lo + off, line);
			break;
		}
	}
	fclose(f);
}

/* Where each thread of a stuck child is: its system call and user PC. */
static void say_where(pid_t pid)
{
	char path[64], buf[512];
	struct dirent *e;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	if (!(d = opendir(path)))
		return;
	while ((e = readdir(d))) {
		FILE *f;
		unsigned long pc = 0;
		char *last;

		if (e->d_name[0] == '.')
			continue;
		snprintf(buf, sizeof(buf), "%s/%.32s/syscall", path, e->d_name);
		if (!(f = fopen(buf, "r")))
			continue;
		if (fgets(buf, sizeof(buf), f)) {
			buf[strcspn(buf, "\n")] = 0;
			fprintf(stderr, "  thread %s: syscall %s\n", e->d_name, buf);
			last = strrchr(buf, ' ');
			if (last)
				pc = strtoul(last + 1, NULL, 16);
		}
		fclose(f);
		if (pc)
			say_mapping(pid, pc);
	}
	closedir(d);
}

/* Wait for a child at most 10 s; 1 if it exited 0. */
static int reap(pid_t pid)
{
	int status;

	for (int ms = 0; ms < 10000; ms++) {
		pid_t got = waitpid(pid, &status, WNOHANG);

		if (got == pid)
			return WIFEXITED(status) && WEXITSTATUS(status) == 0;
		usleep(1000);
	}
	fprintf(stderr, "child %d hangs\n", (int)pid);
	say_where(pid);
	if (getenv("W_FORK_GDB")) {         /* W_FORK_GDB=1: where, in full */
		char cmd[128];

		snprintf(cmd, sizeof(cmd), "gdb -q -p %d -batch -ex 'thread apply "
			 "all bt' >&2 2>/dev/null", (int)pid);
		if (system(cmd) < 0)
			perror("gdb");
	}
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	return 0;
}

/* Fork a child that runs fn(arg) and exits with what it returns. */
static pid_t spawn_child(int (*fn)(long), long arg)
{
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		perror("fork");
		exit(WL_EXIT_FAIL);
	}
	if (pid == 0)
		exit(fn(arg));
	return pid;
}

static int child_quiet(long how)
{
	if (how)
		_exit(0);
	return 0;
}

static int child_busy(long m)
{
	atomic_store(&L.launches, 0);
	atomic_store(&L.syncs, 0);
	ln_run(&L, L.stream, m, 1);
	ln_truth(&L);
	return 0;
}

static void *storm_thread(void *arg)
{
	CUstream s = ln_thread_stream(&L);

	(void)arg;
	while (!atomic_load(&stop))
		ln_run(&L, s, 1, 1);
	return NULL;
}

static int storm(long threads, long kids, long m)
{
	pthread_t tid[64];
	int ok = 0;

	if (threads > 64)
		threads = 64;
	for (long i = 0; i < threads; i++)
		if (pthread_create(&tid[i], NULL, storm_thread, NULL))
			exit(WL_EXIT_FAIL);
	for (long k = 0; k < kids; k++)
		ok += reap(spawn_child(child_busy, m));
	atomic_store(&stop, 1);
	for (long i = 0; i < threads; i++)
		pthread_join(tid[i], NULL);
	return ok;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	long a = argc > 2 ? atol(argv[2]) : 10;
	long b = argc > 3 ? atol(argv[3]) : 10;
	long c = argc > 4 ? atol(argv[4]) : 10;
	int ok = 0, kids = 0;

	ln_open(&L);
	if (!strcmp(mode, "storm")) {
		ok = storm(a, b, c);
		kids = (int)b;
	} else {
		ln_run(&L, L.stream, a, 0);
		if (!strcmp(mode, "quiet")) {
			ok = reap(spawn_child(child_quiet, 0));
			ok += reap(spawn_child(child_quiet, 1));
			kids = 2;
		} else if (!strcmp(mode, "busy")) {
			ok = reap(spawn_child(child_busy, b));
			kids = 1;
		} else {
			return 2;
		}
		ln_run(&L, L.stream, a, 1);
	}
	ln_truth(&L);
	printf("children ok %d\n", ok);
	return ok == kids ? 0 : 1;
}
