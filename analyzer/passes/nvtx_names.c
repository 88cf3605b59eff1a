/* SPDX-License-Identifier: MIT */
/*
 * nvtx_names.c - the names NVTX gives categories (nvtxNameCategory, per
 * domain) and OS threads (nvtxNameOsThread); the last name given wins.
 */
#include <stdlib.h>
#include <string.h>

#include "analyzer/passes/nvtx_internal.h"
#include "analyzer/lib/util.h"

void nvtx_name_event(struct nvtx_stats *s, const struct dump_reader *r,
		     const struct dump_event *ev)
{
	int thread = ev->op->direction == GT_NVTX_NAME_THREAD;
	uint32_t domain = thread ? 0 : (uint32_t)ev->arg[GT_ARG_NVTX_DOMAIN];
	uint32_t id = (uint32_t)ev->arg[GT_ARG_NVTX_CATEGORY];
	uint64_t key = (uint64_t)thread << 63 | (uint64_t)domain << 32 | id;
	const char *text = ev->arg[GT_ARG_NVTX_MSG] <= UINT32_MAX ?
		dump_string(r, (uint32_t)ev->arg[GT_ARG_NVTX_MSG]) : NULL;
	const char *dom = domain ? hmap_get_int(&s->domains, domain) : "";
	struct nvtx_name *n;

	if (!thread && ev->op->direction != GT_NVTX_NAME_CATEGORY)
		return;                 /* a newer kind of NVTX event */
	n = hmap_get_int(&s->names, key);
	if (!n) {
		n = xcalloc(1, sizeof(*n));
		n->domain = xstrdup(dom ? dom : "?");
		n->id = id;
		n->thread = thread;
		hmap_put_int(&s->names, key, n);
	}
	free(n->name);
	n->name = xstrdup(text ? text : "");
}

static int by_id(const void *a, const void *b)
{
	const struct nvtx_name *x = *(const struct nvtx_name *const *)a;
	const struct nvtx_name *y = *(const struct nvtx_name *const *)b;
	int c = strcmp(x->domain, y->domain);

	return c ? c : (x->id > y->id) - (x->id < y->id);
}

struct nvtx_name **nvtx_names(const struct nvtx_stats *s, int threads,
			      size_t *n)
{
	struct nvtx_name **v = xcalloc(s ? s->names.len + 1 : 1, sizeof(*v));
	struct nvtx_name *name;
	size_t pos = 0;

	*n = 0;
	while (s && (name = hmap_next(&s->names, &pos)))
		if (name->thread == threads)
			v[(*n)++] = name;
	qsort(v, *n, sizeof(*v), by_id);
	return v;
}
