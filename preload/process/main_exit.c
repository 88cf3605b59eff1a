/* SPDX-License-Identifier: MIT */
/*
 * main_exit.c - the main thread ends with pthread_exit.
 *
 * The process then lives on while any thread does, and the last thread to
 * end calls exit(0) (glibc counts the threads).  The library's own threads
 * (the writer, the sampler) never end on their own, and block every
 * signal: once the program's last thread ended, the process would wait
 * for good, with SIGTERM and SIGINT pending.  So pthread_exit is
 * interposed: when the main thread calls it, the writer thread checks at
 * each cycle whether the main thread is gone (a zombie, its state in
 * /proc/self/status) and no thread is left but ours (Threads there, less
 * the main thread and gt_own_threads), and then calls exit(0) itself, as
 * the last thread would have: the program's exit handlers run, the dump
 * ends as at any exit.  Threads the library did not start (CUPTI's, the
 * driver's) count as the program's, as they keep it alive untraced too.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "preload/base/dl.h"
#include "preload/base/internal.h"
#include "preload/base/own_fd.h"
#include "preload/process/main_exit.h"
#include "preload/record/writer.h"

typedef void (*pthread_exit_fn)(void *) __attribute__((noreturn));

atomic_int gt_own_threads;
static _Atomic(pthread_exit_fn) real_pthread_exit;
static atomic_int main_gone;
static atomic_int watching;         /* the cycle hook is in (kept by a child) */

void gt_main_exit_find_real(void)
{
	if (!atomic_load(&real_pthread_exit))
		atomic_store(&real_pthread_exit,
			     (pthread_exit_fn)gt_real_dlsym(RTLD_NEXT, "pthread_exit"));
}

/* The number after "name:" in /proc/self/status's text s; -1 if none. */
static long status_field(const char *s, const char *name)
{
	const char *p = strstr(s, name);

	return p ? strtol(p + strlen(name), NULL, 10) : -1;
}

/* The main thread is gone, and no thread is left but the library's. */
static int only_ours_left(void)
{
	char buf[4096];
	struct gt_own_fd o;
	ssize_t n;
	long threads;

	if (gt_own_open(&o, "/proc/self/status") < 0)
		return 0;
	n = read(o.fd, buf, sizeof(buf) - 1);
	gt_own_close(&o);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	threads = status_field(buf, "\nThreads:");
	return strstr(buf, "\nState:\tZ") && threads > 0 &&
	       threads - 1 <= atomic_load(&gt_own_threads);
}

/* Each writer cycle once the main thread called pthread_exit (not the
 * last one: the dump is ending then). */
static void check_alone(int final)
{
	if (final || !atomic_load(&main_gone) || !only_ours_left())
		return;
	gt_debug("gputrace: the main thread ended and no other thread of the "
		 "program is left: exit(0)\n");
	exit(0);
}

GT_EXPORT void pthread_exit(void *ret)
{
	pthread_exit_fn f = atomic_load(&real_pthread_exit);

	if (!f) {
		gt_main_exit_find_real();
		f = atomic_load(&real_pthread_exit);
	}
	if (getpid() == (pid_t)syscall(SYS_gettid)) {
		atomic_store(&main_gone, 1);
		if (!atomic_exchange(&watching, 1))
			gt_writer_on_cycle(check_alone);
	}
	if (f)
		f(ret);
	abort();                        /* no pthread_exit to be had */
}

void gt_main_exit_after_fork(void)
{
	atomic_store(&main_gone, 0);
	atomic_store(&gt_own_threads, 0);
}
