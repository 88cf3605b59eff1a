/* SPDX-License-Identifier: MIT */
/*
 * sampler_proc.c - one /proc sample of the host side: this process's CPU
 * time (all threads), that of its child processes (DataLoader workers:
 * the live ones and those already reaped), and the machine's CPU time by
 * state, for iowait.  All cumulative: the analyzer takes differences.
 *
 * Live descendants are found through /proc/<pid>/task/<tid>/children,
 * again every REFRESH samples; their times are read at every sample.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "include/gputrace/format.h"
#include "preload/env/env_items.h"
#include "preload/base/own_fd.h"
#include "preload/env/sampler.h"

#define MAX_KIDS 256
#define REFRESH 10

struct cpu {
	uint64_t user, sys;         /* the process itself, ns */
	uint64_t cuser, csys;       /* its reaped children, ns */
};

static pid_t kids[MAX_KIDS];
static unsigned nkids, samples;
static int have_children_file;

static ssize_t read_text(const char *path, char *buf, size_t cap)
{
	struct gt_own_fd o;
	ssize_t n;

	if (gt_own_open(&o, path) < 0)
		return -1;
	n = read(o.fd, buf, cap - 1);
	gt_own_close(&o);
	buf[n > 0 ? n : 0] = 0;
	return n;
}

static uint64_t ticks_ns(unsigned long long t)
{
	static long hz;

	if (!hz)
		hz = sysconf(_SC_CLK_TCK) > 0 ? sysconf(_SC_CLK_TCK) : 100;
	return (uint64_t)t * (1000000000u / (uint64_t)hz);
}

/* utime, stime, cutime, cstime of /proc/<pid>/stat; -1 when gone. */
static int read_cpu(const char *pid, struct cpu *c)
{
	char path[64], buf[1024];
	unsigned long long u, s, cu, cs;
	const char *p;

	snprintf(path, sizeof(path), "/proc/%s/stat", pid);
	if (read_text(path, buf, sizeof(buf)) <= 0 || !(p = strrchr(buf, ')')))
		return -1;
	/* after the name: state and fields 4-13, then 14-17 */
	if (sscanf(p + 2, "%*c %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s "
		   "%llu %llu %llu %llu", &u, &s, &cu, &cs) != 4)
		return -1;
	*c = (struct cpu){ ticks_ns(u), ticks_ns(s), ticks_ns(cu), ticks_ns(cs) };
	return 0;
}

/* Add the pids listed in a children file; 0, or -1 if there is none. */
static int add_children(const char *path)
{
	char buf[4096], *p, *end;
	long v;

	if (read_text(path, buf, sizeof(buf)) < 0)
		return -1;
	for (p = buf; nkids < MAX_KIDS; p = end) {
		v = strtol(p, &end, 10);
		if (end == p || v <= 0)
			break;
		kids[nkids++] = (pid_t)v;
	}
	return 0;
}

/* Our children (from every thread), then theirs, breadth first. */
static void find_kids(void)
{
	char path[96];
	struct dirent *e;
	DIR *d = opendir("/proc/self/task");

	nkids = 0;
	have_children_file = 0;
	while (d && (e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%.20s/children",
			 e->d_name);
		if (add_children(path) == 0)
			have_children_file = 1;
	}
	if (d)
		closedir(d);
	for (unsigned i = 0; i < nkids && nkids < MAX_KIDS; i++) {
		snprintf(path, sizeof(path), "/proc/%d/task/%d/children",
			 (int)kids[i], (int)kids[i]);
		add_children(path);
	}
}

static void process_items(struct gt_items *it)
{
	struct cpu self, k;
	uint64_t cu, cs;
	unsigned live = 0;
	char pid[24];

	if (read_cpu("self", &self) < 0) {
		gt_items_fail(it, GT_SAMPLE_CPU_USER, GT_INFO_FAILED, -1);
		return;
	}
	gt_items_num(it, GT_SAMPLE_CPU_USER, (int64_t)self.user);
	gt_items_num(it, GT_SAMPLE_CPU_SYS, (int64_t)self.sys);
	if (samples++ % REFRESH == 0)
		find_kids();
	cu = self.cuser;
	cs = self.csys;
	for (unsigned i = 0; i < nkids; i++) {
		snprintf(pid, sizeof(pid), "%d", (int)kids[i]);
		if (read_cpu(pid, &k) < 0)
			continue;               /* gone: now in someone's cutime */
		cu += k.user + k.cuser;
		cs += k.sys + k.csys;
		live++;
	}
	gt_items_num(it, GT_SAMPLE_CHILD_USER, (int64_t)cu);
	gt_items_num(it, GT_SAMPLE_CHILD_SYS, (int64_t)cs);
	if (have_children_file)
		gt_items_num(it, GT_SAMPLE_CHILDREN, live);
	else
		gt_items_fail(it, GT_SAMPLE_CHILDREN, GT_INFO_NOT_SUPPORTED, 0);
}

/* The machine: "cpu  user nice system idle iowait irq softirq steal". */
static void host_items(struct gt_items *it)
{
	char buf[512];
	unsigned long long v[8] = { 0 }, total = 0;

	if (read_text("/proc/stat", buf, sizeof(buf)) <= 0 ||
	    sscanf(buf, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0],
		   &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) < 5) {
		gt_items_fail(it, GT_SAMPLE_HOST_TOTAL, GT_INFO_FAILED, -1);
		return;
	}
	for (int i = 0; i < 8; i++)
		total += v[i];
	gt_items_num(it, GT_SAMPLE_HOST_TOTAL, (int64_t)ticks_ns(total));
	gt_items_num(it, GT_SAMPLE_HOST_IOWAIT, (int64_t)ticks_ns(v[4]));
	gt_items_num(it, GT_SAMPLE_HOST_IDLE, (int64_t)ticks_ns(v[3]));
}

void gt_sample_host(void)
{
	static struct gt_items it;

	gt_items_begin(&it, GT_SCOPE_HOST);
	process_items(&it);
	host_items(&it);
	gt_items_put(&it, GT_CHUNK_SAMPLE);
}
