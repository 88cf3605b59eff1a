/* SPDX-License-Identifier: MIT */
/*
 * sampler.c - the sampler thread's life: started by the writer when the
 * dump opens, it writes the environment, then samples every
 * GPUTRACE_SAMPLE_MS (0: no samples; the thread only waits for CUDA to
 * be initialised to write CUDA's view of the devices, then ends).
 *
 * It is detached and blocks every signal.  An atexit handler (which runs
 * before the libraries' destructors, NVML's and ours included) stops it
 * and waits a bounded time for its last sample; the writer's final drain
 * then puts that in the dump.
 */
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include "preload/gpu/cupti.h"
#include "preload/env/env.h"
#include "include/gputrace/format.h"
#include "preload/gpu/gpu_window.h"
#include "preload/base/internal.h"
#include "preload/env/sampler.h"
#include "preload/record/writer.h"

#define STOP_WAIT_MS 2000
#define CUDA_POLL_MS 200            /* with samples off */

static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;        /* CLOCK_MONOTONIC */
	int stop;
	int running;
	pid_t pid;                  /* the process it was started in */
} s;

/* Absolute CLOCK_MONOTONIC time ns from the epoch of gt_now(). */
static struct timespec at(uint64_t ns)
{
	return (struct timespec){ .tv_sec = (time_t)(ns / 1000000000u),
				  .tv_nsec = (long)(ns % 1000000000u) };
}

/* Sleep until `until` (gt_now() time) or a stop; 1 when stopped. */
static int wait_until(uint64_t until)
{
	struct timespec ts = at(until);
	int stop;

	pthread_mutex_lock(&s.lock);
	while (!s.stop && gt_now() < until)
		pthread_cond_timedwait(&s.cond, &s.lock, &ts);
	stop = s.stop;
	pthread_mutex_unlock(&s.lock);
	return stop;
}

static void sample(const struct gt_gpus *g)
{
	gt_sample_gpus(g);
	gt_sample_host();
}

/*
 * The writer thread drains every GPUTRACE_FLUSH_MS; when it has not for
 * GPUTRACE_STALL_MS it is stuck, most likely inside CUPTI (which may then
 * hold the program's CUDA calls too): say so once, and where, so that the
 * user can run on with GPUTRACE_GPU=off.
 */
static void watch_writer(void)
{
	static int said;
	uint64_t beat = gt_writer_beat(), now = gt_now();
	const char *in;

	if (said || !beat || now - beat < (uint64_t)gt_cfg.stall_ms * 1000000u)
		return;
	said = 1;
	in = gt_cupti_calling();
	if (in)
		gt_log("gputrace: the background thread has been inside CUPTI's %s "
		       "for %.1f s: CUPTI may be stuck, and CUDA calls with it; "
		       "GPUTRACE_GPU=off traces without CUPTI\n", in,
		       (double)(now - beat) / 1e9);
	else
		gt_log("gputrace: the background thread has not written the dump "
		       "for %.1f s; events beyond the buffers are dropped\n",
		       (double)(now - beat) / 1e9);
}

static void *sampler_main(void *arg)
{
	static struct gt_gpus g;
	uint64_t period = (uint64_t)(gt_cfg.sample_ms ? gt_cfg.sample_ms
						      : CUDA_POLL_MS) * 1000000u;
	uint64_t next = gt_now();
	int cuda_done = 0;

	atomic_fetch_add(&gt_own_threads, 1);
	gt_env_host();
	gt_env_nvml(&g);
	do {
		if (!cuda_done)
			cuda_done = gt_env_cuda(&g);
		if (gt_cfg.sample_ms)
			sample(&g);
		else if (cuda_done && gt_gpu_cfg.mode == GT_GPU_MODE_OFF)
			break;          /* no samples, and no CUPTI to watch */
		watch_writer();
		next += period;
		if (next < gt_now())            /* fell behind: skip ticks */
			next = gt_now() + period;
	} while (!wait_until(next));
	if (gt_cfg.sample_ms)
		sample(&g);                     /* the last one, at exit */
	pthread_mutex_lock(&s.lock);
	s.running = 0;
	pthread_cond_broadcast(&s.cond);
	pthread_mutex_unlock(&s.lock);
	atomic_fetch_sub(&gt_own_threads, 1);
	return arg;
}

static void sampler_stop(void)
{
	uint64_t until = gt_now() + (uint64_t)STOP_WAIT_MS * 1000000u;
	struct timespec ts = at(until);

	if (s.pid != getpid())
		return;
	pthread_mutex_lock(&s.lock);
	s.stop = 1;
	pthread_cond_broadcast(&s.cond);
	while (s.running && gt_now() < until)
		pthread_cond_timedwait(&s.cond, &s.lock, &ts);
	if (s.running)
		gt_debug("gputrace: the sampler did not stop in %d ms\n",
			 STOP_WAIT_MS);
	pthread_mutex_unlock(&s.lock);
}

static int make_thread(void)
{
	pthread_attr_t attr;
	pthread_t t;
	sigset_t all, old;
	int rc;

	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&t, &attr, sampler_main, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	return rc;
}

void gt_sampler_start(void)
{
	static int registered;          /* inherited by a forked child, as the
	                                   handler itself is */
	pthread_condattr_t ca;

	if (s.pid == getpid())
		return;
	s.pid = getpid();
	s.stop = 0;
	pthread_mutex_init(&s.lock, NULL);  /* anew: a child's may be held */
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&s.cond, &ca);
	pthread_condattr_destroy(&ca);
	s.running = 1;
	if (make_thread()) {
		s.running = 0;
		gt_log("gputrace: cannot start the sampler thread; no "
		       "environment or samples in the dump\n");
		return;
	}
	if (!registered && atexit(sampler_stop) == 0)
		registered = 1;
}
