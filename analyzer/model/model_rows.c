/* SPDX-License-Identifier: MIT */
/*
 * model_rows.c - the report rows: finding or making the row an event
 * counts in, and sorting rows by cost.
 */
#include <stdlib.h>
#include <string.h>

#include "analyzer/lib/demangle.h"
#include "analyzer/passes/gpu.h"
#include "analyzer/model/model_internal.h"
#include "analyzer/lib/util.h"

static const char *const dir_names[] = {
	[GT_DIR_NONE] = "other",
	[GT_DIR_HTOD] = "HtoD",
	[GT_DIR_DTOH] = "DtoH",
	[GT_DIR_DTOD] = "DtoD",
	[GT_DIR_HTOH] = "HtoH",
	[GT_DIR_PTOP] = "PtoP",
	[GT_DIR_OTHER] = "other",
};

const char *direction_name(uint8_t direction)
{
	return direction < ARRAY_SIZE(dir_names) ? dir_names[direction]
						 : "other";
}

/* Directions the report tells apart; the rest count as "other". */
static uint8_t direction_class(uint8_t direction)
{
	if (direction == GT_DIR_NONE || direction >= ARRAY_SIZE(dir_names))
		return GT_DIR_OTHER;
	return direction;
}

static struct row *row_new(char *key, char *name)
{
	struct row *row = xcalloc_lines(sizeof(*row));

	row->key = key;
	row->name = name;
	row->symbol = xstrdup("");
	hist_init(&row->hist);
	return row;
}

void row_free(struct row *row)
{
	hist_release(&row->hist);
	gpu_row_free(row->gpu);
	free(row->key);
	free(row->name);
	free(row->symbol);
	free(row);
}

/* symbol: the raw name, or NULL with label saying why there is none. */
struct row *kernel_row(struct model *m, const char *symbol, const char *label)
{
	const char *key = symbol ? symbol : label;
	struct row *row = hmap_get_str(&m->rows[ROW_KERNEL], key);

	if (row)
		return row;
	row = row_new(xstrdup(key), demangle(key));
	if (symbol) {
		free(row->symbol);
		row->symbol = xstrdup(symbol);
	}
	hmap_put_str(&m->rows[ROW_KERNEL], row->key, row);
	return row;
}

struct row *graph_row(struct model *m, uint64_t handle)
{
	struct row *row = hmap_get_int(&m->rows[ROW_GRAPH], handle);

	if (row)
		return row;
	row = row_new(xasprintf("%llx", (unsigned long long)handle),
		      xasprintf("0x%llx", (unsigned long long)handle));
	row->handle = handle;
	hmap_put_int(&m->rows[ROW_GRAPH], handle, row);
	return row;
}

/* The copy, memset or wait row of an op. */
struct row *op_row(struct model *m, enum row_kind kind,
		   const struct dump_op *op, uint8_t memory)
{
	int async = kind != ROW_SYNC && (op->flags & GT_OPF_ASYNC);
	uint8_t dir = kind == ROW_COPY ? direction_class(op->direction) : 0;
	char *key = xasprintf("%s\n%u\n%d\n%u", op->api, dir, async, memory);
	struct row *row = hmap_get_str(&m->rows[kind], key);

	if (row) {
		free(key);
		return row;
	}
	row = row_new(key, xstrdup(op->api));
	row->direction = dir;
	row->async = async;
	row->memory = memory;
	row->release = !!(op->flags & GT_OPF_RELEASE);
	hmap_put_str(&m->rows[kind], row->key, row);
	return row;
}

/* The row of a class of copies, named like "HtoD pageable async". */
static struct row *new_copy_class(struct model *m, uint8_t dir,
				  uint8_t memory, int async)
{
	char *key = xasprintf("%u\n%u\n%d", dir, memory, async);
	struct row *row = hmap_get_str(&m->rows[ROW_COPYCLASS], key);

	if (row) {
		free(key);
		return row;
	}
	row = row_new(key, xasprintf("%s %s %s", direction_name(dir),
				     memory_name(memory), async ? "async" : "sync"));
	row->direction = dir;
	row->async = async;
	row->memory = memory;
	hmap_put_str(&m->rows[ROW_COPYCLASS], row->key, row);
	return row;
}

struct row *copy_class_row(struct model *m, uint8_t direction, uint8_t memory,
			   int async)
{
	uint8_t dir = direction_class(direction);
	size_t i = ((size_t)dir * 16 + memory) * 2 + !!async;

	if (dir >= 16 || memory >= 16)
		return new_copy_class(m, dir, memory, async);
	if (!m->copy_class[i])
		m->copy_class[i] = new_copy_class(m, dir, memory, async);
	return m->copy_class[i];
}

const char *memory_name(uint8_t memory)
{
	static const char *const names[] = {
		[GT_MEM_UNKNOWN] = "unknown", [GT_MEM_PAGEABLE] = "pageable",
		[GT_MEM_PINNED] = "pinned", [GT_MEM_DEVICE] = "device",
		[GT_MEM_MANAGED] = "managed",
	};

	return memory < sizeof(names) / sizeof(names[0]) && names[memory]
	       ? names[memory] : "unknown";
}

static int row_cmp(const void *pa, const void *pb)
{
	const struct row *a = *(const struct row *const *)pa;
	const struct row *b = *(const struct row *const *)pb;
	int c;

	if (a->total_ns != b->total_ns)
		return a->total_ns > b->total_ns ? -1 : 1;
	c = strcmp(a->name, b->name);
	if (c)
		return c;
	if (a->direction != b->direction)
		return a->direction < b->direction ? -1 : 1;
	if (a->async != b->async)
		return a->async < b->async ? -1 : 1;
	if (a->memory != b->memory)
		return a->memory < b->memory ? -1 : 1;
	return a->handle < b->handle ? -1 : a->handle > b->handle;
}

struct row **model_rows(const struct model *m, enum row_kind kind, size_t *n)
{
	struct row **rows = (struct row **)hmap_values(&m->rows[kind], n);

	qsort(rows, *n, sizeof(*rows), row_cmp);
	return rows;
}
