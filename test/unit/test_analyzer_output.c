/* SPDX-License-Identifier: MIT */
/*
 * test_analyzer_output.c - the output helpers: JSON string escaping, the
 * JSON writer's layout, human units and table truncation; the one rule
 * for a dump's text in every output (utf8.h) and the HTML's escaping;
 * demangling, bounded.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/lib/demangle.h"
#include "analyzer/lib/json.h"
#include "analyzer/lib/table.h"
#include "analyzer/lib/units.h"
#include "analyzer/lib/utf8.h"
#include "analyzer/report/html_internal.h"

/* Run stmt with f_ open on a memory stream; out gets what it wrote. */
#define CAPTURE(out, stmt)                                              \
	do {                                                            \
		size_t len_;                                            \
		FILE *f_ = open_memstream(&(out), &len_);               \
		assert_non_null(f_);                                    \
		stmt;                                                   \
		fclose(f_);                                             \
	} while (0)

static void expect_quote(const char *in, const char *want)
{
	char *out = NULL;

	CAPTURE(out, json_quote(f_, in));
	assert_string_equal(out, want);
	free(out);
}

static void test_json_quote(void **state)
{
	(void)state;
	expect_quote("plain", "\"plain\"");
	expect_quote("a\"b\\c", "\"a\\\"b\\\\c\"");
	expect_quote("t\tn\nr\r\x01\x7f", "\"t\\tn\\nr\\r\\u0001\\u007f\"");
	expect_quote("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
		     "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"");
	/* a lone continuation byte, an overlong '/', a cut sequence, a
	 * UTF-16 surrogate */
	expect_quote("\x80", "\"\\ufffd\"");
	expect_quote("\xc0\xaf", "\"\\ufffd\\ufffd\"");
	expect_quote("x\xe2\x82", "\"x\\ufffd\\ufffd\"");
	expect_quote("\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"");
}

/* Invalid text, and what each output makes of it. */
static const struct {
	const char *in, *copy, *html;
} texts[] = {
	{ "plain", "plain", "plain" },
	{ "a<b>&\"c", "a<b>&\"c", "a&lt;b&gt;&amp;&quot;c" },
	{ "caf\xc3\xa9 \xf0\x9f\x98\x80", "caf\xc3\xa9 \xf0\x9f\x98\x80",
	  "caf\xc3\xa9 \xf0\x9f\x98\x80" },
	/* a lone continuation byte, an overlong '/', a cut sequence, a
	 * surrogate, past U+10FFFF */
	{ "\x80", UTF8_REPLACEMENT, UTF8_REPLACEMENT },
	{ "\xc0\xaf", UTF8_REPLACEMENT UTF8_REPLACEMENT,
	  UTF8_REPLACEMENT UTF8_REPLACEMENT },
	{ "x\xe2\x82", "x" UTF8_REPLACEMENT UTF8_REPLACEMENT,
	  "x" UTF8_REPLACEMENT UTF8_REPLACEMENT },
	{ "\xed\xa0\x80", UTF8_REPLACEMENT UTF8_REPLACEMENT UTF8_REPLACEMENT,
	  UTF8_REPLACEMENT UTF8_REPLACEMENT UTF8_REPLACEMENT },
	{ "\xf4\x90\x80\x80", UTF8_REPLACEMENT UTF8_REPLACEMENT UTF8_REPLACEMENT
	  UTF8_REPLACEMENT, UTF8_REPLACEMENT UTF8_REPLACEMENT UTF8_REPLACEMENT
	  UTF8_REPLACEMENT },
	/* control characters: kept, but for HTML where only tab and
	 * newline are */
	{ "t\tn\nr\r\x01\x1b\x7f", "t\tn\nr\r\x01\x1b\x7f",
	  "t\tn\nr" UTF8_REPLACEMENT UTF8_REPLACEMENT UTF8_REPLACEMENT
	  UTF8_REPLACEMENT },
};

static void test_utf8_rule(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		char *copy = utf8_copy(texts[i].in), *html = NULL;

		assert_string_equal(copy, texts[i].copy);
		assert_int_equal(utf8_valid(texts[i].in),
				 !strcmp(texts[i].in, texts[i].copy));
		assert_true(utf8_valid(copy));
		CAPTURE(html, html_esc(f_, texts[i].in));
		assert_string_equal(html, texts[i].html);
		free(copy);
		free(html);
	}
}

/* f(A, B<A, A>, B<B<A, A>, B<A, A> >...): n + 1 parameters, each referring
 * twice to the one before, demangle to some 2^n bytes. */
static char *bomb(int n)
{
	static const char digits[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
	char *s = malloc(16 + 16 * (size_t)n), *p = s;

	p += sprintf(p, "_Z1f1A1BIS_S_E");
	for (int i = 2; i <= n; i++)    /* S<i-1 in base 36>_ is the i+1-th */
		p += sprintf(p, "S0_IS%c_S%c_E", digits[i - 1], digits[i - 1]);
	return s;
}

static void test_demangle_bound(void **state)
{
	char *small = bomb(3), *big = bomb(34), *out;

	(void)state;
	out = demangle("_Z6vecAddPfS_S_i");
	assert_string_equal(out, "vecAdd(float*, float*, float*, int)");
	free(out);
	out = demangle(small);
	assert_string_equal(out, "f(A, B<A, A>, B<B<A, A>, B<A, A> >, "
			    "B<B<B<A, A>, B<A, A> >, B<B<A, A>, B<A, A> > >)");
	free(out);
	out = demangle(big);        /* 2^34 characters: the mangled name */
	assert_string_equal(out, big);
	free(out);
	out = demangle("_Z1fv\xff");   /* not a name: as it is */
	assert_string_equal(out, "_Z1fv\xff");
	free(out);
	/* the count made without demangling: more than all the name prints */
	assert_true(demangle_estimate("_Z6vecAddPfS_S_i", SIZE_MAX) >=
		    strlen("vecAdd(float*, float*, float*, int)"));
	assert_true(demangle_estimate("_Z6vecAddPfS_S_i", SIZE_MAX) < DEMANGLE_MAX);
	assert_true(demangle_estimate(big, DEMANGLE_MAX) > DEMANGLE_MAX);
	free(small);
	free(big);
}

static void test_json_layout(void **state)
{
	struct json j;
	char *out = NULL;

	(void)state;
	CAPTURE(out, {
		json_init(&j, f_);
		json_begin_object(&j);
		json_key(&j, "n");
		json_uint(&j, 18446744073709551615ull);
		json_key(&j, "rows");
		json_begin_array(&j);
		json_begin_object(&j);
		json_key(&j, "a");
		json_bool(&j, 1);
		json_key(&j, "b");
		json_string(&j, "x");
		json_end_object(&j);
		json_end_array(&j);
		json_key(&j, "none");
		json_begin_array(&j);
		json_end_array(&j);
		json_end_object(&j);
	});
	assert_string_equal(out, "{\n"
				 "  \"n\": 18446744073709551615,\n"
				 "  \"rows\": [\n"
				 "    {\"a\": true, \"b\": \"x\"}\n"
				 "  ],\n"
				 "  \"none\": []\n"
				 "}\n");
	free(out);
}

static void test_units(void **state)
{
	char b[UNITS_BUF];

	(void)state;
	assert_string_equal(fmt_ns(b, sizeof(b), 0), "0 ns");
	assert_string_equal(fmt_ns(b, sizeof(b), 999), "999 ns");
	assert_string_equal(fmt_ns(b, sizeof(b), 1000), "1.00 us");
	assert_string_equal(fmt_ns(b, sizeof(b), 4200), "4.20 us");
	assert_string_equal(fmt_ns(b, sizeof(b), 999999), "1.00 ms");
	assert_string_equal(fmt_ns(b, sizeof(b), 12345678), "12.35 ms");
	assert_string_equal(fmt_ns(b, sizeof(b), 3100000000ull), "3.10 s");
	assert_string_equal(fmt_ns(b, sizeof(b), 7200000000000ull),
			    "7200.00 s");
	assert_string_equal(fmt_bytes(b, sizeof(b), 512), "512 B");
	assert_string_equal(fmt_bytes(b, sizeof(b), 1536), "1.50 KiB");
	assert_string_equal(fmt_bytes(b, sizeof(b), 3ull << 30), "3.00 GiB");
}

static void test_table_fits(void **state)
{
	static const struct table_column cols[] = {
		{ "Name", 1 }, { "Calls", 0 },
	};
	const char *row1[] = { "short", "1" };
	const char *row2[] = { "a-very-long-name-that-does-not-fit", "22" };
	struct table t;
	char *out = NULL;

	(void)state;
	table_init(&t, cols, 2);
	table_add(&t, row1);
	table_add(&t, row2);
	CAPTURE(out, table_print(f_, &t, 20));
	assert_string_equal(out, "  Name         Calls\n"
				 "  short            1\n"
				 "  a-very-l...     22\n");
	free(out);
	table_release(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json_quote),
		cmocka_unit_test(test_json_layout),
		cmocka_unit_test(test_utf8_rule),
		cmocka_unit_test(test_demangle_bound),
		cmocka_unit_test(test_units),
		cmocka_unit_test(test_table_fits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
