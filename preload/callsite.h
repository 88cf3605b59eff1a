/* SPDX-License-Identifier: MIT */
/*
 * callsite.h - the call stack behind a wait, a pageable copy, an NCCL call
 * or a pinned allocation, as an id into the dump's stack table.
 */
#ifndef GPUTRACE_PRELOAD_CALLSITE_H
#define GPUTRACE_PRELOAD_CALLSITE_H

#include <stdint.h>

/*
 * The id (GT_CHUNK_STACK) of the calling thread's current stack, native
 * frames and, when the thread holds Python's GIL, Python frames; 0 when
 * call sites are off (GPUTRACE_STACK_DEPTH=0) or cannot be taken.
 * Called from inside wrappers on the traced thread.
 */
uint32_t gt_callsite_capture(void);

#endif /* GPUTRACE_PRELOAD_CALLSITE_H */
