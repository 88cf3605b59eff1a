/* SPDX-License-Identifier: MIT */
/*
 * fork.c - what a forked child keeps and what it drops.
 *
 * The child has only the thread that called fork, so nothing the parent's
 * other threads were doing may be waited for: every lock of ours that
 * another thread could have held at the fork (the rings' free list, the
 * writer's side buffer) is made anew rather than taken, and the state it
 * guarded is dropped, not read.  Dropped: the parent's rings (unmapped;
 * each thread takes a new one at its next call, because the generation
 * changes), its writer thread, dump file and buffers, and which functions
 * its dump has defined.  Kept: settings, kernel names, our signal
 * handlers (their lock made free).  libunwind is left for libgcc's
 * unwinder: its own mutex may be held by a thread that is not there.  The
 * child's dump is made at its first traced call, named from its own pid;
 * a child that makes none has no dump.
 *
 * glibc's fork runs the handler (after malloc is usable again; it takes
 * no lock).  The program's _Fork, or a fork through syscall(), runs none:
 * the library's own _Fork and syscall() make it wait for our walks and
 * loads as fork does (a child made while our thread held the loader's
 * lock would hang even in exit()), and its child, like one made by a fork
 * system call of the program's own, is noticed later, at no cost to the
 * hot path: the generation lives in a page the kernel zeroes in every
 * child (MADV_WIPEONFORK), so the child's first traced call finds
 * generation 0 and takes the slow path, which does the same work then.  A vfork child shares its parent's
 * memory, so it sees no change and touches nothing.  Where no page can
 * be wiped, a pid that is not the dump owner's tells, at the first
 * traced call of a thread and at exit; and the writer never waits for a
 * thread of a dump another process owns.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>

#include "preload/stack/callsite.h"
#include "preload/base/dl.h"
#include "preload/process/fork.h"
#include "preload/process/main_exit.h"
#include "preload/record/functions.h"
#include "preload/base/internal.h"
#include "preload/nvtx/nvtx.h"
#include "preload/record/ring.h"
#include "preload/process/signals.h"
#include "preload/stack/hostsample.h"
#include "preload/stack/stack_unwind.h"
#include "preload/record/writer.h"

static struct gt_fork_mark static_mark = { .generation = 1 };
struct gt_fork_mark *gt_mark = &static_mark;
static unsigned last_generation = 1;    /* kept in a child: not wiped */

static void in_child(void)
{
	struct timespec rt;

	atomic_store(&gt_mark->claimed, 1);
	if (gt_dl_after_fork()) {           /* the loader's lock may be held */
		atomic_store(&gt_active, 0);
		gt_warn_once("gputrace: a child made while the library was loading "
			     "or walking the loaded objects (without fork(), or a "
			     "fork that did not wait) is not traced: even a new "
			     "thread could wait for good\n");
	}
	gt_ring_forget_all();
	gt_writer_forget();
	gt_func_after_fork();
	gt_signals_after_fork();
	gt_main_exit_after_fork();
	gt_unwind_after_fork();
	gt_hostsample_after_fork();
	gt_start_ns = gt_now();
	clock_gettime(CLOCK_REALTIME, &rt);
	gt_start_realtime_ns = (uint64_t)rt.tv_sec * 1000000000u + (uint64_t)rt.tv_nsec;
	atomic_store(&gt_mark->generation, ++last_generation);
}

/* glibc's fork: start over, and the forking thread goes on being sampled
 * (a DataLoader worker's CPU time is what the analyzer looks for). */
static void fork_child(void)
{
	in_child();
	gt_hostsample_fork_child();
}

void gt_fork_notice(void)
{
	if (atomic_load(&gt_mark->generation)) {
		/* Not wiped: our parent's memory (a vfork child shares it,
		 * and must leave it alone), unless no page can be wiped:
		 * then only the pid tells. */
		if (gt_mark == &static_mark && gt_writer_foreign())
			in_child();
		return;
	}
	if (!atomic_exchange(&gt_mark->claimed, 1)) {
		in_child();
		return;
	}
	while (!atomic_load(&gt_mark->generation))
		sched_yield();          /* another thread of the child does it */
}

typedef pid_t (*fork_fn)(void);
typedef long (*syscall_fn)(long, ...);
static _Atomic(void *) real_fork;
static _Atomic(void *) real_syscall;

void gt_fork_find_real(void)
{
	if (!atomic_load(&real_fork))
		atomic_store(&real_fork, gt_real_dlsym(RTLD_NEXT, "_Fork"));
	if (!atomic_load(&real_syscall))
		atomic_store(&real_syscall, gt_real_dlsym(RTLD_NEXT, "syscall"));
}

/* The real function: found at start (a lookup is not async-signal-safe,
 * and _Fork is), or now if a constructor called before ours. */
static void *real(_Atomic(void *) *fn)
{
	void *f = atomic_load_explicit(fn, memory_order_relaxed);

	if (unlikely(!f)) {
		gt_fork_find_real();
		f = atomic_load(fn);
	}
	if (!f)
		errno = ENOSYS;
	return f;
}

GT_EXPORT pid_t _Fork(void)
{
	fork_fn f = (fork_fn)real(&real_fork);
	pid_t pid;
	int err;

	if (!f)
		return -1;
	gt_dl_fork_begin();
	pid = f();
	err = errno;
	gt_dl_fork_end(pid);
	errno = err;
	return pid;
}

/* A new process that does not share our memory: fork, or clone without
 * CLONE_VM (clone3's flags are behind a pointer the program may have
 * got wrong: not read). */
static int makes_process(long nr, long arg0)
{
#ifdef SYS_fork
	if (nr == SYS_fork)
		return 1;
#endif
	return nr == SYS_clone && !(arg0 & CLONE_VM);
}

/* Six arguments, as glibc's own syscall() passes on whatever the caller
 * gave; a fork waits for our walks and loads, as fork() does. */
GT_EXPORT long syscall(long nr, ...)
{
	long a[6], rc;
	va_list ap;
	syscall_fn f;
	int err;

	va_start(ap, nr);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	f = (syscall_fn)real(&real_syscall);
	if (!f)
		return -1;
	if (!makes_process(nr, a[0]))
		return f(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
	gt_dl_fork_begin();
	rc = f(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
	err = errno;
	gt_dl_fork_end((pid_t)rc);
	errno = err;
	return rc;
}

/* The mark in a page of its own that every child finds zeroed. */
static void map_mark(void)
{
	struct gt_fork_mark *m = mmap(NULL, sizeof(*m), PROT_READ | PROT_WRITE,
				      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (m == MAP_FAILED)
		return;
	if (madvise(m, sizeof(*m), MADV_WIPEONFORK)) {
		munmap(m, sizeof(*m));
		gt_debug("gputrace: no MADV_WIPEONFORK; a child made without "
			 "fork() is noticed at exit only\n");
		return;
	}
	atomic_store(&m->claimed, 1);
	atomic_store(&m->generation, atomic_load(&static_mark.generation));
	gt_mark = m;
}

int gt_fork_init(void)
{
	map_mark();
	if (gt_dl_guard_init() || gt_callsite_fork_init())
		return -1;
	gt_nvtx_domain_fork_init();
	return pthread_atfork(NULL, NULL, fork_child) ? -1 : 0;
}
