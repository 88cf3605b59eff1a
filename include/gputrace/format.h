/* SPDX-License-Identifier: MIT */
/*
 * format.h - the gputrace dump format, shared by the recorder (preload/)
 * and the reader (analyzer/).
 *
 * A dump is a fixed file header followed by chunks.  Every chunk starts with
 * a {type, size} header; size counts the payload bytes that follow.  A reader
 * skips chunk types it does not know, so new chunk types do not need a new
 * format version.  All integers are little-endian, fixed width, with explicit
 * padding; there are no bit-fields.
 *
 * Events are packed in GT_CHUNK_EVENTS as LEB128 varints (see varint.h):
 *
 *   op         varint   index into the op table (GT_CHUNK_OP)
 *   dt0        varint   zigzag(t0 - previous t0); the first is relative to
 *                       the chunk's base_ns
 *   dur        varint   t1 - t0: host time spent inside the call
 *   result     varint   the CUresult the call returned
 *   stream     varint   stream id (GT_CHUNK_STREAM), 0 = the NULL stream or
 *                       an op without a stream
 *   then the op's nargs (gt_op_info) varints, by the op's kind:
 *     GT_KIND_LAUNCH     shape (GT_CHUNK_SHAPE id)
 *     GT_KIND_GRAPH      handle (the CUgraphExec)
 *     GT_KIND_COPY       bytes, src, dst, count, memory (GT_MEM_* and
 *                        GT_COPYF_*), stack (GT_CHUNK_STACK id, 0 = none)
 *     GT_KIND_SET        bytes, dst
 *     GT_KIND_SYNC       handle (event, stream or context), stack
 *     GT_KIND_HOSTALLOC  bytes, host pointer, flags, stack
 *     GT_KIND_NCCL       see GT_NCCL_ARGS
 *   A reader reads nargs varints whatever the kind, so it can skip kinds
 *   it does not know; arguments a newer writer appends are ignored by an
 *   older reader, and missing trailing ones read as 0.
 *
 * Chunks refer only to ids defined by earlier chunks; string id 0 means
 * none.  GT_CHUNK_END, when present, is the last chunk.
 * Times are nanoseconds of the clock named in the header (CLOCK_MONOTONIC).
 * A dump without a GT_CHUNK_END ends early: the program died before the
 * library could finish it.  Everything before the last whole chunk is valid.
 */
#ifndef GPUTRACE_FORMAT_H
#define GPUTRACE_FORMAT_H

#include <stdint.h>

#define GT_MAGIC "GPUTRACE"          /* 8 bytes, no terminator in the file */
#define GT_FORMAT_VERSION 1
#define GT_FORMAT_MIN_READER 1
#define GT_ENDIAN_MARK 0x01020304u
#define GT_CHUNK_MAX (16u << 20)     /* a reader rejects larger chunks */

enum gt_clock {
	GT_CLOCK_MONOTONIC = 1,
};

struct gt_file_header {
	char magic[8];
	uint16_t version;           /* GT_FORMAT_VERSION of the writer */
	uint16_t min_reader;        /* oldest reader version that can read it */
	uint32_t header_size;       /* sizeof(struct gt_file_header) */
	uint32_t endian;            /* GT_ENDIAN_MARK */
	uint32_t clock_id;          /* enum gt_clock */
	uint64_t start_ns;          /* clock at library start */
	uint64_t start_realtime_ns; /* CLOCK_REALTIME at the same moment */
	uint32_t pid;
	uint32_t reserved[5];
};                                  /* 64 bytes */

struct gt_chunk_header {
	uint32_t type;              /* enum gt_chunk_type */
	uint32_t size;              /* payload bytes after this header */
};

enum gt_chunk_type {
	GT_CHUNK_PROCESS = 1,  /* struct gt_process, then argc + 2 strings,
	                          each a uint32_t length and its bytes:
	                          hostname, executable, argv[0..argc-1] */
	GT_CHUNK_STRING = 2,   /* uint32_t id, then the bytes (no NUL) */
	GT_CHUNK_OP = 3,       /* struct gt_op_info */
	GT_CHUNK_FUNCTION = 4, /* struct gt_function */
	GT_CHUNK_SHAPE = 5,    /* struct gt_shape */
	GT_CHUNK_STREAM = 6,   /* struct gt_stream */
	GT_CHUNK_EVENTS = 7,   /* struct gt_events_header, then packed events */
	GT_CHUNK_DROPS = 8,    /* struct gt_drops */
	GT_CHUNK_END = 9,      /* struct gt_end */
	GT_CHUNK_NOTE = 10,    /* uint32_t level, then the text (no NUL) */
	/* numbers kept for parts being added; readers skip them until then */
	GT_CHUNK_STACK = 11,   /* a call stack (issue: call sites) */
	GT_CHUNK_MODULES = 12, /* loaded modules, to symbolize stacks */
	GT_CHUNK_GPU = 13,     /* CUPTI activity records */
	GT_CHUNK_NVTX = 14,    /* NVTX ranges and marks */
	GT_CHUNK_SAMPLE = 15,  /* NVML and /proc samples */
	GT_CHUNK_ENV = 16,     /* machine and software at start */
	GT_CHUNK_NCCL_COMM = 17, /* an NCCL communicator */
	GT_CHUNK_WINDOW = 18,  /* a span with GPU timing */
	GT_CHUNK_CLOCK = 19,   /* GPU/host clock pairs */
};

struct gt_process {
	uint32_t pid;
	uint32_t ppid;
	uint32_t rank;              /* RANK, OMPI_COMM_WORLD_RANK, SLURM_PROCID */
	uint32_t argc;              /* argv strings that follow the two names */
};

/* What an intercepted call does; decides how its events are packed. */
enum gt_kind {
	GT_KIND_LAUNCH = 1,    /* kernel launch */
	GT_KIND_GRAPH = 2,     /* CUDA graph launch */
	GT_KIND_COPY = 3,      /* cuMemcpy* */
	GT_KIND_SET = 4,       /* cuMemset* */
	GT_KIND_SYNC = 5,      /* host waits or queries */
	GT_KIND_HOSTALLOC = 6, /* pinned host memory: allocate, register, free */
	GT_KIND_NCCL = 7,      /* NCCL collectives, p2p, groups, communicators */
};

/* Host memory behind a copy (GT_KIND_COPY memory argument, low 4 bits). */
enum gt_memory {
	GT_MEM_UNKNOWN = 0,
	GT_MEM_PAGEABLE = 1,
	GT_MEM_PINNED = 2,
	GT_MEM_DEVICE = 3,      /* device to device: no host side */
	GT_MEM_MANAGED = 4,
};
#define GT_MEM_MASK 0xfu
#define GT_COPYF_STAGED (1u << 4)      /* async copy of pageable memory: the
                                          driver stages it, the host waits */
#define GT_COPYF_SYNC_PINNED (1u << 5) /* synchronous copy of pinned memory:
                                          the host waits needlessly */

enum gt_direction {
	GT_DIR_NONE = 0,
	GT_DIR_HTOD = 1,
	GT_DIR_DTOH = 2,
	GT_DIR_DTOD = 3,
	GT_DIR_HTOH = 4,
	GT_DIR_PTOP = 5,
	GT_DIR_OTHER = 6,      /* generic (unified addressing), batch, 2D/3D
	                          copies whose kinds are not known at the call */
};

#define GT_OPF_ASYNC (1u << 0)      /* stream-ordered: the call may return
                                       before the work is done */
#define GT_OPF_PTSZ (1u << 1)       /* per-thread default stream variant */

struct gt_op_info {
	uint16_t op;                /* the id events use */
	uint8_t kind;               /* enum gt_kind */
	uint8_t direction;          /* enum gt_direction, copies only */
	uint16_t flags;             /* GT_OPF_* */
	uint8_t nargs;              /* per-kind varints after the common five */
	uint8_t reserved;
	uint32_t api_str;           /* base name users know: cuMemcpyHtoDAsync */
	uint32_t symbol_str;        /* driver symbol: cuMemcpyHtoDAsync_v2_ptsz */
};

struct gt_function {
	uint32_t id;
	uint32_t name_str;          /* raw (mangled) symbol; 0 = unknown */
	uint64_t handle;            /* the CUfunction */
};

struct gt_shape {
	uint32_t id;
	uint32_t function;          /* gt_function id */
	uint32_t grid[3];
	uint32_t block[3];
	uint32_t shared_mem;        /* dynamic shared memory bytes */
	uint32_t reserved;
};

struct gt_stream {
	uint32_t id;                /* >= 1; 0 is the NULL stream */
	uint32_t reserved;
	uint64_t handle;
};

struct gt_events_header {
	uint32_t tid;
	uint32_t count;             /* events packed after this header */
	uint64_t base_ns;
	uint32_t buffer;            /* the recording buffer (one per thread) */
	uint32_t reserved;
	uint64_t first_seq;         /* the first event's number in its buffer;
	                               the next ones follow without gaps, so
	                               (buffer << 40 | seq) names an event, as in
	                               GPU records' external correlation ids */
};

struct gt_drops {
	uint32_t tid;               /* 0: threads that never got a buffer */
	uint32_t reserved;
	uint64_t count;             /* events lost since the last report */
};

struct gt_end {
	uint64_t end_ns;
	uint64_t events;            /* events written in the whole dump */
	uint64_t dropped;           /* events lost in the whole run */
};

#endif /* GPUTRACE_FORMAT_H */
