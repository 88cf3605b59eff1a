/* SPDX-License-Identifier: MIT */
/*
 * fork.h - a forked child starts over: fresh buffers, its own dump (made
 * at its first traced call, so a child that never calls CUDA has none).
 */
#ifndef GPUTRACE_PRELOAD_FORK_H
#define GPUTRACE_PRELOAD_FORK_H

/* Register the fork handlers; at start.  0, or -1 (tracing must stay
 * off: a child would write into its parent's dump). */
int gt_fork_init(void);

/* Find the real _Fork (glibc 2.34 and later) and syscall(), which the
 * library's own call; at start, traced or not. */
void gt_fork_find_real(void);

/*
 * A child made without glibc's fork handlers (_Fork, a raw fork system
 * call): when the generation reads 0 or the dump is another process's,
 * start over as a forked child does.  From the slow path of the first
 * traced call and from the exit path; cheap when nothing changed.
 */
void gt_fork_notice(void);

#endif /* GPUTRACE_PRELOAD_FORK_H */
