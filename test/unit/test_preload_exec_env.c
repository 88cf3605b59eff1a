/* SPDX-License-Identifier: MIT */
/*
 * test_preload_exec_env.c - unit tests (cmocka) for the environment that
 * exec and spawn pass on: our library added to LD_PRELOAD, our GPUTRACE_*
 * settings added where missing, the program's own values kept.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "preload/base/exec_env.h"

#define SELF "/opt/gt/lib/libgputrace.so"

static char *start_env[] = {
	"HOME=/root", "GPUTRACE_OUTPUT=/d/t-%p.bin", "GPUTRACE=1",
	"GPUTRACEX=no", "GPUTRACE_FLUSH_MS=5", "LD_PRELOAD=" SELF, NULL,
};

static int setup(void **state)
{
	(void)state;
	return gt_exec_env_init(SELF, start_env);
}

static int teardown(void **state)
{
	(void)state;
	gt_exec_env_reset();
	return 0;
}

/* The environment exec would pass, as one "a|b|c" string. */
static const char *made(char *const env[])
{
	static char out[8192];
	const char *arr[64];
	char buf[GT_EXEC_PRELOAD_MAX];
	size_t n = gt_exec_env_need(env);
	char *const *e = n ? gt_exec_env_make(env, arr, n, buf) : env;

	assert_true(n <= 64);
	out[0] = 0;
	for (size_t i = 0; e && e[i]; i++) {
		if (i)
			strcat(out, "|");
		strcat(out, e[i]);
	}
	return out;
}

static void own_env_gets_what_it_lacks(void **state)
{
	char *env[] = { "PATH=/bin", NULL };

	assert_string_equal(made(env), "PATH=/bin|LD_PRELOAD=" SELF
			    "|GPUTRACE_OUTPUT=/d/t-%p.bin|GPUTRACE=1|GPUTRACE_FLUSH_MS=5");
}

static void complete_env_passes_unchanged(void **state)
{
	char *env[] = { "GPUTRACE=1", "LD_PRELOAD=/elsewhere/libgputrace.so",
			"GPUTRACE_FLUSH_MS=7", "GPUTRACE_OUTPUT=x", NULL };

	assert_int_equal(gt_exec_env_need(env), 0);
}

static void programs_values_win(void **state)
{
	char *env[] = { "GPUTRACE=0", "GPUTRACE_OUTPUT=mine.bin",
			"LD_PRELOAD=libgputrace.so", NULL };

	assert_string_equal(made(env), "GPUTRACE=0|GPUTRACE_OUTPUT=mine.bin|"
			    "LD_PRELOAD=libgputrace.so|GPUTRACE_FLUSH_MS=5");
}

static void other_preload_is_kept_and_ours_added(void **state)
{
	char *env[] = { "LD_PRELOAD=/a/libfoo.so /b/libbar.so", "X=1", NULL };
	char *empty[] = { "LD_PRELOAD=", NULL };
	char *twice[] = { "LD_PRELOAD=" SELF, "LD_PRELOAD=/a/libfoo.so", NULL };

	assert_string_equal(made(env), "LD_PRELOAD=/a/libfoo.so /b/libbar.so:" SELF
			    "|X=1|GPUTRACE_OUTPUT=/d/t-%p.bin|GPUTRACE=1|"
			    "GPUTRACE_FLUSH_MS=5");
	assert_string_equal(made(empty), "LD_PRELOAD=" SELF "|GPUTRACE_OUTPUT="
			    "/d/t-%p.bin|GPUTRACE=1|GPUTRACE_FLUSH_MS=5");
	/* ld.so reads the last LD_PRELOAD: that one must name us */
	assert_string_equal(made(twice), "LD_PRELOAD=" SELF "|LD_PRELOAD=/a/libfoo.so:"
			    SELF "|GPUTRACE_OUTPUT=/d/t-%p.bin|GPUTRACE=1|"
			    "GPUTRACE_FLUSH_MS=5");
}

static void null_and_huge_envs(void **state)
{
	static char *big[GT_EXEC_ENV_MAX + 2];

	assert_string_equal(made(NULL), "LD_PRELOAD=" SELF "|GPUTRACE_OUTPUT="
			    "/d/t-%p.bin|GPUTRACE=1|GPUTRACE_FLUSH_MS=5");
	for (size_t i = 0; i <= GT_EXEC_ENV_MAX; i++)
		big[i] = "A=1";
	assert_int_equal(gt_exec_env_need(big), 0);    /* too big: unchanged */
}

static void preload_too_long_is_left_alone(void **state)
{
	static char entry[GT_EXEC_PRELOAD_MAX + 32] = "LD_PRELOAD=";
	char *env[] = { entry, NULL };

	memset(entry + 11, 'a', GT_EXEC_PRELOAD_MAX);
	assert_true(strncmp(made(env), entry, strlen(entry)) == 0);
}

static void nothing_when_not_set_up(void **state)
{
	char *env[] = { "PATH=/bin", NULL };

	gt_exec_env_reset();
	assert_int_equal(gt_exec_env_need(env), 0);
	assert_int_equal(gt_exec_env_init(SELF, start_env), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(own_env_gets_what_it_lacks),
		cmocka_unit_test(complete_env_passes_unchanged),
		cmocka_unit_test(programs_values_win),
		cmocka_unit_test(other_preload_is_kept_and_ours_added),
		cmocka_unit_test(null_and_huge_envs),
		cmocka_unit_test(preload_too_long_is_left_alone),
		cmocka_unit_test(nothing_when_not_set_up),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
