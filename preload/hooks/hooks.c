/* SPDX-License-Identifier: MIT */
/*
 * hooks.c - the wrappers, generated from hooks.def.
 *
 * Every table line yields two wrappers with the same body: one exported
 * under the driver's own symbol, for programs linked with -lcuda, whose
 * real function comes from dlsym(RTLD_NEXT); and one handed out by the
 * cuGetProcAddress and dlsym hooks, whose real function is the pointer the
 * driver returned.  Each is checked at compile time against the PFN typedef
 * of cudaTypedefs.h for its (name, version, per-thread) variant.
 */
#include <cuda.h>
#include <cudaTypedefs.h>
#include <dlfcn.h>
#include <string.h>

#include "include/gputrace/format.h"
#include "preload/gpu/cupti.h"
#include "preload/base/dl.h"
#include "preload/hooks/fill.h"
#include "preload/hooks/pinned.h"
#include "preload/hooks/hooks.h"
#include "preload/record/ring.h"
#include "preload/hooks/wrap_body.h"

/* cuda.h renames some entry points to their newest version; we define
 * every version under its exported name. */
#undef cuMemcpyBatchAsync
#undef cuMemcpy3DBatchAsync
#undef cuLaunchKernel
#undef cuLaunchKernelEx
#undef cuLaunchCooperativeKernel
#undef cuGraphLaunch
#undef cuMemcpy
#undef cuMemcpyPeer
#undef cuMemcpy3DPeer
#undef cuMemcpyAsync
#undef cuMemcpyPeerAsync
#undef cuMemcpy3DPeerAsync
#undef cuMemsetD8Async
#undef cuMemsetD16Async
#undef cuMemsetD32Async
#undef cuMemsetD2D8Async
#undef cuMemsetD2D16Async
#undef cuMemsetD2D32Async
#undef cuStreamSynchronize
#undef cuStreamWaitEvent
#undef cuStreamQuery

_Atomic(void *) gt_real_indirect[GT_OP_DRIVER_END];
_Atomic(void *) gt_real_direct[GT_OP_DRIVER_END];

static void *resolve_direct(int op)
{
	void *p = gt_driver_symbol(gt_ops[op].symbol);

	if (p)
		gt_slot_accept(&gt_real_direct[op], p);
	return atomic_load(&gt_real_direct[op]);
}

static inline void *direct_real(int op)
{
	void *p = atomic_load_explicit(&gt_real_direct[op], memory_order_relaxed);

	return likely(p != NULL) ? p : resolve_direct(op);
}

static inline void *indirect_real(int op)
{
	return atomic_load_explicit(&gt_real_indirect[op], memory_order_relaxed);
}

#define X(sym, api, ver, sfx, kd, fl, P, A, F, POST)                         \
	GT_EXPORT CUresult CUDAAPI sym P                                     \
	GT_WRAP_BODY(CUresult, CUDA_ERROR_NOT_INITIALIZED, GT_OP_##sym, kd, fl, 0, \
		     direct_real(GT_OP_##sym), P, A, F, POST) \
	static CUresult CUDAAPI indirect_##sym P                             \
	GT_WRAP_BODY(CUresult, CUDA_ERROR_NOT_INITIALIZED, GT_OP_##sym, kd, fl, 0, \
		     indirect_real(GT_OP_##sym), P, A, F, POST) \
	_Static_assert(__builtin_types_compatible_p(__typeof__(&indirect_##sym), \
						    PFN_##api##_v##ver##sfx), \
		       #sym " does not match PFN_" #api "_v" #ver #sfx);
#include "preload/base/hooks.def"
#undef X

void *const gt_indirect_wrapper[GT_OP_DRIVER_END] = {
#define X(sym, ...) [GT_OP_##sym] = (void *)indirect_##sym,
#include "preload/base/hooks.def"
#undef X
};

void *const gt_direct_wrapper[GT_OP_DRIVER_END] = {
#define X(sym, ...) [GT_OP_##sym] = (void *)sym,
#include "preload/base/hooks.def"
#undef X
};

int gt_op_by_symbol(const char *name)
{
	for (int op = 0; op < GT_OP_DRIVER_END; op++)
		if (!strcmp(gt_ops[op].symbol, name))
			return op;
	return -1;
}

static int api_has_ptsz(const char *api)
{
	for (int op = 0; op < GT_OP_DRIVER_END; op++)
		if ((gt_ops[op].flags & GT_OPF_PTSZ) && !strcmp(gt_ops[op].api, api))
			return 1;
	return 0;
}

/*
 * The newest table entry for `api` that `version` reaches, among the
 * per-thread variants when flag 2 asks for them and the api has them.
 */
int gt_op_by_request(const char *api, int version, uint64_t flags)
{
	int want_ptsz = (flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) &&
			api_has_ptsz(api);
	int best = -1;

	for (int op = 0; op < GT_OP_DRIVER_END; op++) {
		const struct gt_op_desc *d = &gt_ops[op];

		if (!!(d->flags & GT_OPF_PTSZ) != want_ptsz || d->version > version ||
		    strcmp(d->api, api))
			continue;
		if (best < 0 || d->version > gt_ops[best].version)
			best = op;
	}
	return best;
}

/*
 * A pointer the real cuGetProcAddress returned for a request that maps to
 * op is the driver's function for op.  Our wrapper calls the first such
 * pointer; a later, different one for the same entry is the driver's
 * implementation of the same version, so it is swapped too.
 */
void *gt_swap_indirect(int op, void *real)
{
	if (real == gt_indirect_wrapper[op] || real == gt_direct_wrapper[op])
		return real;
	if (!gt_slot_accept(&gt_real_indirect[op], real))
		gt_debug("gputrace: %s: %p stands for %p\n", gt_ops[op].symbol, real,
			 atomic_load(&gt_real_indirect[op]));
	return gt_indirect_wrapper[op];
}

/*
 * What dlsym found for op's symbol: the exported wrapper when it is the
 * driver's own export (which that wrapper calls), else untouched.
 */
void *gt_swap_dlsym(int op, void *p)
{
	if (p == gt_direct_wrapper[op])         /* RTLD_DEFAULT found our export */
		return direct_real(op) ? p : NULL;
	if (p == gt_indirect_wrapper[op])
		return p;
	return p == direct_real(op) ? gt_direct_wrapper[op] : p;
}
