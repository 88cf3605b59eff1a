/* SPDX-License-Identifier: MIT */
/*
 * ops.h - every traced operation's id and description, generated from the
 * tables of each family of intercepted calls:
 *
 *   hooks.def     CUDA driver entry points       X(symbol, api, ...)
 *   runtime.def   CUDA runtime pinned memory      R(symbol, ...)
 *   nccl.def      NCCL calls                      N(symbol, ...)
 *   nvtx_ops.def  NVTX calls (injection)          V(op, what)
 *   host_ops.def  host stack samples              H(op, api)
 *
 * A family adds its table here and in ops.c with an adapter macro that
 * picks (symbol, api, kind_dir, flags) from its own columns.  The ids are
 * what records carry; the descriptions go into the dump (GT_CHUNK_OP), so
 * the analyzer never depends on this numbering.
 */
#ifndef GPUTRACE_PRELOAD_OPS_H
#define GPUTRACE_PRELOAD_OPS_H

#include <stdint.h>

enum gt_op {
#define X(sym, ...) GT_OP_##sym,
#include "preload/base/hooks.def"
#undef X
	GT_OP_DRIVER_END,           /* driver ops are [0, GT_OP_DRIVER_END) */
	/* other families' ops follow here */
#define R(sym, ...) GT_OP_##sym,
#include "preload/base/runtime.def"
#undef R
#define N(sym, ...) GT_OP_##sym,
#include "preload/base/nccl.def"
#undef N
#define V(sym, ...) GT_OP_##sym,
#include "preload/base/nvtx_ops.def"
#undef V
#define H(sym, ...) GT_OP_##sym,
#include "preload/base/host_ops.def"
#undef H
	GT_OP_COUNT
};

struct gt_op_desc {
	const char *symbol;         /* exported symbol */
	const char *api;            /* name users know (cuGetProcAddress name) */
	int version;                /* driver ops: lowest cudaVersion for it */
	uint8_t kind;               /* enum gt_kind */
	uint8_t direction;          /* enum gt_direction */
	uint32_t flags;             /* GT_OPF_* */
};

/* Indexed by enum gt_op; entries of unused ids have symbol NULL. */
extern const struct gt_op_desc gt_ops[GT_OP_COUNT];

#endif /* GPUTRACE_PRELOAD_OPS_H */
