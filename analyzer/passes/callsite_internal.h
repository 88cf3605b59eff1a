/* SPDX-License-Identifier: MIT */
/*
 * callsite_internal.h - what callsite.c (stacks, modules and totals as the
 * dump streams by) and callsite_rows.c (names, merging, order) share.
 */
#ifndef GPUTRACE_ANALYZER_CALLSITE_INTERNAL_H
#define GPUTRACE_ANALYZER_CALLSITE_INTERNAL_H

#include "analyzer/passes/callsite.h"
#include "analyzer/lib/hmap.h"
#include "analyzer/lib/symbolize.h"

struct cs_module {
	char *path;
	uint64_t base, start, size;
	uint8_t build_id[32];
	uint8_t id_len;
	int tried;                  /* symbols looked for (syms may be NULL) */
	struct symtab *syms;
};

struct cs_frame {
	uint64_t pc;                /* return address */
	size_t module;              /* index in mods + 1; 0: in none */
};

struct cs_stack {
	uint32_t native, python;
	struct cs_frame *nf;
	char **pf;                  /* "train.py:57 in step" */
};

struct cs_total {
	uint32_t kind, stack;
	uint64_t calls, ns;
};

struct callsites {
	struct cs_module *mods;     /* every module the dump named */
	size_t nmods, capmods;
	size_t *cur;                /* the map now: mods indexes by start */
	size_t ncur, capcur;
	struct hmap stacks;         /* id -> struct cs_stack */
	struct hmap totals;         /* kind << 32 | stack -> struct cs_total */
	struct callsite_row *rows;  /* once computed */
	size_t nrows;
	int built;
};

/* Compute cs->rows from the stacks and totals. */
void callsites_build(struct callsites *cs);
void callsites_free_rows(struct callsites *cs);

#endif /* GPUTRACE_ANALYZER_CALLSITE_INTERNAL_H */
