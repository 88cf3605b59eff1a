/* SPDX-License-Identifier: MIT */
/*
 * procaddr.c - cuGetProcAddress (4 arguments) and cuGetProcAddress_v2 (5).
 *
 * CUDA 12/13's runtime fetches every driver entry point through
 * cuGetProcAddress, after getting cuGetProcAddress itself that way.  We
 * call the real one, then swap the pointer it returns for our wrapper when
 * the (name, version, flags) maps to a table entry and the pointer is the
 * real function behind that entry; anything else passes through.  Both
 * work before cuInit.
 *
 * The driver is held from the moment the library first resolves one of
 * its functions (gt_driver_hold): the pointers the wrappers, the kernel
 * names and the sampler keep stay valid when the program dlcloses the
 * driver, and a dlopen of it again finds it where it was.
 */
#include <cuda.h>
#include <cudaTypedefs.h>
#include <dlfcn.h>
#include <link.h>
#include <string.h>

#include "preload/gpu/cupti.h"
#include "preload/base/dl.h"
#include "preload/hooks/hooks.h"
#include "preload/base/internal.h"
#include "preload/hooks/procaddr.h"

#undef cuGetProcAddress

static _Atomic(void *) real_v1;     /* PFN_cuGetProcAddress_v11030 */
static _Atomic(void *) real_v2;     /* PFN_cuGetProcAddress_v12000 */

GT_EXPORT CUresult CUDAAPI cuGetProcAddress(const char *symbol, void **pfn,
					    int version, cuuint64_t flags);
GT_EXPORT CUresult CUDAAPI cuGetProcAddress_v2(const char *symbol, void **pfn,
					       int version, cuuint64_t flags,
					       CUdriverProcAddressQueryResult *status);

_Static_assert(__builtin_types_compatible_p(__typeof__(&cuGetProcAddress),
					    PFN_cuGetProcAddress_v11030), "v1");
_Static_assert(__builtin_types_compatible_p(__typeof__(&cuGetProcAddress_v2),
					    PFN_cuGetProcAddress_v12000), "v2");

void *gt_driver_hold(void *p)
{
	static _Atomic(struct link_map *) held;
	struct link_map *map = NULL;
	Dl_info info;

	if (!p || gt_dl_enter())            /* no fork while the loader is in */
		return p;
	if (dladdr1(p, &info, (void **)&map, RTLD_DL_LINKMAP) && map &&
	    map != atomic_load(&held) && info.dli_fname &&
	    dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD | RTLD_NODELETE))
		atomic_store(&held, map);   /* a reference never given back */
	gt_dl_leave();
	return p;
}

/*
 * A pointer the real cuGetProcAddress returned for "cuGetProcAddress" is
 * the driver's own by construction: hand out our wrapper.  If it differs
 * from the one our wrapper already calls (a driver may return an internal
 * entry rather than its export), both are the driver's implementation of
 * the same version, so calling the first is the same call.
 */
void *gt_procaddr_swap_self(int version, void *real)
{
	int v2 = version >= 12000;
	void *ours = v2 ? (void *)cuGetProcAddress_v2 : (void *)cuGetProcAddress;

	if (real != ours)
		gt_driver_hold(real);
	if (real != ours && !gt_slot_accept(v2 ? &real_v2 : &real_v1, real))
		gt_debug("gputrace: cuGetProcAddress v%d: %p stands for %p\n",
			 v2 ? 2 : 1, real, atomic_load(v2 ? &real_v2 : &real_v1));
	return ours;
}

/* The real function for a direct call (-lcuda) when nothing set it yet. */
static void *real_gpa(int v2)
{
	_Atomic(void *) *slot = v2 ? &real_v2 : &real_v1;
	void *p = atomic_load_explicit(slot, memory_order_relaxed);

	if (likely(p != NULL))
		return p;
	p = gt_driver_symbol(v2 ? "cuGetProcAddress_v2" : "cuGetProcAddress");
	if (p)
		gt_slot_accept(slot, p);
	return atomic_load(slot);
}

void *gt_procaddr_dlsym(const char *name, void *p)
{
	int v2 = !strcmp(name, "cuGetProcAddress_v2");
	void *ours = v2 ? (void *)cuGetProcAddress_v2 : (void *)cuGetProcAddress;

	if (p == ours || p != real_gpa(v2))
		return p;
	return ours;
}

static void swap_result(const char *symbol, void **pfn, int version, cuuint64_t flags)
{
	int op;

	if (!symbol || !pfn || !*pfn)
		return;
	if (!strcmp(symbol, "cuGetProcAddress")) {
		*pfn = gt_procaddr_swap_self(version, *pfn);
		return;
	}
	op = gt_op_by_request(symbol, version, flags);
	if (op >= 0)
		*pfn = gt_swap_indirect(op, *pfn);
}

GT_EXPORT CUresult CUDAAPI cuGetProcAddress(const char *symbol, void **pfn,
					    int version, cuuint64_t flags)
{
	PFN_cuGetProcAddress_v11030 real = (PFN_cuGetProcAddress_v11030)real_gpa(0);
	int untouched = gt_dl_leave_alone(__builtin_return_address(0), symbol);
	CUresult res;

	if (!untouched)
		gt_cupti_early();   /* CUPTI first: before CUDA initializes */
	if (!real)
		return CUDA_ERROR_NOT_INITIALIZED;
	res = real(symbol, pfn, version, flags);
	if (res == CUDA_SUCCESS && !untouched)
		swap_result(symbol, pfn, version, flags);
	return res;
}

GT_EXPORT CUresult CUDAAPI cuGetProcAddress_v2(const char *symbol, void **pfn,
					       int version, cuuint64_t flags,
					       CUdriverProcAddressQueryResult *status)
{
	PFN_cuGetProcAddress_v12000 real = (PFN_cuGetProcAddress_v12000)real_gpa(1);
	int untouched = gt_dl_leave_alone(__builtin_return_address(0), symbol);
	CUresult res;

	if (!untouched)
		gt_cupti_early();   /* CUPTI first: before CUDA initializes */
	if (!real)
		return CUDA_ERROR_NOT_INITIALIZED;
	res = real(symbol, pfn, version, flags, status);
	if (res == CUDA_SUCCESS && !untouched)
		swap_result(symbol, pfn, version, flags);
	return res;
}

void *gt_driver_proc(const char *name, int version)
{
	PFN_cuGetProcAddress_v12000 v2 = atomic_load(&real_v2);
	PFN_cuGetProcAddress_v11030 v1 = atomic_load(&real_v1);
	void *p = NULL;

	if (v2 && v2(name, &p, version, 0, NULL) == CUDA_SUCCESS && p)
		return p;
	if (v1 && v1(name, &p, version, 0) == CUDA_SUCCESS && p)
		return p;
	return gt_driver_symbol(name);
}
