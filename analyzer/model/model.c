/* SPDX-License-Identifier: MIT */
/*
 * model.c - aggregate a dump's records while it streams by.
 *
 * Ops, shapes and functions are small tables; each event is added to the
 * row it belongs to and then forgotten.  The row of a launch is found
 * through shape -> function -> symbol once per shape and cached, the row
 * of a copy, memset or wait once per op.
 */
#include <stdlib.h>
#include <string.h>

#include "analyzer/model/model_internal.h"
#include "analyzer/lib/util.h"

#define PRESENT ((void *)1)     /* value of the set-like maps */

void model_init(struct model *m, const struct gt_file_header *h)
{
	unsigned i;

	memset(m, 0, sizeof(*m));
	m->format_version = h->version;
	m->start_ns = h->start_ns;
	m->pid = h->pid;
	m->rank = UINT32_MAX;
	m->host = xstrdup("");
	m->exe = xstrdup("");
	m->command = xstrdup("");
	for (i = 0; i < ROW_KINDS; i++)
		hmap_init(&m->rows[i]);
}

static char *join_argv(const struct dump_process *p)
{
	size_t len = 1, i;
	char *s;

	for (i = 0; i < p->argc; i++)
		len += strlen(p->argv[i]) + 1;
	s = xcalloc(1, len);
	for (i = 0; i < p->argc; i++) {
		if (i)
			strcat(s, " ");
		strcat(s, p->argv[i]);
	}
	return s;
}

static void add_process(struct model *m, const struct dump_process *p)
{
	m->pid = p->pid;
	m->ppid = p->ppid;
	m->rank = p->rank;
	free(m->host);
	free(m->exe);
	free(m->command);
	m->host = xstrdup(p->host);
	m->exe = xstrdup(p->exe);
	m->command = join_argv(p);
}

/* Shapes of a function defined again find out at their next launch. */
static void add_function(struct model *m, const struct gt_function *f)
{
	struct model_fn *fn = hmap_get_int(&m->functions, f->id);

	if (!fn) {
		fn = xmalloc(sizeof(*fn));
		hmap_put_int(&m->functions, f->id, fn);
	}
	fn->f = *f;
	fn->gen = ++m->fn_gen;
}

static void add_shape(struct model *m, const struct gt_shape *shape)
{
	struct shape_ref *s = hmap_get_int(&m->shapes, shape->id);

	if (!s) {
		s = xmalloc(sizeof(*s));
		hmap_put_int(&m->shapes, shape->id, s);
	}
	s->function = shape->function;
	s->row = NULL;
	s->fn = NULL;
}

void model_add_note(struct model *m, uint32_t level, const char *text)
{
	if (m->nr_notes < MODEL_NOTES) {
		m->notes[m->nr_notes].level = level;
		m->notes[m->nr_notes].text = xstrdup(text);
	}
	m->nr_notes++;
}

static int shape_current(const struct model *m, const struct shape_ref *s)
{
	return s->row && s->gen == (s->fn ? s->fn->gen : m->fn_gen);
}

/* launch_row() when the shape's row is not known, or no longer current. */
static NOINLINE struct row *launch_row_again(struct model *m,
					     const struct dump_reader *r,
					     uint64_t id, struct shape_ref *s)
{
	const struct model_fn *fn;
	const struct gt_function *f;
	struct row *row;
	char *label;

	fn = s ? hmap_get_int(&m->functions, s->function) : NULL;
	f = fn ? &fn->f : NULL;
	if (s) {
		s->fn = fn;
		s->gen = fn ? fn->gen : m->fn_gen;
	}
	if (f && f->name_str && dump_string(r, f->name_str))
		return s->row = kernel_row(m, dump_string(r, f->name_str), NULL);
	if (f)
		label = xasprintf("<unknown 0x%llx>",
				  (unsigned long long)f->handle);
	else if (s)
		label = xasprintf("<unknown function %u>", s->function);
	else
		label = xasprintf("<unknown shape %llu>",
				  (unsigned long long)id);
	row = kernel_row(m, NULL, label);
	free(label);
	if (s)
		s->row = row;
	return row;
}

/* The shape of a launch, or NULL: not defined. */
static struct shape_ref *shape_of(const struct model *m, uint64_t id)
{
	return id <= UINT32_MAX ? hmap_get_int(&m->shapes, id) : NULL;
}

/* The row a launch of shape id counts in. */
static struct row *launch_row(struct model *m, const struct dump_reader *r,
			      uint64_t id)
{
	struct shape_ref *s = shape_of(m, id);

	if (s && shape_current(m, s))
		return s->row;
	return launch_row_again(m, r, id, s);
}

/* cached_op_row() the first time, or once the op was defined again. */
static NOINLINE struct row *new_op_row(struct model *m, enum row_kind kind,
				       const struct dump_op *op, uint8_t memory)
{
	struct row *row = op_row(m, kind, op, memory);

	hmap_put_int(&m->op_rows, (uint64_t)op->id << 4 | memory, row);
	return row;
}

/* The row of a copy, memset or wait, cached per op id and host memory. */
static struct row *cached_op_row(struct model *m, enum row_kind kind,
				 const struct dump_op *op, uint8_t memory)
{
	struct row *row = hmap_get_int(&m->op_rows,
				       (uint64_t)op->id << 4 | memory);

	return row ? row : new_op_row(m, kind, op, memory);
}

static struct row *event_row(struct model *m, const struct dump_reader *r,
			     const struct dump_event *ev)
{
	switch (ev->op->kind) {
	case GT_KIND_LAUNCH:
		return launch_row(m, r, ev->arg[GT_ARG_LAUNCH_SHAPE]);
	case GT_KIND_GRAPH:
		return graph_row(m, ev->arg[GT_ARG_GRAPH_HANDLE]);
	case GT_KIND_COPY:
		return cached_op_row(m, ROW_COPY, ev->op,
				     ev->arg[GT_ARG_COPY_MEMORY] & GT_MEM_MASK);
	case GT_KIND_SET:
		return cached_op_row(m, ROW_SET, ev->op, 0);
	case GT_KIND_HOSTALLOC:
		return cached_op_row(m, ROW_HOSTMEM, ev->op, 0);
	case GT_KIND_SYNC:
		return cached_op_row(m, ROW_SYNC, ev->op, 0);
	default:
		return NULL;            /* kinds other parts account for */
	}
}

/* The dump's totals, for every event. */
static ALWAYS_INLINE void count_event(struct model *m,
				      const struct dump_event *ev)
{
	m->events++;
	if (ev->t1 > m->last_t1)
		m->last_t1 = ev->t1;
	if (m->events == 1 || ev->tid != m->last_tid) {
		m->last_tid = ev->tid;
		hmap_put_int(&m->tids, ev->tid, PRESENT);
	}
}

/* Any event: model_core_add() takes most launches on a shorter path.  A
 * row with a histogram has its calls, total and maximum from it. */
static NOINLINE void add_event(struct model *m, const struct dump_reader *r,
			       const struct dump_event *ev)
{
	struct row *row = event_row(m, r, ev);

	m->ev_row = row;
	if (!row)
		goto counted;
	if (ev->op->kind == GT_KIND_COPY || ev->op->kind == GT_KIND_SET ||
	    ev->op->kind == GT_KIND_HOSTALLOC) {
		row->calls++;
		row->total_ns = sat_add(row->total_ns, ev->dur);
		if (ev->dur > row->max_ns)
			row->max_ns = ev->dur;
		row->bytes = sat_add(row->bytes, ev->arg[GT_ARG_COPY_BYTES]);
	} else {
		hist_add(&row->hist, ev->dur);
	}
counted:
	count_event(m, ev);
}

/* The rest of a launch whose time falls outside its row's first blocks
 * (near 0), or whose bucket's low word wrapped (near < 0). */
static NOINLINE void add_launch_rest(struct model *m, struct row *row,
				     const struct dump_event *ev, int near)
{
	if (near < 0)
		hist_carry(&row->hist, ev->dur);
	else
		hist_add_far(&row->hist, ev->dur);
	count_event(m, ev);
}

/* Records other than events: out of line, the events' path keeps no
 * registers to save. */
static NOINLINE void add_record(struct model *m, const struct dump_record *rec)
{
	switch (rec->type) {
	case DUMP_PROCESS:
		add_process(m, rec->process);
		break;
	case DUMP_OP:
		/* the op may have changed: find its rows again */
		for (uint64_t mem = 0; mem <= GT_MEM_MASK; mem++)
			hmap_put_int(&m->op_rows, (uint64_t)rec->op->id << 4 | mem, NULL);
		break;
	case DUMP_FUNCTION:
		add_function(m, &rec->function);
		break;
	case DUMP_SHAPE:
		add_shape(m, &rec->shape);
		break;
	case DUMP_STREAM:
		hmap_put_int(&m->stream_ids, rec->stream.id, PRESENT);
		break;
	case DUMP_DROPS:
		m->drops_sum = sat_add(m->drops_sum, rec->drops.count);
		break;
	case DUMP_END:
		m->have_end = 1;
		m->end_ns = rec->end.end_ns;
		m->end_dropped = rec->end.dropped;
		break;
	case DUMP_NOTE:
		model_add_note(m, rec->note.level, rec->note.text);
		break;
	default:
		break;
	}
}

/*
 * Most records are launches of a shape whose row is known, and whose time
 * falls in the row's first blocks: their path keeps within the registers
 * a call may clobber (the rest goes out of line, by tail calls).
 */
void model_core_add(struct model *m, const struct dump_reader *r,
		    const struct dump_record *rec)
{
	const struct dump_event *ev = &rec->event;
	struct shape_ref *s;
	int near;

	if (rec->type != DUMP_EVENT) {
		m->ev_row = NULL;
		add_record(m, rec);
		return;
	}
	if (ev->op->kind != GT_KIND_LAUNCH) {
		add_event(m, r, ev);
		return;
	}
	s = shape_of(m, ev->arg[GT_ARG_LAUNCH_SHAPE]);
	if (!s || !shape_current(m, s)) {
		add_event(m, r, ev);
		return;
	}
	m->ev_row = s->row;
	near = hist_add_near(&s->row->hist, ev->dur);
	if (near <= 0) {
		add_launch_rest(m, s->row, ev, near);
		return;
	}
	count_event(m, ev);
}

/* The rows counted by their histogram only. */
static void rows_from_hist(struct hmap *rows)
{
	size_t pos = 0;
	struct row *row;

	while ((row = hmap_next(rows, &pos))) {
		row->calls = row->hist.count;
		row->total_ns = row->hist.total;
		row->max_ns = row->hist.max;
	}
}

void model_core_finish(struct model *m, int ends_early)
{
	uint64_t end = m->have_end ? m->end_ns : m->last_t1;

	rows_from_hist(&m->rows[ROW_KERNEL]);
	rows_from_hist(&m->rows[ROW_GRAPH]);
	rows_from_hist(&m->rows[ROW_SYNC]);
	m->ends_early = ends_early || !m->have_end;
	m->wall_ns = end > m->start_ns ? end - m->start_ns : 0;
	m->dropped = m->drops_sum;
	if (m->have_end && m->end_dropped > m->dropped)
		m->dropped = m->end_dropped;
	m->threads = m->tids.len;
	m->streams = m->stream_ids.len;
}

static void free_row(void *row)
{
	row_free(row);
}

void model_core_release(struct model *m)
{
	size_t i;

	for (i = 0; i < ROW_KINDS; i++)
		hmap_release_values(&m->rows[i], free_row);
	hmap_release_values(&m->functions, NULL);
	hmap_release_values(&m->shapes, NULL);
	hmap_release(&m->op_rows);
	hmap_release(&m->tids);
	hmap_release(&m->stream_ids);
	for (i = 0; i < m->nr_notes && i < MODEL_NOTES; i++)
		free(m->notes[i].text);
	free(m->host);
	free(m->exe);
	free(m->command);
}
