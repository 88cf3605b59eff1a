/* SPDX-License-Identifier: MIT */
/*
 * exec_env.h - the environment a new program gets from exec or spawn:
 * the program's own, plus what tracing needs to go on in it (our library
 * in LD_PRELOAD, the GPUTRACE_* settings we started with), where the
 * program's own lacks them.  The program's own values always win.
 *
 * Building it allocates nothing and takes no lock (the caller gives stack
 * room), so it is safe in a vfork child and after fork in a threaded
 * program; only gt_exec_env_init, at start, allocates.
 */
#ifndef GPUTRACE_PRELOAD_EXEC_ENV_H
#define GPUTRACE_PRELOAD_EXEC_ENV_H

#include <stddef.h>

#define GT_EXEC_KEEP_MAX 32         /* GPUTRACE_* settings carried */
#define GT_EXEC_ENV_MAX 4096        /* larger environments pass unchanged */
#define GT_EXEC_PRELOAD_MAX 4096    /* room for a merged LD_PRELOAD */

/*
 * Remember what to carry: the library's path (self) and the GPUTRACE_*
 * entries of env.  Returns 0, or -1 when self is unusable.
 */
int gt_exec_env_init(const char *self, char *const env[]);

/* Carry entry ("GPUTRACE_X=value") too, as if env had it: 0, or -1. */
int gt_exec_env_keep(const char *entry);

/* Forget it (unit tests). */
void gt_exec_env_reset(void);

/*
 * The number of entries (NULL included) the new environment needs when
 * env lacks something, or 0 when env can be used as it is (or is too big
 * to change: more than GT_EXEC_ENV_MAX entries).
 */
size_t gt_exec_env_need(char *const env[]);

/*
 * Fill out (n entries, as gt_exec_env_need said) with env plus what it
 * lacks; a merged LD_PRELOAD entry is written in buf (GT_EXEC_PRELOAD_MAX
 * bytes).  Returns out, as the envp to pass on.
 */
char *const *gt_exec_env_make(char *const env[], const char **out, size_t n,
			      char *buf);

#endif /* GPUTRACE_PRELOAD_EXEC_ENV_H */
