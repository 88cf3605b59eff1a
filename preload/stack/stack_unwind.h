/* SPDX-License-Identifier: MIT */
/*
 * stack_unwind.h - the native call stack of the calling thread, as return
 * addresses, through whichever unwinder this process has:
 *
 *   libunwind   libunwind.so.8, loaded at run time (never linked: the
 *               library must load where it is missing)
 *   libgcc      glibc's backtrace(), which walks the .eh_frame tables with
 *               libgcc's unwinder (always there)
 *   fp          frame pointers, within the thread's stack (fastest; stops
 *               at the first function built without them)
 *
 * GPUTRACE_UNWIND picks one (auto, the default, takes them in that order).
 */
#ifndef GPUTRACE_PRELOAD_STACK_UNWIND_H
#define GPUTRACE_PRELOAD_STACK_UNWIND_H

#include <stdint.h>

enum gt_unwinder {
	GT_UNWIND_AUTO = 0,
	GT_UNWIND_LIBUNWIND,
	GT_UNWIND_LIBGCC,
	GT_UNWIND_FP,
};

/* "auto", "libunwind", "libgcc" or "fp" as an enum gt_unwinder; -1 if none. */
int gt_unwind_parse(const char *s);

/*
 * Set up the unwinder `want` (falling back as auto does when it cannot be
 * had) and prime it, so that its first use allocates nothing.  Once per
 * process, off the steady state.  Returns what it chose.
 */
enum gt_unwinder gt_unwind_init(enum gt_unwinder want);

/* The unwinder gt_unwind_init chose. */
enum gt_unwinder gt_unwind_chosen(void);
/* "libunwind", "libgcc (backtrace)" or "frame pointers". */
const char *gt_unwind_name(void);

/*
 * Up to max return addresses of the calling thread, innermost first,
 * starting with the caller of this library (its own frames are dropped).
 * Returns how many.
 */
int gt_unwind(uint64_t *pcs, int max);

/*
 * From a signal handler (async-signal-safe once the calling thread has
 * called gt_unwind: libunwind's per-thread cache is made then): up to max
 * frames of the interrupted code, innermost first, pcs[0] = pc (the
 * interrupted instruction), then its callers' return addresses; the
 * handler's and the kernel's signal frame left out.  fp: the interrupted
 * frame pointer (frame-pointer walks).  Just pc when the unwinder cannot
 * cross the signal frame (or is busy: a fork is being prepared).
 */
int gt_unwind_signal(uint64_t *pcs, int max, uint64_t pc, uint64_t fp);

/* Tests, which link these files into the program itself: keep every
 * frame (call before gt_unwind_init). */
void gt_unwind_keep_own_frames(void);

/* Fork child: leave libunwind (its locks may be held), take libgcc's. */
void gt_unwind_after_fork(void);

#endif /* GPUTRACE_PRELOAD_STACK_UNWIND_H */
