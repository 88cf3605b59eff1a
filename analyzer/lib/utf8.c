/* SPDX-License-Identifier: MIT */
/*
 * utf8.c - validating and repairing the text of a dump for the outputs
 * (utf8.h).
 */
#include <stdlib.h>
#include <string.h>

#include "analyzer/lib/utf8.h"
#include "analyzer/lib/util.h"

int utf8_len(const unsigned char *s)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xbf;
	int n, i;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4;
	else
		return 0;
	/* no overlong forms, surrogates, or code points past U+10FFFF */
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	for (i = 1; i < n; i++, lo = 0x80, hi = 0xbf)
		if (s[i] < lo || s[i] > hi)
			return 0;
	return n;
}

int utf8_valid(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	enum utf8_unit u;
	int n;

	while ((u = utf8_next(&p, &n)) != UTF8_END)
		if (u == UTF8_INVALID)
			return 0;
	return 1;
}

char *utf8_copy(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	char *out = xmalloc(3 * strlen(s) + 1), *q = out;
	enum utf8_unit u;
	int n;

	while ((u = utf8_next(&p, &n)) != UTF8_END) {
		if (u == UTF8_INVALID) {
			memcpy(q, UTF8_REPLACEMENT, 3);
			q += 3;
		} else {
			memcpy(q, p - n, (size_t)n);
			q += n;
		}
	}
	*q = '\0';
	return out;
}
