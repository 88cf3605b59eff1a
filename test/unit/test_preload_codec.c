/* SPDX-License-Identifier: MIT */
/*
 * test_preload_codec.c - unit tests (cmocka) for the varint codec shared by
 * writer and reader, and the writer's id map.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "include/gputrace/varint.h"
#include "preload/base/idmap.h"

static void varints_round_trip(void **state)
{
	static const uint64_t vals[] = { 0, 1, 127, 128, 300, 1ull << 32, UINT64_MAX };
	uint8_t buf[GT_VARINT_MAX * 8], *p = buf;
	const uint8_t *q = buf;
	uint64_t v;

	for (size_t i = 0; i < 7; i++)
		p = gt_varint_put(p, vals[i]);
	assert_int_equal(p - buf, 1 + 1 + 1 + 2 + 2 + 5 + 10);
	for (size_t i = 0; i < 7; i++) {
		assert_int_equal(gt_varint_get(&q, p, &v), 0);
		assert_true(v == vals[i]);
	}
	assert_int_equal(gt_varint_get(&q, p, &v), -1);     /* at the end */
}

static void bad_varints_are_refused(void **state)
{
	uint8_t cut[] = { 0x80, 0x80 };
	uint8_t too_long[11];
	const uint8_t *q = cut;
	uint64_t v;

	assert_int_equal(gt_varint_get(&q, cut + 2, &v), -1);
	memset(too_long, 0xff, sizeof(too_long));
	q = too_long;
	assert_int_equal(gt_varint_get(&q, too_long + 11, &v), -1);
}

static void zigzag_round_trips(void **state)
{
	static const int64_t vals[] = { 0, -1, 1, -1000000, INT64_MAX, INT64_MIN };

	for (size_t i = 0; i < 6; i++)
		assert_true(gt_unzigzag(gt_zigzag(vals[i])) == vals[i]);
	assert_true(gt_zigzag(-1) == 1);
}

static void idmap_gives_stable_ids(void **state)
{
	struct gt_idmap m = { 0 };
	uint8_t key[GT_IDMAP_KEY];
	int added;

	for (uint32_t i = 0; i < 5000; i++) {
		memset(key, 0, sizeof(key));
		memcpy(key, &i, sizeof(i));
		assert_int_equal(gt_idmap_get(&m, key, SIZE_MAX, &added), i + 1);
		assert_int_equal(added, 1);
	}
	for (uint32_t i = 0; i < 5000; i += 7) {
		memset(key, 0, sizeof(key));
		memcpy(key, &i, sizeof(i));
		assert_int_equal(gt_idmap_get(&m, key, SIZE_MAX, &added), i + 1);
		assert_int_equal(added, 0);
	}
	gt_idmap_free(&m);
}

/* Keys that differ in one byte only, at every position (each word of the
 * hash), among many entries (the table grows, slots collide): every key
 * keeps the id it got first, in the order keys came. */
static void idmap_tells_close_keys_apart(void **state)
{
	struct gt_idmap m = { 0 };
	uint8_t key[GT_IDMAP_KEY];
	uint32_t next = 0;
	int added;

	for (int pass = 0; pass < 2; pass++) {
		next = 0;
		for (int pos = 0; pos < GT_IDMAP_KEY; pos++) {
			for (int v = 0; v < 256; v++) {
				memset(key, 0xa5, sizeof(key));
				key[pos] = (uint8_t)v;
				if (v == 0xa5 && pos)
					continue;       /* the same key as at pos 0 */
				assert_int_equal(gt_idmap_get(&m, key, SIZE_MAX, &added), ++next);
				assert_int_equal(added, !pass);
			}
		}
	}
	assert_int_equal(m.used, next);
	gt_idmap_free(&m);
}

/* A bounded map: keys past max are refused (0, not added) and the ones
 * it holds keep their ids; the table stays within 2 * max rounded up. */
static void idmap_stops_at_max(void **state)
{
	struct gt_idmap m = { 0 };
	uint8_t key[GT_IDMAP_KEY];
	int added;

	for (uint32_t i = 0; i < 3000; i++) {
		memset(key, 0, sizeof(key));
		memcpy(key, &i, sizeof(i));
		assert_int_equal(gt_idmap_get(&m, key, 1000, &added), i < 1000 ? i + 1 : 0);
		assert_int_equal(added, i < 1000);
	}
	for (uint32_t i = 0; i < 1000; i += 9) {
		memset(key, 0, sizeof(key));
		memcpy(key, &i, sizeof(i));
		assert_int_equal(gt_idmap_get(&m, key, 1000, &added), i + 1);
		assert_int_equal(added, 0);
	}
	assert_int_equal(m.used, 1000);
	assert_int_equal(m.cap, 2048);
	memset(key, 0xff, sizeof(key));             /* room again under a larger max */
	assert_int_equal(gt_idmap_get(&m, key, 1001, &added), 1001);
	assert_int_equal(added, 1);
	gt_idmap_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(varints_round_trip),
		cmocka_unit_test(bad_varints_are_refused),
		cmocka_unit_test(zigzag_round_trips),
		cmocka_unit_test(idmap_gives_stable_ids),
		cmocka_unit_test(idmap_tells_close_keys_apart),
		cmocka_unit_test(idmap_stops_at_max),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
