/* SPDX-License-Identifier: MIT */
/*
 * json.c - streaming JSON writer (see json.h).
 */
#include <inttypes.h>

#include "analyzer/lib/json.h"
#include "analyzer/lib/utf8.h"
#include "analyzer/lib/util.h"

#define PRETTY_DEPTH 2          /* levels written one member per line */

void json_init(struct json *j, FILE *out)
{
	j->out = out;
	j->depth = 0;
	j->after_key = 0;
	j->members[0] = 0;
}

static void indent(struct json *j, int depth)
{
	fputc('\n', j->out);
	while (depth-- > 0)
		fputs("  ", j->out);
}

/* Before a key, or a value that is not a key's. */
static void separate(struct json *j)
{
	if (j->after_key) {
		j->after_key = 0;
		return;
	}
	if (j->members[j->depth]++)
		fputc(',', j->out);
	if (j->depth == 0)
		return;
	if (j->depth <= PRETTY_DEPTH)
		indent(j, j->depth);
	else if (j->members[j->depth] > 1)
		fputc(' ', j->out);
}

static void begin(struct json *j, char c)
{
	separate(j);
	fputc(c, j->out);
	if (j->depth + 1 >= JSON_MAX_DEPTH)
		die("json: nested too deep");
	j->members[++j->depth] = 0;
}

static void end(struct json *j, char c)
{
	if (j->depth <= PRETTY_DEPTH && j->members[j->depth])
		indent(j, j->depth - 1);
	j->depth--;
	fputc(c, j->out);
	if (j->depth == 0)
		fputc('\n', j->out);
}

void json_begin_object(struct json *j)
{
	begin(j, '{');
}

void json_end_object(struct json *j)
{
	end(j, '}');
}

void json_begin_array(struct json *j)
{
	begin(j, '[');
}

void json_end_array(struct json *j)
{
	end(j, ']');
}

void json_key(struct json *j, const char *key)
{
	separate(j);
	json_quote(j->out, key);
	fputs(": ", j->out);
	j->after_key = 1;
}

void json_string(struct json *j, const char *s)
{
	separate(j);
	json_quote(j->out, s);
}

void json_uint(struct json *j, uint64_t v)
{
	separate(j);
	fprintf(j->out, "%" PRIu64, v);
}

void json_int(struct json *j, int64_t v)
{
	separate(j);
	fprintf(j->out, "%" PRId64, v);
}

/* A finite number with enough digits; NaN and infinities become null. */
void json_double(struct json *j, double v)
{
	separate(j);
	if (v != v || v > 1e300 || v < -1e300)
		fputs("null", j->out);
	else
		fprintf(j->out, "%.6g", v);
}

void json_null(struct json *j)
{
	separate(j);
	fputs("null", j->out);
}

void json_bool(struct json *j, int v)
{
	separate(j);
	fputs(v ? "true" : "false", j->out);
}

static void quote_char(FILE *out, unsigned char c)
{
	switch (c) {
	case '"':
		fputs("\\\"", out);
		break;
	case '\\':
		fputs("\\\\", out);
		break;
	case '\n':
		fputs("\\n", out);
		break;
	case '\r':
		fputs("\\r", out);
		break;
	case '\t':
		fputs("\\t", out);
		break;
	default:
		if (c < 0x20 || c == 0x7f)
			fprintf(out, "\\u%04x", c);
		else
			fputc(c, out);
	}
}

/* Text by the rule of utf8.h: invalid bytes as U+FFFD, controls escaped. */
void json_quote(FILE *out, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	enum utf8_unit u;
	int n;

	fputc('"', out);
	while ((u = utf8_next(&s, &n)) != UTF8_END) {
		if (u == UTF8_INVALID)
			fputs("\\ufffd", out);
		else if (n == 1)
			quote_char(out, s[-1]);
		else
			fwrite(s - n, 1, (size_t)n, out);
	}
	fputc('"', out);
}
