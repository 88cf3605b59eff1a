/* SPDX-License-Identifier: MIT */
/*
 * dl_guard.c - no fork while this library walks the loaded objects or
 * loads one.
 *
 * dl_iterate_phdr holds the dynamic linker's write lock while it runs, and
 * glibc's fork does not take that lock first: a fork while another thread
 * is inside it leaves the lock held for good in the child, whose first
 * walk (ours, an unwinder's, the program's dlopen) then waits forever.
 * The library walks often enough for that to happen (the writer's module
 * list, the sampler's version lookups, every call stack: libunwind walks
 * for each frame).  Loading a library runs its constructors, which take
 * glibc's exit-handler lock (atexit), also not taken by fork: libcupti,
 * loaded by the writer thread, left a child hung in exit().  So our walks
 * and loads count themselves in and out, without a lock, and the fork's
 * prepare handler waits (at most FORK_WAIT_NS) until none is inside,
 * holding new ones back until the fork is done.
 *
 * The program's _Fork runs no fork handler, so the library's _Fork
 * (fork.c) runs the same three around the real one, and so does its
 * syscall() for a fork.  A child made by a fork system call of the
 * program's own (not through syscall()) ran none, and a child whose
 * prepare gave up waiting was made anyway: if a walk or load of the
 * parent's was inside then, the lock it held may be held for good: such
 * a child walks and loads nothing (gt_dl_enter says no), and fork.c
 * traces nothing in it (even a new thread takes the loader's lock).
 */
#include <link.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

#include "preload/base/dl.h"
#include "preload/base/internal.h"

#define FORK_WAIT_NS 2000000000ull

static atomic_int forking;
static atomic_uint inside;
static atomic_int stuck;                /* this child must not walk or load */
static atomic_int gave_up;              /* the fork's wait ended with one in */

int gt_dl_enter(void)
{
	for (;;) {
		if (atomic_load(&stuck))
			return -1;
		while (atomic_load(&forking))
			sched_yield();
		atomic_fetch_add(&inside, 1);
		if (!atomic_load(&forking))
			return 0;
		atomic_fetch_sub(&inside, 1);     /* a fork began meanwhile */
	}
}

int gt_dl_try_enter(void)
{
	if (atomic_load(&stuck) || atomic_load(&forking))
		return -1;
	atomic_fetch_add(&inside, 1);
	if (!atomic_load(&forking))
		return 0;
	atomic_fetch_sub(&inside, 1);
	return -1;
}

void gt_dl_leave(void)
{
	atomic_fetch_sub(&inside, 1);
}

int gt_dl_iterate(int (*cb)(struct dl_phdr_info *, size_t, void *), void *data)
{
	int rc;

	if (gt_dl_enter())
		return 0;
	rc = dl_iterate_phdr(cb, data);
	gt_dl_leave();
	return rc;
}

static void prepare(void)
{
	uint64_t t0 = gt_now();

	atomic_store(&forking, 1);
	while (atomic_load(&inside) && gt_now() - t0 < FORK_WAIT_NS)
		sched_yield();
	atomic_store(&gave_up, atomic_load(&inside) != 0);
}

static void parent(void)
{
	atomic_store(&gave_up, 0);
	atomic_store(&forking, 0);
}

/* A child of fork(): stuck only if the wait gave up.  (inside may count a
 * thread that had not yet seen the fork and was backing out: harmless.) */
static void child(void)
{
	if (atomic_exchange(&gave_up, 0))
		atomic_store(&stuck, 1);
	atomic_store(&inside, 0);           /* the child has only this thread */
	atomic_store(&forking, 0);
}

void gt_dl_fork_begin(void)
{
	prepare();
}

void gt_dl_fork_end(pid_t pid)
{
	if (pid == 0)
		child();
	else
		parent();
}

int gt_dl_after_fork(void)
{
	if (atomic_exchange(&inside, 0))   /* no handler ran: any may be real */
		atomic_store(&stuck, 1);
	atomic_store(&forking, 0);
	return atomic_load(&stuck);
}

int gt_dl_guard_init(void)
{
	return pthread_atfork(prepare, parent, child) ? -1 : 0;
}
