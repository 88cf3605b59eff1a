/* SPDX-License-Identifier: MIT */
/*
 * elf_lookup.c - find a symbol in the loaded objects by reading their
 * dynamic symbol tables, without calling dlsym.
 *
 * Needed once: to find glibc's own dlsym and dlvsym, which we interpose.
 * Walks dl_iterate_phdr in load order, skips this library and any other
 * copy of it, and takes the first defined, non-hidden version of the name.
 *
 * Two copies of the library in one process (an installed one and a build
 * tree's, both in LD_PRELOAD) must not take each other's dlsym for the
 * real one: each would call the other's until the stack is gone.  A copy
 * is recognised by the function GT_LIB_MARKER it exports, or, older ones,
 * by a file name that starts with GT_LIB_NAME (include/gputrace/library.h).
 */
#include <elf.h>
#include <link.h>
#include <string.h>

#include "include/gputrace/library.h"
#include "preload/base/dl.h"
#include "preload/base/internal.h"

/* What makes this file a copy of the library to the others. */
GT_EXPORT void gputrace_library(void)
{
}

struct elf_query {
	const char *name;
	uintptr_t self_base;
	void *found;
};

/* Dynamic entries hold addresses, relocated or not depending on arch. */
static uintptr_t dyn_addr(uintptr_t base, ElfW(Addr) v)
{
	return v < base ? base + v : v;
}

/* Symbol count from a DT_GNU_HASH table: highest chained index + 1. */
static uint32_t gnu_hash_nsyms(const uint32_t *gh)
{
	uint32_t nbuckets = gh[0], symoffset = gh[1], bloom_size = gh[2];
	const uint32_t *buckets =
		(const uint32_t *)((const ElfW(Addr) *)(gh + 4) + bloom_size);
	const uint32_t *chain = buckets + nbuckets;
	uint32_t last = 0;

	for (uint32_t i = 0; i < nbuckets; i++)
		if (buckets[i] > last)
			last = buckets[i];
	if (last < symoffset)
		return symoffset;
	while (!(chain[last - symoffset] & 1))
		last++;
	return last + 1;
}

static void *find_in_object(struct dl_phdr_info *info, const char *name)
{
	const ElfW(Dyn) *dyn = NULL;
	const ElfW(Sym) *symtab = NULL;
	const char *strtab = NULL;
	const ElfW(Half) *versym = NULL;
	uint32_t nsyms = 0;
	uintptr_t base = info->dlpi_addr;

	for (int i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
			dyn = (const ElfW(Dyn) *)(base + info->dlpi_phdr[i].p_vaddr);
	for (; dyn && dyn->d_tag != DT_NULL; dyn++) {
		uintptr_t a = dyn_addr(base, dyn->d_un.d_ptr);

		switch (dyn->d_tag) {
		case DT_SYMTAB: symtab = (const ElfW(Sym) *)a; break;
		case DT_STRTAB: strtab = (const char *)a; break;
		case DT_VERSYM: versym = (const ElfW(Half) *)a; break;
		case DT_HASH: nsyms = ((const uint32_t *)a)[1]; break;
		case DT_GNU_HASH:
			if (!nsyms)
				nsyms = gnu_hash_nsyms((const uint32_t *)a);
			break;
		}
	}
	if (!symtab || !strtab)
		return NULL;
	for (uint32_t i = 1; i < nsyms; i++) {
		const ElfW(Sym) *s = &symtab[i];
		int type = ELF64_ST_TYPE(s->st_info);

		if (s->st_shndx == SHN_UNDEF || (type != STT_FUNC && type != STT_GNU_IFUNC))
			continue;
		if (versym && (versym[i] & 0x8000))
			continue;
		if (strcmp(strtab + s->st_name, name))
			continue;
		if (type == STT_GNU_IFUNC)
			return ((void *(*)(void))(base + s->st_value))();
		return (void *)(base + s->st_value);
	}
	return NULL;
}

/* Whether the object is a copy of this library (this one included). */
static int is_copy(struct dl_phdr_info *info)
{
	const char *path = info->dlpi_name ? info->dlpi_name : "";
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;

	return find_in_object(info, GT_LIB_MARKER) ||
	       (!strncmp(base, GT_LIB_NAME, strlen(GT_LIB_NAME)) && strstr(base, ".so"));
}

static int visit(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct elf_query *q = arg;

	if (info->dlpi_addr == q->self_base || is_copy(info))
		return 0;
	q->found = find_in_object(info, q->name);
	return q->found != NULL;
}

static int find_self(struct dl_phdr_info *info, size_t size, void *arg)
{
	uintptr_t here = (uintptr_t)(void *)&find_self;

	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && here >= lo && here < lo + ph->p_memsz) {
			*(uintptr_t *)arg = info->dlpi_addr;
			return 1;
		}
	}
	return 0;
}

static uintptr_t self_base(void)
{
	uintptr_t base = 1;

	gt_dl_iterate(find_self, &base);
	return base;
}

void *gt_elf_find_global(const char *name)
{
	struct elf_query q = { .name = name, .self_base = self_base() };

	gt_dl_iterate(visit, &q);
	return q.found;
}

struct copy_query {
	uintptr_t self_base;
	const void *at;                 /* gt_elf_in_copy's address */
	const char *found;              /* the copy's path */
};

static const char *name_of(const struct dl_phdr_info *info)
{
	return info->dlpi_name && *info->dlpi_name ? info->dlpi_name : "?";
}

/* In load order, up to this library: the first copy. */
static int visit_before(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct copy_query *q = arg;

	if (info->dlpi_addr == q->self_base)
		return 1;
	if (!is_copy(info))
		return 0;
	q->found = name_of(info);
	return 1;
}

/* The object holding q->at, if it is another copy. */
static int visit_at(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct copy_query *q = arg;
	uintptr_t a = (uintptr_t)q->at;
	int holds = 0;

	for (int i = 0; i < info->dlpi_phnum && !holds; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;

		holds = ph->p_type == PT_LOAD && a >= lo && a < lo + ph->p_memsz;
	}
	if (holds && info->dlpi_addr != q->self_base && is_copy(info))
		q->found = name_of(info);
	return holds;
}

const char *gt_elf_copy_before(void)
{
	struct copy_query q = { .self_base = self_base() };

	gt_dl_iterate(visit_before, &q);
	return q.found;
}

int gt_elf_in_copy(const void *p)
{
	struct copy_query q = { .self_base = self_base(), .at = p };

	gt_dl_iterate(visit_at, &q);
	return q.found != NULL;
}
