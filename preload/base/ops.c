/* SPDX-License-Identifier: MIT */
/*
 * ops.c - the descriptions of every traced operation (see ops.h).
 */
#include "include/gputrace/format.h"
#include "preload/base/ops.h"

#define GT_PAIR_FIRST(a, b) a
#define GT_PAIR_SECOND(a, b) b
#define GT_OP_ENTRY(sym, api, ver, kd, fl) \
	[GT_OP_##sym] = { #sym, api, ver, GT_PAIR_FIRST kd, GT_PAIR_SECOND kd, fl },
#define GT_OP_DESC(sym, api, ver, kd, fl) GT_OP_ENTRY(sym, #api, ver, kd, fl)

const struct gt_op_desc gt_ops[GT_OP_COUNT] = {
#define X(sym, api, ver, sfx, kd, fl, P, A, F, POST) GT_OP_DESC(sym, api, ver, kd, fl)
#include "preload/base/hooks.def"
#undef X
#define R(sym, P, A, fl, F, POST) \
	GT_OP_DESC(sym, sym, 0, (GT_KIND_HOSTALLOC, GT_DIR_NONE), fl)
#include "preload/base/runtime.def"
#undef R
#define N(sym, fl, P, A, PRE, POST) \
	GT_OP_DESC(sym, sym, 0, (GT_KIND_NCCL, GT_DIR_NONE), fl)
#include "preload/base/nccl.def"
#undef N
#define V(sym, what) GT_OP_DESC(sym, sym, 0, (GT_KIND_NVTX, what), 0)
#include "preload/base/nvtx_ops.def"
#undef V
#define H(sym, api) GT_OP_ENTRY(sym, api, 0, (GT_KIND_HOSTSAMPLE, GT_DIR_NONE), 0)
#include "preload/base/host_ops.def"
#undef H
};
