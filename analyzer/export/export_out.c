/* SPDX-License-Identifier: MIT */
/*
 * export_out.c - the buffered writer of the exports (export_out.h).
 */
#include <errno.h>
#include <stdlib.h>

#include "analyzer/export/export_out.h"
#include "analyzer/lib/json.h"
#include "analyzer/lib/util.h"

void xo_init(struct xout *o, FILE *fp)
{
	o->fp = fp;
	o->n = 0;
	o->err = 0;
}

void xo_flush(struct xout *o)
{
	if (o->n && fwrite(o->buf, 1, o->n, o->fp) != o->n && !o->err)
		o->err = errno ? errno : EIO;
	o->n = 0;
}

void xo_write(struct xout *o, const char *s, size_t len)
{
	if (len > XO_BUF - o->n) {
		xo_flush(o);
		if (len > XO_BUF) {
			if (fwrite(s, 1, len, o->fp) != len && !o->err)
				o->err = errno ? errno : EIO;
			return;
		}
	}
	memcpy(o->buf + o->n, s, len);
	o->n += len;
}

void xo_u64(struct xout *o, uint64_t v)
{
	char tmp[24];
	int i = sizeof(tmp);

	do {
		tmp[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	xo_write(o, tmp + i, sizeof(tmp) - i);
}

void xo_i64(struct xout *o, int64_t v)
{
	if (v < 0) {
		xo_ch(o, '-');
		xo_u64(o, (uint64_t)0 - (uint64_t)v);
	} else {
		xo_u64(o, (uint64_t)v);
	}
}

void xo_us(struct xout *o, uint64_t ns)
{
	unsigned frac = (unsigned)(ns % 1000);

	xo_u64(o, ns / 1000);
	xo_ch(o, '.');
	xo_ch(o, (char)('0' + frac / 100));
	xo_ch(o, (char)('0' + frac / 10 % 10));
	xo_ch(o, (char)('0' + frac % 10));
}

char *xo_quoted(const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);

	if (!mem)
		die("out of memory");
	json_quote(mem, s ? s : "");
	if (fclose(mem))
		die("out of memory");
	return buf;
}

/* Plain printable ASCII needs no escaping: the common case, done here. */
void xo_qstr(struct xout *o, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	char *q;

	while (*p >= 0x20 && *p < 0x7f && *p != '"' && *p != '\\')
		p++;
	if (!*p) {
		xo_ch(o, '"');
		xo_str(o, s ? s : "");
		xo_ch(o, '"');
		return;
	}
	q = xo_quoted(s);
	xo_str(o, q);
	free(q);
}

int xo_close(struct xout *o)
{
	xo_flush(o);
	if (fflush(o->fp) && !o->err)
		o->err = errno ? errno : EIO;
	if (o->err) {
		errno = o->err;
		return -1;
	}
	return 0;
}
