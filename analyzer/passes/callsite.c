/* SPDX-License-Identifier: MIT */
/*
 * callsite.c - keep the dump's call stacks and modules, and add each event
 * that names a stack to its (kind, stack) total (callsite.h).
 *
 * The module map is the one in force where the stack chunk stands in the
 * dump: a module over the same addresses as earlier ones replaces them for
 * the stacks that follow, and each return address is tied to its module
 * when its stack is read.
 */
#include <stdlib.h>
#include <string.h>

#include "analyzer/passes/callsite_internal.h"
#include "analyzer/model/model.h"
#include "analyzer/lib/util.h"

static struct callsites *get(struct model *m)
{
	if (!m->callsites)
		m->callsites = xcalloc(1, sizeof(*m->callsites));
	return m->callsites;
}

const char *callsite_kind_name(enum callsite_kind kind)
{
	static const char *const names[CS_KINDS] = {
		"sync", "pageable_copy", "nccl", "pinned_alloc",
	};

	return kind < CS_KINDS ? names[kind] : "?";
}

/* Position in cur of the first module starting above addr. */
static size_t cur_upper(const struct callsites *cs, uint64_t addr)
{
	size_t lo = 0, hi = cs->ncur;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cs->mods[cs->cur[mid]].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Put module index i in the map, dropping those it overlaps. */
static void map_insert(struct callsites *cs, size_t i)
{
	const struct cs_module *nm = &cs->mods[i];
	size_t at, keep = 0;

	for (size_t k = 0; k < cs->ncur; k++) {
		const struct cs_module *o = &cs->mods[cs->cur[k]];

		if (o->start < nm->start + nm->size && nm->start < o->start + o->size)
			continue;
		cs->cur[keep++] = cs->cur[k];
	}
	cs->ncur = keep;
	if (cs->ncur == cs->capcur) {
		cs->capcur = cs->capcur ? cs->capcur * 2 : 64;
		cs->cur = xrealloc(cs->cur, cs->capcur * sizeof(*cs->cur));
	}
	at = cur_upper(cs, nm->start);
	memmove(cs->cur + at + 1, cs->cur + at, (cs->ncur - at) * sizeof(*cs->cur));
	cs->cur[at] = i;
	cs->ncur++;
}

static void add_modules(struct callsites *cs, const struct dump_reader *r,
			const struct dump_record *rec)
{
	for (uint32_t i = 0; i < rec->modules.count; i++) {
		struct gt_module g;
		struct cs_module *m;
		const char *path;

		memcpy(&g, (const uint8_t *)rec->modules.mods + i * sizeof(g), sizeof(g));
		if (!g.size || g.start + g.size < g.start)
			continue;
		if (cs->nmods == cs->capmods) {
			cs->capmods = cs->capmods ? cs->capmods * 2 : 64;
			cs->mods = xrealloc(cs->mods, cs->capmods * sizeof(*cs->mods));
		}
		m = &cs->mods[cs->nmods];
		memset(m, 0, sizeof(*m));
		path = g.path_str ? dump_string(r, g.path_str) : NULL;
		m->path = xstrdup(path ? path : "");
		m->base = g.base;
		m->start = g.start;
		m->size = g.size;
		m->id_len = g.build_id_len;
		memcpy(m->build_id, g.build_id, sizeof(m->build_id));
		map_insert(cs, cs->nmods++);
	}
}

/* The module (index + 1) holding return address pc now, or 0. */
static size_t module_of(const struct callsites *cs, uint64_t pc)
{
	size_t at = cur_upper(cs, pc - 1);
	const struct cs_module *m;

	if (!at)
		return 0;
	m = &cs->mods[cs->cur[at - 1]];
	return pc - 1 - m->start < m->size ? cs->cur[at - 1] + 1 : 0;
}

static void free_stack(struct cs_stack *s)
{
	if (!s)
		return;
	for (uint32_t i = 0; i < s->python; i++) {
		free(s->pf[i]);
		free(s->py[i].file);
		free(s->py[i].func);
	}
	free(s->pf);
	free(s->py);
	free(s->nf);
	free(s);
}

/* The file name a person knows: its last part, with the folder for a
 * package's __init__.py or __main__.py. */
static const char *short_file(const char *path)
{
	const char *base = strrchr(path, '/'), *p;

	if (!base)
		return path;
	if (strcmp(base, "/__init__.py") && strcmp(base, "/__main__.py"))
		return base + 1;
	for (p = base; p > path && p[-1] != '/'; p--)
		;
	return p;
}

/* f in parts, and as "train.py:57 in Trainer.step" */
static char *py_frame(const struct dump_reader *r, const struct gt_pyframe *f,
		      struct cs_pyframe *raw)
{
	const char *file = f->file_str ? dump_string(r, f->file_str) : NULL;
	const char *func = f->func_str ? dump_string(r, f->func_str) : NULL;

	raw->file = xstrdup(file ? short_file(file) : "?");
	raw->func = xstrdup(func ? func : "?");
	raw->line = f->line;
	return xasprintf("%s:%u in %s", raw->file, f->line, raw->func);
}

static void add_stack(struct callsites *cs, const struct dump_reader *r,
		      const struct dump_record *rec)
{
	struct cs_stack *s = xcalloc(1, sizeof(*s));

	s->native = rec->stack.native;
	s->python = rec->stack.python;
	s->nf = xcalloc(s->native ? s->native : 1, sizeof(*s->nf));
	s->pf = xcalloc(s->python ? s->python : 1, sizeof(*s->pf));
	s->py = xcalloc(s->python ? s->python : 1, sizeof(*s->py));
	for (uint32_t i = 0; i < s->native; i++) {
		memcpy(&s->nf[i].pc, (const uint8_t *)rec->stack.pcs + i * 8, 8);
		s->nf[i].module = module_of(cs, s->nf[i].pc);
	}
	for (uint32_t i = 0; i < s->python; i++) {
		struct gt_pyframe f;

		memcpy(&f, (const uint8_t *)rec->stack.frames + i * sizeof(f), sizeof(f));
		s->pf[i] = py_frame(r, &f, &s->py[i]);
	}
	callsites_forget_frames(cs, rec->stack.id);
	free_stack(hmap_get_int(&cs->stacks, rec->stack.id));
	hmap_put_int(&cs->stacks, rec->stack.id, s);
}

void callsites_add_record(struct model *m, const struct dump_reader *r,
			  const struct dump_record *rec)
{
	if (rec->type == DUMP_MODULES)
		add_modules(get(m), r, rec);
	else if (rec->type == DUMP_STACK)
		add_stack(get(m), r, rec);
}

/* Which call site kind an event counts in, and where its stack is
 * (pipeline.c gives this pass the events of these op kinds only). */
static int event_kind(const struct dump_event *ev, int *arg)
{
	switch (ev->op->kind) {
	case GT_KIND_SYNC:
		*arg = GT_ARG_SYNC_STACK;
		return CS_SYNC;
	case GT_KIND_COPY:
		*arg = GT_ARG_COPY_STACK;
		return (ev->arg[GT_ARG_COPY_MEMORY] & GT_MEM_MASK) == GT_MEM_PAGEABLE
		       ? CS_PAGEABLE_COPY : -1;
	case GT_KIND_NCCL:
		*arg = GT_ARG_NCCL_STACK;
		return CS_NCCL;
	case GT_KIND_HOSTALLOC:
		*arg = GT_ARG_HOSTALLOC_STACK;
		return ev->op->flags & GT_OPF_RELEASE ? -1 : CS_PINNED_ALLOC;
	default:
		return -1;
	}
}

void callsites_add_event(struct model *m, const struct dump_event *ev)
{
	struct cs_total *t;
	uint64_t stack, key;
	int arg = 0, kind = event_kind(ev, &arg);

	if (kind < 0 || arg >= ev->op->nargs || arg >= GT_ARG_MAX)
		return;
	stack = ev->arg[arg];
	if (!stack || stack > UINT32_MAX)
		return;
	key = (uint64_t)kind << 32 | stack;
	t = hmap_get_int(&get(m)->totals, key);
	if (!t) {
		t = xcalloc(1, sizeof(*t));
		t->kind = (uint32_t)kind;
		t->stack = (uint32_t)stack;
		hmap_put_int(&m->callsites->totals, key, t);
	}
	t->calls++;
	t->ns = sat_add(t->ns, ev->dur);
}

void callsites_release(struct model *m)
{
	struct callsites *cs = m->callsites;
	size_t pos = 0;
	void *v;

	if (!cs)
		return;
	while ((v = hmap_next(&cs->stacks, &pos)))
		free_stack(v);
	hmap_release(&cs->stacks);
	hmap_release_values(&cs->totals, NULL);
	for (size_t i = 0; i < cs->nmods; i++) {
		free(cs->mods[i].path);
		symtab_close(cs->mods[i].syms);
	}
	free(cs->mods);
	free(cs->cur);
	callsites_free_rows(cs);
	callsites_free_names(cs);
	free(cs);
	m->callsites = NULL;
}
