/* SPDX-License-Identifier: MIT */
/*
 * dl_ranges.c - the address ranges of loaded objects whose calls we must
 * not trace (libcupti: dl.h says why), and the test of a caller against
 * them.  A handful of ranges, written once each, read with two compares
 * per range on the lookup paths (dlsym, cuGetProcAddress), never on a
 * traced call.
 */
#include <dlfcn.h>
#include <link.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "preload/base/dl.h"

#define MAX_RANGES 4

static struct { _Atomic uintptr_t lo, hi; } ranges[MAX_RANGES];
static atomic_int nranges;
static __thread int untouched __attribute__((tls_model("initial-exec")));

void gt_dl_untouched(int on)
{
	untouched = on;
}

struct span {
	uintptr_t base;
	const char *name;
	uintptr_t lo, hi;
};

static int find_span(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct span *s = arg;

	(void)size;
	if (info->dlpi_addr != s->base || !info->dlpi_name ||
	    strcmp(info->dlpi_name, s->name))
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = s->base + ph->p_vaddr, hi = lo + ph->p_memsz;

		if (ph->p_type != PT_LOAD)
			continue;
		if (!s->lo || lo < s->lo)
			s->lo = lo;
		if (hi > s->hi)
			s->hi = hi;
	}
	return 1;
}

static int from_noted(const void *pc)
{
	uintptr_t a = (uintptr_t)pc;
	int n = atomic_load_explicit(&nranges, memory_order_acquire);

	for (int i = 0; i < n; i++)
		if (a >= atomic_load_explicit(&ranges[i].lo, memory_order_relaxed) &&
		    a < atomic_load_explicit(&ranges[i].hi, memory_order_relaxed))
			return 1;
	return 0;
}

void gt_dl_note_object(const void *sym)
{
	struct link_map *l = NULL;
	struct span s = { 0 };
	Dl_info info;
	int n;

	if (!sym || !dladdr1(sym, &info, (void **)&l, RTLD_DL_LINKMAP) || !l)
		return;
	s.base = l->l_addr;
	s.name = l->l_name;
	gt_dl_iterate(find_span, &s);
	if (!s.hi || from_noted((const void *)s.lo))
		return;
	n = atomic_load(&nranges);
	if (n >= MAX_RANGES)
		return;
	atomic_store(&ranges[n].lo, s.lo);
	atomic_store(&ranges[n].hi, s.hi);
	atomic_store(&nranges, n + 1);
}

int gt_dl_leave_alone(const void *pc, const char *name)
{
	Dl_info info;
	const char *base;

	if (untouched || from_noted(pc))
		return 1;
	if (!name || name[0] != 'c' || name[1] != 'u' || !dladdr(pc, &info) ||
	    !info.dli_fname)
		return 0;
	base = strrchr(info.dli_fname, '/');
	base = base ? base + 1 : info.dli_fname;
	if (strncmp(base, "libcupti", 8))
		return 0;
	gt_dl_note_object(pc);
	return 1;
}
