/* SPDX-License-Identifier: MIT */
/*
 * w_hostile.c - a program that does what a tracer must survive.
 *
 *   w_hostile fork HOW M     20 launches; a child made by HOW (_Fork or
 *                            sys: syscall(SYS_fork), no fork handlers)
 *                            makes M launches and exits through exit();
 *                            20 more launches.  "children ok 1" when the
 *                            child exited 0 within 10 s
 *   w_hostile fd HOW DIR FILE  50 launches; then the dump's descriptor
 *                            (the one open on a file in DIR) is taken:
 *                            HOW close_range closes every descriptor from
 *                            3 and opens FILE; HOW dup2 puts FILE over
 *                            it; HOW moved renames the dump to
 *                            DIR/moved.bin first, then puts FILE over it;
 *                            50 more launches, a pause for the writer,
 *                            then "program data" is written to FILE
 *   w_hostile nofile N       every descriptor taken (until EMFILE) before
 *                            the first traced call; N launches
 *   w_hostile threads K C    K threads, at most C at a time, each making
 *                            one launch then exiting
 *   w_hostile kill FILE MS   launches, one every 100 us or so, for MS ms,
 *                            each one's return time (CLOCK_MONOTONIC ns)
 *                            kept in FILE (shared mapping: slot 1 + i for
 *                            launch i, slot 0 the time of the kill); then
 *                            SIGKILL
 *   w_hostile exec N         N launches, then exec of env(1) with a
 *                            cleaned environment (PATH only)
 *
 * Each process that made launches prints its truth line (launcher.h),
 * except in nofile mode, which prints "launches=N" (the same traced or
 * not).
 */
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>

#include "test/workloads/launcher.h"

static struct launcher L;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Wait for a child at most 10 s; 1 if it exited 0. */
static int reap(pid_t pid)
{
	int status;

	for (int ms = 0; ms < 10000; ms++) {
		if (waitpid(pid, &status, WNOHANG) == pid)
			return WIFEXITED(status) && WEXITSTATUS(status) == 0;
		usleep(1000);
	}
	fprintf(stderr, "child %d hangs\n", (int)pid);
	if (getenv("W_HOSTILE_GDB")) {      /* W_HOSTILE_GDB=1: where */
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

static int do_fork(const char *how, long m)
{
	pid_t pid;
	int ok;

	ln_run(&L, L.stream, 20, 1);
	fflush(NULL);
	pid = !strcmp(how, "sys") ? (pid_t)syscall(SYS_fork) : _Fork();
	if (pid < 0)
		return WL_EXIT_FAIL;
	if (pid == 0) {
		atomic_store(&L.launches, 0);
		atomic_store(&L.syncs, 0);
		ln_run(&L, L.stream, m, 1);
		if (m)
			ln_truth(&L);
		exit(0);
	}
	ok = reap(pid);
	ln_run(&L, L.stream, 20, 1);
	ln_truth(&L);
	printf("children ok %d\n", ok);
	return ok ? 0 : 1;
}

static int do_fd(const char *how, const char *dir, const char *file)
{
	static const char data[] = "program data\n";
	char path[PATH_MAX], moved[PATH_MAX];
	int dump, fd;

	ln_run(&L, L.stream, 50, 1);
	dump = wl_fd_in(dir, path);
	if (dump < 0) {
		fprintf(stderr, "no descriptor on a file in %s\n", dir);
		return WL_EXIT_FAIL;
	}
	snprintf(moved, sizeof(moved), "%s/moved.bin", dir);
	if (!strcmp(how, "moved") && rename(path, moved))
		return WL_EXIT_FAIL;
	if (!strcmp(how, "close_range"))
		syscall(SYS_close_range, 3u, ~0u, 0u);
	fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return WL_EXIT_FAIL;
	if (strcmp(how, "close_range") && fd != dump) {
		dup2(fd, dump);
		close(fd);
		fd = dump;
	}
	ln_run(&L, L.stream, 50, 1);
	usleep(200 * 1000);                 /* the writer drains meanwhile */
	if (write(fd, data, sizeof(data) - 1) != (ssize_t)sizeof(data) - 1)
		return WL_EXIT_FAIL;
	close(fd);
	ln_truth(&L);
	return 0;
}

static int do_nofile(long n)
{
	int count = 0;

	while (open("/dev/null", O_RDONLY) >= 0)
		count++;
	if (errno != EMFILE)
		return WL_EXIT_FAIL;
	ln_run(&L, L.stream, n, 1);
	printf("launches=%ld\n", atomic_load(&L.launches));
	return count > 0 ? 0 : WL_EXIT_FAIL;
}

static void *one_launch(void *arg)
{
	atomic_int *running = arg;

	WL_CK(L.set_current(L.ctx));
	ln_run(&L, NULL, 1, 0);
	atomic_fetch_sub(running, 1);
	return NULL;
}

static int do_threads(long k, long c)
{
	atomic_int running = 0;
	pthread_attr_t attr;

	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, 64 << 10);
	for (long i = 0; i < k; i++) {
		pthread_t t;

		while (atomic_load(&running) >= c)
			usleep(100);
		atomic_fetch_add(&running, 1);
		if (pthread_create(&t, &attr, one_launch, &running))
			return WL_EXIT_FAIL;
	}
	while (atomic_load(&running))
		usleep(1000);
	ln_truth(&L);
	return 0;
}

static int do_kill(const char *file, long ms)
{
	size_t slots = 1 << 20;
	int fd = open(file, O_RDWR | O_CREAT | O_TRUNC, 0644);
	uint64_t *t, end;
	int arg = 1;
	void *args[] = { &L.buf, &arg };

	if (fd < 0 || ftruncate(fd, (off_t)(slots * sizeof(*t))))
		return WL_EXIT_FAIL;
	t = mmap(NULL, slots * sizeof(*t), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (t == MAP_FAILED)
		return WL_EXIT_FAIL;
	end = now_ns() + (uint64_t)ms * 1000000u;
	for (size_t i = 1; i < slots && now_ns() < end; i++) {
		WL_CK(L.launch(L.kernel, 4, 1, 1, 32, 1, 1, 0, L.stream, args, NULL));
		t[i] = now_ns();
		usleep(100);
	}
	t[0] = now_ns();
	raise(SIGKILL);
	return WL_EXIT_FAIL;
}

static int do_exec(long n)
{
	char *argv[] = { "env", NULL };
	char *envp[] = { "PATH=/usr/bin:/bin", NULL };

	ln_run(&L, L.stream, n, 1);
	ln_truth(&L);
	execve("/usr/bin/env", argv, envp);
	return WL_EXIT_FAIL;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	const char *a = argc > 2 ? argv[2] : "";
	const char *b = argc > 3 ? argv[3] : "";

	ln_open(&L);
	if (!strcmp(mode, "fork"))
		return do_fork(a, atol(b));
	if (!strcmp(mode, "fd") && argc > 4)
		return do_fd(a, b, argv[4]);
	if (!strcmp(mode, "nofile"))
		return do_nofile(atol(a));
	if (!strcmp(mode, "threads"))
		return do_threads(atol(a), atol(b));
	if (!strcmp(mode, "kill"))
		return do_kill(a, atol(b));
	if (!strcmp(mode, "exec"))
		return do_exec(atol(a));
	return 2;
}
