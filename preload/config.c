/* SPDX-License-Identifier: MIT */
/*
 * config.c - the GPUTRACE_* settings, read once at start.
 *
 * A setting that does not parse or is out of range keeps its default, and
 * the library says so once on stderr: a bad setting never stops the
 * traced program.
 *
 * A secure-execution process (setuid or setgid, file capabilities:
 * AT_SECURE) traces nothing: its settings come from a user it must not
 * trust (where the dump goes, what it is named), and with tracing off
 * exec passes none of them on either (exec_env.c is not set up).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>

#include "preload/callsite.h"
#include "preload/internal.h"

struct gt_config gt_cfg;

struct num_setting {
	const char *name;
	uint64_t def, min, max;
};

/* Parse a whole decimal number within [min, max], else keep def. */
uint64_t gt_env_number(const char *name, uint64_t def, uint64_t min, uint64_t max)
{
	const struct num_setting setting = { name, def, min, max }, *s = &setting;
	const char *v = getenv(s->name);
	char *end;
	unsigned long long n;

	if (!v || !*v)
		return s->def;
	errno = 0;
	n = strtoull(v, &end, 10);
	if (errno || *end || n < s->min || n > s->max || v[0] == '-') {
		gt_log("gputrace: ignoring %s='%s' (want %llu..%llu), using %llu\n",
		       s->name, v, (unsigned long long)s->min,
		       (unsigned long long)s->max, (unsigned long long)s->def);
		return s->def;
	}
	return n;
}

static const struct num_setting s_enabled = { "GPUTRACE", 1, 0, 1 };
static const struct num_setting s_debug = { "GPUTRACE_DEBUG", 0, 0, 9 };
static const struct num_setting s_buffer_mb = { "GPUTRACE_BUFFER_MB", 256, 1, 1 << 20 };
static const struct num_setting s_thread_kb = { "GPUTRACE_THREAD_BUFFER_KB", 4096, 1, 1 << 30 };
static const struct num_setting s_flush_ms = { "GPUTRACE_FLUSH_MS", 20, 1, 60000 };
static const struct num_setting s_max_func = { "GPUTRACE_MAX_FUNCTIONS", 65536, 16, 1 << 24 };
static const struct num_setting s_sample_ms = { "GPUTRACE_SAMPLE_MS", 100, 0, 3600000 };
static const struct num_setting s_max_pinned = { "GPUTRACE_MAX_PINNED", 65536, 16, 1 << 24 };
static const struct num_setting s_nccl_plugin = { "GPUTRACE_NCCL_PLUGIN", 1, 0, 1 };
static const struct num_setting s_stall_ms = { "GPUTRACE_STALL_MS", 10000, 100, 3600000 };
static const struct num_setting s_tsc = { "GPUTRACE_TSC", 1, 0, 1 };

static uint64_t env_number(const struct num_setting *s)
{
	return gt_env_number(s->name, s->def, s->min, s->max);
}

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
	const char *out = getenv("GPUTRACE_OUTPUT");

	if (out && strlen(out) >= sizeof(gt_cfg.output)) {
		gt_log("gputrace: GPUTRACE_OUTPUT is longer than %zu bytes; "
		       "tracing off\n", sizeof(gt_cfg.output) - 1);
		gt_cfg.enabled = 0;
		out = NULL;
	}
	strcpy(gt_cfg.output, out && *out ? out : "gputrace-%h-%p.bin");
}

void gt_config_load(void)
{
	if (gt_secure_exec()) {
		gt_log("gputrace: a secure-execution (setuid, setgid or "
		       "capability) program; tracing off\n");
		gt_cfg.enabled = 0;
		strcpy(gt_cfg.output, "gputrace-%h-%p.bin");
		return;
	}
	gt_cfg.enabled = (int)env_number(&s_enabled);
	gt_cfg.debug = (int)env_number(&s_debug);
	gt_cfg.buffer_bytes = env_number(&s_buffer_mb) << 20;
	gt_cfg.thread_buffer_bytes = env_number(&s_thread_kb) << 10;
	gt_cfg.flush_ms = (uint32_t)env_number(&s_flush_ms);
	gt_cfg.max_functions = (uint32_t)env_number(&s_max_func);
	gt_cfg.sample_ms = (uint32_t)env_number(&s_sample_ms);
	gt_cfg.stall_ms = (uint32_t)env_number(&s_stall_ms);
	gt_cfg.max_pinned = (uint32_t)env_number(&s_max_pinned);
	gt_cfg.nccl_plugin = (int)env_number(&s_nccl_plugin);
	gt_cfg.tsc = (int)env_number(&s_tsc);
	clamp_thread_buffer();
	load_output();
	gt_callsite_config();
}
