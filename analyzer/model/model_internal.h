/* SPDX-License-Identifier: MIT */
/*
 * model_internal.h - what model.c and model_rows.c share.
 */
#ifndef GPUTRACE_ANALYZER_MODEL_INTERNAL_H
#define GPUTRACE_ANALYZER_MODEL_INTERNAL_H

#include "analyzer/model/model.h"

/* A function as last defined; gen: m->fn_gen when it was. */
struct model_fn {
	struct gt_function f;
	uint64_t gen;
};

/*
 * A shape, and the kernel row it resolved to at its first launch.  The
 * row holds while its function keeps the definition it had then (fn->gen
 * == gen), or, for a function not defined then, while no function has
 * been defined since (m->fn_gen == gen): a function defined again costs
 * nothing until a shape of it is launched.
 */
struct shape_ref {
	uint32_t function;
	struct row *row;
	const struct model_fn *fn;
	uint64_t gen;
};

struct row *kernel_row(struct model *m, const char *symbol, const char *label);
struct row *graph_row(struct model *m, uint64_t handle);
struct row *op_row(struct model *m, enum row_kind kind,
		   const struct dump_op *op, uint8_t memory);
struct row *copy_class_row(struct model *m, uint8_t direction, uint8_t memory,
			   int async);
void row_free(struct row *row);

#endif /* GPUTRACE_ANALYZER_MODEL_INTERNAL_H */
