/* SPDX-License-Identifier: MIT */
/*
 * utf8.h - the one rule for the text a dump holds (kernel names, command
 * lines, paths, messages) in every output: a byte that does not start a
 * valid UTF-8 sequence (overlong forms, surrogates and code points past
 * U+10FFFF included) becomes U+FFFD, so every output is valid UTF-8.
 * Control characters (C0 and DEL) are each format's: escaped in JSON
 * (json.c), replaced by U+FFFD in HTML but for tab and newline (html.c),
 * kept in SQLite and Perfetto, whose strings may hold them.
 */
#ifndef GPUTRACE_ANALYZER_UTF8_H
#define GPUTRACE_ANALYZER_UTF8_H

#define UTF8_REPLACEMENT "\xef\xbf\xbd"     /* U+FFFD */

enum utf8_unit {
	UTF8_END,                   /* the terminating NUL */
	UTF8_TEXT,                  /* a character, control characters aside */
	UTF8_CONTROL,               /* one byte: C0 or DEL */
	UTF8_INVALID,               /* one byte that stands for U+FFFD */
};

/* Length of the valid UTF-8 sequence at s, or 0 if there is none. */
int utf8_len(const unsigned char *s);

/* The unit at *s: what it is, *s moved past it, *len its bytes. */
static inline enum utf8_unit utf8_next(const unsigned char **s, int *len)
{
	unsigned char c = **s;

	if (c >= 0x20 && c < 0x7f) {        /* the common case */
		*len = 1;
		(*s)++;
		return UTF8_TEXT;
	}
	if (!c)
		return UTF8_END;
	*len = c < 0x80 ? 1 : utf8_len(*s);
	if (!*len) {
		*len = 1;
		(*s)++;
		return UTF8_INVALID;
	}
	*s += *len;
	return c < 0x20 || c == 0x7f ? UTF8_CONTROL : UTF8_TEXT;
}

/* Whether s needs no replacement (control characters allowed). */
int utf8_valid(const char *s);
/* A malloc'd copy of s with each invalid byte replaced by U+FFFD;
 * control characters kept. */
char *utf8_copy(const char *s);

#endif /* GPUTRACE_ANALYZER_UTF8_H */
