/* SPDX-License-Identifier: MIT */
/*
 * export_opts.c - the command-line options of the exports: output files,
 * --diff, and the window of the timeline (--from/--to in seconds from the
 * start, --steps N..M).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analyzer/export.h"
#include "analyzer/util.h"

static int seconds(const char *opt, const char *arg, uint64_t *ns)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (!*arg || *end || errno || !(v >= 0) || v > 1e9) {
		error_msg("%s needs seconds from the start, not '%s'", opt, arg);
		return -1;
	}
	*ns = (uint64_t)llround(v * 1e9);
	return 0;
}

static int number(const char *s, char **end, uint64_t *v)
{
	errno = 0;
	if (*s < '0' || *s > '9')
		return -1;
	*v = strtoull(s, end, 10);
	return errno ? -1 : 0;
}

/* "N..M" or "N" (one step), from 1. */
static int steps(const char *arg, struct export_opts *o)
{
	char *end;

	if (number(arg, &end, &o->step_first) < 0)
		goto bad;
	o->step_last = o->step_first;
	if (!strncmp(end, "..", 2) && number(end + 2, &end, &o->step_last) < 0)
		goto bad;
	if (*end || !o->step_first || o->step_last < o->step_first)
		goto bad;
	o->have_steps = 1;
	return 0;
bad:
	error_msg("--steps needs N..M (steps from 1), not '%s'", arg);
	return -1;
}

int export_option(int opt, const char *arg, struct export_opts *o)
{
	switch (opt) {
	case EXPORT_OPT_TRACE:
		o->trace = arg;
		return 0;
	case EXPORT_OPT_SQLITE:
		o->sqlite = arg;
		return 0;
	case EXPORT_OPT_HTML:
		o->html = arg;
		return 0;
	case EXPORT_OPT_DIFF:
		o->diff = 1;
		return 0;
	case EXPORT_OPT_FROM:
		o->have_from = 1;
		return seconds("--from", arg, &o->from_ns);
	case EXPORT_OPT_TO:
		o->have_to = 1;
		return seconds("--to", arg, &o->to_ns);
	case EXPORT_OPT_STEPS:
		return steps(arg, o);
	default:
		return -1;
	}
}

int export_is_folder(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}
