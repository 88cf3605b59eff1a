/* SPDX-License-Identifier: MIT */
/*
 * memory.h - host memory behind copies: copy classes (direction x host
 * memory x sync/async), pinned allocations, and the findings they lead to.
 */
#ifndef GPUTRACE_ANALYZER_MEMORY_H
#define GPUTRACE_ANALYZER_MEMORY_H

#include <stdint.h>

#include "analyzer/model/model.h"

/* Pinned allocations (not frees) of the whole run. */
struct pinned_allocs {
	uint64_t calls, bytes, host_ns;
};

enum finding_kind {
	FIND_PAGEABLE,          /* copies of pageable memory */
	FIND_STAGED,            /* async copies of pageable memory: staged */
	FIND_SYNC_PINNED,       /* pinned memory copied synchronously */
	FIND_STEADY_ALLOC,      /* pinned allocations in the steady state */
	FIND_KINDS,
};

struct finding {
	enum finding_kind kind;
	const char *id;         /* "pageable_copies", ... */
	uint64_t calls, bytes, ns;
	char text[512];         /* what it is, what it cost, what to change */
};

/* Account for one event (model.c calls it for every event). */
void memory_add_event(struct model *m, const struct dump_event *ev);
struct pinned_allocs memory_pinned_allocs(const struct model *m);

/* The findings that apply, at most FIND_KINDS; returns their number. */
int memory_findings(const struct model *m, struct finding *out);
/* Whether the program's uploads already come from pinned memory by
 * async calls not waited for at once (all but a tenth of their bytes):
 * pinning and non_blocking are in use. */
int memory_uploads_async(const struct model *m);
void memory_release(struct model *m);

#endif /* GPUTRACE_ANALYZER_MEMORY_H */
