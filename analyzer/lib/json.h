/* SPDX-License-Identifier: MIT */
/*
 * json.h - a small streaming JSON writer.  The top two levels go one member
 * per line; deeper values stay on one line.  Strings are escaped, and bytes
 * that are not valid UTF-8 become U+FFFD (utf8.h), so the output is always
 * valid JSON whatever a dump holds.
 */
#ifndef GPUTRACE_ANALYZER_JSON_H
#define GPUTRACE_ANALYZER_JSON_H

#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 16

struct json {
	FILE *out;
	int depth;
	int after_key;
	int members[JSON_MAX_DEPTH];    /* written so far, per level */
};

void json_init(struct json *j, FILE *out);
void json_begin_object(struct json *j);
void json_end_object(struct json *j);
void json_begin_array(struct json *j);
void json_end_array(struct json *j);
void json_key(struct json *j, const char *key);
void json_string(struct json *j, const char *s);
void json_uint(struct json *j, uint64_t v);
void json_int(struct json *j, int64_t v);
void json_bool(struct json *j, int v);
void json_double(struct json *j, double v);
void json_null(struct json *j);

/* Write s as a quoted, escaped JSON string. */
void json_quote(FILE *out, const char *s);

#endif /* GPUTRACE_ANALYZER_JSON_H */
