/* SPDX-License-Identifier: MIT */
/*
 * nccl_hooks.c - the NCCL wrappers, generated from nccl.def, exported
 * under NCCL's names.
 *
 * libnccl.so.2 defines each call twice: a weak ncclX, which a preloaded
 * definition overrides, and a strong pncclX (NCCL's PMPI-style profiling
 * interface), which the wrapper calls.  Each wrapper's prototype must
 * match nccl.h's declaration, so a changed signature does not compile.
 * NCCL linked statically into a program cannot be reached this way; the
 * profiler plugin (nccl_profiler.c) still sees its work.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "preload/base/dl.h"
#include "preload/hooks/nccl_call.h"
#include "preload/hooks/nccl_hooks.h"
#include "preload/base/ops.h"

static _Atomic(void *) real_fn[GT_OP_COUNT];

/* pname, else name, in the objects after us, else in any loaded one
 * (NCCL may be loaded RTLD_LOCAL, outside the global scope). */
void *gt_nccl_sym(const char *name)
{
	char pname[128];
	void *p;

	if (snprintf(pname, sizeof(pname), "p%s", name) >= (int)sizeof(pname))
		return NULL;
	if ((p = gt_real_dlsym(RTLD_NEXT, pname)) ||
	    (p = gt_elf_find_global(pname)))
		return p;
	if ((p = gt_real_dlsym(RTLD_NEXT, name)) || (p = gt_elf_find_global(name)))
		return p;
	return NULL;
}

/* The real function behind op's wrapper, or NULL (not cached: NCCL may
 * be loaded later). */
static void *nccl_real_quiet(int op)
{
	void *p = atomic_load_explicit(&real_fn[op], memory_order_relaxed);

	if (likely(p != NULL))
		return p;
	p = gt_nccl_sym(gt_ops[op].symbol);
	if (p)
		atomic_store(&real_fn[op], p);
	return p;
}

static void *nccl_real(int op)
{
	void *p = nccl_real_quiet(op);

	if (unlikely(!p))
		gt_warn_once("gputrace: '%s' was called but no loaded NCCL "
			     "defines it\n", gt_ops[op].symbol);
	return p;
}

#define N(sym, fl, P, A, PRE, POST)                                          \
	GT_EXPORT ncclResult_t sym P                                         \
	{                                                                    \
		ncclResult_t (*real_) P = (ncclResult_t (*) P)nccl_real(GT_OP_##sym); \
		struct gt_nccl_call call_ = { 0 }, *c = &call_;              \
		ncclResult_t res_;                                           \
		if (unlikely(!real_))                                        \
			return ncclSystemError;                              \
		if (!gt_nccl_enter())                                        \
			return real_ A;                                      \
		PRE;                                                         \
		c->t0 = gt_stamp();                                          \
		res_ = real_ A;                                              \
		c->t1 = gt_stamp();                                          \
		POST;                                                        \
		gt_nccl_leave(c, GT_OP_##sym, res_);                         \
		return res_;                                                 \
	}
#include "preload/base/nccl.def"
#undef N

/*
 * What dlsym found for an NCCL name: NCCL's own function becomes our
 * wrapper (programs that dlopen NCCL and look calls up); our wrapper with
 * no NCCL behind it becomes NULL, so a program probing for NCCL finds
 * what it would find without us.  Anything else passes.
 */
void *gt_nccl_dlsym(const char *name, void *p)
{
#define N(sym, ...)                                                          \
	if (!strcmp(name, #sym)) {                                           \
		if (p == (void *)sym)                                        \
			return nccl_real_quiet(GT_OP_##sym) ? p : NULL;      \
		return p == nccl_real_quiet(GT_OP_##sym) ? (void *)sym : p;  \
	}
#include "preload/base/nccl.def"
#undef N
	return p;
}
