/* SPDX-License-Identifier: MIT */
/*
 * tsc.c - ring records stamped with the CPU's time-stamp counter, turned
 * into CLOCK_MONOTONIC nanoseconds by the writer (internal.h: gt_stamp).
 *
 * The counter is used only where the kernel itself keeps time with it
 * (clocksource "tsc" at start: invariant and in step across CPUs) and
 * GPUTRACE_TSC is not 0.  Each writer cycle takes a (counter, nanoseconds)
 * pair, at least 1 ms after the last, once it has seen which records it
 * will drain, so the stamps it turns lie between the last two pairs:
 * interpolated, their error is a pair's own jitter (tens of ns), and
 * CLOCK_MONOTONIC's slewing by NTP is followed, so host times stay on the
 * clock that CUPTI's times are fitted to.  Nothing here runs on a
 * program's thread but gt_stamp() and one pair at start.
 */
#include <fcntl.h>
#include <sched.h>
#include <string.h>
#include <unistd.h>

#include "preload/base/internal.h"

int gt_tsc_on;

struct pair {
	uint64_t tsc, ns;
};

/* The writer's: the last two pairs and the counter's period. */
static struct pair prev, cur;
static double ns_per_tick;          /* 0 until the first cycle */

#define PERIOD_MIN_NS 1000000       /* pairs this far apart give the period */

#if defined(__x86_64__) || defined(__i386__)
static uint64_t ticks(void)
{
	return __builtin_ia32_rdtsc();
}
#else
static uint64_t ticks(void)
{
	return gt_now();
}
#endif

/* The tightest of three reads: the counter halfway across the clock's. */
static struct pair take_pair(void)
{
	struct pair best = { 0, 0 };
	uint64_t spread = UINT64_MAX;

	for (int i = 0; i < 3; i++) {
		uint64_t a = ticks(), ns = gt_now(), b = ticks();

		if (b - a < spread) {
			spread = b - a;
			best = (struct pair){ a + (b - a) / 2, ns };
		}
	}
	return best;
}

static int kernel_uses_tsc(void)
{
	char buf[32] = "";
	int fd = open("/sys/devices/system/clocksource/clocksource0/"
		      "current_clocksource", O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	return n >= 3 && !strncmp(buf, "tsc", 3) && (n == 3 || buf[3] == '\n');
}

void gt_tsc_init(void)
{
	/* (elsewhere than x86 the clocksource is never "tsc") */
	if (!gt_cfg.tsc || !kernel_uses_tsc())
		return;
	prev = cur = take_pair();       /* the period comes at the first cycle */
	gt_tsc_on = 1;
}

/* Each writer cycle; the first waits (on the writer thread, never on the
 * program's) until the counter's period can be read from 1 ms at least. */
void gt_tsc_pair(void)
{
	struct pair p;

	if (!gt_tsc_on)
		return;
	if (!ns_per_tick) {
		while (gt_now() < prev.ns + PERIOD_MIN_NS)
			sched_yield();
	}
	p = take_pair();
	if (p.tsc <= cur.tsc || p.ns < cur.ns + PERIOD_MIN_NS)
		return;                 /* too close: stamps use the last period */
	prev = cur;
	cur = p;
	ns_per_tick = (double)(cur.ns - prev.ns) / (double)(cur.tsc - prev.tsc);
}

uint64_t gt_tsc_to_ns(uint64_t stamp)
{
	int64_t d;

	if (!gt_tsc_on)
		return stamp;
	d = (int64_t)(stamp - prev.tsc);
	return prev.ns + (uint64_t)(int64_t)((double)d * ns_per_tick);
}
