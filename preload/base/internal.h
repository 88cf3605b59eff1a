/* SPDX-License-Identifier: MIT */
/*
 * internal.h - what the parts of libgputrace.so share: the in-memory event
 * record, settings, the clock, logging and the small helpers every file uses.
 *
 * Everything here has the gt_ prefix and hidden visibility; only the
 * intercepted symbols (GT_EXPORT) leave the library.
 */
#ifndef GPUTRACE_PRELOAD_INTERNAL_H
#define GPUTRACE_PRELOAD_INTERNAL_H

#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#define GT_EXPORT __attribute__((visibility("default")))
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
/*
 * For the few helpers of the traced calls' path: inlined always, since
 * GCC's -O2 keeps them out of line in a file of a hundred wrappers (hooks.c),
 * and each out-of-line helper is code on another cache line, which a real
 * driver's launch has evicted by the next call.
 */
#define gt_hot_inline static inline __attribute__((always_inline))

/*
 * One intercepted call as the traced thread writes it into its ring: fixed
 * size, so the hot path is a few stores.  The writer thread packs it into
 * the dump's compact varint form (include/gputrace/format.h).
 */
struct gt_rec {
	uint64_t t0;                /* clock at entry */
	uint64_t t1;                /* clock at exit */
	uint64_t stream;            /* CUstream, 0 when none */
	uint16_t op;                /* enum gt_op */
	int16_t result;             /* CUresult (all fit in 16 bits) */
	uint32_t stack;             /* call site (GT_CHUNK_STACK id), 0 none;
				       launches: their arguments' hash
				       (gt_func_arg_hash), 0 none */
	union {
		struct {
			uint32_t func;      /* gt_func id, 0 = unknown */
			uint32_t shared_mem;
			uint32_t grid[3];
			uint32_t block[3];
		} launch;
		struct {
			uint64_t bytes;
			uint64_t src;
			uint64_t dst;
			uint32_t count;     /* copies in a batch, else 1 */
			uint32_t memory;    /* GT_MEM_* | GT_COPYF_* */
		} copy;                 /* copies and sets (src, count unused) */
		struct {
			uint64_t handle;    /* graph, event, stream or context */
		} obj;
		struct {
			uint64_t range;     /* nvtxRangeStart id, else 0 */
			uint32_t msg;       /* string id, 0 = none */
			uint32_t domain;    /* GT_CHUNK_NVTX id, 0 = default */
			uint32_t category;
		} nvtx;
		struct {
			uint64_t count;     /* GT_ARGS_NCCL (format.h) */
			uint64_t bytes;
			uint32_t comm;
			uint32_t peer;      /* root or peer + 1, 0 none */
			uint32_t redop;     /* ncclRedOp_t + 1, 0 none */
			uint8_t dtype;      /* ncclDataType_t + 1, 0 none */
		} nccl;
		struct {
			uint64_t cpu_ns;    /* the event's dur (GT_KIND_HOSTSAMPLE) */
			uint32_t state;     /* enum gt_host_state */
			uint32_t incall;    /* ticks inside traced calls before it */
		} host;
	} u;
};

_Static_assert(sizeof(struct gt_rec) == 64, "a record is one cache line");

/* Settings, read once from GPUTRACE_* at start (config.c). */
struct gt_config {
	int enabled;                /* GPUTRACE=0 turns tracing off */
	int debug;                  /* GPUTRACE_DEBUG */
	char output[1024];          /* GPUTRACE_OUTPUT template */
	uint64_t buffer_bytes;      /* GPUTRACE_BUFFER_MB: all rings together */
	uint64_t thread_buffer_bytes; /* GPUTRACE_THREAD_BUFFER_KB */
	uint32_t flush_ms;          /* GPUTRACE_FLUSH_MS */
	uint32_t max_functions;     /* GPUTRACE_MAX_FUNCTIONS */
	uint32_t sample_ms;         /* GPUTRACE_SAMPLE_MS, 0 = no sampler */
	uint32_t stall_ms;          /* GPUTRACE_STALL_MS: writer stuck, say so */
	uint32_t max_pinned;        /* GPUTRACE_MAX_PINNED */
	int nccl_plugin;            /* GPUTRACE_NCCL_PLUGIN */
	int tsc;                    /* GPUTRACE_TSC: TSC stamps where safe */
	uint64_t run_id;            /* GPUTRACE_RUN_ID, 0 = none */
};

extern struct gt_config gt_cfg;
void gt_config_load(void);
/* Whether this is a secure-execution process (AT_SECURE): then nothing
 * is traced.  A pointer, so a unit test can stand in for the kernel. */
extern int (*gt_secure_exec)(void);

/* Monotonic nanoseconds: the time base of every record. */
gt_hot_inline uint64_t gt_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * The two times of each ring record (t0, t1): the CPU's time-stamp
 * counter where the kernel itself keeps time with it (clocksource tsc,
 * invariant TSC), else gt_now().  rdtsc takes a third of clock_gettime's
 * time, and the hot path reads the clock twice per call.  The writer
 * turns stamps into gt_now() nanoseconds (tsc.c).
 */
extern int gt_tsc_on;
gt_hot_inline uint64_t gt_stamp(void)
{
#if defined(__x86_64__) || defined(__i386__)
	if (likely(gt_tsc_on))
		return __builtin_ia32_rdtsc();
#endif
	return gt_now();
}
void gt_tsc_init(void);             /* at start: may the stamps be TSC? */
void gt_tsc_pair(void);             /* writer: a (TSC, ns) pair, each cycle */
uint64_t gt_tsc_to_ns(uint64_t stamp);  /* writer: a stamp in ns */

/*
 * Messages on stderr, formatted on the stack and written with write(2), so
 * they are safe anywhere, signal handlers included.  gt_warn_once keeps a
 * flag per call site.
 */
void gt_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
#define gt_debug(...) do { if (unlikely(gt_cfg.debug)) gt_log(__VA_ARGS__); } while (0)
#define gt_warn_once(...) do {                                          \
		static atomic_int warned_;                              \
		if (!atomic_exchange(&warned_, 1))                      \
			gt_log(__VA_ARGS__);                            \
	} while (0)

/*
 * The library's writes raise no SIGPIPE (log.c): gt_write is write(2)
 * with SIGPIPE blocked, and one it raised taken back (one the program had
 * pending is kept).  gt_nopipe_begin/end do the same around other code
 * that writes.  Async-signal-safe; errno as the write left it.
 */
struct gt_nopipe {
	sigset_t old;
	int had;
};
void gt_nopipe_begin(struct gt_nopipe *g);
void gt_nopipe_end(struct gt_nopipe *g);
ssize_t gt_write(int fd, const void *buf, size_t n);

/* lifecycle.c */
void gt_init(void);                 /* idempotent; safe before main */
extern atomic_int gt_active;        /* 1 while events are recorded */
/* main_exit.c: the library's threads running (the writer, the sampler),
 * each counted by itself from its first step to its last */
extern atomic_int gt_own_threads;
void gt_end_in_exit_handlers(void);  /* lifecycle.c */
/* fork.c: the generation, bumped in a forked child, in a page every
 * child finds zeroed (claimed: which of its threads starts it over) */
struct gt_fork_mark {
	atomic_uint generation;
	atomic_int claimed;
};
extern struct gt_fork_mark *gt_mark;
extern uint64_t gt_start_ns;        /* clock at start (monotonic) */
extern uint64_t gt_start_realtime_ns;

#endif /* GPUTRACE_PRELOAD_INTERNAL_H */
