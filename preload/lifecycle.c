/* SPDX-License-Identifier: MIT */
/*
 * lifecycle.c - start (settings, tables), fork and exit.
 *
 * Nothing is opened at start: the dump is created at the first traced call,
 * so a process that never uses CUDA leaves no file.  At exit the writer
 * drains every ring, ends the dump and prints where it is.
 */
#include <pthread.h>

#include "preload/functions.h"
#include "preload/internal.h"
#include "preload/ring.h"
#include "preload/writer.h"

atomic_int gt_active;
atomic_uint gt_generation = 1;
uint64_t gt_start_ns, gt_start_realtime_ns;
static atomic_int initialised;

static void after_fork_child(void)
{
	atomic_fetch_add(&gt_generation, 1);
	gt_ring_forget_all();
	gt_writer_forget();
	gt_start_ns = gt_now();
}

void gt_init(void)
{
	struct timespec rt;

	if (atomic_exchange(&initialised, 1))
		return;
	gt_start_ns = gt_now();
	clock_gettime(CLOCK_REALTIME, &rt);
	gt_start_realtime_ns = (uint64_t)rt.tv_sec * 1000000000u + (uint64_t)rt.tv_nsec;
	gt_config_load();
	if (!gt_cfg.enabled)
		return;
	if (gt_func_table_init()) {
		gt_log("gputrace: out of memory at start; tracing off\n");
		return;
	}
	pthread_atfork(NULL, NULL, after_fork_child);
	atomic_store(&gt_active, 1);
}

__attribute__((constructor)) static void gt_constructor(void)
{
	gt_init();
}

__attribute__((destructor)) static void gt_destructor(void)
{
	atomic_store(&gt_active, 0);
	gt_writer_finish();
}
