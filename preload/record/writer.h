/* SPDX-License-Identifier: MIT */
/*
 * writer.h - the background path: a thread that drains the rings every
 * GPUTRACE_FLUSH_MS (sooner when a ring is half full) into the dump file,
 * and the final flush at exit.
 */
#ifndef GPUTRACE_PRELOAD_WRITER_H
#define GPUTRACE_PRELOAD_WRITER_H

#include <stddef.h>
#include <stdint.h>

#define GT_SIDE_MAX (64u << 20)     /* bytes of side chunks between cycles */
#define GT_CYCLE_HOOKS 8

/* Open the dump and start the writer thread, once per process. */
void gt_writer_start(void);

/*
 * The same, but the dump is made by the writer thread once a buffer holds
 * a record (the host sampler's in a forked child that makes no traced
 * call): a child that neither calls CUDA nor burns CPU leaves no file,
 * even if it ends with _exit or exec.  Side chunks wait for it in memory.
 */
void gt_writer_start_lazy(void);

/* Stop the thread, drain everything, finish the dump, say where it is. */
void gt_writer_finish(void);

/* Have the writer thread drain now, not at the end of its sleep: a
 * futex wake (a system call), for a ring half full (gt_ring_half). */
void gt_writer_wake(void);

/* Fork child: the parent's writer thread and file are not ours. */
void gt_writer_forget(void);

/* 1 when the dump belongs to another process (this one is a child that
 * fork's handlers did not reach): nothing of it may be touched. */
int gt_writer_foreign(void);

/*
 * From a signal handler (async-signal-safe): ask the writer thread to end
 * the dump now (drain, END) and wait at most ms for it.  Returns 0 when
 * the dump is ended, -1 when it is not (no dump or no writer thread, the
 * caller is the writer thread itself, or it took too long).
 */
int gt_writer_end_async(unsigned ms);

/*
 * Before exec replaces the process image: end this process's dump (not a
 * vfork parent's: the owner's pid is checked).  Returns 1 if it did.
 * If the exec then fails, gt_writer_exec_failed takes the END back
 * (truncates it) and the same dump goes on.
 */
int gt_writer_exec_end(void);
void gt_writer_exec_failed(void);

/*
 * Have the writer thread run two full cycles now (drain, take back rings
 * of exited threads) and wait at most ms for them.  0 when done, -1 when
 * there is no writer thread, the caller is it, or it took too long.
 */
int gt_writer_cycle_wait(unsigned ms);

/*
 * Chunks from threads other than the traced hot path (CUPTI's buffer
 * thread, the sampler, one-time set-up): copied under a mutex into a side
 * buffer that the writer thread writes before the ring events it drains
 * next, so a chunk added before an event was recorded precedes it in the
 * dump.  Returns 0, or -1 when there is no dump or the side buffer is full
 * (GT_SIDE_MAX; counted and said once).
 */
int gt_writer_side_chunk(uint32_t type, const void *a, size_t an,
			 const void *b, size_t bn);

/*
 * Set while the host sampler's signal handler runs on this thread: then
 * gt_writer_side_chunk (and what writes through it) neither waits for the
 * side buffer's lock nor grows the buffer nor says anything, and returns
 * GT_SIDE_AGAIN when the chunk could not go in now (the lock was taken,
 * or there was no room until the next drain).  The interrupted thread may
 * hold that lock or be inside malloc.
 */
extern __thread int gt_side_quiet;
#define GT_SIDE_AGAIN 1

/* Make room for bytes of side chunks in both of the side buffers, so that
 * a quiet chunk finds room without growing one (off the hot path). */
void gt_writer_side_reserve(size_t bytes);


/* A new string id, its GT_CHUNK_STRING written through the side buffer;
 * 0 when it could not be written.  Any thread but the hot path. */
uint32_t gt_writer_string(const char *s, size_t len);

/* Called on the thread that starts the dump (gt_writer_start, lazy too),
 * once its signals are watched: the host sampler's, set once at start. */
void gt_writer_on_start(void (*fn)(void));

/*
 * Called by the writer thread at each cycle before it drains (final = 0)
 * and once at exit before the last drain (final = 1): where parts with
 * buffers of their own (CUPTI) hand them over.  At most GT_CYCLE_HOOKS.
 */
void gt_writer_on_cycle(void (*fn)(int final));

/*
 * Called once when the dump ends, after the last drain and before the END
 * chunk: what the parts learned from the last events (steps, why no GPU
 * window opened) goes in through gt_writer_side_chunk.  At most
 * GT_CYCLE_HOOKS, run in the order they were given.
 */
void gt_writer_on_end(void (*fn)(int final));

/* When the first launch, copy, memset or graph launch that the writer
 * drained was made (0: none yet): GPU windows count their warm-up from it. */
uint64_t gt_writer_first_work(void);

/* When the writer thread last finished a drain (0: none yet, or it is not
 * running): the sampler's stall watch (sampler.c). */
uint64_t gt_writer_beat(void);

#endif /* GPUTRACE_PRELOAD_WRITER_H */
