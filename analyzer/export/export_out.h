/* SPDX-License-Identifier: MIT */
/*
 * export_out.h - a fast buffered writer for the exports: raw text,
 * integers and trace timestamps appended to a 64 KiB buffer without
 * printf, for outputs of tens of millions of records.  A write error is
 * remembered and reported once, at xo_close().
 */
#ifndef GPUTRACE_ANALYZER_EXPORT_OUT_H
#define GPUTRACE_ANALYZER_EXPORT_OUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define XO_BUF (64u << 10)

struct xout {
	FILE *fp;
	size_t n;
	int err;                    /* errno of the first failed write */
	char buf[XO_BUF];
};

void xo_init(struct xout *o, FILE *fp);
void xo_flush(struct xout *o);
void xo_write(struct xout *o, const char *s, size_t len);
void xo_u64(struct xout *o, uint64_t v);
void xo_i64(struct xout *o, int64_t v);
/* ns as microseconds with three decimals ("12.345"): trace timestamps. */
void xo_us(struct xout *o, uint64_t ns);
/* s as a quoted JSON string (escaped, invalid UTF-8 replaced). */
void xo_qstr(struct xout *o, const char *s);
/* Flush; 0, or -1 with errno set when some write failed. */
int xo_close(struct xout *o);

static inline void xo_str(struct xout *o, const char *s)
{
	xo_write(o, s, strlen(s));
}

static inline void xo_ch(struct xout *o, char c)
{
	if (o->n == XO_BUF)
		xo_flush(o);
	o->buf[o->n++] = c;
}

/* A malloc'd quoted JSON string for s, to write many times (xo_str). */
char *xo_quoted(const char *s);

#endif /* GPUTRACE_ANALYZER_EXPORT_OUT_H */
