/* SPDX-License-Identifier: MIT */
/*
 * callsite.h - the top call sites: which code waited on the GPU, copied
 * pageable memory, called NCCL or pinned memory, and how long that took.
 *
 * While the dump streams by, the stacks (GT_CHUNK_STACK) are kept with
 * each return address already tied to the module it was in at that point
 * of the dump (GT_CHUNK_MODULES), and events only add to a (kind, stack)
 * total; memory grows with distinct stacks, never with events.  Names are
 * looked up at report time (symbolize.h), and stacks that read the same
 * are merged.
 */
#ifndef GPUTRACE_ANALYZER_CALLSITE_H
#define GPUTRACE_ANALYZER_CALLSITE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analyzer/reader/dump_reader.h"

#define CALLSITES_JSON_TOP 20       /* call sites in the JSON report */

enum callsite_kind {
	CS_SYNC,                    /* host waits */
	CS_PAGEABLE_COPY,           /* copies of pageable host memory */
	CS_NCCL,                    /* NCCL calls */
	CS_PINNED_ALLOC,            /* pinned host memory allocated, registered */
	CS_KINDS,
};

struct callsite_row {
	enum callsite_kind kind;
	uint64_t calls;
	uint64_t ns_total;          /* host time of those calls */
	char **frames;              /* innermost first: Python, then native */
	size_t nframes;
	size_t python;              /* how many of them are Python frames */
};

/* One frame of a stack, as the reports name it. */
struct callsite_frame {
	const char *text;           /* as call sites print it: "train.py:57 in
				       step", "func (module)", "module+0x1f" */
	const char *func;           /* Python: the qualified name; native: the
				       demangled symbol, or text when none */
	const char *file;           /* Python: the file's short name; native:
				       the module's base name, "?" unknown */
	uint32_t line;              /* Python: the line being run; native: 0 */
	int python;
};

struct model;
struct json;

/* A GT_CHUNK_STACK or GT_CHUNK_MODULES record; r resolves string ids. */
void callsites_add_record(struct model *m, const struct dump_reader *r,
			  const struct dump_record *rec);
void callsites_add_event(struct model *m, const struct dump_event *ev);
void callsites_release(struct model *m);

/* "sync", "pageable_copy", "nccl" or "pinned_alloc". */
const char *callsite_kind_name(enum callsite_kind kind);

/*
 * Every call site, named and merged, most costly first (computed at the
 * first call, then kept by the model).  *n gets their number.
 */
const struct callsite_row *callsites_rows(const struct model *m, size_t *n);

/*
 * The frames of stack id, innermost first: its Python frames, then its
 * native ones.  exact: the first native frame is the instruction a host
 * sample interrupted (looked up as is), not a return address.  NULL when
 * the dump defined no such stack; *n gets the frames, *python how many of
 * them are Python's.  Made at the first call, valid until
 * callsites_release().
 */
const struct callsite_frame *callsites_frames(const struct model *m,
					      uint32_t id, int exact, size_t *n,
					      size_t *python);

/* The "Call sites" section of the text report: top rows (0 = all). */
void callsites_print_text(FILE *out, const struct model *m, size_t top);
/* "callsites": [...] of the JSON report. */
void callsites_json(struct json *j, const struct model *m);

#endif /* GPUTRACE_ANALYZER_CALLSITE_H */
