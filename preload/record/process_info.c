/* SPDX-License-Identifier: MIT */
/*
 * process_info.c - reads the command line from /proc/self/cmdline and the
 * rest from the system, and writes GT_CHUNK_PROCESS (format.h).  Runs once,
 * when the dump is opened.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "include/gputrace/format.h"
#include "preload/base/own_fd.h"
#include "preload/base/output_path.h"
#include "preload/record/process_info.h"

#define CMDLINE_MAX (64u << 10)

/* Append a uint32_t length and the bytes of s to buf at *len. */
static void add_string(uint8_t *buf, size_t cap, size_t *len, const char *s, size_t n)
{
	uint32_t n32;

	if (*len + 4 + n > cap)
		n = *len + 4 <= cap ? cap - *len - 4 : 0;
	if (*len + 4 > cap)
		return;
	n32 = (uint32_t)n;
	memcpy(buf + *len, &n32, 4);
	memcpy(buf + *len + 4, s, n);
	*len += 4 + n;
}

static size_t read_cmdline(char *buf, size_t cap)
{
	struct gt_own_fd o;
	size_t len = 0;
	ssize_t n;

	if (gt_own_open(&o, "/proc/self/cmdline") < 0)
		return 0;
	while (len < cap && (n = read(o.fd, buf + len, cap - len)) > 0)
		len += (size_t)n;
	gt_own_close(&o);
	return len;
}

void gt_put_process_info(struct gt_dump_out *o)
{
	struct gt_process p = { .pid = (uint32_t)getpid(), .ppid = (uint32_t)getppid(),
				.rank = gt_output_rank() };
	size_t cap = CMDLINE_MAX * 2, len = 0, n;
	uint8_t *buf = malloc(cap);
	char *cmd = malloc(CMDLINE_MAX), host[256] = "", exe[4096] = "";
	ssize_t k;

	if (!buf || !cmd)
		goto out;
	gethostname(host, sizeof(host) - 1);
	k = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[k > 0 ? k : 0] = 0;
	add_string(buf, cap, &len, host, strlen(host));
	add_string(buf, cap, &len, exe, strlen(exe));
	n = read_cmdline(cmd, CMDLINE_MAX);
	for (size_t i = 0; i < n; i += strlen(cmd + i) + 1) {
		size_t arg = strnlen(cmd + i, n - i);

		add_string(buf, cap, &len, cmd + i, arg);
		p.argc++;
		if (i + arg >= n)
			break;
	}
	gt_dump_out_chunk2(o, GT_CHUNK_PROCESS, &p, sizeof(p), buf, len);
out:
	free(buf);
	free(cmd);
}
