/* SPDX-License-Identifier: MIT */
/*
 * test_preload_config.c - unit tests (cmocka) for reading the settings:
 * a secure-execution process (AT_SECURE, stood in for here) takes none of
 * them and traces nothing; a thread buffer larger than all buffers is cut
 * to them; a GPUTRACE_OUTPUT too long to keep turns tracing off; numbers,
 * words and texts of settings.def, good and bad; the run's id and main
 * process.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "preload/base/internal.h"
#include "preload/base/output_path.h"
#include "preload/base/settings.h"

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

void gt_hostsample_config(void)
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

static void numbers_words_and_texts(void **state)
{
	(void)state;
	setenv("GPUTRACE_FLUSH_MS", "75", 1);
	setenv("GPUTRACE_GPU", "all", 1);
	setenv("GPUTRACE_GPU_TRIGGER", "/tmp/now", 1);
	load(not_secure);
	assert_int_equal(gt_setting(GT_S_FLUSH_MS), 75);
	assert_true(gt_setting_given(GT_S_FLUSH_MS));
	assert_int_equal(gt_cfg.flush_ms, 75);
	assert_int_equal(gt_setting(GT_S_GPU), 1);          /* windows|all|off */
	assert_string_equal(gt_setting_text(GT_S_GPU_TRIGGER), "/tmp/now");
	assert_null(gt_setting_text(GT_S_GPU_STEPS));
	assert_false(gt_setting_given(GT_S_CUPTI_EARLY));
	assert_string_equal(said, "");
	load(secure);                           /* a secure process: none */
	assert_int_equal(gt_setting(GT_S_FLUSH_MS), 20);
	assert_false(gt_setting_given(GT_S_GPU));
	assert_null(gt_setting_text(GT_S_GPU_TRIGGER));
	unsetenv("GPUTRACE_FLUSH_MS");
	unsetenv("GPUTRACE_GPU");
	unsetenv("GPUTRACE_GPU_TRIGGER");
}

/* The run: GPUTRACE_RUN_ID (hex) goes into the header; GPUTRACE_RUN_PID
 * names the process whose dump takes the exact name, else this one. */
static void the_run_id_and_the_main_process(void **state)
{
	(void)state;
	setenv("GPUTRACE_RUN_ID", "00c0ffee12345678", 1);
	setenv("GPUTRACE_RUN_PID", "4242", 1);
	load(not_secure);
	assert_true(gt_cfg.run_id == 0xc0ffee12345678ull);
	assert_int_equal(gt_output_main_pid, 4242);
	assert_string_equal(said, "");
	setenv("GPUTRACE_RUN_ID", "run-7", 1);
	unsetenv("GPUTRACE_RUN_PID");
	load(not_secure);
	assert_true(gt_cfg.run_id == 0);
	assert_non_null(strstr(said, "GPUTRACE_RUN_ID 'run-7' is not a hexadecimal number"));
	assert_int_equal(gt_output_main_pid, getpid());     /* the first traced */
	setenv("GPUTRACE_RUN_PID", "0", 1);
	load(not_secure);
	assert_int_equal(gt_output_main_pid, 0);            /* none set apart */
	unsetenv("GPUTRACE_RUN_ID");
	unsetenv("GPUTRACE_RUN_PID");
}

static void bad_ones_keep_their_default_and_are_said(void **state)
{
	(void)state;
	setenv("GPUTRACE_FLUSH_MS", "0", 1);                /* below 1 */
	setenv("GPUTRACE_GPU_SWITCH", "sometimes", 1);
	setenv("GPUTRACE_STACK_DEPTH", "-3", 1);
	load(not_secure);
	assert_int_equal(gt_setting(GT_S_FLUSH_MS), 20);
	assert_false(gt_setting_given(GT_S_FLUSH_MS));
	assert_int_equal(gt_setting(GT_S_GPU_SWITCH), 1);   /* finalize */
	assert_int_equal(gt_setting(GT_S_STACK_DEPTH), 24);
	assert_non_null(strstr(said, "ignoring GPUTRACE_FLUSH_MS='0' (want 1..60000), using 20\n"));
	assert_non_null(strstr(said, "ignoring GPUTRACE_GPU_SWITCH='sometimes' (want one of "
			       "disable|finalize), using finalize\n"));
	assert_non_null(strstr(said, "ignoring GPUTRACE_STACK_DEPTH='-3' (want 0..128), using 24\n"));
	assert_string_equal(gt_setting_name(GT_S_TSC), "GPUTRACE_TSC");
	unsetenv("GPUTRACE_FLUSH_MS");
	unsetenv("GPUTRACE_GPU_SWITCH");
	unsetenv("GPUTRACE_STACK_DEPTH");
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
		cmocka_unit_test(numbers_words_and_texts),
		cmocka_unit_test(bad_ones_keep_their_default_and_are_said),
		cmocka_unit_test(the_run_id_and_the_main_process),
		cmocka_unit_test(thread_buffer_cut_to_the_total),
		cmocka_unit_test(template_too_long_turns_tracing_off),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
