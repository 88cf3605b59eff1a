/* SPDX-License-Identifier: MIT */
/*
 * env_host.c - the host side of the environment: how many CPUs the
 * machine has, which ones this process may use (affinity, cgroup quota),
 * the memory, the sampling interval in force and the settings of
 * env_settings.c.  Read from sysconf, sched_getaffinity, /proc and /sys
 * once, when the dump opens.
 */
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "include/gputrace/format.h"
#include "preload/base/own_fd.h"
#include "preload/env/env.h"
#include "preload/env/env_items.h"
#include "preload/base/internal.h"

/* A small file's text, NUL-terminated; its length or -1. */
static ssize_t read_small(const char *path, char *buf, size_t cap)
{
	struct gt_own_fd o;
	ssize_t n;

	if (gt_own_open(&o, path) < 0)
		return -1;
	n = read(o.fd, buf, cap - 1);
	gt_own_close(&o);
	if (n < 0)
		return -1;
	buf[n] = 0;
	return n;
}

/* "0-15,32-47": CPU ranges of the set, cut to fit. */
static void cpu_list(const cpu_set_t *set, char *out, size_t cap)
{
	size_t len = 0;
	int c = 0;

	out[0] = 0;
	while (c < CPU_SETSIZE && len + 24 < cap) {
		int first;

		for (; c < CPU_SETSIZE && !CPU_ISSET(c, set); c++)
			;
		if (c == CPU_SETSIZE)
			break;
		for (first = c; c + 1 < CPU_SETSIZE && CPU_ISSET(c + 1, set); c++)
			;
		len += (size_t)snprintf(out + len, cap - len, first == c ? "%s%d" :
					"%s%d-%d", len ? "," : "", first, c);
		c++;
	}
}

static void affinity(struct gt_items *it)
{
	cpu_set_t set;
	char list[200];

	if (sched_getaffinity(0, sizeof(set), &set)) {
		gt_items_fail(it, GT_ENV_CPU_AFFINITY, GT_INFO_FAILED, -1);
		return;
	}
	cpu_list(&set, list, sizeof(list));
	gt_items_text(it, GT_ENV_CPU_AFFINITY, CPU_COUNT(&set), list);
}

/* cgroup v2 cpu.max: "max 100000" (no limit) or "QUOTA PERIOD". */
static void cpu_quota(struct gt_items *it)
{
	char buf[64];
	long long quota, period;

	if (read_small("/sys/fs/cgroup/cpu.max", buf, sizeof(buf)) < 0 ||
	    sscanf(buf, "%lld %lld", &quota, &period) != 2 || period <= 0)
		gt_items_fail(it, GT_ENV_CPU_QUOTA, GT_INFO_NOT_SUPPORTED, 0);
	else
		gt_items_num(it, GT_ENV_CPU_QUOTA, quota * 1000 / period);
}

static void memory(struct gt_items *it)
{
	char buf[256];
	long long kb;

	if (read_small("/proc/meminfo", buf, sizeof(buf)) > 0 &&
	    sscanf(buf, "MemTotal: %lld kB", &kb) == 1)
		gt_items_num(it, GT_ENV_HOST_MEMORY, kb * 1024);
	else
		gt_items_fail(it, GT_ENV_HOST_MEMORY, GT_INFO_FAILED, -1);
}

void gt_env_host(void)
{
	static struct gt_items it;
	long cores = sysconf(_SC_NPROCESSORS_ONLN);

	gt_items_begin(&it, GT_SCOPE_HOST);
	if (cores > 0)
		gt_items_num(&it, GT_ENV_CPU_CORES, cores);
	else
		gt_items_fail(&it, GT_ENV_CPU_CORES, GT_INFO_FAILED, -1);
	affinity(&it);
	cpu_quota(&it);
	memory(&it);
	gt_items_num(&it, GT_ENV_SAMPLE_MS, gt_cfg.sample_ms);
	gt_env_settings(&it);
	gt_items_put(&it, GT_CHUNK_ENV);
}
