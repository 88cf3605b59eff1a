/* SPDX-License-Identifier: MIT */
/*
 * runtime_hooks.c - wrappers for the CUDA runtime calls of runtime.def,
 * exported under the runtime's names; the real ones are the next
 * definitions after this library (a shared libcudart).
 */
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include "include/gputrace/format.h"
#include "preload/base/dl.h"
#include "preload/hooks/fill.h"
#include "preload/base/ops.h"
#include "preload/record/ring.h"
#include "preload/hooks/wrap_body.h"

#define GT_NOPOST (void)0
#define F_HOSTALLOC(fl) gt_fill_hostalloc(r, (fl), NULL)
#define F_HOSTFREE gt_fill_hostalloc(r, 0, p)
#define POST_ALLOC(fl) gt_pinned_after_alloc(r, res_, pp, n, (fl))
#define POST_REG gt_pinned_after_alloc(r, res_, &p, n, fl)
#define POST_FREE gt_pinned_after_free(r, res_, p)

static _Atomic(void *) real_fn[GT_OP_COUNT];

static void *runtime_real(int op)
{
	void *p = atomic_load_explicit(&real_fn[op], memory_order_relaxed);

	if (likely(p != NULL))
		return p;
	p = gt_real_dlsym(RTLD_NEXT, gt_ops[op].symbol);
	atomic_store(&real_fn[op], p);
	return p;
}

#define R(sym, P, A, fl, FILL, POST)                                         \
	GT_EXPORT cudaError_t sym P                                          \
	GT_WRAP_BODY(cudaError_t, cudaErrorInitializationError, GT_OP_##sym,  \
		     (GT_KIND_HOSTALLOC, GT_DIR_NONE), fl, GT_NEST_QUIET,     \
		     runtime_real(GT_OP_##sym), P, A, FILL, POST)
#include "preload/base/runtime.def"
#undef R

/*
 * dlsym found one of our runtime exports: the export if a real libcudart
 * function stands behind it, else NULL, so that a program probing for
 * the runtime with dlsym finds what it would find without us.
 */
void *gt_runtime_dlsym(const char *name, void *p)
{
#define R(sym, ...) \
	if (p == (void *)sym) \
		return runtime_real(GT_OP_##sym) ? p : NULL;
#include "preload/base/runtime.def"
#undef R
	(void)name;
	return p;
}
