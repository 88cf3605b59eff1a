/* SPDX-License-Identifier: MIT */
/*
 * export_perfetto.c - --perfetto FILE: the timeline in Perfetto's own
 * protobuf format (ui.perfetto.dev, trace_processor), with the events of
 * the JSON trace: export_trace*.c decide what is written and call in
 * here.  The messages are those of analyzer/export/proto/perfetto_trace.proto,
 * a subset of Perfetto's published schema, packed by protobuf-c's code
 * generated at build time.  Packets are written as the dump is read;
 * only the tracks and the interned strings are kept.
 *
 * What makes the file small:
 * - each track (host thread, a thread's calls on one stream, GPU stream,
 *   NCCL communicator, counter, NVTX range) is a packet sequence of its
 *   own whose defaults name the track, so an event does not;
 * - times are deltas from the sequence's previous event (a clock of the
 *   sequence, Perfetto's incremental clock 64); a time that goes back is
 *   written whole, on the BOOTTIME clock, which is the file's;
 * - event names, categories, argument names and string values are
 *   interned: sent once per sequence, then referred to by number.
 * A slice is a begin and an end event: TrackEvent has no complete event.
 */
#include <stdlib.h>
#include <string.h>

#include "analyzer/export/export.h"
#include "analyzer/lib/util.h"

#ifndef HAVE_PROTOBUF_C

#include "analyzer/export/export_trace_internal.h"

struct pft *pft_new(struct xout *o)
{
	error_msg("this " PROG_NAME " was built without the Perfetto export: "
		  "install libprotobuf-c-dev and protobuf-c-compiler and run "
		  "make again");
	return NULL;
}

/* The rest is never called: no struct pft is ever made. */
void pft_free(struct pft *pf)
{
}

void pft_event(struct trace *t, enum pft_kind k, const struct pft_slice *e)
{
}

void pft_range(struct trace *t, enum pft_kind k, uint64_t range,
	       const struct pft_slice *e)
{
}

void pft_track_name(struct trace *t, uint64_t tid, const char *name, int sort)
{
}

void pft_process(struct trace *t, const char *name)
{
}

void pft_counter(struct trace *t, uint64_t host_ns, const char *name, double v)
{
}

void pft_reset(struct trace *t)
{
}

void pft_sample(struct trace *t, uint32_t tid, uint64_t host_ns,
		const struct pft_frame *f, size_t n)
{
}

#else

#include "analyzer/export/export_trace_internal.h"
#include "analyzer/lib/utf8.h"
#include "perfetto_trace.pb-c.h"

#define SEQ_CLOCK 64                /* the sequences' incremental clock */
#define BOOTTIME PERFETTO__PROTOS__CLOCK_SNAPSHOT__CLOCK__BUILTIN_CLOCKS__BOOTTIME

/* What is interned, each with its own numbers: the track events' names,
 * categories, argument names and values; the host samples' function
 * names, mapping paths, mappings, frames and callstacks. */
enum { IN_NAME, IN_CAT, IN_ANN, IN_STR, IN_FUNC, IN_PATH, IN_MAP, IN_FRAME,
       IN_STACK, IN_TYPES };

struct pft_istr {
	char *key;                  /* as asked for */
	char *s;                    /* as written: valid UTF-8 */
	uint64_t iid;
};

/* Which iids of a type a sequence was sent. */
struct pft_bits {
	uint8_t *b;
	size_t n;                   /* bytes */
};

struct pft_track {
	uint64_t uuid;
	uint32_t seq;
	uint64_t last;              /* the sequence's clock */
	char *key;                  /* counters: the name */
	struct pft_bits sent[IN_TYPES];
};

/* What the packet being built interns. */
struct pft_new_strings {
	Perfetto__Protos__EventName name[2], *pname[2];
	Perfetto__Protos__EventCategory cat[2], *pcat[2];
	Perfetto__Protos__DebugAnnotationName ann[PFT_MAX_ARGS], *pann[PFT_MAX_ARGS];
	Perfetto__Protos__InternedString str[PFT_MAX_ARGS], *pstr[PFT_MAX_ARGS];
	Perfetto__Protos__InternedData data;
};

struct pft {
	struct xout *o;
	struct hmap intern[IN_TYPES];   /* text -> struct pft_istr */
	uint64_t niid[IN_TYPES];
	uint64_t uuids;
	uint32_t seqs;
	struct pft_new_strings in;
	/* per dump */
	struct pft_track *process;
	struct pft_track *samples;  /* the host samples' sequence */
	struct hmap tracks;         /* JSON tid -> track */
	struct hmap streams;        /* tid << 32 | stream -> track */
	struct hmap counters;       /* name -> track */
	struct hmap ranges;         /* NVTX range id -> track */
};

struct pft *pft_new(struct xout *o)
{
	struct pft *pf = xcalloc(1, sizeof(*pf));

	pf->o = o;
	perfetto__protos__interned_data__init(&pf->in.data);
	return pf;
}

/* A packet as a Trace of one packet: concatenated, they are the Trace. */
static void put(struct pft *pf, Perfetto__Protos__TracePacket *p)
{
	Perfetto__Protos__Trace tr = PERFETTO__PROTOS__TRACE__INIT;
	uint8_t buf[4096], *out = buf;
	size_t n;

	tr.n_packet = 1;
	tr.packet = &p;
	n = protobuf_c_message_get_packed_size(&tr.base);
	if (n > sizeof(buf))
		out = xmalloc(n);
	protobuf_c_message_pack(&tr.base, out);
	xo_write(pf->o, (const char *)out, n);
	if (out != buf)
		free(out);
}

static int bit_test_set(struct pft_bits *b, uint64_t i)
{
	size_t byte = (size_t)(i >> 3), n;
	uint8_t m = (uint8_t)(1u << (i & 7));

	if (byte >= b->n) {
		n = b->n ? b->n : 16;
		while (n <= byte)
			n *= 2;
		b->b = xrealloc(b->b, n);
		memset(b->b + b->n, 0, n - b->n);
		b->n = n;
	}
	if (b->b[byte] & m)
		return 1;
	b->b[byte] |= m;
	return 0;
}

/* One interned entry into the packet's InternedData (list, n). */
#define NEW_ENTRY(type, init, arr, parr, list, n, iid_, s_) do {	\
	arr[n] = (type)init;						\
	arr[n].has_iid = 1;						\
	arr[n].iid = iid_;						\
	arr[n].name = (char *)(s_);					\
	parr[n] = &arr[n];						\
	list = parr;							\
	n++;								\
} while (0)

static void add_new(struct pft_new_strings *in, int type, const char *s,
		    uint64_t iid)
{
	Perfetto__Protos__InternedData *d = &in->data;
	Perfetto__Protos__InternedString *is;

	switch (type) {
	case IN_NAME:
		NEW_ENTRY(Perfetto__Protos__EventName, PERFETTO__PROTOS__EVENT_NAME__INIT,
			  in->name, in->pname, d->event_names, d->n_event_names, iid, s);
		break;
	case IN_CAT:
		NEW_ENTRY(Perfetto__Protos__EventCategory, PERFETTO__PROTOS__EVENT_CATEGORY__INIT,
			  in->cat, in->pcat, d->event_categories, d->n_event_categories,
			  iid, s);
		break;
	case IN_ANN:
		NEW_ENTRY(Perfetto__Protos__DebugAnnotationName,
			  PERFETTO__PROTOS__DEBUG_ANNOTATION_NAME__INIT, in->ann, in->pann,
			  d->debug_annotation_names, d->n_debug_annotation_names, iid, s);
		break;
	default:
		is = &in->str[d->n_debug_annotation_string_values];
		*is = (Perfetto__Protos__InternedString)PERFETTO__PROTOS__INTERNED_STRING__INIT;
		is->has_iid = is->has_str = 1;
		is->iid = iid;
		is->str = (ProtobufCBinaryData){ strlen(s), (uint8_t *)s };
		in->pstr[d->n_debug_annotation_string_values++] = is;
		d->debug_annotation_string_values = in->pstr;
		break;
	}
}

/* The entry of s (its iid, its text as written); *fresh: tk's sequence
 * was not sent it yet (it is counted as sent now). */
static const struct pft_istr *intern_entry(struct pft *pf, struct pft_track *tk,
					   int type, const char *s, int *fresh)
{
	struct pft_istr *e = hmap_get_str(&pf->intern[type], s);

	if (!e) {
		e = xmalloc(sizeof(*e));
		e->key = xstrdup(s);
		e->s = utf8_copy(s);
		e->iid = ++pf->niid[type];
		hmap_put_str(&pf->intern[type], e->key, e);
	}
	*fresh = !bit_test_set(&tk->sent[type], e->iid);
	return e;
}

/* The iid of s on tk's sequence, sent with the next packet if new there. */
static uint64_t intern(struct pft *pf, struct pft_track *tk, int type,
		       const char *s)
{
	int fresh;
	const struct pft_istr *e = intern_entry(pf, tk, type, s, &fresh);

	if (fresh)
		add_new(&pf->in, type, e->s, e->iid);
	return e->iid;
}

static void on_sequence(Perfetto__Protos__TracePacket *p,
			const struct pft_track *tk)
{
	p->optional_trusted_packet_sequence_id_case =
		PERFETTO__PROTOS__TRACE_PACKET__OPTIONAL_TRUSTED_PACKET_SEQUENCE_ID_TRUSTED_PACKET_SEQUENCE_ID;
	p->trusted_packet_sequence_id = tk->seq;
}

static void put_descriptor(struct pft *pf, const struct pft_track *tk,
			   Perfetto__Protos__TrackDescriptor *td)
{
	Perfetto__Protos__TracePacket p = PERFETTO__PROTOS__TRACE_PACKET__INIT;

	on_sequence(&p, tk);
	td->has_uuid = 1;
	td->uuid = tk->uuid;
	p.data_case = PERFETTO__PROTOS__TRACE_PACKET__DATA_TRACK_DESCRIPTOR;
	p.track_descriptor = td;
	put(pf, &p);
}

/* The sequence's start: its defaults (the track, the clock) and the
 * clock, at 0 where BOOTTIME is 0. */
static void start_sequence(struct pft *pf, const struct pft_track *tk)
{
	Perfetto__Protos__TracePacket p = PERFETTO__PROTOS__TRACE_PACKET__INIT;
	Perfetto__Protos__TracePacketDefaults def =
		PERFETTO__PROTOS__TRACE_PACKET_DEFAULTS__INIT;
	Perfetto__Protos__TrackEventDefaults ted =
		PERFETTO__PROTOS__TRACK_EVENT_DEFAULTS__INIT;
	Perfetto__Protos__ClockSnapshot snap = PERFETTO__PROTOS__CLOCK_SNAPSHOT__INIT;
	Perfetto__Protos__ClockSnapshot__Clock c[2] = {
		PERFETTO__PROTOS__CLOCK_SNAPSHOT__CLOCK__INIT,
		PERFETTO__PROTOS__CLOCK_SNAPSHOT__CLOCK__INIT,
	}, *pc[2] = { &c[0], &c[1] };

	on_sequence(&p, tk);
	p.has_first_packet_on_sequence = p.first_packet_on_sequence = 1;
	p.has_sequence_flags = 1;
	p.sequence_flags = PERFETTO__PROTOS__TRACE_PACKET__SEQUENCE_FLAGS__SEQ_INCREMENTAL_STATE_CLEARED;
	ted.has_track_uuid = 1;
	ted.track_uuid = tk->uuid;
	def.has_timestamp_clock_id = 1;
	def.timestamp_clock_id = SEQ_CLOCK;
	def.track_event_defaults = &ted;
	p.trace_packet_defaults = &def;
	c[0].has_clock_id = c[0].has_timestamp = 1;
	c[0].clock_id = BOOTTIME;
	c[1].has_clock_id = c[1].has_timestamp = c[1].has_is_incremental = 1;
	c[1].clock_id = SEQ_CLOCK;
	c[1].is_incremental = 1;
	snap.n_clocks = 2;
	snap.clocks = pc;
	p.data_case = PERFETTO__PROTOS__TRACE_PACKET__DATA_CLOCK_SNAPSHOT;
	p.clock_snapshot = &snap;
	put(pf, &p);
}

/* A new track described by td, with a sequence of its own. */
static struct pft_track *new_track(struct pft *pf,
				   Perfetto__Protos__TrackDescriptor *td)
{
	struct pft_track *tk = xcalloc(1, sizeof(*tk));

	tk->uuid = ++pf->uuids;
	tk->seq = ++pf->seqs;
	start_sequence(pf, tk);
	put_descriptor(pf, tk, td);
	return tk;
}

static void set_name(Perfetto__Protos__TrackDescriptor *td, char *name)
{
	td->static_or_dynamic_name_case =
		PERFETTO__PROTOS__TRACK_DESCRIPTOR__STATIC_OR_DYNAMIC_NAME_NAME;
	td->name = name;
}

static void process_descriptor(struct trace *t, const char *name)
{
	Perfetto__Protos__TrackDescriptor td = PERFETTO__PROTOS__TRACK_DESCRIPTOR__INIT;
	Perfetto__Protos__ProcessDescriptor pd = PERFETTO__PROTOS__PROCESS_DESCRIPTOR__INIT;
	char *s = name ? utf8_copy(name) : NULL;

	pd.has_pid = 1;
	pd.pid = (int32_t)t->d->trace_pid;
	pd.process_name = s;
	td.process = &pd;
	td.has_sibling_order_rank = 1;
	td.sibling_order_rank = (int32_t)t->d->index;
	if (t->pf->process)
		put_descriptor(t->pf, t->pf->process, &td);
	else
		t->pf->process = new_track(t->pf, &td);
	free(s);
}

static struct pft_track *process_track(struct trace *t)
{
	if (!t->pf->process)
		process_descriptor(t, NULL);
	return t->pf->process;
}

/* A host thread's track (tid below the GPU tracks' numbers), or a track
 * of the process; named again if it was. */
void pft_track_name(struct trace *t, uint64_t tid, const char *name, int sort)
{
	Perfetto__Protos__TrackDescriptor td = PERFETTO__PROTOS__TRACK_DESCRIPTOR__INIT;
	Perfetto__Protos__ThreadDescriptor th = PERFETTO__PROTOS__THREAD_DESCRIPTOR__INIT;
	struct pft_track *tk = hmap_get_int(&t->pf->tracks, tid);
	char *s = utf8_copy(name);

	if (tid < TRACE_GPU_TID - 1) {
		th.has_pid = th.has_tid = 1;
		th.pid = (int32_t)t->d->trace_pid;
		th.tid = (int64_t)tid;
		th.thread_name = s;
		td.thread = &th;
	} else {
		td.has_parent_uuid = 1;
		td.parent_uuid = process_track(t)->uuid;
		set_name(&td, s);
	}
	if (sort >= 0) {
		td.has_sibling_order_rank = 1;
		td.sibling_order_rank = sort;
	}
	if (tk)
		put_descriptor(t->pf, tk, &td);
	else
		hmap_put_int(&t->pf->tracks, tid, new_track(t->pf, &td));
	free(s);
}

static struct pft_track *track(struct trace *t, uint64_t tid)
{
	struct pft_track *tk = hmap_get_int(&t->pf->tracks, tid);
	char name[32];

	if (!tk) {
		snprintf(name, sizeof(name), "thread %llu", (unsigned long long)tid);
		pft_track_name(t, tid, name, -1);
		tk = hmap_get_int(&t->pf->tracks, tid);
	}
	return tk;
}

/* The child track of a host thread for its calls on one stream. */
static struct pft_track *stream_track(struct trace *t, uint64_t tid,
				      uint32_t stream)
{
	uint64_t key = tid << 32 | stream;
	struct pft_track *tk = hmap_get_int(&t->pf->streams, key);
	Perfetto__Protos__TrackDescriptor td = PERFETTO__PROTOS__TRACK_DESCRIPTOR__INIT;
	char name[32];

	if (tk)
		return tk;
	snprintf(name, sizeof(name), "stream %u", stream);
	td.has_parent_uuid = 1;
	td.parent_uuid = track(t, tid)->uuid;
	set_name(&td, name);
	td.has_sibling_order_rank = 1;
	td.sibling_order_rank = (int32_t)(stream & INT32_MAX);
	tk = new_track(t->pf, &td);
	hmap_put_int(&t->pf->streams, key, tk);
	return tk;
}

void pft_process(struct trace *t, const char *name)
{
	process_descriptor(t, name);
}

/* Write te on tk's sequence at ts, with what it interned. */
static void put_event(struct pft *pf, struct pft_track *tk, uint64_t ts,
		      Perfetto__Protos__TrackEvent *te)
{
	Perfetto__Protos__TracePacket p = PERFETTO__PROTOS__TRACE_PACKET__INIT;
	Perfetto__Protos__InternedData *d = &pf->in.data;

	on_sequence(&p, tk);
	p.has_timestamp = 1;
	if (ts >= tk->last) {
		p.timestamp = ts - tk->last;
		tk->last = ts;
	} else {
		p.timestamp = ts;
		p.has_timestamp_clock_id = 1;
		p.timestamp_clock_id = BOOTTIME;
	}
	if (d->n_event_names || d->n_event_categories ||
	    d->n_debug_annotation_names || d->n_debug_annotation_string_values)
		p.interned_data = d;
	p.data_case = PERFETTO__PROTOS__TRACE_PACKET__DATA_TRACK_EVENT;
	p.track_event = te;
	put(pf, &p);
	perfetto__protos__interned_data__init(d);
}

static void annotate(struct pft *pf, struct pft_track *tk,
		     const struct pft_arg *a, Perfetto__Protos__DebugAnnotation *da)
{
	perfetto__protos__debug_annotation__init(da);
	da->name_field_case = PERFETTO__PROTOS__DEBUG_ANNOTATION__NAME_FIELD_NAME_IID;
	da->name_iid = intern(pf, tk, IN_ANN, a->key);
	switch (a->type) {
	case PFT_U64:
		da->value_case = PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_UINT_VALUE;
		da->uint_value = a->u;
		break;
	case PFT_I64:
		da->value_case = PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_INT_VALUE;
		da->int_value = a->i;
		break;
	case PFT_BOOL:
		da->value_case = PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_BOOL_VALUE;
		da->bool_value = 1;
		break;
	case PFT_DBL:
		da->value_case = PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_DOUBLE_VALUE;
		da->double_value = a->d;
		break;
	default:
		da->value_case = PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_STRING_VALUE_IID;
		da->string_value_iid = intern(pf, tk, IN_STR, a->s ? a->s : "");
		break;
	}
}

/* A flow's id: the host event's, apart per dump. */
static uint64_t flow_id(const struct trace *t, uint64_t host_id)
{
	return (uint64_t)(t->d->index + 1) << 48 ^ host_id;
}

/* The begin (or instant) of e on tk. */
static void begin(struct trace *t, struct pft_track *tk, int type,
		  const struct pft_slice *e)
{
	Perfetto__Protos__TrackEvent te = PERFETTO__PROTOS__TRACK_EVENT__INIT;
	Perfetto__Protos__DebugAnnotation da[PFT_MAX_ARGS], *pda[PFT_MAX_ARGS];
	uint64_t cat, out, in;

	te.has_type = 1;
	te.type = type;
	te.name_field_case = PERFETTO__PROTOS__TRACK_EVENT__NAME_FIELD_NAME_IID;
	te.name_iid = intern(t->pf, tk, IN_NAME, e->name ? e->name : "");
	if (e->cat) {
		cat = intern(t->pf, tk, IN_CAT, e->cat);
		te.n_category_iids = 1;
		te.category_iids = &cat;
	}
	for (size_t i = 0; i < e->nargs; i++) {
		annotate(t->pf, tk, &e->arg[i], &da[i]);
		pda[i] = &da[i];
	}
	te.n_debug_annotations = e->nargs;
	te.debug_annotations = pda;
	if (e->flow_out) {
		out = flow_id(t, e->flow_out);
		te.n_flow_ids = 1;
		te.flow_ids = &out;
	}
	if (e->flow_in) {
		in = flow_id(t, e->flow_in);
		te.n_terminating_flow_ids = 1;
		te.terminating_flow_ids = &in;
	}
	put_event(t->pf, tk, trace_ts(t, e->t0), &te);
}

static void end(struct trace *t, struct pft_track *tk, uint64_t host_ns)
{
	Perfetto__Protos__TrackEvent te = PERFETTO__PROTOS__TRACK_EVENT__INIT;

	te.has_type = 1;
	te.type = PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_END;
	put_event(t->pf, tk, trace_ts(t, host_ns), &te);
}

static void on_track(struct trace *t, struct pft_track *tk, enum pft_kind k,
		     const struct pft_slice *e)
{
	switch (k) {
	case PFT_SLICE:
		begin(t, tk, PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_BEGIN, e);
		end(t, tk, e->t0 + e->dur);
		break;
	case PFT_BEGIN:
		begin(t, tk, PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_BEGIN, e);
		break;
	case PFT_END:
		end(t, tk, e->t0);
		break;
	case PFT_INSTANT:
		begin(t, tk, PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_INSTANT, e);
		break;
	}
}

void pft_event(struct trace *t, enum pft_kind k, const struct pft_slice *e)
{
	on_track(t, e->stream ? stream_track(t, e->tid, e->stream)
			      : track(t, e->tid), k, e);
}

static void free_track(void *p)
{
	struct pft_track *tk = p;

	for (int i = 0; i < IN_TYPES; i++)
		free(tk->sent[i].b);
	free(tk->key);
	free(tk);
}

/* NVTX ranges started and ended (maybe on other threads): a track each,
 * under the process, named after the range. */
void pft_range(struct trace *t, enum pft_kind k, uint64_t range,
	       const struct pft_slice *e)
{
	Perfetto__Protos__TrackDescriptor td = PERFETTO__PROTOS__TRACK_DESCRIPTOR__INIT;
	struct pft_track *tk = hmap_get_int(&t->pf->ranges, range);
	char *s;

	if (k == PFT_END) {
		if (!tk)
			return;
		on_track(t, tk, k, e);
		hmap_put_int(&t->pf->ranges, range, NULL);
		free_track(tk);
		return;
	}
	if (tk)
		return;                 /* started twice: the first counts */
	s = utf8_copy(e->name ? e->name : "");
	td.has_parent_uuid = 1;
	td.parent_uuid = process_track(t)->uuid;
	set_name(&td, s);
	tk = new_track(t->pf, &td);
	hmap_put_int(&t->pf->ranges, range, tk);
	on_track(t, tk, k, e);
	free(s);
}

void pft_counter(struct trace *t, uint64_t host_ns, const char *name, double v)
{
	Perfetto__Protos__TrackDescriptor td = PERFETTO__PROTOS__TRACK_DESCRIPTOR__INIT;
	Perfetto__Protos__CounterDescriptor cd = PERFETTO__PROTOS__COUNTER_DESCRIPTOR__INIT;
	Perfetto__Protos__TrackEvent te = PERFETTO__PROTOS__TRACK_EVENT__INIT;
	struct pft_track *tk = hmap_get_str(&t->pf->counters, name);
	char *s;

	if (!tk) {
		s = utf8_copy(name);
		td.has_parent_uuid = 1;
		td.parent_uuid = process_track(t)->uuid;
		set_name(&td, s);
		td.counter = &cd;
		tk = new_track(t->pf, &td);
		tk->key = xstrdup(name);
		hmap_put_str(&t->pf->counters, tk->key, tk);
		free(s);
	}
	te.has_type = 1;
	te.type = PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_COUNTER;
	te.counter_value_field_case =
		PERFETTO__PROTOS__TRACK_EVENT__COUNTER_VALUE_FIELD_DOUBLE_COUNTER_VALUE;
	te.double_counter_value = v;
	put_event(t->pf, tk, trace_ts(t, host_ns), &te);
}

static void free_tracks(struct hmap *h)
{
	size_t pos = 0;
	void *v;

	while ((v = hmap_next(h, &pos)))
		free_track(v);
	hmap_release(h);
	hmap_init(h);
}

void pft_reset(struct trace *t)
{
	struct pft *pf = t->pf;

	if (pf->samples)
		free_track(pf->samples);
	pf->samples = NULL;
	free_tracks(&pf->tracks);
	free_tracks(&pf->streams);
	free_tracks(&pf->counters);
	free_tracks(&pf->ranges);
	if (pf->process)
		free_track(pf->process);
	pf->process = NULL;
}

void pft_free(struct pft *pf)
{
	struct pft_istr *e;
	size_t pos;

	if (!pf)
		return;
	for (int i = 0; i < IN_TYPES; i++) {
		pos = 0;
		while ((e = hmap_next(&pf->intern[i], &pos))) {
			free(e->key);
			free(e->s);
			free(e);
		}
		hmap_release(&pf->intern[i]);
	}
	free(pf);
}

/* ---- host samples: PerfSample packets, their callstacks interned -------- */

/* What one sample's packet interns, made as it goes. */
struct pft_stack_new {
	Perfetto__Protos__InternedData d;
	Perfetto__Protos__InternedString *str;      /* functions, then paths */
	Perfetto__Protos__InternedString **pfunc, **ppath;
	Perfetto__Protos__Mapping *map, **pmap;
	Perfetto__Protos__Frame *frame, **pframe;
	Perfetto__Protos__Callstack stack, *pstack;
	size_t nstr;
};

static void new_string(struct pft_stack_new *in, Perfetto__Protos__InternedString ***list,
		       size_t *n, const struct pft_istr *e)
{
	Perfetto__Protos__InternedString *is = &in->str[in->nstr++];

	perfetto__protos__interned_string__init(is);
	is->has_iid = is->has_str = 1;
	is->iid = e->iid;
	is->str = (ProtobufCBinaryData){ strlen(e->s), (uint8_t *)e->s };
	(*list)[(*n)++] = is;
}

/* The mapping named name (a module, "python"), interned with its path. */
static uint64_t sample_mapping(struct pft *pf, struct pft_stack_new *in,
			       const char *name, uint64_t *path_iid)
{
	int fresh;
	const struct pft_istr *p = intern_entry(pf, pf->samples, IN_PATH, name, &fresh);
	const struct pft_istr *m;
	Perfetto__Protos__Mapping *pm;

	*path_iid = p->iid;
	if (fresh)
		new_string(in, &in->ppath, &in->d.n_mapping_paths, p);
	m = intern_entry(pf, pf->samples, IN_MAP, name, &fresh);
	if (!fresh)
		return m->iid;
	pm = &in->map[in->d.n_mappings];
	perfetto__protos__mapping__init(pm);
	pm->has_iid = 1;
	pm->iid = m->iid;
	pm->n_path_string_ids = 1;
	pm->path_string_ids = path_iid;
	in->pmap[in->d.n_mappings++] = pm;
	return m->iid;
}

/* A frame: its function in its mapping. */
static uint64_t sample_frame(struct pft *pf, struct pft_stack_new *in,
			     const struct pft_frame *f, uint64_t *path_iid)
{
	uint64_t map = sample_mapping(pf, in, f->mapping, path_iid);
	const struct pft_istr *fn, *fr;
	Perfetto__Protos__Frame *pf_;
	char key[48];
	int fresh;

	fn = intern_entry(pf, pf->samples, IN_FUNC, f->name, &fresh);
	if (fresh)
		new_string(in, &in->pfunc, &in->d.n_function_names, fn);
	snprintf(key, sizeof(key), "%llu:%llu", (unsigned long long)map,
		 (unsigned long long)fn->iid);
	fr = intern_entry(pf, pf->samples, IN_FRAME, key, &fresh);
	if (!fresh)
		return fr->iid;
	pf_ = &in->frame[in->d.n_frames];
	perfetto__protos__frame__init(pf_);
	pf_->has_iid = pf_->has_function_name_id = pf_->has_mapping_id = 1;
	pf_->has_rel_pc = 1;
	pf_->iid = fr->iid;
	pf_->function_name_id = fn->iid;
	pf_->mapping_id = map;
	in->pframe[in->d.n_frames++] = pf_;
	return fr->iid;
}

/* The callstack of frames f[0..n) (root first), interned into in. */
static uint64_t sample_stack(struct pft *pf, struct pft_stack_new *in,
			     const struct pft_frame *f, size_t n,
			     uint64_t *ids, uint64_t *paths)
{
	char *key = xcalloc(n + 1, 24), *at = key;
	const struct pft_istr *e;
	int fresh;

	for (size_t i = 0; i < n; i++) {
		ids[i] = sample_frame(pf, in, &f[i], &paths[i]);
		at += sprintf(at, "%llu,", (unsigned long long)ids[i]);
	}
	e = intern_entry(pf, pf->samples, IN_STACK, key, &fresh);
	free(key);
	if (fresh) {
		perfetto__protos__callstack__init(&in->stack);
		in->stack.has_iid = 1;
		in->stack.iid = e->iid;
		in->stack.n_frame_ids = n;
		in->stack.frame_ids = ids;
		in->pstack = &in->stack;
		in->d.n_callstacks = 1;
		in->d.callstacks = &in->pstack;
	}
	return e->iid;
}

static void stack_new_init(struct pft_stack_new *in, size_t n)
{
	memset(in, 0, sizeof(*in));
	perfetto__protos__interned_data__init(&in->d);
	in->str = xcalloc(2 * n + 1, sizeof(*in->str));
	in->pfunc = in->d.function_names = xcalloc(n + 1, sizeof(*in->pfunc));
	in->ppath = in->d.mapping_paths = xcalloc(n + 1, sizeof(*in->ppath));
	in->map = xcalloc(n + 1, sizeof(*in->map));
	in->pmap = in->d.mappings = xcalloc(n + 1, sizeof(*in->pmap));
	in->frame = xcalloc(n + 1, sizeof(*in->frame));
	in->pframe = in->d.frames = xcalloc(n + 1, sizeof(*in->pframe));
}

static void stack_new_free(struct pft_stack_new *in)
{
	free(in->str);
	free(in->pfunc);
	free(in->ppath);
	free(in->map);
	free(in->pmap);
	free(in->frame);
	free(in->pframe);
}

/* The samples' sequence of the dump: its first packet clears the
 * interned state; the samples' times are on BOOTTIME, as written. */
static Perfetto__Protos__TracePacket sample_packet(struct pft *pf)
{
	Perfetto__Protos__TracePacket p = PERFETTO__PROTOS__TRACE_PACKET__INIT;

	if (!pf->samples) {
		pf->samples = xcalloc(1, sizeof(*pf->samples));
		pf->samples->seq = ++pf->seqs;
		p.has_first_packet_on_sequence = p.first_packet_on_sequence = 1;
		p.has_sequence_flags = 1;
		p.sequence_flags = PERFETTO__PROTOS__TRACE_PACKET__SEQUENCE_FLAGS__SEQ_INCREMENTAL_STATE_CLEARED;
	}
	on_sequence(&p, pf->samples);
	return p;
}

void pft_sample(struct trace *t, uint32_t tid, uint64_t host_ns,
		const struct pft_frame *f, size_t n)
{
	struct pft *pf = t->pf;
	Perfetto__Protos__TracePacket p = sample_packet(pf);
	Perfetto__Protos__PerfSample ps = PERFETTO__PROTOS__PERF_SAMPLE__INIT;
	uint64_t *ids = xcalloc(n + 1, sizeof(*ids));
	uint64_t *paths = xcalloc(n + 1, sizeof(*paths));
	struct pft_stack_new in;

	stack_new_init(&in, n);
	ps.has_pid = ps.has_tid = ps.has_callstack_iid = 1;
	ps.pid = t->d->trace_pid;
	ps.tid = tid;
	ps.callstack_iid = sample_stack(pf, &in, f, n, ids, paths);
	p.has_timestamp = p.has_timestamp_clock_id = 1;
	p.timestamp = trace_ts(t, host_ns);
	p.timestamp_clock_id = BOOTTIME;
	if (in.d.n_function_names || in.d.n_mapping_paths || in.d.n_mappings ||
	    in.d.n_frames || in.d.n_callstacks)
		p.interned_data = &in.d;
	p.data_case = PERFETTO__PROTOS__TRACE_PACKET__DATA_PERF_SAMPLE;
	p.perf_sample = &ps;
	put(pf, &p);
	stack_new_free(&in);
	free(ids);
	free(paths);
}

#endif /* HAVE_PROTOBUF_C */

/* Arguments of an event, in order. */
static struct pft_arg *arg(struct pft_slice *e, const char *key)
{
	struct pft_arg *a = &e->arg[e->nargs < PFT_MAX_ARGS ? e->nargs++
							    : PFT_MAX_ARGS - 1];

	a->key = key;
	return a;
}

void pft_u64(struct pft_slice *e, const char *key, uint64_t v)
{
	struct pft_arg *a = arg(e, key);

	a->type = PFT_U64;
	a->u = v;
}

void pft_i64(struct pft_slice *e, const char *key, int64_t v)
{
	struct pft_arg *a = arg(e, key);

	a->type = PFT_I64;
	a->i = v;
}

void pft_str(struct pft_slice *e, const char *key, const char *s)
{
	struct pft_arg *a = arg(e, key);

	a->type = PFT_STR;
	a->s = s;
}

void pft_bool(struct pft_slice *e, const char *key)
{
	arg(e, key)->type = PFT_BOOL;
}
