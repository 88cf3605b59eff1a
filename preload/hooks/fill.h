/* SPDX-License-Identifier: MIT */
/*
 * fill.h - how the wrappers of hooks.def fill a record from the arguments
 * of the call they intercept.  Inlined into every wrapper; no locks, no
 * allocation (gt_func_id allocates only the first time it sees a kernel).
 */
#ifndef GPUTRACE_PRELOAD_FILL_H
#define GPUTRACE_PRELOAD_FILL_H

#include <cuda.h>
#include <stdint.h>

#include "include/gputrace/format.h"
#include "preload/stack/callsite.h"
#include "preload/record/functions.h"
#include "preload/base/internal.h"
#include "preload/hooks/pinned.h"

#define GT_U64(x) ((uint64_t)(uintptr_t)(x))

static inline void gt_fill_launch(struct gt_rec *r, CUfunction f,
				  unsigned gx, unsigned gy, unsigned gz,
				  unsigned bx, unsigned by, unsigned bz,
				  unsigned shm, CUstream hs, void **kp, void **extra)
{
	r->stream = GT_U64(hs);
	r->u.launch.func = gt_func_id(f);
	r->stack = gt_func_arg_hash(r->u.launch.func, kp, extra);
	r->u.launch.shared_mem = shm;
	r->u.launch.grid[0] = gx;
	r->u.launch.grid[1] = gy;
	r->u.launch.grid[2] = gz;
	r->u.launch.block[0] = bx;
	r->u.launch.block[1] = by;
	r->u.launch.block[2] = bz;
}

static inline void gt_fill_launch_ex(struct gt_rec *r, const CUlaunchConfig *cfg,
				     CUfunction f, void **kp, void **extra)
{
	if (!cfg) {
		gt_fill_launch(r, f, 0, 0, 0, 0, 0, 0, 0, NULL, kp, extra);
		return;
	}
	gt_fill_launch(r, f, cfg->gridDimX, cfg->gridDimY, cfg->gridDimZ,
		       cfg->blockDimX, cfg->blockDimY, cfg->blockDimZ,
		       cfg->sharedMemBytes, cfg->hStream, kp, extra);
}

static inline void gt_fill_copy_(struct gt_rec *r, uint64_t dst, uint64_t src,
				 uint64_t bytes, CUstream hs)
{
	r->stream = GT_U64(hs);
	r->u.copy.bytes = bytes;
	r->u.copy.src = src;
	r->u.copy.dst = dst;
	r->u.copy.count = 1;
	r->u.copy.memory = 0;
	r->stack = 0;
}

#define gt_fill_copy(r, d, s, n, hs) \
	gt_fill_copy_((r), GT_U64(d), GT_U64(s), (uint64_t)(n), (hs))

/* 2D and 3D descriptors share field names; host or device side by type. */
#define GT_DESC_PTR(c, side) \
	((c)->side##MemoryType == CU_MEMORYTYPE_HOST ? GT_U64((c)->side##Host) \
						      : GT_U64((c)->side##Device))
#define gt_fill_desc(r, c, n, hs) \
	((c) ? gt_fill_copy_((r), GT_DESC_PTR(c, dst), GT_DESC_PTR(c, src), \
			     (uint64_t)(n), (hs)) \
	     : gt_fill_copy_((r), 0, 0, 0, (hs)))

static inline void gt_fill_batch(struct gt_rec *r, const CUdeviceptr *dsts,
				 const CUdeviceptr *srcs, const size_t *sizes,
				 size_t count, CUstream hs)
{
	uint64_t bytes = 0;

	for (size_t i = 0; sizes && i < count; i++)
		bytes += sizes[i];
	gt_fill_copy_(r, dsts && count ? dsts[0] : 0, srcs && count ? srcs[0] : 0,
		      bytes, hs);
	r->u.copy.count = (uint32_t)count;
}

static inline void gt_fill_batch3d(struct gt_rec *r,
				   const CUDA_MEMCPY3D_BATCH_OP *ops,
				   size_t count, CUstream hs)
{
	uint64_t bytes = 0;

	for (size_t i = 0; ops && i < count; i++)
		bytes += (uint64_t)ops[i].extent.width * ops[i].extent.height *
			 ops[i].extent.depth;
	gt_fill_copy_(r, 0, 0, bytes, hs);
	r->u.copy.count = (uint32_t)count;
}

static inline void gt_fill_set(struct gt_rec *r, CUdeviceptr dst,
			       uint64_t bytes, CUstream hs)
{
	gt_fill_copy_(r, dst, 0, bytes, hs);
}

static inline void gt_fill_obj(struct gt_rec *r, uint64_t handle, CUstream hs)
{
	r->stream = GT_U64(hs);
	r->u.obj.handle = handle;
	r->stack = 0;
}

/* A host wait (cuCtx/Stream/EventSynchronize): also where it was called. */
static inline void gt_fill_wait(struct gt_rec *r, uint64_t handle, CUstream hs)
{
	gt_fill_obj(r, handle, hs);
	r->stack = gt_callsite_capture();
}

/*
 * What host memory a copy touches, and the two costly cases: an async copy
 * of pageable memory (the driver stages it; the host waits) and a
 * synchronous copy of pinned memory (the host waits for nothing).  A
 * pageable copy also gets its call site.
 */
static inline void gt_copy_classify(struct gt_rec *r, int dir, int async)
{
	uint32_t kind;

	switch (dir) {
	case GT_DIR_HTOD:
		kind = gt_memory_kind(r->u.copy.src);
		break;
	case GT_DIR_DTOH:
		kind = gt_memory_kind(r->u.copy.dst);
		break;
	case GT_DIR_DTOD:
	case GT_DIR_PTOP:
		kind = GT_MEM_DEVICE;
		break;
	default: {                              /* either side may be host */
		uint32_t s = gt_memory_kind(r->u.copy.src);
		uint32_t d = gt_memory_kind(r->u.copy.dst);

		kind = s == GT_MEM_PAGEABLE || d == GT_MEM_PAGEABLE ? GT_MEM_PAGEABLE
		     : s == GT_MEM_PINNED || d == GT_MEM_PINNED ? GT_MEM_PINNED
		     : s == GT_MEM_MANAGED || d == GT_MEM_MANAGED ? GT_MEM_MANAGED
		     : s == GT_MEM_DEVICE && d == GT_MEM_DEVICE ? GT_MEM_DEVICE
		     : GT_MEM_UNKNOWN;
		break;
	}
	}
	if (async && kind == GT_MEM_PAGEABLE)
		kind |= GT_COPYF_STAGED;
	if (!async && kind == GT_MEM_PINNED)
		kind |= GT_COPYF_SYNC_PINNED;
	r->u.copy.memory = kind;
	if ((kind & GT_MEM_MASK) == GT_MEM_PAGEABLE)
		r->stack = gt_callsite_capture();
}

/*
 * Pinned host memory calls: for allocations the pointer comes after the
 * call; a free's size is read before it (the runtime's free ends in the
 * driver's, which forgets the range first).
 */
static inline void gt_fill_hostalloc(struct gt_rec *r, unsigned int flags,
				     const void *freed)
{
	r->stream = 0;
	r->u.copy.bytes = freed ? gt_pinned_size(GT_U64(freed)) : 0;
	r->u.copy.src = GT_U64(freed);
	r->u.copy.dst = 0;
	r->u.copy.count = 1;
	r->u.copy.memory = flags;
	r->stack = gt_callsite_capture();
}

/* After an allocation or registration (r may be NULL: not recorded). */
static inline void gt_pinned_after_alloc(struct gt_rec *r, int res, void **pp,
					 size_t bytes, unsigned int flags)
{
	uint64_t p = res == CUDA_SUCCESS && pp ? GT_U64(*pp) : 0;

	if (p)
		gt_pinned_add(p, bytes, flags);
	if (r) {
		r->u.copy.bytes = bytes;
		r->u.copy.src = p;
	}
}

/* After a free or unregistration: forget the range. */
static inline void gt_pinned_after_free(struct gt_rec *r, int res, void *p)
{
	uint64_t bytes = res == CUDA_SUCCESS ? gt_pinned_remove(GT_U64(p)) : 0;

	if (r && bytes)
		r->u.copy.bytes = bytes;
}

#endif /* GPUTRACE_PRELOAD_FILL_H */
