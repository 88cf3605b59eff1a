/* SPDX-License-Identifier: MIT */
/*
 * dump_reader.h - a streaming reader of gputrace dumps (format.h).
 *
 * It reads one chunk at a time and hands out one record at a time; events
 * come out decoded, one per record, with their thread and absolute times.
 * Memory grows with the strings and ops the dump defines, never with its
 * events.  Everything is checked: a record comes out only when the bytes it
 * came from are valid, and references to strings and ops must point to
 * earlier definitions.  Usage:
 *
 *	struct dump_reader *r;
 *	struct dump_record rec;
 *
 *	if (dump_open(&r, path) < 0)
 *		... dump_error(r) ...
 *	while ((rc = dump_next(r, &rec)) > 0)
 *		... rec.type ...
 *	if (rc < 0)
 *		... dump_error(r) ...
 *	dump_close(r);
 */
#ifndef GPUTRACE_ANALYZER_DUMP_READER_H
#define GPUTRACE_ANALYZER_DUMP_READER_H

#include <stdint.h>

#include "gputrace/format.h"

struct dump_reader;

/* Record types: the chunk types, except that DUMP_EVENT is one event. */
enum dump_rec_type {
	DUMP_PROCESS = GT_CHUNK_PROCESS,
	DUMP_STRING = GT_CHUNK_STRING,
	DUMP_OP = GT_CHUNK_OP,
	DUMP_FUNCTION = GT_CHUNK_FUNCTION,
	DUMP_SHAPE = GT_CHUNK_SHAPE,
	DUMP_STREAM = GT_CHUNK_STREAM,
	DUMP_EVENT = GT_CHUNK_EVENTS,
	DUMP_DROPS = GT_CHUNK_DROPS,
	DUMP_END = GT_CHUNK_END,
	DUMP_NOTE = GT_CHUNK_NOTE,
	DUMP_STACK = GT_CHUNK_STACK,
	DUMP_MODULES = GT_CHUNK_MODULES,
	DUMP_NCCL_COMM = GT_CHUNK_NCCL_COMM,
	DUMP_NCCL_PROF = GT_CHUNK_NCCL_PROF,
	DUMP_NVTX = GT_CHUNK_NVTX,
	DUMP_SAMPLE = GT_CHUNK_SAMPLE,
	DUMP_ENV = GT_CHUNK_ENV,
	DUMP_GPU = GT_CHUNK_GPU,
	DUMP_WINDOW = GT_CHUNK_WINDOW,
	DUMP_CLOCK = GT_CHUNK_CLOCK,
	DUMP_STEPS = GT_CHUNK_STEPS,
	DUMP_SWITCH = GT_CHUNK_SWITCH,
};

struct dump_process {
	uint32_t pid;
	uint32_t ppid;
	uint32_t rank;
	uint32_t argc;
	char *host;
	char *exe;
	char **argv;                /* argc strings */
};

struct dump_op {
	uint16_t id;
	uint8_t kind;               /* enum gt_kind */
	uint8_t direction;          /* enum gt_direction */
	uint32_t flags;             /* GT_OPF_* */
	uint8_t nargs;              /* per-kind varints of its events */
	uint8_t api_is;             /* DUMP_API_*: what its name says */
	char *api;                  /* "<op N>" when the dump names none */
	char *symbol;               /* the api name when the dump names none */
};

/* What an op's api name holds, found once per op rather than per event. */
enum {
	DUMP_API_QUERY = 1,         /* "Query" in it */
	DUMP_API_EVENT = 2,         /* "Event" */
	DUMP_API_CTX = 4,           /* "Ctx" */
	DUMP_API_CTX_SYNC = 8,      /* it is cuCtxSynchronize */
	DUMP_API_STREAM_SYNC = 16,  /* it is cuStreamSynchronize */
};

struct dump_event {
	uint32_t tid;
	uint64_t id;                /* buffer << 40 | number: the event's name in
	                               GPU records' correlation (format.h) */
	const struct dump_op *op;
	uint64_t t0;                /* absolute, clock of the header */
	uint64_t t1;                /* t0 + dur */
	uint64_t dur;
	uint64_t result;            /* the CUresult */
	uint64_t stream;            /* stream id, 0 = NULL stream or none */
	uint64_t arg[GT_ARG_MAX];   /* GT_ARG_<KIND>_<ARG> (format.h) */
};

/*
 * One record.  Pointers in it stay valid until the next dump_next() (ops
 * and the process until the reader is closed).
 */
struct dump_record {
	enum dump_rec_type type;
	uint64_t offset;            /* of its chunk in the file */
	union {
		const struct dump_process *process;
		struct {
			uint32_t id;
			int again;          /* the id had a string before */
			const char *text;
		} string;
		const struct dump_op *op;
		struct gt_function function;
		struct gt_shape shape;
		struct gt_stream stream;
		struct dump_event event;
		struct gt_drops drops;
		struct gt_end end;
		struct {
			uint32_t level;
			const char *text;
		} note;
		struct {
			uint32_t id;
			uint16_t native;    /* return addresses at pcs */
			uint16_t python;    /* struct gt_pyframe at frames */
			const void *pcs;    /* maybe unaligned: memcpy each */
			const void *frames;
		} stack;
		struct {
			const void *mods;   /* count struct gt_module, maybe
			                       unaligned: memcpy each out */
			uint32_t count;
		} modules;
		struct gt_nccl_comm nccl_comm;
		struct {
			const void *recs;   /* count struct gt_nccl_prof, maybe
			                       unaligned: memcpy each out */
			uint32_t count;
			uint32_t size;      /* bytes of one (>= sizeof) */
		} nccl_prof;
		struct gt_nvtx_def nvtx;
		struct {
			struct gt_info_header h;
			const void *items;  /* h.count items, checked; read
			                       them with env_item_next() */
			uint32_t size;      /* bytes at items */
		} info;                 /* DUMP_ENV, DUMP_SAMPLE */
		struct {
			struct gt_gpu_header h;
			const void *recs;   /* h.count records of h.rec_size
			                       bytes (>= the kind's struct),
			                       maybe unaligned: memcpy each */
		} gpu;
		struct gt_gpu_window window;
		struct gt_clock_pair clock;
		struct {
			struct gt_steps_header h;
			const uint8_t *deltas;  /* h.count - 1 varints, checked */
			const uint8_t *end;
		} steps;                /* read with dump_steps_next() */
		struct gt_gpu_switch gswitch;
	};
};

/*
 * Open path and check its file header.  *rp is always set and must be
 * closed.  Returns 0, or -1 with dump_error() telling why.
 */
int dump_open(struct dump_reader **rp, const char *path);
/* The next record: 1, 0 at the end of the dump, -1 with dump_error(). */
int dump_next(struct dump_reader *r, struct dump_record *rec);
void dump_close(struct dump_reader *r);
/* Drop the rest of the events chunk in hand, unread. */
void dump_skip_events(struct dump_reader *r);
/*
 * From now on, ask skip(ctx, offset, chunk type) at each chunk's header:
 * when it says so, the chunk is passed over, its payload neither read nor
 * checked (a second read that wants a few chunks of a dump read whole
 * before).  Offsets asked only grow.
 */
typedef int (*dump_skip_fn)(void *ctx, uint64_t offset, uint32_t type);
void dump_skip_chunks(struct dump_reader *r, dump_skip_fn skip, void *ctx);

/* The message of the last failure, ready to print after "prog: ". */
const char *dump_error(const struct dump_reader *r);
const struct gt_file_header *dump_header(const struct dump_reader *r);
/* After the end: whether the dump stopped without a GT_CHUNK_END. */
int dump_ends_early(const struct dump_reader *r);
/*
 * Why a dump ends early, as far as it shows: the library stops writing on
 * a failed write (a full disk, said on the program's stderr) as it stops
 * when the program is killed, and neither leaves a mark in the dump.
 */
#define DUMP_ENDS_EARLY_WHY "the program did not finish tracing, or its disk filled"
/*
 * The boundaries of a DUMP_STEPS record one by one: start with *pos NULL
 * and prev 0, then pass back what it returned; rec->steps.h.count calls.
 */
uint64_t dump_steps_next(const struct dump_record *rec, const uint8_t **pos,
			 uint64_t prev);

/* The text of a string the dump has defined so far, or NULL. */
const char *dump_string(const struct dump_reader *r, uint32_t id);

#endif /* GPUTRACE_ANALYZER_DUMP_READER_H */
