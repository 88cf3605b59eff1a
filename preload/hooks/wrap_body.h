/* SPDX-License-Identifier: MIT */
/*
 * wrap_body.h - the one body of every generated wrapper (driver calls of
 * hooks.def, runtime calls of runtime.def): take a ring slot, fill it from
 * the arguments, time the real call, publish.  When no slot is to be had
 * the call goes straight through (POST still runs, with r NULL).  `r` and
 * `res_` are the names the tables' fill and post expressions use.
 *
 * A signal handler's call (or fork) while the real function runs may
 * have taken the slot over (ring.h, gt_rec_held): then the call goes on
 * as one not recorded, and writes no more into the slot.  nest is
 * GT_NEST_QUIET where the real function's own traced calls are part of
 * this one (the runtime's), else 0.
 *
 * ret_t is the call's result type and not_found what it returns when no
 * real function stands behind the wrapper; kd is the (kind, direction)
 * pair and fl the GT_OPF_* flags, all compile-time constants, so the
 * copy-classification and GPU-window branches vanish where they do not
 * apply.
 */
#ifndef GPUTRACE_PRELOAD_WRAP_BODY_H
#define GPUTRACE_PRELOAD_WRAP_BODY_H

#include "include/gputrace/format.h"
#include "preload/gpu/cupti.h"
#include "preload/hooks/fill.h"
#include "preload/record/ring.h"

#define GT_PAIR_FIRST(a, b) a
#define GT_PAIR_SECOND(a, b) b

/* Kinds whose calls put work on the GPU: their ids go to CUPTI (cupti.h). */
#define GT_GPU_KIND(k) ((k) == GT_KIND_LAUNCH || (k) == GT_KIND_GRAPH || \
			(k) == GT_KIND_COPY || (k) == GT_KIND_SET ||     \
			(k) == GT_KIND_SYNC)
/* The GPU records such a call brings (cupti.h). */
#define GT_GPU_WORK(k, r) ((k) == GT_KIND_LAUNCH || (k) == GT_KIND_SET ? 1u :  \
			   (k) == GT_KIND_COPY ? (r)->u.copy.count :           \
			   (k) == GT_KIND_GRAPH ? GT_GPU_UNCOUNTED : 0u)

#define GT_WRAP_BODY(ret_t, not_found, op, kd, fl, nest, realexpr, P, A, FILL, POST) \
	{                                                                    \
		ret_t (*real_) P = (ret_t (*) P)(realexpr);                  \
		struct gt_rec *r;                                            \
		ret_t res_;                                                  \
		unsigned gpu_;                                               \
		if (unlikely(!real_))                                        \
			return not_found;                                    \
		r = gt_rec_begin_as(nest);                                   \
		if (!r) {                                                    \
			res_ = real_ A;                                      \
			POST;                                                \
			return res_;                                         \
		}                                                            \
		FILL;                                                        \
		if (GT_PAIR_FIRST kd == GT_KIND_COPY)                        \
			gt_copy_classify(r, GT_PAIR_SECOND kd, (fl) & GT_OPF_ASYNC); \
		gpu_ = GT_GPU_KIND(GT_PAIR_FIRST kd) ?                       \
		       GT_GPU_BEGIN(GT_GPU_WORK(GT_PAIR_FIRST kd, r)) : 0u;  \
		r->t0 = gt_stamp();                                          \
		res_ = real_ A;                                              \
		if (unlikely(!gt_rec_held())) {                              \
			r = NULL;                                            \
			GT_GPU_END(gpu_, 1, GT_PAIR_FIRST kd == GT_KIND_SYNC); \
			POST;                                                \
			gt_rec_lost();                                       \
			return res_;                                         \
		}                                                            \
		r->t1 = gt_stamp();                                          \
		GT_GPU_END(gpu_, res_ != 0, GT_PAIR_FIRST kd == GT_KIND_SYNC); \
		POST;                                                        \
		gt_rec_commit(r, op, res_);                                  \
		return res_;                                                 \
	}

#endif /* GPUTRACE_PRELOAD_WRAP_BODY_H */
