/* SPDX-License-Identifier: MIT */
/*
 * writer.h - the background path: a thread that drains the rings every
 * GPUTRACE_FLUSH_MS into the dump file, and the final flush at exit.
 */
#ifndef GPUTRACE_PRELOAD_WRITER_H
#define GPUTRACE_PRELOAD_WRITER_H

#include <stddef.h>
#include <stdint.h>

#define GT_SIDE_MAX (64u << 20)     /* bytes of side chunks between cycles */
#define GT_CYCLE_HOOKS 8

/* Open the dump and start the writer thread, once per process. */
void gt_writer_start(void);

/* Stop the thread, drain everything, finish the dump, say where it is. */
void gt_writer_finish(void);

/* Fork child: the parent's writer thread and file are not ours. */
void gt_writer_forget(void);

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

/* A new string id, its GT_CHUNK_STRING written through the side buffer;
 * 0 when it could not be written.  Any thread but the hot path. */
uint32_t gt_writer_string(const char *s, size_t len);

/*
 * Called by the writer thread at each cycle before it drains (final = 0)
 * and once at exit before the last drain (final = 1): where parts with
 * buffers of their own (CUPTI) hand them over.  At most GT_CYCLE_HOOKS.
 */
void gt_writer_on_cycle(void (*fn)(int final));

#endif /* GPUTRACE_PRELOAD_WRITER_H */
