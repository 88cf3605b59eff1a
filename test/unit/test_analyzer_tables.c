/* SPDX-License-Identifier: MIT */
/*
 * test_analyzer_tables.c - the analyzer's fast tables against plain
 * answers: the radix sorts give qsort's order (sort_kv keeps equal keys
 * in order; the merge of ascending runs gives sort_kv's), the quickselect the value the sorted array holds, an integer map's array of small keys and its memory of the
 * last value found never answer with a value it no longer holds, and the
 * replay's chunk-times table says "outside" or "in order" only when it is.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "analyzer/diagnosis/diagnosis_internal.h"
#include "analyzer/lib/hmap.h"
#include "analyzer/lib/util.h"
#include "test/unit/test_rng.h"

/* Keys of a few kinds: full 64 bits, timestamps sharing their high bytes,
 * and few distinct values (many ties). */
static uint64_t key_of(int kind)
{
	switch (kind) {
	case 0:
		return rng();
	case 1:
		return 1700000000000000000ull + rng() % 5000000000ull;
	default:
		return rng() % 7;
	}
}

static void test_sort_u64(void **state)
{
	static const size_t sizes[] = { 0, 1, 2, 63, 64, 65, 1000, 100000 };

	(void)state;
	for (int kind = 0; kind < 3; kind++)
		for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
			size_t n = sizes[s];
			uint64_t *a = malloc((n + 1) * sizeof(*a));
			uint64_t *b = malloc((n + 1) * sizeof(*b));

			for (size_t i = 0; i < n; i++)
				a[i] = b[i] = key_of(kind);
			sort_u64(a, n);
			qsort(b, n, sizeof(*b), cmp_u64);
			if (n)
				assert_memory_equal(a, b, n * sizeof(*a));
			free(a);
			free(b);
		}
}

static void test_select_u64(void **state)
{
	static const size_t sizes[] = { 1, 2, 3, 64, 1001, 50000 };

	(void)state;
	for (int kind = 0; kind < 3; kind++)
		for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
			size_t n = sizes[s];
			uint64_t *a = malloc(n * sizeof(*a));
			uint64_t *b = malloc(n * sizeof(*b));

			for (size_t i = 0; i < n; i++)
				b[i] = key_of(kind);
			qsort(b, n, sizeof(*b), cmp_u64);
			for (size_t k = 0; k < n; k += 1 + n / 7) {
				memcpy(a, b, n * sizeof(*a));
				for (size_t i = n; i > 1; i--) {        /* shuffled */
					size_t j = rng() % i;
					uint64_t t = a[i - 1];

					a[i - 1] = a[j];
					a[j] = t;
				}
				assert_int_equal(select_u64(a, n, k), b[k]);
			}
			free(a);
			free(b);
		}
}

static void test_sort_kv_stable(void **state)
{
	static const size_t sizes[] = { 5, 63, 64, 50000 };

	(void)state;
	for (int kind = 0; kind < 3; kind++)
		for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
			size_t n = sizes[s];
			struct sort_kv *v = malloc(n * sizeof(*v));

			for (size_t i = 0; i < n; i++)
				v[i] = (struct sort_kv){ key_of(kind), i };
			sort_kv(v, n);
			for (size_t i = 1; i < n; i++) {
				assert_true(v[i - 1].key <= v[i].key);
				if (v[i - 1].key == v[i].key)
					assert_true(v[i - 1].val < v[i].val);
			}
			free(v);
		}
}

/* Runs of ascending keys (nruns of them, keys from few values when dups)
 * sorted by sort_kv_runs: what sort_kv gives, equal keys in order. */
static void check_runs(size_t n, size_t nruns, int dups)
{
	struct sort_kv *v = malloc(n * sizeof(*v)), *w = malloc(n * sizeof(*w));
	uint64_t key = 0;

	for (size_t i = 0; i < n; i++) {
		if (i % (n / nruns + 1) == 0)
			key = rng() % 1000;
		key += dups ? rng() % 2 : 1 + rng() % 50;
		v[i] = (struct sort_kv){ key, i };
	}
	memcpy(w, v, n * sizeof(*w));
	sort_kv_runs(v, n);
	sort_kv(w, n);
	assert_memory_equal(v, w, n * sizeof(*v));
	free(v);
	free(w);
}

static void test_sort_kv_runs(void **state)
{
	static const size_t runs[] = { 1, 2, 3, 8, 63, 64, 65, 500 };

	(void)state;
	for (size_t r = 0; r < sizeof(runs) / sizeof(runs[0]); r++)
		for (int dups = 0; dups < 2; dups++)
			check_runs(20000, runs[r], dups);
	check_runs(1, 1, 0);
	check_runs(2, 2, 1);
}

/* Every key's value through hmap_get_int against a plain array. */
static void check_map(const struct hmap *h, void *const *want, size_t n)
{
	for (size_t k = 0; k < n; k++)
		assert_ptr_equal(hmap_get_int(h, k), want[k]);
}

static void test_hmap_int(void **state)
{
	enum { N = 10000 };
	static char vals[N];
	void **want = calloc(N, sizeof(*want));
	struct hmap h;
	size_t pos = 0, seen = 0;

	(void)state;
	hmap_init(&h);
	for (int round = 0; round < 20000; round++) {
		uint64_t k = rng() % N;
		void *v = rng() % 5 ? &vals[rng() % N] : NULL;

		assert_ptr_equal(hmap_get_int(&h, k), want[k]);
		hmap_put_int(&h, k, v);         /* NULL forgets */
		want[k] = v;
		assert_ptr_equal(hmap_get_int(&h, k), v);
	}
	check_map(&h, want, N);
	while (hmap_next(&h, &pos))
		seen++;
	for (size_t k = 0; k < N; k++)
		seen -= want[k] != NULL;
	assert_int_equal(seen, 0);
	hmap_release(&h);
	assert_null(hmap_get_int(&h, 3));
	assert_null(hmap_get_int(&h, 1u << 20));
	free(want);
}

/* 10000 chunks 100 bytes apart, each of 10 events: chunk i at times
 * 1000 i .. 1000 i + 900, but for its 6th event 150 ns earlier where
 * late(i) says so. */
static void fill_chunks(struct chunk_times *c, int (*late)(uint64_t))
{
	for (uint64_t i = 0; i < 10000; i++)
		for (uint64_t e = 0; e < 10; e++)
			chunk_times_add(c, 100 * i, 1000 * i + 100 * e -
					(late && late(i) && e == 5 ? 150 : 0));
}

static int is_late(uint64_t i)
{
	return i == 77 || i == 5003;
}

static void test_chunk_times(void **state)
{
	struct chunk_times c = { 0 };
	size_t at = 0;

	(void)state;
	fill_chunks(&c, NULL);
	/* the span [5000000, 5100000): chunks 5000..5099 are inside */
	for (uint64_t i = 0; i < 10000; i++) {
		int out = chunk_times_outside(&c, &at, 100 * i, 5000000, 5100000,
					      6000000);

		if (i >= 5000 && i < 5100)
			assert_false(out);
		if (out)        /* never a chunk that holds the span or past until */
			assert_true(i < 5000 || (i >= 5100 && i < 6000));
	}
	at = 0;                 /* the last chunk may have stopped the first read */
	assert_false(chunk_times_outside(&c, &at, 100 * 9999, 0, 1, UINT64_MAX));
	chunk_times_release(&c);
}

/* Chunks whose events come in order of start, but for chunk 77 (one event
 * earlier than the one before) and 5003: only those, and the last, and
 * those past until, are not said to be in order, before and after the
 * table halves. */
static void test_chunk_times_order(void **state)
{
	struct chunk_times c = { 0 };
	size_t at = 0;

	(void)state;
	fill_chunks(&c, is_late);
	for (uint64_t i = 0; i < 10000; i++) {
		int in = chunk_times_in_order(&c, &at, 100 * i, 8000000);

		if (i == 77 || i == 5003 || i == 9999 || i >= 8000)
			assert_false(in);
		if (!in)        /* merged with its neighbour: at most its entry */
			assert_true(i >= 8000 - 4 || (i >= 72 && i < 82) ||
				    (i >= 4998 && i < 5008));
	}
	chunk_times_release(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sort_u64),
		cmocka_unit_test(test_select_u64),
		cmocka_unit_test(test_sort_kv_stable),
		cmocka_unit_test(test_sort_kv_runs),
		cmocka_unit_test(test_hmap_int),
		cmocka_unit_test(test_chunk_times),
		cmocka_unit_test(test_chunk_times_order),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
