/* SPDX-License-Identifier: MIT */
/*
 * dump_chunks.c - check and decode chunk payloads, and unpack events.
 *
 * Fixed-size chunks may be longer than the struct we know (new fields at
 * the end are ignored), never shorter.  Counts are checked against the
 * payload size before anything is allocated for them.
 */
#include <stdlib.h>
#include <string.h>

#include "analyzer/reader/dump_internal.h"
#include "gputrace/varint.h"

_Static_assert(sizeof(struct gt_process) == 16, "process layout");
_Static_assert(sizeof(struct gt_op_info) == 16, "op layout");
_Static_assert(sizeof(struct gt_function) == 16, "function layout");
_Static_assert(sizeof(struct gt_shape) == 40, "shape layout");
_Static_assert(sizeof(struct gt_stream) == 16, "stream layout");
_Static_assert(sizeof(struct gt_events_header) == 32, "events layout");
_Static_assert(sizeof(struct gt_drops) == 16, "drops layout");
_Static_assert(sizeof(struct gt_end) == 24, "end layout");

/* Each event takes at least 5 common varints and 1 per-kind varint. */
#define EVENT_MIN_BYTES 5
#define EVENT_HEAD 5             /* op, dt0, dur, result, stream */
#define EVENT_MAX_BYTES (10 * (EVENT_HEAD + GT_ARG_MAX))
#define EVENT_NUMBER ((1ull << 40) - 1)   /* an event id's number bits */

static int need(struct dump_reader *r, size_t n, const char *what)
{
	if (r->ch.size >= n)
		return 0;
	return dump_corrupt(r, "%s record of %u bytes is too short", what,
			    r->ch.size);
}

/* A string reference: 0 means none; others must be defined already. */
static int check_ref(struct dump_reader *r, uint32_t id, const char *what)
{
	if (id == 0 || dump_string(r, id))
		return 0;
	return dump_corrupt(r, "%s names string %u, which is not defined",
			    what, id);
}

static void free_process(struct dump_process *p)
{
	uint32_t i;

	for (i = 0; i < p->argc; i++)
		free(p->argv[i]);
	free(p->argv);
	free(p->host);
	free(p->exe);
	memset(p, 0, sizeof(*p));
}

/* A uint32_t length and its bytes, as a new string; NULL if cut short. */
static char *take_string(const uint8_t **pos, const uint8_t *end)
{
	uint32_t len;

	if (end - *pos < 4)
		return NULL;
	memcpy(&len, *pos, 4);
	*pos += 4;
	if (len > (size_t)(end - *pos))
		return NULL;
	*pos += len;
	return xmemdupz(*pos - len, len);
}

static int parse_process(struct dump_reader *r, struct dump_record *rec)
{
	const uint8_t *pos = r->buf + sizeof(struct gt_process);
	const uint8_t *end = r->buf + r->ch.size;
	struct dump_process *p = &r->proc;
	struct gt_process gp;
	uint32_t i;

	/* the host and executable names take 4 bytes or more each */
	if (need(r, sizeof(gp) + 8, "process") < 0)
		return -1;
	memcpy(&gp, r->buf, sizeof(gp));
	if (gp.argc > (size_t)(end - pos) / 4 - 2)
		return dump_corrupt(r, "process record has %u arguments in %u "
				    "bytes", gp.argc, r->ch.size);
	free_process(p);
	p->pid = gp.pid;
	p->ppid = gp.ppid;
	p->rank = gp.rank;
	p->argv = xcalloc(gp.argc, sizeof(*p->argv));
	p->host = take_string(&pos, end);
	p->exe = p->host ? take_string(&pos, end) : NULL;
	for (i = 0; p->exe && i < gp.argc; i++, p->argc++)
		if (!(p->argv[i] = take_string(&pos, end)))
			break;
	if (!p->exe || p->argc < gp.argc)
		return dump_corrupt(r, "process record: a string runs past "
				    "its end");
	rec->process = p;
	return 1;
}

static int parse_string(struct dump_reader *r, struct dump_record *rec)
{
	uint32_t id;
	char *text;

	if (need(r, sizeof(id), "string") < 0)
		return -1;
	memcpy(&id, r->buf, sizeof(id));
	if (id == 0)
		return dump_corrupt(r, "string id 0 is reserved");
	text = xmemdupz(r->buf + sizeof(id), r->ch.size - sizeof(id));
	rec->string.again = hmap_get_int(&r->strings, id) != NULL;
	free(hmap_get_int(&r->strings, id));
	hmap_put_int(&r->strings, id, text);
	rec->string.id = id;
	rec->string.text = text;
	return 1;
}

static void free_op(struct dump_op *op)
{
	if (!op)
		return;
	free(op->api);
	free(op->symbol);
	free(op);
}

static uint8_t api_is(const char *api)
{
	return (strstr(api, "Query") ? DUMP_API_QUERY : 0) |
	       (strstr(api, "Event") ? DUMP_API_EVENT : 0) |
	       (strstr(api, "Ctx") ? DUMP_API_CTX : 0) |
	       (!strcmp(api, "cuCtxSynchronize") ? DUMP_API_CTX_SYNC : 0) |
	       (!strcmp(api, "cuStreamSynchronize") ? DUMP_API_STREAM_SYNC : 0);
}

/* The op by its id, for the events that name it. */
static void index_op(struct dump_reader *r, struct dump_op *op)
{
	if (op->id >= r->nop_of) {
		size_t n = (size_t)op->id + 1 > 2 * r->nop_of ? (size_t)op->id + 1
							     : 2 * r->nop_of;

		r->op_of = xrealloc(r->op_of, n * sizeof(*r->op_of));
		memset(r->op_of + r->nop_of, 0, (n - r->nop_of) * sizeof(*r->op_of));
		r->nop_of = n;
	}
	r->op_of[op->id] = op;
}

static int parse_op(struct dump_reader *r, struct dump_record *rec)
{
	struct gt_op_info oi;
	struct dump_op *op;

	if (need(r, sizeof(oi), "op") < 0)
		return -1;
	memcpy(&oi, r->buf, sizeof(oi));
	if (check_ref(r, oi.api_str, "op") < 0 ||
	    check_ref(r, oi.symbol_str, "op") < 0)
		return -1;
	op = xcalloc(1, sizeof(*op));
	op->id = oi.op;
	op->kind = oi.kind;
	op->direction = oi.direction;
	op->flags = oi.flags;
	op->nargs = oi.nargs;
	op->api = oi.api_str ? xstrdup(dump_string(r, oi.api_str))
			     : xasprintf("<op %u>", oi.op);
	op->symbol = oi.symbol_str ? xstrdup(dump_string(r, oi.symbol_str))
				   : xstrdup(op->api);
	op->api_is = api_is(op->api);
	free_op(hmap_get_int(&r->ops, oi.op));
	hmap_put_int(&r->ops, oi.op, op);
	index_op(r, op);
	rec->op = op;
	return 1;
}

static int parse_function(struct dump_reader *r, struct dump_record *rec)
{
	if (need(r, sizeof(rec->function), "function") < 0)
		return -1;
	memcpy(&rec->function, r->buf, sizeof(rec->function));
	return check_ref(r, rec->function.name_str, "function") < 0 ? -1 : 1;
}

/*
 * Where the events of the chunk in hand stop being read without bound
 * checks: EVENT_MAX_BYTES before its end, or at its start if the event
 * numbers wrap within it (event_fast() only counts them up).
 */
static const uint8_t *fast_end(const struct dump_reader *r,
			       const struct gt_events_header *eh)
{
	if ((size_t)(r->ev_end - r->ev_pos) < EVENT_MAX_BYTES ||
	    (eh->first_seq & EVENT_NUMBER) + eh->count > EVENT_NUMBER + 1)
		return r->ev_pos;
	return r->ev_end - EVENT_MAX_BYTES + 1;
}

static int parse_events(struct dump_reader *r, struct dump_record *rec)
{
	struct gt_events_header eh;
	size_t packed;

	if (need(r, sizeof(eh), "events") < 0)
		return -1;
	memcpy(&eh, r->buf, sizeof(eh));
	packed = r->ch.size - sizeof(eh);
	if (eh.count > packed / EVENT_MIN_BYTES)
		return dump_corrupt(r, "events record claims %u events in %zu "
				    "bytes", eh.count, packed);
	if (eh.count == 0)
		return packed ? dump_corrupt(r, "%zu bytes after the last "
					     "event", packed) : 0;
	r->ev_pos = r->buf + sizeof(eh);
	r->ev_end = r->buf + r->ch.size;
	r->ev_left = r->ev_count = eh.count;
	r->ev_tid = eh.tid;
	r->ev_t0 = eh.base_ns;
	r->ev_id = (uint64_t)eh.buffer << 40 | (eh.first_seq & EVENT_NUMBER);
	r->ev_fast_end = fast_end(r, &eh);
	return dump_next_event(r, rec);
}

/* Copy a fixed-size payload into dst: 1, or -1 if it is too short. */
static int parse_fixed(struct dump_reader *r, void *dst, size_t n,
		       const char *what)
{
	if (need(r, n, what) < 0)
		return -1;
	memcpy(dst, r->buf, n);
	return 1;
}

static int parse_note(struct dump_reader *r, struct dump_record *rec)
{
	if (need(r, sizeof(uint32_t), "note") < 0)
		return -1;
	memcpy(&rec->note.level, r->buf, sizeof(uint32_t));
	free(r->note);
	r->note = xmemdupz(r->buf + 4, r->ch.size - 4);
	rec->note.text = r->note;
	return 1;
}

int dump_parse_chunk(struct dump_reader *r, struct dump_record *rec)
{
	rec->type = (enum dump_rec_type)r->ch.type;
	switch (r->ch.type) {
	case GT_CHUNK_PROCESS:
		return parse_process(r, rec);
	case GT_CHUNK_STRING:
		return parse_string(r, rec);
	case GT_CHUNK_OP:
		return parse_op(r, rec);
	case GT_CHUNK_FUNCTION:
		return parse_function(r, rec);
	case GT_CHUNK_SHAPE:
		return parse_fixed(r, &rec->shape, sizeof(rec->shape), "shape");
	case GT_CHUNK_STREAM:
		return parse_fixed(r, &rec->stream, sizeof(rec->stream),
				   "stream");
	case GT_CHUNK_EVENTS:
		return parse_events(r, rec);
	case GT_CHUNK_DROPS:
		return parse_fixed(r, &rec->drops, sizeof(rec->drops), "drops");
	case GT_CHUNK_END:
		r->seen_end = 1;
		return parse_fixed(r, &rec->end, sizeof(rec->end), "end");
	case GT_CHUNK_NOTE:
		return parse_note(r, rec);
	case GT_CHUNK_STACK:
		return dump_parse_stack(r, rec);
	case GT_CHUNK_MODULES:
		return dump_parse_modules(r, rec);
	case GT_CHUNK_NCCL_COMM:
		return dump_parse_nccl_comm(r, rec);
	case GT_CHUNK_NCCL_PROF:
		return dump_parse_nccl_prof(r, rec);
	case GT_CHUNK_NVTX:
		return dump_parse_nvtx(r, rec);
	case GT_CHUNK_SAMPLE:
	case GT_CHUNK_ENV:
		return dump_parse_info(r, rec);
	case GT_CHUNK_GPU:
		return dump_parse_gpu(r, rec);
	case GT_CHUNK_WINDOW:
		return dump_parse_window(r, rec);
	case GT_CHUNK_CLOCK:
		return dump_parse_clock(r, rec);
	case GT_CHUNK_STEPS:
		return dump_parse_steps(r, rec);
	case GT_CHUNK_SWITCH:
		return dump_parse_switch(r, rec);
	default:
		return 0;           /* a newer chunk type: skip it */
	}
}

static int get_varint(struct dump_reader *r, uint64_t *v)
{
	const uint8_t *q = r->ev_pos;
	uint32_t nth = r->ev_count - r->ev_left + 1;

	if (gt_varint_get(&r->ev_pos, r->ev_end, v) == 0)
		return 0;
	while (q < r->ev_end && (*q & 0x80))
		q++;
	if (q == r->ev_end)
		return dump_corrupt(r, "events record ends inside event %u of "
				    "%u", nth, r->ev_count);
	return dump_corrupt(r, "bad varint in event %u", nth);
}

static const struct dump_op *op_by_id(const struct dump_reader *r, uint64_t op)
{
	return op < r->nop_of ? r->op_of[op] : NULL;
}

/* The common fields; then the op must be known to unpack the rest. */
static int get_event_head(struct dump_reader *r, struct dump_event *ev)
{
	uint64_t op, dt0;

	if (get_varint(r, &op) < 0 || get_varint(r, &dt0) < 0 ||
	    get_varint(r, &ev->dur) < 0 || get_varint(r, &ev->result) < 0 ||
	    get_varint(r, &ev->stream) < 0)
		return -1;
	ev->op = op_by_id(r, op);
	if (!ev->op)
		return dump_corrupt(r, "event uses op %llu, which is not "
				    "defined", (unsigned long long)op);
	r->ev_t0 += (uint64_t)gt_unzigzag(dt0);
	ev->tid = r->ev_tid;
	ev->id = r->ev_id;
	r->ev_id = (ev->id & ~EVENT_NUMBER) | ((ev->id + 1) & EVENT_NUMBER);
	ev->t0 = r->ev_t0;
	ev->t1 = ev->t0 + ev->dur;
	return 0;
}

/* One event, checking each varint's bounds and saying what is wrong. */
static int event_checked(struct dump_reader *r, struct dump_event *ev)
{
	int i, nargs;

	memset(ev, 0, sizeof(*ev));
	if (get_event_head(r, ev) < 0)
		return -1;
	nargs = ev->op->nargs;
	for (i = 0; i < nargs; i++) {
		uint64_t v;

		if (get_varint(r, &v) < 0)
			return -1;
		if (i < GT_ARG_MAX)
			ev->arg[i] = v;     /* arguments past those we know: skip */
	}
	return 0;
}

/* One varint of at most nine bytes at p, no bound checked: the byte
 * after it, or NULL. */
static inline const uint8_t *varint9(const uint8_t *p, uint64_t *v)
{
	uint64_t x;

	if (!(p[0] & 0x80)) {
		*v = p[0];
		return p + 1;
	}
	x = p[0] & 0x7f;
	for (unsigned i = 1; i < 9; i++) {
		x |= (uint64_t)(p[i] & 0x7f) << (7 * i);
		if (!(p[i] & 0x80)) {
			*v = x;
			return p + i + 1;
		}
	}
	return NULL;
}

/*
 * The same, one or two bytes (most varints) directly.  No word-wise
 * decoding of longer ones: its masks would take registers that the fast
 * path then saves on every event.
 */
static inline const uint8_t *varint_fast(const uint8_t *p, uint64_t *v)
{
	if (!(p[0] & 0x80)) {
		*v = p[0];
		return p + 1;
	}
	if (!(p[1] & 0x80)) {       /* p[0] - 0x80: its low 7 bits */
		*v = p[0] - 0x80 + ((uint64_t)p[1] << 7);
		return p + 2;
	}
	return varint9(p, v);
}

/* Argument n - k of n, on entering at case n (a case of args_fast()). */
#define ARG_FAST(k)                                             \
	case k:                                                 \
		if (!(p = varint_fast(p, &arg[n - k])))         \
			return NULL;                            \
		__attribute__((fallthrough));

/* The n (at most GT_ARG_MAX: the caller checks) arguments of an event
 * at p, in straight lines: the byte after them, or NULL as varint_fast(). */
static inline const uint8_t *args_fast(const uint8_t *p, uint64_t *arg, int n)
{
	_Static_assert(GT_ARG_MAX == 8, "a case for each argument");
	switch (n) {
	ARG_FAST(8)
	ARG_FAST(7)
	ARG_FAST(6)
	ARG_FAST(5)
	ARG_FAST(4)
	ARG_FAST(3)
	ARG_FAST(2)
	ARG_FAST(1)
	case 0:
		return p;
	default:
		__builtin_unreachable();
	}
}

/*
 * One event far enough from the chunk's end that no varint needs a bound
 * check: 1, or 0 (nothing consumed) to read it with event_checked().
 */
static inline int event_fast(struct dump_reader *r, struct dump_event *ev)
{
	const uint8_t *p = r->ev_pos;
	uint64_t id;

	/* all in *ev, not in registers: the fast path then needs no more
	   than those a call may clobber, and saves none */
	if (p >= r->ev_fast_end || !(p = varint_fast(p, &id)) ||
	    !(ev->op = op_by_id(r, id)) || ev->op->nargs > GT_ARG_MAX)
		return 0;
	if (!(p = varint_fast(p, &ev->t0)) || !(p = varint_fast(p, &ev->dur)) ||
	    !(p = varint_fast(p, &ev->result)) ||
	    !(p = varint_fast(p, &ev->stream)))
		return 0;
	memset(ev->arg, 0, sizeof(ev->arg));
	if (!(p = args_fast(p, ev->arg, ev->op->nargs)))
		return 0;
	r->ev_pos = p;
	ev->t0 = r->ev_t0 += (uint64_t)gt_unzigzag(ev->t0);   /* was dt0 */
	ev->t1 = ev->t0 + ev->dur;
	ev->tid = r->ev_tid;
	ev->id = r->ev_id++;     /* fast_end(): no wrap in this chunk */
	return 1;
}

/* After an event: 1, or -1 if it was the chunk's last and bytes remain. */
static int event_done(struct dump_reader *r)
{
	if (--r->ev_left == 0 && r->ev_pos != r->ev_end)
		return dump_corrupt(r, "%zu bytes after the last event",
				    (size_t)(r->ev_end - r->ev_pos));
	return 1;
}

/* An event event_fast() left, out of the way of most events. */
static NOINLINE int event_slow(struct dump_reader *r, struct dump_record *rec)
{
	if (event_checked(r, &rec->event) < 0)
		return -1;
	return event_done(r);
}

int dump_next_event(struct dump_reader *r, struct dump_record *rec)
{
	rec->type = DUMP_EVENT;
	rec->offset = r->ch_off;
	if (!event_fast(r, &rec->event))
		return event_slow(r, rec);
	return event_done(r);
}

void dump_free_tables(struct dump_reader *r)
{
	size_t pos = 0;
	void *v;

	while ((v = hmap_next(&r->strings, &pos)))
		free(v);
	pos = 0;
	while ((v = hmap_next(&r->ops, &pos)))
		free_op(v);
	hmap_release(&r->strings);
	hmap_release(&r->ops);
	free(r->op_of);
	r->op_of = NULL;
	r->nop_of = 0;
	free_process(&r->proc);
	free(r->note);
	r->note = NULL;
}
