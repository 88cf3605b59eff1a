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
 *   then the op's nargs (gt_op_info) varints, by the op's kind: the
 *   arguments GT_ARGS_<KIND> declares, in that order (below, at enum
 *   gt_kind).  NVTX events: the op's direction field says which call
 *   (enum gt_nvtx_op), dur is 0 and result is the nesting level a push or
 *   pop returned.
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
	uint32_t reserved1;
	uint64_t run_id;            /* GPUTRACE_RUN_ID: the gputrace command's
	                               run that started it, 0 = none */
	uint32_t reserved[2];
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
	GT_CHUNK_STACK = 11,   /* struct gt_stack, its frames (see below) */
	GT_CHUNK_MODULES = 12, /* loaded objects, to symbolize stacks */
	GT_CHUNK_GPU = 13,     /* CUPTI activity records */
	GT_CHUNK_NVTX = 14,    /* struct gt_nvtx_def: NVTX domain names */
	GT_CHUNK_SAMPLE = 15,  /* NVML and /proc samples (gt_info_header) */
	GT_CHUNK_ENV = 16,     /* machine and software (gt_info_header) */
	GT_CHUNK_NCCL_COMM = 17, /* struct gt_nccl_comm (see below) */
	GT_CHUNK_WINDOW = 18,  /* a span with GPU timing */
	GT_CHUNK_CLOCK = 19,   /* GPU/host clock pairs */
	GT_CHUNK_NCCL_PROF = 20, /* NCCL profiler plugin records (below) */
	GT_CHUNK_STEPS = 21,   /* training steps the library found (below) */
	GT_CHUNK_SWITCH = 22,  /* a GPU window's CUPTI switching (below) */
};

struct gt_process {
	uint32_t pid;
	uint32_t ppid;
	uint32_t rank;              /* as %r of GPUTRACE_OUTPUT (settings.md) */
	uint32_t argc;              /* argv strings that follow the two names */
};

/*
 * The event kinds and their arguments: the one declaration that the
 * writer's encoder (preload/record/writer.c), the reader's argument indices
 * (GT_ARG_<KIND>_<ARG>, and GT_ARG_<KIND>_N of them), the layout checks
 * below and docs/format.md's table (test/tools/event_docs.c) are made from.
 *
 *   GT_EVENT_KINDS(X)   X(KIND, value, what an intercepted call does)
 *   GT_ARGS_<KIND>(X)   X(KIND, ARG, what the argument holds), in the
 *                       order the varints are packed
 *
 * A kind only ever gains arguments at its end (older readers ignore them).
 */
#define GT_EVENT_KINDS(X)                                                    \
	X(LAUNCH, 1, "kernel launch")                                        \
	X(GRAPH, 2, "CUDA graph launch")                                     \
	X(COPY, 3, "cuMemcpy*")                                              \
	X(SET, 4, "cuMemset*")                                               \
	X(SYNC, 5, "host waits or queries")                                  \
	X(HOSTALLOC, 6, "pinned host memory: allocate, register, free")      \
	X(NCCL, 7, "NCCL collectives, p2p, groups, communicators")           \
	X(NVTX, 8, "NVTX ranges, marks and names (injection)")               \
	X(HOSTSAMPLE, 9, "host stack samples (GPUTRACE_HOST_HZ)")             \
	X(MODULE, 10, "code unloaded: cuModuleUnload, cuLibraryUnload")

#define GT_ARGS_LAUNCH(X)                                                    \
	X(LAUNCH, SHAPE, "GT_CHUNK_SHAPE id")                                \
	X(LAUNCH, ARGS, "hash of the first arguments, 1-127; 0 = not known")
#define GT_ARGS_GRAPH(X)                                                     \
	X(GRAPH, HANDLE, "the CUgraphExec")
#define GT_ARGS_COPY(X)                                                      \
	X(COPY, BYTES, "bytes copied")                                       \
	X(COPY, SRC, "source address")                                       \
	X(COPY, DST, "destination address")                                  \
	X(COPY, COUNT, "copies the call made (batched copies: more than 1)")  \
	X(COPY, MEMORY, "GT_MEM_* of the host memory, or-ed with GT_COPYF_*") \
	X(COPY, STACK, "GT_CHUNK_STACK id, 0 = none")
#define GT_ARGS_SET(X)                                                       \
	X(SET, BYTES, "bytes set")                                           \
	X(SET, DST, "destination address")
#define GT_ARGS_SYNC(X)                                                      \
	X(SYNC, HANDLE, "the event, stream or context waited for")           \
	X(SYNC, STACK, "GT_CHUNK_STACK id, 0 = none")
#define GT_ARGS_HOSTALLOC(X)                                                 \
	X(HOSTALLOC, BYTES, "bytes")                                         \
	X(HOSTALLOC, PTR, "the host pointer")                                \
	X(HOSTALLOC, FLAGS, "the call's flags")                             \
	X(HOSTALLOC, STACK, "GT_CHUNK_STACK id, 0 = none")
/*
 * NCCL: COUNT is the call's element count (ncclAllGather: sendcount,
 * ncclReduceScatter: recvcount); set-up calls: ranks of the new
 * communicator (ncclCommInitAll: communicators made); ncclGroupEnd closing
 * the outermost group: the NCCL calls the thread made inside the group.
 * BYTES: count x the datatype's size, the bytes this rank passes in its
 * count argument (ncclAllGather: the bytes each rank sends).  COMM: set-up
 * calls: the communicator made; 0 = none (groups) or not known.  PEER:
 * set-up calls: this rank + 1.
 */
#define GT_ARGS_NCCL(X)                                                      \
	X(NCCL, COUNT, "the call's element count")                           \
	X(NCCL, BYTES, "count x the datatype's size")                        \
	X(NCCL, COMM, "GT_CHUNK_NCCL_COMM id, 0 = none")                     \
	X(NCCL, PEER, "root (rooted collectives) or peer (p2p) + 1, 0 = none") \
	X(NCCL, DTYPE, "ncclDataType_t + 1, 0 = none")                       \
	X(NCCL, REDOP, "ncclRedOp_t + 1, 0 = none")                          \
	X(NCCL, STACK, "GT_CHUNK_STACK id, 0 = none")
#define GT_ARGS_NVTX(X)                                                      \
	X(NVTX, MSG, "the message's string id, 0 = none")                    \
	X(NVTX, DOMAIN, "GT_CHUNK_NVTX id, 0 = the default domain")          \
	X(NVTX, RANGE, "nvtxRangeStart's id, else 0")                        \
	X(NVTX, CATEGORY, "the category")
/*
 * Host stack samples (GT_KIND_HOSTSAMPLE): a thread's timer ticked while
 * the thread was outside every traced call.  t0 is the tick's time; dur
 * the thread's CPU time in ns that the sample stands for (the timer's
 * period times the expirations it covers with the CPU clock; with the
 * wall clock, the CPU time since the thread's previous tick); result the
 * sampler's own time in ns, from the tick's start in the handler to the
 * record's commit (0: not measured; the kernel's signal delivery is not
 * in it); stream is 0.  Ticks that found the thread inside a traced call are not
 * samples (that time is the call's): INCALL counts them.
 */
#define GT_ARGS_HOSTSAMPLE(X)                                                \
	X(HOSTSAMPLE, STACK, "GT_CHUNK_STACK id, 0 = none")                  \
	X(HOSTSAMPLE, STATE, "enum gt_host_state")                           \
	X(HOSTSAMPLE, INCALL, "ticks since the previous sample that found the thread inside a traced call")

#define GT_ARGS_MODULE(X)                                                    \
	X(MODULE, HANDLE, "the CUmodule or CUlibrary unloaded")

#define GT_ARG_MAX 8                /* arguments a kind may have */

#ifdef __cplusplus
#define GT_STATIC_ASSERT static_assert
#else
#define GT_STATIC_ASSERT _Static_assert
#endif

/* What an intercepted call does; decides how its events are packed. */
#define GT_KIND_ENUM_(k, v, what) GT_KIND_##k = v,
enum gt_kind { GT_EVENT_KINDS(GT_KIND_ENUM_) };
#undef GT_KIND_ENUM_

/* enum gt_args_<KIND>: GT_ARG_<KIND>_<ARG>, then GT_ARG_<KIND>_N. */
#define GT_ARG_ENUM_(k, a, what) GT_ARG_##k##_##a,
#define GT_ARG_ENUMS_(k, v, what)                                            \
	enum gt_args_##k { GT_ARGS_##k(GT_ARG_ENUM_) GT_ARG_##k##_N };       \
	GT_STATIC_ASSERT(GT_ARG_##k##_N <= GT_ARG_MAX, #k ": too many arguments");
GT_EVENT_KINDS(GT_ARG_ENUMS_)
#undef GT_ARG_ENUMS_
#undef GT_ARG_ENUM_

/* Where kinds share an argument's place, readers may rely on it. */
GT_STATIC_ASSERT((int)GT_ARG_COPY_BYTES == (int)GT_ARG_SET_BYTES &&
		 (int)GT_ARG_COPY_BYTES == (int)GT_ARG_HOSTALLOC_BYTES,
		 "bytes come first");
GT_STATIC_ASSERT((int)GT_ARG_GRAPH_HANDLE == (int)GT_ARG_SYNC_HANDLE,
		 "handles come first");

/* What a host sample's thread was doing (GT_ARG_HOSTSAMPLE_STATE). */
enum gt_host_state {
	GT_HOST_RUNNING = 1,        /* on the CPU (always, with the CPU clock) */
	GT_HOST_WAITING = 2,        /* wall clock: the thread's CPU time grew by
	                               less than half the period since its
	                               previous tick */
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
#define GT_OPF_RELEASE (1u << 2)    /* host memory ops: frees or unregisters */

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
	uint32_t grid[3];           /* all 0 (block and shared_mem too): the
	                               kernel's shapes past the writer's table */
	uint32_t block[3];
	uint32_t shared_mem;        /* dynamic shared memory bytes */
	uint32_t reserved;
};

struct gt_stream {
	uint32_t id;                /* >= 1; 0 is the NULL stream */
	uint32_t reserved;
	uint64_t handle;            /* UINT64_MAX: the streams past the
	                               writer's table, together */
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

/*
 * GT_CHUNK_STACK: one distinct call stack, written once, before the first
 * event that names it.  struct gt_stack, then `native` uint64_t return
 * addresses (innermost first; the caller of the traced function first),
 * then `python` struct gt_pyframe (innermost first).  A stack named by
 * host samples (GT_KIND_HOSTSAMPLE) only starts with the address of the
 * interrupted instruction itself, not a return address; its native
 * frames number at most GPUTRACE_HOST_NATIVE.  Call sites and samples
 * share the ids: a stack named by both kinds has one id.
 */
struct gt_stack {
	uint32_t id;                /* >= 1; events say 0 for no stack */
	uint16_t native;
	uint16_t python;
};

struct gt_pyframe {
	uint32_t file_str;          /* the code's file name */
	uint32_t func_str;          /* its qualified name: Trainer.step */
	uint32_t line;              /* the line being run, 0 = unknown */
	uint32_t reserved;
};

/*
 * GT_CHUNK_MODULES: objects loaded in the process, to turn return
 * addresses into (file, offset) offline.  uint32_t count, uint32_t
 * reserved, then count struct gt_module.  Each chunk adds the objects
 * that appeared since the previous one; a later module over the same
 * addresses replaces an earlier one for the stacks that follow it.
 */
struct gt_module {
	uint64_t base;              /* load bias: address - ELF virtual address */
	uint64_t start;             /* lowest address of its PT_LOAD segments */
	uint64_t size;              /* bytes from start to the end of the last */
	uint32_t path_str;          /* file name as loaded, 0 = unknown */
	uint8_t build_id_len;       /* bytes of build_id used, 0 = none */
	uint8_t reserved[3];
	uint8_t build_id[32];       /* NT_GNU_BUILD_ID, usually 20 bytes */
};                                  /* 64 bytes */

/* How a communicator came to be (gt_nccl_comm.how). */
enum gt_nccl_how {
	GT_NCCL_SEEN = 0,       /* first seen in a call; made untraced */
	GT_NCCL_INIT_RANK = 1,  /* ncclCommInitRank */
	GT_NCCL_INIT_CONFIG = 2, /* ncclCommInitRankConfig */
	GT_NCCL_INIT_ALL = 3,   /* ncclCommInitAll */
	GT_NCCL_SPLIT = 4,      /* ncclCommSplit */
	GT_NCCL_PLUGIN = 5,     /* known only to the profiler plugin */
};

/*
 * GT_CHUNK_NCCL_COMM: a communicator, written when it is made (or first
 * seen).  A later chunk with the same id adds what the earlier one did
 * not know (fields left 0, or -1 for the signed ones).
 */
struct gt_nccl_comm {
	uint32_t id;                /* >= 1: what events' comm argument names */
	uint32_t parent;            /* ncclCommSplit: the comm split; 0 none */
	int32_t rank;               /* this process's rank in it, -1 unknown */
	int32_t nranks;             /* its size, 0 unknown */
	int32_t device;             /* CUDA device ordinal, -1 unknown */
	int32_t color;              /* ncclCommSplit color, else -1 */
	uint64_t handle;            /* the ncclComm_t */
	uint64_t uid_hash;          /* FNV-1a 64 of the ncclUniqueId: equal in
	                               every rank's dump; 0 unknown */
	uint64_t nccl_hash;         /* NCCL's own commHash (profiler plugin);
	                               equal in every rank's dump; 0 unknown */
	uint64_t t_ns;              /* when it was made */
	uint32_t nccl_version;      /* ncclGetVersion(), 0 unknown */
	uint32_t name_str;          /* the commName NCCL reports, 0 none */
	uint32_t how;               /* enum gt_nccl_how */
	uint32_t plugin;            /* profiler plugin version serving it */
};                                  /* 72 bytes */

/*
 * GT_CHUNK_NCCL_PROF: what NCCL's profiler plugin interface said about
 * collectives and point-to-point operations, once each was done.
 * struct gt_nccl_prof_header, then count struct gt_nccl_prof.  Host times
 * are of the header's clock; GPU times are the GPU's globaltimer, so only
 * their differences mean something here.
 */
struct gt_nccl_prof_header {
	uint32_t count;
	uint32_t size;              /* bytes of each record, >= 80: a newer
	                               writer may append fields */
};

enum gt_nccl_prof_type {
	GT_NCCL_PROF_COLL = 1,
	GT_NCCL_PROF_P2P = 2,
};

struct gt_nccl_prof {
	uint64_t start_ns;          /* NCCL began enqueueing it */
	uint64_t stop_ns;           /* it was enqueued */
	uint64_t gpu_start;         /* globaltimer: the first channel began */
	uint64_t gpu_stop;          /* the last channel ended; 0 = no GPU times */
	uint64_t count;             /* elements, as NCCL's descriptor says */
	uint64_t seq;               /* NCCL's per-communicator number */
	uint32_t comm;              /* GT_CHUNK_NCCL_COMM id, 0 unknown */
	int32_t peer;               /* root or peer, -1 none */
	uint32_t func_str;          /* "AllReduce", "Send"... */
	uint32_t dtype_str;         /* "ncclFloat32"... */
	uint32_t algo_str;          /* "Ring", "Tree"..., 0 none */
	uint32_t proto_str;         /* "Simple", "LL"..., 0 none */
	uint8_t type;               /* enum gt_nccl_prof_type */
	uint8_t channels;           /* channels NCCL used */
	uint8_t channels_timed;     /* of those, the ones with GPU times */
	uint8_t reserved[5];
};                                  /* 80 bytes */

/*
 * NVTX (GT_KIND_NVTX events).  The op's direction field says which call
 * an event is.  A range pushed on a thread ends at the next pop of the
 * same domain on that thread; a started range ends at the end carrying
 * its range id, on any thread.
 */
enum gt_nvtx_op {
	GT_NVTX_PUSH = 1,           /* nvtxRangePush*, nvtxDomainRangePushEx */
	GT_NVTX_POP = 2,
	GT_NVTX_START = 3,          /* nvtxRangeStart*: range = its id */
	GT_NVTX_END = 4,
	GT_NVTX_MARK = 5,
	GT_NVTX_NAME_CATEGORY = 6,  /* message names category (in domain) */
	GT_NVTX_NAME_THREAD = 7,    /* message names OS thread `category` */
};

/* GT_CHUNK_NVTX: a name that NVTX events refer to by id. */
struct gt_nvtx_def {
	uint32_t what;              /* GT_NVTX_DEF_DOMAIN */
	uint32_t id;                /* what the events carry, >= 1 */
	uint32_t name_str;
	uint32_t reserved;
};

#define GT_NVTX_DEF_DOMAIN 1        /* nvtxDomainCreate */

/*
 * GT_CHUNK_ENV (the machine and software, once per dump, in parts as they
 * become known) and GT_CHUNK_SAMPLE (one per device and one for the host
 * at each sampling tick): struct gt_info_header, then `count` items, each
 * a struct gt_info_item followed by `len` bytes (a string, no NUL).  A
 * reader skips keys it does not know.  A fact that could not be had is
 * still written, with its status saying why.  Later ENV items replace
 * earlier ones of the same scope and key; repeatable keys add up.
 */
struct gt_info_header {
	uint64_t time_ns;           /* when it was measured */
	uint32_t scope;             /* GT_SCOPE_* or an NVML device index */
	uint32_t count;             /* items that follow */
};

#define GT_SCOPE_HOST 0xffffffffu   /* the machine and this process */
#define GT_SCOPE_CUDA 0x40000000u   /* | ordinal: a device as CUDA sees it */
				    /* below 0x40000000: NVML device index */

struct gt_info_item {
	uint16_t key;               /* enum gt_env_key or enum gt_sample_key */
	uint16_t status;            /* enum gt_info_status */
	uint32_t len;               /* bytes of text after the item */
	int64_t value;              /* the number, or the error code */
};

enum gt_info_status {
	GT_INFO_OK = 0,
	GT_INFO_NOT_SUPPORTED = 1,  /* this device or driver does not say */
	GT_INFO_NO_PERMISSION = 2,
	GT_INFO_FAILED = 3,         /* value: the NVML or CUDA error code */
	GT_INFO_MISSING = 4,        /* no library (or function) to ask */
};

enum gt_env_key {
	/* GT_SCOPE_HOST */
	GT_ENV_NVML = 1,            /* NVML devices (MISSING: no libnvidia-ml) */
	GT_ENV_DRIVER_RELEASE = 2,  /* text: "580.95.05" */
	GT_ENV_DRIVER_VERSION = 3,  /* CUDA driver API version: 13000 */
	GT_ENV_RUNTIME_VERSION = 4, /* the program's cudart: 13000 */
	GT_ENV_CUPTI_VERSION = 5,   /* cuptiGetVersion, when CUPTI is loaded */
	GT_ENV_CPU_CORES = 6,       /* online CPUs of the machine */
	GT_ENV_CPU_AFFINITY = 7,    /* CPUs this process may run on; text:
	                               the list, "0-15,32-47" */
	GT_ENV_CPU_QUOTA = 8,       /* cgroup CPU limit in thousandths of a
	                               CPU (NOT_SUPPORTED: no limit) */
	GT_ENV_HOST_MEMORY = 9,     /* bytes */
	GT_ENV_CUDA_DEVICES = 10,   /* devices CUDA shows the program */
	GT_ENV_SAMPLE_MS = 11,      /* GPUTRACE_SAMPLE_MS, 0 = no samples */
	GT_ENV_SETTINGS = 12,       /* how many of the variables that change
	                               CUDA's, NCCL's or the math libraries'
	                               behaviour were set at start (see
	                               GT_ENV_SETTING); written even when 0,
	                               so its presence says they were read */
	GT_ENV_SETTING = 13,        /* repeatable: one such variable, text
	                               "NAME=value" (cut at 255 bytes),
	                               value 0.  The variables:
	                               CUDA_LAUNCH_BLOCKING,
	                               CUDA_MODULE_LOADING,
	                               CUDA_DEVICE_MAX_CONNECTIONS,
	                               CUDA_VISIBLE_DEVICES,
	                               OMP_NUM_THREADS, MKL_NUM_THREADS
	                               and every NCCL_*; one not set has
	                               no item */
	/* a device: GT_SCOPE_CUDA | ordinal, or an NVML index */
	GT_ENV_NAME = 32,           /* text */
	GT_ENV_UUID = 33,           /* text (NVML) */
	GT_ENV_PCI = 34,            /* domain << 16 | bus << 8 | device;
	                               NVML: text, the bus id */
	GT_ENV_MEMORY = 35,         /* bytes */
	GT_ENV_CC = 36,             /* compute capability, major * 10 + minor */
	GT_ENV_SM_COUNT = 37,       /* multiprocessors (CUDA) */
	GT_ENV_PCIE_GEN = 38,       /* link generation now */
	GT_ENV_PCIE_GEN_MAX = 39,
	GT_ENV_PCIE_WIDTH = 40,     /* lanes now */
	GT_ENV_PCIE_WIDTH_MAX = 41,
	GT_ENV_NVLINK_ACTIVE = 42,  /* NVLink links up */
	GT_ENV_TOPOLOGY = 43,       /* repeatable: other NVML index << 32 |
	                               common ancestor (NVML topology level:
	                               0 same board, 10 one PCIe switch, 20
	                               several, 30 host bridge, 40 NUMA
	                               node, 50 across sockets) */
	GT_ENV_ECC = 44,            /* 1 on, 0 off */
	GT_ENV_PERSISTENCE = 45,    /* 1 on, 0 off */
	GT_ENV_COMPUTE_MODE = 46,   /* 0 default, 2 exclusive process, ... */
	GT_ENV_SM_CLOCK_MAX = 47,   /* MHz */
	GT_ENV_MEM_CLOCK_MAX = 48,  /* MHz */
	GT_ENV_POWER_LIMIT = 49,    /* milliwatts */
	GT_ENV_MIG = 50,            /* MIG mode, 1 on */
};

enum gt_sample_key {
	/* an NVML device index */
	GT_SAMPLE_UTIL_GPU = 1,     /* % of time a kernel ran (nvidia-smi) */
	GT_SAMPLE_UTIL_MEM = 2,     /* % of time memory was read or written */
	GT_SAMPLE_CLOCK_SM = 3,     /* MHz */
	GT_SAMPLE_CLOCK_MEM = 4,    /* MHz */
	GT_SAMPLE_CLOCK_REASONS = 5, /* why clocks are held down: NVML's
	                               nvmlClocksEventReason* bits */
	GT_SAMPLE_TEMP = 6,         /* degrees C */
	GT_SAMPLE_POWER = 7,        /* milliwatts */
	GT_SAMPLE_MEM_USED = 8,     /* bytes, all processes */
	GT_SAMPLE_OTHER_PID = 9,    /* repeatable: another compute process */
	GT_SAMPLE_OTHER_MEM = 10,   /* its memory, after its pid; bytes */
	GT_SAMPLE_SELF_MEM = 11,    /* this process's memory on it; bytes */
	/* GT_SCOPE_HOST: cumulative nanoseconds of CPU time */
	GT_SAMPLE_CPU_USER = 32,    /* this process, all threads */
	GT_SAMPLE_CPU_SYS = 33,
	GT_SAMPLE_CHILD_USER = 34,  /* its child processes, live and ended */
	GT_SAMPLE_CHILD_SYS = 35,
	GT_SAMPLE_CHILDREN = 36,    /* child processes alive now */
	GT_SAMPLE_HOST_TOTAL = 37,  /* all CPUs of the machine, all states */
	GT_SAMPLE_HOST_IOWAIT = 38,
	GT_SAMPLE_HOST_IDLE = 39,
};

/*
 * GT_CHUNK_GPU: what CUPTI's activity API said the GPU did, already
 * joined to the host events that caused it.  struct gt_gpu_header, then
 * count records of rec_size bytes (>= the struct of the kind: a newer
 * writer may append fields), all of one kind.  GPU times are CUPTI's
 * clock: GT_CHUNK_CLOCK pairs map them to the header's clock.  host_id is
 * the host event's id (buffer << 40 | number, gt_events_header), found
 * through CUPTI's correlation ids; 0 when none was found.
 */
struct gt_gpu_header {
	uint32_t kind;              /* enum gt_gpu_kind */
	uint32_t count;
	uint32_t rec_size;
	uint32_t reserved;
};

enum gt_gpu_kind {
	GT_GPU_KERNEL = 1,          /* struct gt_gpu_kernel */
	GT_GPU_MEMCPY = 2,          /* struct gt_gpu_copy */
	GT_GPU_MEMSET = 3,          /* struct gt_gpu_copy (kinds: dst only) */
	GT_GPU_SYNC = 4,            /* struct gt_gpu_span: type = CUPTI's
	                               CUpti_ActivitySynchronizationType */
	GT_GPU_GRAPH = 5,           /* struct gt_gpu_span: a whole graph run
	                               (GPUTRACE_GPU_GRAPHS=graph) */
	GT_GPU_STATE = 6,           /* struct gt_gpu_state */
	GT_GPU_DROPS = 7,           /* struct gt_gpu_drops */
};

struct gt_gpu_kernel {
	uint64_t host_id;
	uint64_t start, end;        /* on the GPU */
	uint64_t queued, submitted; /* CPU side, CUPTI clock; 0 = not known */
	uint32_t correlation;       /* CUPTI's correlation id */
	uint32_t stream;            /* CUPTI's stream id */
	uint32_t device;
	uint32_t name_str;          /* the kernel's symbol, 0 = unknown */
	int32_t grid[3];
	int32_t block[3];
	uint32_t graph_id;          /* 0: not run by a graph */
	uint32_t reserved;
};                                  /* 88 bytes */

struct gt_gpu_copy {
	uint64_t host_id;
	uint64_t start, end;
	uint64_t bytes;
	uint32_t correlation;
	uint32_t stream;
	uint32_t device;
	uint8_t copy_kind;          /* CUpti_ActivityMemcpyKind, 0 for sets */
	uint8_t src_kind;           /* CUpti_ActivityMemoryKind: 1 pageable, */
	uint8_t dst_kind;           /* 2 pinned, 3 device, 4 array, 5 managed */
	uint8_t flags;              /* CUPTI's flags (async...) */
};                                  /* 48 bytes */

struct gt_gpu_span {
	uint64_t host_id;
	uint64_t start, end;
	uint32_t correlation;
	uint32_t stream;
	uint32_t device;
	uint32_t type;              /* sync: its type; graph: the graph id */
};                                  /* 40 bytes */

enum gt_cupti_state {
	GT_CUPTI_ON = 1,            /* subscribed: GPU records in windows */
	GT_CUPTI_OFF = 2,           /* GPUTRACE_CUPTI=0 or GPUTRACE_GPU=off */
	GT_CUPTI_TAKEN = 3,         /* another subscriber holds CUPTI */
	GT_CUPTI_MISSING = 4,       /* no libcupti could be loaded */
	GT_CUPTI_FAILED = 5,        /* CUPTI refused (see the notes) */
	GT_CUPTI_WAITING = 6,       /* windows: subscribed only when the first
	                               opens (a run that ends before has none) */
};

enum gt_gpu_mode {
	GT_GPU_MODE_WINDOWS = 1,    /* GPUTRACE_GPU=windows */
	GT_GPU_MODE_ALL = 2,
	GT_GPU_MODE_OFF = 3,
};

/* The CUPTI side's state; written again whenever it changes. */
struct gt_gpu_state {
	uint32_t state;             /* enum gt_cupti_state */
	uint32_t mode;              /* enum gt_gpu_mode */
	uint32_t window_ms;         /* GPUTRACE_GPU_WINDOW_MS */
	uint32_t period_ms;         /* GPUTRACE_GPU_PERIOD_MS */
	uint32_t warmup_ms;         /* GPUTRACE_GPU_WARMUP_MS */
	uint32_t cupti_version;     /* cuptiGetVersion, 0 = unknown */
	uint32_t path_str;          /* the libcupti loaded, 0 = none */
	uint32_t holder_str;        /* TAKEN: who holds CUPTI, 0 = unknown */
};                                  /* 32 bytes */

/* Records lost on the GPU side, totals since the start (the last wins). */
struct gt_gpu_drops {
	uint64_t cupti_dropped;     /* cuptiActivityGetNumDroppedRecords */
	uint64_t refused;           /* buffers CUPTI asked for and did not get */
	uint64_t lost;              /* records we could not write */
	uint64_t reserved;
};

/*
 * GT_CHUNK_WINDOW: a span in which CUPTI recorded GPU activity, written
 * when it opens (end_ns 0) and again when it closes.  Times are the
 * header's clock.
 */
struct gt_gpu_window {
	uint64_t start_ns;
	uint64_t end_ns;            /* 0: open from start_ns on */
	uint32_t seq;               /* 1, 2, ... per dump */
	uint32_t reserved;
};

/*
 * GT_CHUNK_CLOCK: the GPU records' clock (CUPTI's) read together with the
 * header's clock; a reader fits host = a + b * gpu through the pairs.
 */
struct gt_clock_pair {
	uint64_t gpu_ns;
	uint64_t host_ns;           /* the middle of the host reads around it */
	uint32_t spread_ns;         /* time between those reads */
	uint32_t reserved;
};

/*
 * GT_CHUNK_STEPS: where the program's training steps began, as the
 * library found them while it ran (it places GPU windows on them, and the
 * analyzer measures tracing's cost from them).  struct gt_steps_header,
 * then count - 1 varints: each boundary's distance from the one before
 * (the first is first_ns).  Step i runs from boundary i to boundary i + 1.
 * Chunks follow in time order; seq numbers the boundaries over the run
 * (1 = the first found), so a gap in seq (a new pattern found) is seen.
 */
struct gt_steps_header {
	uint32_t count;             /* boundaries in this chunk, >= 1 */
	uint32_t source;            /* enum gt_step_source */
	uint64_t first_ns;          /* the first boundary, header's clock */
	uint64_t seq;               /* the first boundary's number, from 1 */
	uint32_t period;            /* GPU calls per step (launch pattern) */
	uint32_t tid;               /* the thread whose calls mark them */
};                                  /* 32 bytes */

enum gt_step_source {
	GT_STEPS_PATTERN = 1,       /* the launch sequence repeats */
	GT_STEPS_NVTX = 2,          /* GPUTRACE_STEP=nvtx:NAME, a range push */
	GT_STEPS_KERNEL = 3,        /* GPUTRACE_STEP=kernel:TEXT, a launch */
};

/* Why a GPU window opened (gt_gpu_switch.reason). */
enum gt_window_reason {
	GT_WINDOW_CLOCK = 1,        /* the clock: no steps known (or asked) */
	GT_WINDOW_STEPS = 2,        /* steady steps: whole steps covered */
	GT_WINDOW_SIGNAL = 3,       /* GPUTRACE_GPU_SIGNAL arrived */
	GT_WINDOW_FILE = 4,         /* GPUTRACE_GPU_TRIGGER appeared */
	GT_WINDOW_RANGE = 5,        /* GPUTRACE_GPU_STEPS=a-b */
	GT_WINDOW_ALL = 6,          /* GPUTRACE_GPU=all: the whole run */
	GT_WINDOW_START = 7,        /* the program's first GPU calls, before
	                               its steps were steady
	                               (GPUTRACE_GPU_START_CALLS) */
};

/*
 * GT_CHUNK_SWITCH: one GPU window's whole cost span, written once CUPTI
 * is off again (or at exit): from when switching CUPTI on began to when
 * it was detached (or its kinds disabled).  The window itself
 * (GT_CHUNK_WINDOW, same seq) is the part with activity kinds on.
 */
struct gt_gpu_switch {
	uint32_t seq;               /* the window's (GT_CHUNK_WINDOW) */
	uint32_t reason;            /* enum gt_window_reason */
	uint64_t attach_ns;         /* switching on began */
	uint64_t off_ns;            /* CUPTI detached, or kinds off; 0 = the
	                               run ended with it on */
	uint32_t steps;             /* whole steps it was to cover, 0 = by time */
	uint32_t reserved;
};                                  /* 32 bytes */

#endif /* GPUTRACE_FORMAT_H */
