/* SPDX-License-Identifier: MIT */
/*
 * config.c - the core settings of the library (gt_cfg), from the
 * GPUTRACE_* settings read at start (settings.def, settings.c).
 *
 * A secure-execution process (setuid or setgid, file capabilities:
 * AT_SECURE) traces nothing: its settings come from a user it must not
 * trust (where the dump goes, what it is named), and with tracing off
 * exec passes none of them on either (exec_env.c is not set up).
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "preload/stack/callsite.h"
#include "preload/stack/hostsample.h"
#include "preload/base/internal.h"
#include "preload/base/output_path.h"
#include "preload/base/settings.h"

struct gt_config gt_cfg;

static int secure_from_auxv(void)
{
	return getauxval(AT_SECURE) != 0;
}

int (*gt_secure_exec)(void) = secure_from_auxv;

/* The per-thread buffer cannot be larger than all of them together. */
static void clamp_thread_buffer(void)
{
	if (gt_cfg.thread_buffer_bytes <= gt_cfg.buffer_bytes)
		return;
	gt_log("gputrace: GPUTRACE_THREAD_BUFFER_KB is larger than "
	       "GPUTRACE_BUFFER_MB; using %llu KB\n",
	       (unsigned long long)(gt_cfg.buffer_bytes >> 10));
	gt_cfg.thread_buffer_bytes = gt_cfg.buffer_bytes;
}

/* GPUTRACE_OUTPUT, or the default; tracing off when it cannot be kept. */
static void load_output(void)
{
	const char *out = gt_setting_text(GT_S_OUTPUT);

	if (out && strlen(out) >= sizeof(gt_cfg.output)) {
		gt_log("gputrace: GPUTRACE_OUTPUT is longer than %zu bytes; "
		       "tracing off\n", sizeof(gt_cfg.output) - 1);
		gt_cfg.enabled = 0;
		out = NULL;
	}
	strcpy(gt_cfg.output, out && *out ? out : "gputrace-%h-%p.bin");
}

/*
 * The run this process is part of: the gputrace command's id (hex), and
 * the process that takes GPUTRACE_OUTPUT's exact name: GPUTRACE_RUN_PID
 * (the program gputrace started), else this one, the first traced.
 */
static void load_run(void)
{
	const char *id = gt_setting_text(GT_S_RUN_ID);
	char *end;

	gt_output_main_pid = gt_setting_given(GT_S_RUN_PID) ?
		(pid_t)gt_setting(GT_S_RUN_PID) : getpid();
	if (!id)
		return;
	errno = 0;
	gt_cfg.run_id = strtoull(id, &end, 16);
	if (*end || errno || !isxdigit((unsigned char)*id)) {
		gt_log("gputrace: GPUTRACE_RUN_ID '%s' is not a hexadecimal "
		       "number; ignored\n", id);
		gt_cfg.run_id = 0;
	}
}

void gt_config_load(void)
{
	int secure = gt_secure_exec();

	gt_settings_load(secure);
	if (secure) {
		gt_log("gputrace: a secure-execution (setuid, setgid or "
		       "capability) program; tracing off\n");
		gt_cfg.enabled = 0;
		strcpy(gt_cfg.output, "gputrace-%h-%p.bin");
		return;
	}
	gt_cfg.enabled = (int)gt_setting(GT_S_ENABLED);
	gt_cfg.debug = (int)gt_setting(GT_S_DEBUG);
	gt_cfg.buffer_bytes = gt_setting(GT_S_BUFFER_MB) << 20;
	gt_cfg.thread_buffer_bytes = gt_setting(GT_S_THREAD_BUFFER_KB) << 10;
	gt_cfg.flush_ms = (uint32_t)gt_setting(GT_S_FLUSH_MS);
	gt_cfg.max_functions = (uint32_t)gt_setting(GT_S_MAX_FUNCTIONS);
	gt_cfg.sample_ms = (uint32_t)gt_setting(GT_S_SAMPLE_MS);
	gt_cfg.stall_ms = (uint32_t)gt_setting(GT_S_STALL_MS);
	gt_cfg.max_pinned = (uint32_t)gt_setting(GT_S_MAX_PINNED);
	gt_cfg.nccl_plugin = (int)gt_setting(GT_S_NCCL_PLUGIN);
	gt_cfg.tsc = (int)gt_setting(GT_S_TSC);
	clamp_thread_buffer();
	load_output();
	load_run();
	gt_callsite_config();
	gt_hostsample_config();
}
