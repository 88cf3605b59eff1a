/* SPDX-License-Identifier: MIT */
/*
 * export_opts.c - the command-line options of the exports: output files,
 * --diff, and the window of the timeline (--from/--to in seconds from the
 * start, --steps N..M); and which options go together (an option that
 * does not apply is refused, never ignored).
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analyzer/export/export.h"
#include "analyzer/export/export_facts.h"
#include "analyzer/lib/util.h"

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
	case EXPORT_OPT_PERFETTO:
		o->perfetto = arg;
		return 0;
	case EXPORT_OPT_SQLITE:
		o->sqlite = arg;
		return 0;
	case EXPORT_OPT_HTML:
		o->html = arg;
		return 0;
	case EXPORT_OPT_FOLDED:
		o->folded = arg;
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

/* The first option that picks the timeline's window, or NULL. */
static const char *window_option(const struct export_opts *o)
{
	if (o->have_from)
		return "--from";
	if (o->have_to)
		return "--to";
	return o->have_steps ? "--steps" : NULL;
}

/* The first option that writes a file, or NULL. */
static const char *file_option(const struct export_opts *o)
{
	if (o->trace)
		return "--trace";
	if (o->perfetto)
		return "--perfetto";
	if (o->sqlite)
		return "--sqlite";
	if (o->folded)
		return "--folded";
	return o->html ? "--html" : NULL;
}

static PRINTF_LIKE(1, 2) int misfit(const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	error_msg("%s (see --help)", msg);
	return -1;
}

int export_check(const struct export_opts *o)
{
	const char *win = window_option(o), *file = file_option(o);

	if (win && !o->trace && !o->perfetto)
		return misfit("%s only applies to --trace and --perfetto", win);
	if (o->have_steps && (o->have_from || o->have_to))
		return misfit("--steps and --from/--to both pick the window: "
			      "give one of them");
	if (o->have_from && o->have_to && o->to_ns <= o->from_ns)
		return misfit("--to must come after --from");
	if (o->sqlite && !strcmp(o->sqlite, "-"))
		return misfit("--sqlite writes a database file, not standard "
			      "output: give a file name");
	if (o->diff && file)
		return misfit("--diff prints a comparison, %s does not apply", file);
	if (o->json && file)
		return misfit("--json applies to the printed report, not to %s",
			      file);
	if (o->have_top && (o->json || file))
		return misfit("--top applies to the text report, not to %s",
			      o->json ? "--json" : file);
	if (o->wide && (o->json || file))
		return misfit("--wide applies to the text report, not to %s",
			      o->json ? "--json" : file);
	return 0;
}

int export_is_folder(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The window to write, in each dump's own clock. */
int export_set_window(const struct export_opts *o, struct export_dump *d,
		      size_t n, const struct model *m0)
{
	uint64_t base = UINT64_MAX, from = 0, to = UINT64_MAX, t0, t1;
	const char *why;

	for (size_t i = 0; i < n; i++)
		if (d[i].start_ns + (uint64_t)d[i].offset_ns < base)
			base = d[i].start_ns + (uint64_t)d[i].offset_ns;
	if (o->have_from)
		from = sat_add(base, o->from_ns);   /* a start near 2^64 */
	if (o->have_to)
		to = sat_add(base, o->to_ns);
	if (o->have_steps) {
		if (facts_step_span(m0, o->step_first, o->step_last, &t0, &t1,
				    &why) < 0) {
			error_msg("cannot limit to steps %llu..%llu: %s",
				  (unsigned long long)o->step_first,
				  (unsigned long long)o->step_last, why);
			return -1;
		}
		from = t0 + (uint64_t)d[0].offset_ns;
		to = t1 + (uint64_t)d[0].offset_ns;
	}
	for (size_t i = 0; i < n; i++) {
		d[i].t_from = from - (uint64_t)d[i].offset_ns;
		d[i].t_to = to == UINT64_MAX ? UINT64_MAX
					     : to - (uint64_t)d[i].offset_ns;
	}
	return 0;
}

int export_wanted(const struct export_opts *o)
{
	return o->trace || o->perfetto || o->sqlite || o->html || o->folded ||
	       o->diff;
}
