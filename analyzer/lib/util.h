/* SPDX-License-Identifier: MIT */
/*
 * util.h - messages and allocation helpers for gputrace-analyze.
 *
 * Messages follow git: lowercase, no trailing period, the subject quoted.
 * The analyzer is a command-line tool, so running out of memory is fatal
 * (exit status 2), like uftrace's xmalloc.
 */
#ifndef GPUTRACE_ANALYZER_UTIL_H
#define GPUTRACE_ANALYZER_UTIL_H

#include <stddef.h>
#include <stdint.h>

#define PROG_NAME "gputrace-analyze"
#define EXIT_BADINPUT 2            /* bad usage, unreadable or corrupt dump */

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#if defined(__GNUC__)
#define PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))
#define NORETURN __attribute__((noreturn))
#define NOINLINE __attribute__((noinline))
#define ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define PRINTF_LIKE(f, a)
#define NORETURN
#define NOINLINE
#define ALWAYS_INLINE inline
#endif

/* "gputrace-analyze: <msg>" on stderr. */
void error_msg(const char *fmt, ...) PRINTF_LIKE(1, 2);
/* "warning: <msg>" on stderr. */
void warning_msg(const char *fmt, ...) PRINTF_LIKE(1, 2);
/* error_msg(), then exit(EXIT_BADINPUT). */
NORETURN void die(const char *fmt, ...) PRINTF_LIKE(1, 2);

void *xmalloc(size_t size);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *ptr, size_t size);
/* Zeroed memory that starts a cache line (free() it). */
void *xcalloc_lines(size_t size);
char *xstrdup(const char *s);
/* A NUL-terminated copy of the len bytes at s. */
char *xmemdupz(const void *s, size_t len);
/* printf into a new string. */
char *xasprintf(const char *fmt, ...) PRINTF_LIKE(1, 2);

/* Sort v[0..n) in ascending order (a radix sort: qsort's order, faster). */
void sort_u64(uint64_t *v, size_t n);

/* The k-th smallest of v[0..n), k < n, as v sorted would have it at k
 * (v is reordered: a quickselect). */
uint64_t select_u64(uint64_t *v, size_t n, size_t k);

/* A value and the key it sorts by. */
struct sort_kv {
	uint64_t key;
	uint64_t val;
};

/* Sort v[0..n) by key, stable: equal keys keep their order. */
void sort_kv(struct sort_kv *v, size_t n);
/* The same, faster where v is a few ascending runs (a merge of them). */
void sort_kv_runs(struct sort_kv *v, size_t n);

/* The word for a count of n: one if n is 1, else many ("copy", "copies";
 * "", "s" for a plural in -s). */
static inline const char *plural(uint64_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

/* a + b, stuck at UINT64_MAX instead of wrapping around. */
static inline uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

/* v as an integer, stuck at 0 or UINT64_MAX outside their range (a
 * plain cast of an out-of-range double is undefined). */
static inline uint64_t sat_from_double(double v)
{
	if (!(v > 0))
		return 0;
	return v >= 18446744073709551615.0 ? UINT64_MAX : (uint64_t)v;
}

#endif /* GPUTRACE_ANALYZER_UTIL_H */
