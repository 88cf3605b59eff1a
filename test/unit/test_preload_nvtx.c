/* SPDX-License-Identifier: MIT */
/*
 * test_preload_nvtx.c - the NVTX message table (preload/nvtx/nvtx_strings.c)
 * alone, with the writer stubbed: a message is found by content whatever
 * buffer holds it, across threads; its string is written once per dump
 * (again after a fork); emit_nvtx's per-call suffixes are cut; wide
 * messages become UTF-8; a full table refuses new messages only.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <wchar.h>

#include "preload/base/internal.h"
#include "preload/nvtx/nvtx.h"

/* ---- stubs of what nvtx_strings.c uses from the rest of the library ---- */
static struct gt_fork_mark mark = { .generation = 1 };
struct gt_fork_mark *gt_mark = &mark;
static atomic_uint writes, next_id;

uint32_t gt_writer_string(const char *s, size_t len)
{
	(void)s;
	(void)len;
	atomic_fetch_add(&writes, 1);
	return atomic_fetch_add(&next_id, 1) + 1;
}

void gt_log(const char *fmt, ...)
{
	(void)fmt;
}

/* ---- tests ---------------------------------------------------------------- */

static struct gt_nvtx_str *intern(const char *s)
{
	return gt_nvtx_intern(s, strlen(s));
}

static void test_by_content(void **state)
{
	char a[32] = "forward", b[32] = "forward";
	struct gt_nvtx_str *e = intern(a);

	(void)state;
	assert_non_null(e);
	assert_ptr_equal(intern(b), e);
	assert_ptr_not_equal(intern("backward"), e);
	strcpy(a, "changed");                   /* the buffer is reused */
	assert_string_equal(atomic_load(&e->text), "forward");
	assert_ptr_not_equal(intern(a), e);
	assert_ptr_equal(gt_nvtx_intern("forwardXX", 7), e);
}

static void test_id_once_per_dump(void **state)
{
	struct gt_nvtx_str *e = intern("once");
	unsigned before = atomic_load(&writes);
	uint32_t id = gt_nvtx_str_id(e);

	(void)state;
	assert_int_not_equal(id, 0);
	assert_int_equal(gt_nvtx_str_id(e), id);
	assert_int_equal(atomic_load(&writes), before + 1);
	atomic_fetch_add(&gt_mark->generation, 1);    /* a forked child's dump */
	assert_int_not_equal(gt_nvtx_str_id(e), id);
	assert_int_equal(atomic_load(&writes), before + 2);
}

static void test_name_len(void **state)
{
	static const struct { const char *s; size_t want; } cases[] = {
		{ "aten::mm, seq = 3, sizes = [[1, 2]]", 8 },
		{ "aten::add_, stashed seq = 7", 10 },
		{ "x, op_id = 5", 1 },
		{ "a, b", 4 },
		{ "plain", 5 },
		{ ", seq = 1", 0 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++)
		assert_int_equal(gt_nvtx_name_len(cases[i].s, strlen(cases[i].s)),
				 cases[i].want);
}

static void test_utf8(void **state)
{
	char buf[16];

	(void)state;
	assert_int_equal(gt_nvtx_utf8(L"a\u0175\u20ac\U0001F600", buf, sizeof(buf)), 10);
	assert_memory_equal(buf, "a\xc5\xb5\xe2\x82\xac\xf0\x9f\x98\x80", 10);
	assert_int_equal(gt_nvtx_utf8(L"ab\u20ac", buf, 4), 2);  /* cut whole */
	assert_int_equal(gt_nvtx_utf8(NULL, buf, sizeof(buf)), 0);
}

static void *racer(void *arg)
{
	struct gt_nvtx_str **out = arg;
	char buf[32];

	for (int i = 0; i < 500; i++) {
		snprintf(buf, sizeof(buf), "race-%d", i);
		out[i] = intern(buf);
	}
	return NULL;
}

static void test_threads(void **state)
{
	static struct gt_nvtx_str *got[8][500];
	pthread_t t[8];

	(void)state;
	for (int i = 0; i < 8; i++)
		pthread_create(&t[i], NULL, racer, got[i]);
	for (int i = 0; i < 8; i++)
		pthread_join(t[i], NULL);
	for (int k = 0; k < 500; k++) {
		assert_non_null(got[0][k]);
		for (int i = 1; i < 8; i++)
			assert_ptr_equal(got[i][k], got[0][k]);
	}
}

static void test_full(void **state)
{
	struct gt_nvtx_str *keep = intern("kept");
	char buf[32];
	unsigned n;

	(void)state;
	for (n = 0; n < GT_NVTX_STRINGS; n++) {
		snprintf(buf, sizeof(buf), "fill-%u", n);
		if (!intern(buf))
			break;
	}
	assert_true(n < GT_NVTX_MAX_TEXTS);     /* some were taken before */
	assert_true(n > GT_NVTX_MAX_TEXTS - 1000);
	assert_null(intern("one more"));
	assert_ptr_equal(intern("kept"), keep); /* known ones still found */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_by_content),
		cmocka_unit_test(test_id_once_per_dump),
		cmocka_unit_test(test_name_len),
		cmocka_unit_test(test_utf8),
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_full),
	};

	if (gt_nvtx_tables_init())
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
