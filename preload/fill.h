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

#include "preload/callsite.h"
#include "preload/functions.h"
#include "preload/internal.h"

#define GT_U64(x) ((uint64_t)(uintptr_t)(x))

static inline void gt_fill_launch(struct gt_rec *r, CUfunction f,
				  unsigned gx, unsigned gy, unsigned gz,
				  unsigned bx, unsigned by, unsigned bz,
				  unsigned shm, CUstream hs)
{
	r->stream = GT_U64(hs);
	r->stack = 0;
	r->u.launch.func = gt_func_id(f);
	r->u.launch.shared_mem = shm;
	r->u.launch.grid[0] = gx;
	r->u.launch.grid[1] = gy;
	r->u.launch.grid[2] = gz;
	r->u.launch.block[0] = bx;
	r->u.launch.block[1] = by;
	r->u.launch.block[2] = bz;
}

static inline void gt_fill_launch_ex(struct gt_rec *r, const CUlaunchConfig *cfg,
				     CUfunction f)
{
	if (!cfg) {
		gt_fill_launch(r, f, 0, 0, 0, 0, 0, 0, 0, NULL);
		return;
	}
	gt_fill_launch(r, f, cfg->gridDimX, cfg->gridDimY, cfg->gridDimZ,
		       cfg->blockDimX, cfg->blockDimY, cfg->blockDimZ,
		       cfg->sharedMemBytes, cfg->hStream);
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

#endif /* GPUTRACE_PRELOAD_FILL_H */
