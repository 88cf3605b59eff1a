/* SPDX-License-Identifier: MIT */
/*
 * test_preload_config.c - unit tests (cmocka) for reading the settings:
 * a secure-execution process (AT_SECURE, stood in for here) takes none of
 * them and traces nothing; a thread buffer larger than all buffers is cut
 * to them; a GPUTRACE_OUTPUT too long to keep turns tracing off.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "preload/internal.h"

/* ---- stubs of what config.c uses from the rest of the library ---- */
static char said[4096];

void gt_log(const char *fmt, ...)
{
	size_t n = strlen(said);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(said + n, sizeof(said) - n, fmt, ap);
	va_end(ap);
}

void gt_callsite_config(void)
{
}

static int secure(void) { return 1; }
static int not_secure(void) { return 0; }

static void load(int (*is_secure)(void))
{
	said[0] = 0;
	memset(&gt_cfg, 0, sizeof(gt_cfg));
	gt_secure_exec = is_secure;
	gt_config_load();
}

static void secure_execution_traces_nothing(void **state)
{
	(void)state;
	setenv("GPUTRACE_OUTPUT", "/root-only/dump.bin", 1);
	setenv("GPUTRACE", "1", 1);
	load(not_secure);
	assert_int_equal(gt_cfg.enabled, 1);
	assert_string_equal(gt_cfg.output, "/root-only/dump.bin");
	load(secure);
	assert_int_equal(gt_cfg.enabled, 0);
	assert_string_equal(gt_cfg.output, "gputrace-%h-%p.bin");
	assert_non_null(strstr(said, "secure-execution"));
	assert_int_equal(strchr(said, '\n') - said + 1, (long)strlen(said));
	unsetenv("GPUTRACE_OUTPUT");
	unsetenv("GPUTRACE");
}

static void thread_buffer_cut_to_the_total(void **state)
{
	(void)state;
	setenv("GPUTRACE_THREAD_BUFFER_KB", "524288", 1);
	setenv("GPUTRACE_BUFFER_MB", "1", 1);
	load(not_secure);
	assert_int_equal(gt_cfg.enabled, 1);
	assert_int_equal(gt_cfg.thread_buffer_bytes, 1 << 20);
	assert_int_equal(gt_cfg.buffer_bytes, 1 << 20);
	assert_non_null(strstr(said, "using 1024 KB"));
	setenv("GPUTRACE_THREAD_BUFFER_KB", "1024", 1);
	load(not_secure);
	assert_int_equal(gt_cfg.thread_buffer_bytes, 1 << 20);
	assert_string_equal(said, "");
	unsetenv("GPUTRACE_THREAD_BUFFER_KB");
	unsetenv("GPUTRACE_BUFFER_MB");
}

static void template_too_long_turns_tracing_off(void **state)
{
	char longer[2048];

	(void)state;
	memset(longer, 'x', sizeof(longer) - 1);
	longer[sizeof(longer) - 1] = 0;
	setenv("GPUTRACE_OUTPUT", longer, 1);
	load(not_secure);
	assert_int_equal(gt_cfg.enabled, 0);
	assert_non_null(strstr(said, "tracing off"));
	longer[sizeof(gt_cfg.output) - 1] = 0;      /* 1023 bytes: kept */
	setenv("GPUTRACE_OUTPUT", longer, 1);
	load(not_secure);
	assert_int_equal(gt_cfg.enabled, 1);
	assert_string_equal(gt_cfg.output, longer);
	unsetenv("GPUTRACE_OUTPUT");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(secure_execution_traces_nothing),
		cmocka_unit_test(thread_buffer_cut_to_the_total),
		cmocka_unit_test(template_too_long_turns_tracing_off),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
