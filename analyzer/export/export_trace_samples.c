/* SPDX-License-Identifier: MIT */
/*
 * export_trace_samples.c - the host stack samples in the timeline, on
 * their threads: with --perfetto, Perfetto's own stack samples
 * (PerfSample packets with interned callstacks, which its UI shows per
 * thread and as flame graphs); in the JSON trace, an instant event per
 * sample named after its function, its stack ("root;...;leaf", as
 * --folded writes it) an argument.  The dump's stacks and modules are
 * kept as they stream by (the call sites' tables, callsite.h), so that a
 * sample's frames are named as the reports name them.
 */
#include <stdlib.h>
#include <string.h>

#include "analyzer/export/export_trace_internal.h"
#include "analyzer/model/model.h"
#include "analyzer/passes/callsite.h"
#include "analyzer/lib/util.h"

void trace_stacks_record(struct trace *t, const struct dump_reader *r,
			 const struct dump_record *rec)
{
	if (!t->stacks)
		t->stacks = xcalloc(1, sizeof(*t->stacks));
	callsites_add_record(t->stacks, r, rec);
}

/* A frame's name: "qualname (file:line)" for Python's, else as call sites
 * name it; a new string. */
static char *frame_name(const struct callsite_frame *f)
{
	if (f->python)
		return xasprintf("%s (%s:%u)", f->func, f->file, f->line);
	return xstrdup(f->text);
}

/* The frames of a sample from the root to the leaf (Python's, then the
 * native ones), names to free; *n of them, at least 1. */
static struct pft_frame *frames_of(struct trace *t, uint32_t stack, size_t *n)
{
	size_t all = 0, py = 0, k = 0;
	const struct callsite_frame *f = t->stacks ?
		callsites_frames(t->stacks, stack, 1, &all, &py) : NULL;
	struct pft_frame *v = xcalloc(all ? all : 1, sizeof(*v));

	if (!f) {
		v[0].name = stack ? xasprintf("<stack %u is not in the dump>", stack)
				  : xstrdup("<no stack>");
		v[0].mapping = "?";
		*n = 1;
		return v;
	}
	for (size_t i = py; i-- > 0; k++)
		v[k] = (struct pft_frame){ frame_name(&f[i]), "python" };
	for (size_t i = all; i-- > py; k++)
		v[k] = (struct pft_frame){ frame_name(&f[i]), f[i].file };
	*n = all;
	return v;
}

static void free_frames(struct pft_frame *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free((char *)v[i].name);
	free(v);
}

/* The innermost Python frame, else the innermost: the sample's function. */
static size_t function_of(const struct pft_frame *v, size_t n)
{
	for (size_t i = n; i-- > 0;)
		if (!strcmp(v[i].mapping, "python"))
			return i;
	return n - 1;
}

static void json_sample(struct trace *t, const struct dump_event *ev,
			const struct pft_frame *v, size_t n)
{
	trace_begin(t, "i");
	xo_u64(&t->o, ev->tid);
	xo_str(&t->o, ",\"ts\":");
	xo_us(&t->o, trace_ts(t, ev->t0));
	xo_str(&t->o, ",\"s\":\"t\",\"cat\":\"host_sample\",\"name\":");
	xo_qstr(&t->o, v[function_of(v, n)].name);
	xo_str(&t->o, ",\"args\":{\"stack\":\"");
	for (size_t i = 0; i < n; i++) {
		char *q = xo_quoted(v[i].name);    /* "..." : its inside */

		if (i)
			xo_ch(&t->o, ';');
		xo_write(&t->o, q + 1, strlen(q) - 2);
		free(q);
	}
	xo_str(&t->o, "\",\"cpu_ns\":");
	xo_u64(&t->o, ev->dur);
	xo_str(&t->o, ev->arg[GT_ARG_HOSTSAMPLE_STATE] == GT_HOST_WAITING ?
		      ",\"state\":\"waiting\"}}" : ",\"state\":\"running\"}}");
}

void trace_host_sample(struct trace *t, const struct dump_event *ev)
{
	uint64_t stack = ev->arg[GT_ARG_HOSTSAMPLE_STACK];
	struct pft_frame *v;
	size_t n;

	v = frames_of(t, stack <= UINT32_MAX ? (uint32_t)stack : 0, &n);
	if (t->pf)
		pft_sample(t, ev->tid, ev->t0, v, n);
	else
		json_sample(t, ev, v, n);
	free_frames(v, n);
}

void trace_samples_reset(struct trace *t)
{
	if (!t->stacks)
		return;
	callsites_release(t->stacks);
	free(t->stacks);
	t->stacks = NULL;
}
