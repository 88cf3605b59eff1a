/* SPDX-License-Identifier: MIT */
/*
 * kernel_names.c - what a kernel is, from its name: an optimizer's
 * (foreach, multi-tensor, Adam, SGD, LAMB...), the kernels that update
 * the weights once a step whatever the batch.
 */
#include <string.h>

#include "analyzer/diagnosis/diagnosis_internal.h"
#include "analyzer/lib/util.h"

int diag_optimizer_kernel(const char *name)
{
	static const char *const opt[] = {
		"multi_tensor", "foreach", "adam", "sgd", "lamb", "optimizer",
	};

	for (size_t i = 0; name && i < ARRAY_SIZE(opt); i++)
		if (strcasestr(name, opt[i]))
			return 1;
	return 0;
}
