/* SPDX-License-Identifier: MIT */
/*
 * exec.h - tracing across exec and spawn: the interposed execve, execv,
 * execvp, execvpe, execl, execlp, execle, fexecve, posix_spawn and
 * posix_spawnp.
 *
 * Each one passes on the program's environment with our library in
 * LD_PRELOAD and our GPUTRACE_* settings added where it lacks them (even
 * when the program passes an environment of its own), and an exec ends
 * this process's dump first (drain, END): the new image starts a dump of
 * its own, under a new name.  If the exec fails, the END is taken back and
 * the same dump goes on.
 */
#ifndef GPUTRACE_PRELOAD_EXEC_H
#define GPUTRACE_PRELOAD_EXEC_H

/* Find the real functions and what to carry; at start. */
void gt_exec_init(void);

#endif /* GPUTRACE_PRELOAD_EXEC_H */
