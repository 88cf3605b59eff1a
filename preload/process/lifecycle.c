/* SPDX-License-Identifier: MIT */
/*
 * lifecycle.c - start (settings, tables, the fork, exec and signal
 * watchers) and exit.
 *
 * Nothing is opened at start: the dump is created at the first traced call,
 * so a process that never uses CUDA leaves no file, and our signal
 * handlers are put in place only then (signals.h).  At exit (and at
 * quick_exit) the writer drains every ring, ends the dump and prints where
 * it is.  A process that ends without exit (SIGKILL, os._exit) keeps what
 * the writer flushed, at most GPUTRACE_FLUSH_MS before the end.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>

#include "preload/base/dl.h"
#include "preload/process/exec.h"
#include "preload/process/fork.h"
#include "preload/process/main_exit.h"
#include "preload/record/functions.h"
#include "preload/gpu/gpu_window.h"
#include "preload/hooks/pinned.h"
#include "preload/base/internal.h"
#include "preload/record/ring.h"
#include "preload/process/signals.h"
#include "preload/record/writer.h"

atomic_int gt_active;
uint64_t gt_start_ns, gt_start_realtime_ns;
static atomic_int initialised;

/*
 * Another copy of the library loaded before this one (an installed one
 * and a build tree's, both in LD_PRELOAD): that one traces, this one
 * stays inert: no settings read, tracing off, so that each of its
 * exported functions only calls the real one (the other copy never calls
 * into this one: dl.h).  Said once, on stderr.
 */
static int another_copy_traces(void)
{
	const char *other = gt_elf_copy_before();
	Dl_info self;

	if (!other)
		return 0;
	gt_log("gputrace: another copy of the library, '%s', is loaded first and "
	       "traces; this one ('%s') does nothing\n", other,
	       dladdr((void *)another_copy_traces, &self) && self.dli_fname
	       ? self.dli_fname : "?");
	return 1;
}

static void end_trace(void)
{
	gt_fork_notice();               /* the dump may be a parent's */
	atomic_store(&gt_active, 0);
	gt_writer_finish();             /* a second call does nothing */
}

void gt_init(void)
{
	struct timespec rt;

	if (atomic_exchange(&initialised, 1))
		return;
	gt_start_ns = gt_now();
	clock_gettime(CLOCK_REALTIME, &rt);
	gt_start_realtime_ns = (uint64_t)rt.tv_sec * 1000000000u + (uint64_t)rt.tv_nsec;
	if (!another_copy_traces())
		gt_config_load();           /* else gt_cfg.enabled stays 0 */
	gt_tsc_init();
	gt_signals_init();
	gt_exec_init();
	gt_fork_find_real();
	gt_main_exit_find_real();
	if (!gt_cfg.enabled)
		return;
	if (gt_func_table_init() || gt_pinned_init(gt_cfg.max_pinned)) {
		gt_log("gputrace: out of memory at start; tracing off\n");
		return;
	}
	if (gt_fork_init()) {
		gt_log("gputrace: cannot watch fork (out of memory); tracing off\n");
		return;
	}
	gt_gpu_init();
	atomic_store(&gt_active, 1);
	/* quick_exit runs neither exit's handlers nor destructors: its own,
	 * this one first in, so last out */
	if (at_quick_exit(end_trace))
		gt_debug("gputrace: at_quick_exit refused; quick_exit leaves the "
			 "dump without its end\n");
}

__attribute__((constructor)) static void gt_constructor(void)
{
	gt_init();
}

/*
 * With CUPTI loaded the dump must end in exit()'s handlers, not in our
 * destructor: by the time the destructors run, libcupti's own have torn
 * it down, and a last flush there crashes.  Handlers run last-registered
 * first, so each call registers once more (at most twice: when CUPTI is
 * subscribed, and when its first records arrive, after CUDA and CUPTI
 * have registered theirs).
 */
void gt_end_in_exit_handlers(void)
{
	static atomic_int times;

	if (atomic_fetch_add(&times, 1) < 2 && atexit(end_trace))
		gt_debug("gputrace: atexit refused; the dump ends at unload\n");
}

__attribute__((destructor)) static void gt_destructor(void)
{
	end_trace();
}
