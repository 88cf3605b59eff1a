/* SPDX-License-Identifier: MIT */
/*
 * callsite_frames.c - the names of a stack's frames (callsite.h): Python
 * frames as the dump has them, native frames named from the module's ELF
 * symbols ("func (module)") or, where that file is not here or is not the
 * one that ran, "module+0xoffset".  A return address is looked up one
 * byte back (the call before it); the instruction a host sample
 * interrupted is looked up as is.  Names are made once per address and
 * kept until callsites_release().
 */
#include <stdlib.h>
#include <string.h>

#include "analyzer/passes/callsite_internal.h"
#include "analyzer/lib/demangle.h"
#include "analyzer/lib/symbol_path.h"
#include "analyzer/model/model.h"
#include "analyzer/lib/util.h"

#define NAME_MAX_CHARS 200          /* longer demangled names are cut */

/* The frames of one stack, named (callsites_frames). */
struct cs_frameset {
	struct callsite_frame *f;
	size_t n, python;
};

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

static struct symtab *module_syms(struct cs_module *m)
{
	if (!m->tried) {
		m->tried = 1;
		m->syms = symbol_find(m->path, m->build_id, m->id_len);
	}
	return m->syms;
}

static void name_native(struct callsites *cs, const struct cs_frame *f,
			int exact, struct cs_pc_name *p)
{
	struct cs_module *m;
	const char *sym;
	uint64_t vaddr;

	p->mod = "?";
	if (!f->module) {
		p->text = xasprintf("0x%llx", (unsigned long long)f->pc);
		return;
	}
	m = &cs->mods[f->module - 1];
	p->mod = *m->path ? base_name(m->path) : "?";
	vaddr = f->pc - m->base;
	sym = module_syms(m) ? symtab_lookup(m->syms, exact ? vaddr : vaddr - 1)
			     : NULL;
	if (!sym) {
		p->text = xasprintf("%s+0x%llx", p->mod, (unsigned long long)vaddr);
		return;
	}
	p->func = demangle(sym);
	if (strlen(p->func) > NAME_MAX_CHARS)
		strcpy(p->func + NAME_MAX_CHARS - 3, "...");
	p->text = xasprintf("%s (%s)", p->func, p->mod);
}

const struct cs_pc_name *callsites_pc_name(struct callsites *cs,
					   const struct cs_frame *f, int exact)
{
	struct cs_pc_name *head = hmap_get_int(&cs->names, f->pc), *p;

	for (p = head; p; p = p->next)
		if (p->module == f->module && p->exact == exact)
			return p;
	p = xcalloc(1, sizeof(*p));
	p->module = f->module;
	p->exact = exact;
	name_native(cs, f, exact, p);
	p->next = head;
	hmap_put_int(&cs->names, f->pc, p);
	return p;
}

static struct cs_frameset *name_stack(struct callsites *cs,
				      const struct cs_stack *s, int exact)
{
	struct cs_frameset *fs = xcalloc(1, sizeof(*fs));

	fs->n = (size_t)s->python + s->native;
	fs->python = s->python;
	fs->f = xcalloc(fs->n ? fs->n : 1, sizeof(*fs->f));
	for (uint32_t i = 0; i < s->python; i++)
		fs->f[i] = (struct callsite_frame){ .text = s->pf[i],
			.func = s->py[i].func, .file = s->py[i].file,
			.line = s->py[i].line, .python = 1 };
	for (uint32_t i = 0; i < s->native; i++) {
		const struct cs_pc_name *p =
			callsites_pc_name(cs, &s->nf[i], exact && i == 0);

		fs->f[s->python + i] = (struct callsite_frame){ .text = p->text,
			.func = p->func ? p->func : p->text, .file = p->mod };
	}
	return fs;
}

const struct callsite_frame *callsites_frames(const struct model *m,
					      uint32_t id, int exact, size_t *n,
					      size_t *python)
{
	struct callsites *cs = m->callsites;
	uint64_t key = (uint64_t)id << 1 | (exact != 0);
	const struct cs_stack *s;
	struct cs_frameset *fs;

	*n = *python = 0;
	if (!cs || !id || !(s = hmap_get_int(&cs->stacks, id)))
		return NULL;
	fs = hmap_get_int(&cs->framesets, key);
	if (!fs) {
		fs = name_stack(cs, s, exact);
		hmap_put_int(&cs->framesets, key, fs);
	}
	*n = fs->n;
	*python = fs->python;
	return fs->f;
}

static void free_frameset(void *v)
{
	struct cs_frameset *fs = v;

	free(fs->f);
	free(fs);
}

void callsites_forget_frames(struct callsites *cs, uint32_t id)
{
	for (uint64_t exact = 0; exact < 2; exact++) {
		uint64_t key = (uint64_t)id << 1 | exact;
		struct cs_frameset *fs = hmap_get_int(&cs->framesets, key);

		if (fs) {
			free_frameset(fs);
			hmap_put_int(&cs->framesets, key, NULL);
		}
	}
}

void callsites_free_names(struct callsites *cs)
{
	struct cs_pc_name *p, *next;
	size_t pos = 0;

	while ((p = hmap_next(&cs->names, &pos))) {
		for (; p; p = next) {
			next = p->next;
			free(p->text);
			free(p->func);
			free(p);
		}
	}
	hmap_release(&cs->names);
	hmap_release_values(&cs->framesets, free_frameset);
}
