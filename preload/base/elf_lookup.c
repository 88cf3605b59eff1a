/* SPDX-License-Identifier: MIT */
/*
 * elf_lookup.c - find a symbol in the loaded objects by reading their
 * dynamic symbol tables, without calling dlsym.
 *
 * Needed once: to find glibc's own dlsym and dlvsym, which we interpose.
 * Walks dl_iterate_phdr in load order, skips this library, and takes the
 * first defined, non-hidden version of the name.
 */
#include <elf.h>
#include <link.h>
#include <string.h>

#include "preload/base/dl.h"

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

static int visit(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct elf_query *q = arg;

	if (info->dlpi_addr == q->self_base)
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

void *gt_elf_find_global(const char *name)
{
	struct elf_query q = { .name = name, .self_base = 1 };

	gt_dl_iterate(find_self, &q.self_base);
	gt_dl_iterate(visit, &q);
	return q.found;
}
