/* SPDX-License-Identifier: MIT */
/*
 * util.c - messages and allocation helpers for gputrace-analyze.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/lib/util.h"

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
 * One pass of the radix sort, by the byte at shift: from src into dst,
 * stable.  0 when every key has the same byte there (nothing to do).
 */
static int radix_pass(const struct sort_kv *src, struct sort_kv *dst,
			 size_t n, unsigned shift)
{
	size_t count[256] = { 0 }, at = 0;

	for (size_t i = 0; i < n; i++)
		count[src[i].key >> shift & 0xff]++;
	for (unsigned b = 0; b < 256; b++) {
		size_t c = count[b];

		if (c == n)
			return 0;
		count[b] = at;
		at += c;
	}
	for (size_t i = 0; i < n; i++)
		dst[count[src[i].key >> shift & 0xff]++] = src[i];
	return 1;
}

void sort_kv(struct sort_kv *v, size_t n)
{
	struct sort_kv *tmp, *src = v, *dst;

	if (n < 64) {           /* insertion sort */
		for (size_t i = 1; i < n; i++) {
			struct sort_kv x = v[i];
			size_t j = i;

			for (; j && v[j - 1].key > x.key; j--)
				v[j] = v[j - 1];
			v[j] = x;
		}
		return;
	}
	tmp = dst = xmalloc(n * sizeof(*tmp));
	for (unsigned shift = 0; shift < 64; shift += 8) {
		if (radix_pass(src, dst, n, shift)) {
			struct sort_kv *t = src;

			src = dst;
			dst = t;
		}
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
