/* SPDX-License-Identifier: MIT */
/*
 * hooks.h - the CUDA driver wrappers generated from hooks.def: the real
 * driver pointers behind each wrapper, and the lookups that decide whether
 * a pointer handed out by the driver or by dlsym gets swapped for a wrapper.
 */
#ifndef GPUTRACE_PRELOAD_HOOKS_H
#define GPUTRACE_PRELOAD_HOOKS_H

#include <stdatomic.h>
#include <stdint.h>

#include "preload/base/ops.h"

/* The wrapper handed out through cuGetProcAddress or dlsym(handle, ...). */
extern void *const gt_indirect_wrapper[GT_OP_DRIVER_END];
/* The wrapper exported under the driver's own name (programs linked -lcuda). */
extern void *const gt_direct_wrapper[GT_OP_DRIVER_END];

/*
 * The real functions behind the wrappers: one slot for the indirect path
 * (filled from what the real cuGetProcAddress returned) and one for the
 * exported wrappers (the driver's export of the same name, also what a
 * dlsym on the driver's handle finds).  A slot is written once.
 */
extern _Atomic(void *) gt_real_indirect[GT_OP_DRIVER_END];
extern _Atomic(void *) gt_real_direct[GT_OP_DRIVER_END];

/* The op whose exported symbol is `name`, or -1. */
int gt_op_by_symbol(const char *name);

/* The op cuGetProcAddress(api, version, flags) resolves to, or -1. */
int gt_op_by_request(const char *api, int version, uint64_t flags);

/*
 * Make `real` the function behind `slot` if the slot is empty: true when it
 * now holds exactly this pointer.
 */
static inline int gt_slot_accept(_Atomic(void *) *slot, void *real)
{
	void *expected = NULL;

	if (atomic_compare_exchange_strong(slot, &expected, real))
		return 1;
	return expected == real;
}

/* Our wrapper for what the real cuGetProcAddress returned for op. */
void *gt_swap_indirect(int op, void *real);

/* Our wrapper for what dlsym found for op's symbol, if it is the driver's;
 * NULL for our own export when no driver function stands behind it. */
void *gt_swap_dlsym(int op, void *p);

/* The same for the runtime's names (runtime_hooks.c). */
void *gt_runtime_dlsym(const char *name, void *p);

#endif /* GPUTRACE_PRELOAD_HOOKS_H */
