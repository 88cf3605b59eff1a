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
 * unwinder: its own mutex may be held by a thread that is not there.  The child's dump is made at its first traced call, named
 * from its own pid; a child that makes none has no dump.  The handler
 * runs in glibc's fork after malloc is usable again, and takes no lock.
 */
#include <pthread.h>
#include <time.h>

#include "preload/fork.h"
#include "preload/functions.h"
#include "preload/internal.h"
#include "preload/ring.h"
#include "preload/signals.h"
#include "preload/stack_unwind.h"
#include "preload/writer.h"

static void in_child(void)
{
	struct timespec rt;

	atomic_fetch_add(&gt_generation, 1);
	gt_ring_forget_all();
	gt_writer_forget();
	gt_func_after_fork();
	gt_signals_after_fork();
	gt_unwind_after_fork();
	gt_start_ns = gt_now();
	clock_gettime(CLOCK_REALTIME, &rt);
	gt_start_realtime_ns = (uint64_t)rt.tv_sec * 1000000000u + (uint64_t)rt.tv_nsec;
}

int gt_fork_init(void)
{
	return pthread_atfork(NULL, NULL, in_child) ? -1 : 0;
}
