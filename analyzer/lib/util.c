/* SPDX-License-Identifier: MIT */
/*
 * util.c - messages and allocation helpers for gputrace-analyze.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/lib/util.h"
#include "gputrace/period.h"

static void vreport(const char *prefix, const char *fmt, va_list ap)
{
	fflush(stdout);
	fputs(prefix, stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void error_msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(PROG_NAME ": ", fmt, ap);
	va_end(ap);
}

void warning_msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("warning: ", fmt, ap);
	va_end(ap);
}

void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(PROG_NAME ": ", fmt, ap);
	va_end(ap);
	exit(EXIT_BADINPUT);
}

static void *check(void *p)
{
	if (!p)
		die("out of memory");
	return p;
}

void *xmalloc(size_t size)
{
	return check(malloc(size ? size : 1));
}

void *xcalloc(size_t nmemb, size_t size)
{
	return check(calloc(nmemb ? nmemb : 1, size ? size : 1));
}

void *xcalloc_lines(size_t size)
{
	size = (size + 63) & ~(size_t)63;
	return memset(check(aligned_alloc(64, size ? size : 64)), 0, size);
}

void *xrealloc(void *ptr, size_t size)
{
	return check(realloc(ptr, size ? size : 1));
}

char *xstrdup(const char *s)
{
	return xmemdupz(s, strlen(s));
}

char *xmemdupz(const void *s, size_t len)
{
	char *p = xmalloc(len + 1);

	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		die("out of memory");
	return s;
}

/*
 * The radix sort, of the keys less the smallest: digits of up to 16 bits
 * (fewer when there are few keys), as few as the range of the keys
 * needs; the counts of every digit in one read, then one stable pass per
 * digit in which the keys differ.
 */
struct radix_plan {
	uint64_t min;
	unsigned digits, bits;
};

static int kv_plan(const struct sort_kv *v, size_t n, struct radix_plan *p)
{
	uint64_t min = v[0].key, max = v[0].key;
	unsigned range_bits;
	int sorted = 1;

	for (size_t i = 1; i < n; i++) {
		sorted &= v[i].key >= v[i - 1].key;
		min = v[i].key < min ? v[i].key : min;
		max = v[i].key > max ? v[i].key : max;
	}
	if (sorted)
		return 0;
	range_bits = 64 - (unsigned)__builtin_clzll(max - min);
	p->min = min;
	p->bits = 8;
	while (p->bits < 16 && (size_t)1 << (p->bits + 1) <= n)
		p->bits++;
	p->digits = (range_bits + p->bits - 1) / p->bits;
	p->bits = (range_bits + p->digits - 1) / p->digits;
	return 1;
}

/* The start of each digit value's run; 0 when all keys share the digit. */
static int radix_offsets(size_t *count, size_t values, size_t n)
{
	size_t at = 0;

	for (size_t b = 0; b < values; b++) {
		size_t c = count[b];

		if (c == n)
			return 0;
		count[b] = at;
		at += c;
	}
	return 1;
}

static void kv_insertion(struct sort_kv *v, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		struct sort_kv x = v[i];
		size_t j = i;

		for (; j && v[j - 1].key > x.key; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
}

static void kv_radix(struct sort_kv *v, size_t n, const struct radix_plan *p)
{
	size_t values = (size_t)1 << p->bits, mask = values - 1;
	size_t *count = xcalloc(p->digits * values, sizeof(*count));
	struct sort_kv *tmp = xmalloc(n * sizeof(*tmp)), *src = v, *dst = tmp;

	for (size_t i = 0; i < n; i++)
		for (unsigned j = 0; j < p->digits; j++)
			count[j * values + ((v[i].key - p->min) >> (j * p->bits) & mask)]++;
	for (unsigned j = 0; j < p->digits; j++) {
		size_t *c = count + j * values;
		struct sort_kv *t = src;

		if (!radix_offsets(c, values, n))
			continue;
		for (size_t i = 0; i < n; i++)
			dst[c[(src[i].key - p->min) >> (j * p->bits) & mask]++] = src[i];
		src = dst;
		dst = t;
	}
	if (src != v)
		memcpy(v, src, n * sizeof(*v));
	free(tmp);
	free(count);
}

void sort_kv(struct sort_kv *v, size_t n)
{
	struct radix_plan p;

	if (n < 64)
		kv_insertion(v, n);
	else if (kv_plan(v, n, &p))
		kv_radix(v, n, &p);
}

#define RUNS_MAX 64     /* ascending runs sort_kv_runs merges, at most */

/* a[0..na) and b[0..nb), sorted, into out; at equal keys a's first. */
static void kv_merge(const struct sort_kv *a, size_t na,
		     const struct sort_kv *b, size_t nb, struct sort_kv *out)
{
	while (na && nb) {
		if (b->key < a->key) {
			*out++ = *b++;
			nb--;
		} else {
			*out++ = *a++;
			na--;
		}
	}
	memcpy(out, a, na * sizeof(*a));
	memcpy(out + na, b, nb * sizeof(*b));
}

/* The starts of v's ascending runs in at[0..), n at the end; 0 if more
 * than RUNS_MAX. */
static size_t kv_runs(const struct sort_kv *v, size_t n, size_t *at)
{
	size_t nr = 1;

	at[0] = 0;
	for (size_t i = 1; i < n; i++)
		if (v[i].key < v[i - 1].key) {
			if (nr == RUNS_MAX)
				return 0;
			at[nr++] = i;
		}
	at[nr] = n;
	return nr;
}

/* Runs [at[r], at[r + 1]) of src merged two by two into dst; at and the
 * count of runs become those of dst. */
static size_t kv_merge_pass(const struct sort_kv *src, struct sort_kv *dst,
			    size_t *at, size_t nr)
{
	size_t k = 0;

	for (size_t r = 0; r < nr; r += 2) {
		size_t a = at[r], m = at[r + 1], e = r + 1 < nr ? at[r + 2] : m;

		kv_merge(src + a, m - a, src + m, e - m, dst + a);
		at[k++] = a;
	}
	at[k] = at[nr];
	return k;
}

void sort_kv_runs(struct sort_kv *v, size_t n)
{
	size_t at[RUNS_MAX + 1], nr = n ? kv_runs(v, n, at) : 1;
	struct sort_kv *tmp, *src = v, *dst;

	if (!nr) {
		sort_kv(v, n);
		return;
	}
	if (nr == 1)
		return;
	tmp = dst = xmalloc(n * sizeof(*tmp));
	while (nr > 1) {
		struct sort_kv *t = src;

		nr = kv_merge_pass(src, dst, at, nr);
		src = dst;
		dst = t;
	}
	if (src != v)
		memcpy(v, src, n * sizeof(*v));
	free(tmp);
}

void sort_u64(uint64_t *v, size_t n)
{
	struct sort_kv *kv = xmalloc((n + 1) * sizeof(*kv));

	for (size_t i = 0; i < n; i++)
		kv[i] = (struct sort_kv){ v[i], 0 };
	sort_kv(kv, n);
	for (size_t i = 0; i < n; i++)
		v[i] = kv[i].key;
	free(kv);
}

uint64_t select_u64(uint64_t *v, size_t n, size_t k)
{
	return gt_select_u64(v, n, k);
}
