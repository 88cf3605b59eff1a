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

struct cs_pyframe {
	char *file;                 /* the file's short name (short_file) */
	char *func;                 /* the qualified name, "?" unknown */
	uint32_t line;              /* the line being run, 0 unknown */
};

struct cs_stack {
	uint32_t native, python;
	struct cs_frame *nf;
	char **pf;                  /* "train.py:57 in step" */
	struct cs_pyframe *py;      /* the same, in parts */
};

/* A native frame's names, made once per (pc, module, exact). */
struct cs_pc_name {
	size_t module;
	int exact;
	char *text;                 /* "func (module)", "module+0x1f", "0x..." */
	char *func;                 /* the demangled symbol (cut), NULL: none */
	const char *mod;            /* the module's base name, "?" unknown */
	struct cs_pc_name *next;
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
	struct hmap names;          /* pc -> struct cs_pc_name list */
	struct hmap framesets;      /* stack << 1 | exact -> struct cs_frameset */
};

/* The names of native frame f (exact: f's pc is the interrupted
 * instruction, not a return address), made at the first call. */
const struct cs_pc_name *callsites_pc_name(struct callsites *cs,
					   const struct cs_frame *f, int exact);
/* Stack id is defined again: the names made of its frames go. */
void callsites_forget_frames(struct callsites *cs, uint32_t id);
/* What callsites_release frees of callsite_frames.c's. */
void callsites_free_names(struct callsites *cs);

/* Compute cs->rows from the stacks and totals. */
void callsites_build(struct callsites *cs);
void callsites_free_rows(struct callsites *cs);

#endif /* GPUTRACE_ANALYZER_CALLSITE_INTERNAL_H */
