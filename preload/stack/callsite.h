/* SPDX-License-Identifier: MIT */
/*
 * callsite.h - the call stack behind a wait, a pageable copy, an NCCL call
 * or a pinned allocation, as an id into the dump's stack table.
 *
 * Settings (read with the others at start):
 *   GPUTRACE_STACK_DEPTH   native frames, and Python frames, kept per
 *                          stack (default 24, at most 128; 0: no stacks)
 *   GPUTRACE_UNWIND        auto, libunwind, libgcc or fp (stack_unwind.h)
 *   GPUTRACE_PYTHON        1 (default), api (C API only, GIL held) or 0
 */
#ifndef GPUTRACE_PRELOAD_CALLSITE_H
#define GPUTRACE_PRELOAD_CALLSITE_H

#include <stdint.h>

#define GT_STACK_DEPTH_MAX 128

/*
 * The id (GT_CHUNK_STACK) of the calling thread's current stack, native
 * frames and, where the thread runs Python, Python frames; 0 when call
 * sites are off (GPUTRACE_STACK_DEPTH=0) or cannot be taken.  Called from
 * inside wrappers on the traced thread, after gt_rec_begin (the dump is
 * open then), before the event is committed.  A stack seen before costs
 * an unwind, a hash and a compare: no lock, allocation or system call.
 */
uint32_t gt_callsite_capture(void);

/*
 * Set up stacks for this dump now (the unwinder, Python, the module map
 * and the note), off the hot path, whatever GPUTRACE_STACK_DEPTH: the host
 * sampler's handler uses the stack table but cannot set it up.  1 when
 * stacks can be taken.
 */
int gt_callsite_prepare(void);

/*
 * From a signal handler (the host sampler's): the id of the stack in
 * words (words[0] left for the header: nn native frames, then np Python
 * frames as gt_pyframes_capture gives them, from words[1]).  0 when the
 * table is not set up for this dump, or the stack is new and could not
 * be written now (the side buffer was busy: written at a later meeting).
 * Once the table is half full a new stack is cut to its Python frames
 * (none: its innermost native frame), *trimmed set, so that samples
 * leave room for call sites.
 */
uint32_t gt_callsite_intern_quiet(uint64_t *words, int nn, int np, int *trimmed);

/* Python frames kept per stack (GPUTRACE_STACK_DEPTH). */
int gt_callsite_depth(void);

/* Read GPUTRACE_STACK_DEPTH, GPUTRACE_UNWIND, GPUTRACE_PYTHON (config.c). */
void gt_callsite_config(void);
/* The fork handler of the call sites (at start). */
int gt_callsite_fork_init(void);

#endif /* GPUTRACE_PRELOAD_CALLSITE_H */
