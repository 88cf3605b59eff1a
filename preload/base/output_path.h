/* SPDX-License-Identifier: MIT */
/*
 * output_path.h - the dump's path from the GPUTRACE_OUTPUT template, and
 * creating it safely.
 */
#ifndef GPUTRACE_PRELOAD_OUTPUT_PATH_H
#define GPUTRACE_PRELOAD_OUTPUT_PATH_H

#include <stddef.h>
#include <sys/types.h>

/*
 * Expand %p (pid), %h (host name), %r (rank: RANK, OMPI_COMM_WORLD_RANK,
 * PMI_RANK or SLURM_PROCID, else 0) and %% in tmpl; a field's '/' and leading dots
 * become '_' (it never names another directory).  A template without %p
 * or %r names the main process's dump (gt_output_main_pid); any other
 * process gets "-PID" before the extension.  Returns 0, or -1 if it does not fit
 * in size bytes.
 */
int gt_output_expand(const char *tmpl, char *out, size_t size);

/* The process whose dump takes a template without %p or %r as it is (the
 * one gputrace started); 0: every process. */
extern pid_t gt_output_main_pid;

/* Where %h comes from: gethostname (a unit test puts its own). */
extern int (*gt_output_hostname)(char *name, size_t len);

/* The rank from the environment, 0 when none is set. */
unsigned gt_output_rank(void);

/*
 * Create the dump with mode 0600, never following a symbolic link and
 * never overwriting: path is made absolute (from the working directory);
 * if it exists as a regular file (or anything but what follows), try
 * path with .1, .2 ... before its extension.  An existing character
 * device or FIFO (or a link to one, owned by root or this user) is opened
 * for writing as it is, without waiting (a FIFO no one reads: -ENXIO, as
 * for a link into /proc to anything else, such as /dev/stdout when
 * stdout is a file).  path is updated to the name used.  Returns the fd
 * (O_NONBLOCK for a device or FIFO) or -errno.
 */
int gt_output_create(char *path, size_t size);

#endif /* GPUTRACE_PRELOAD_OUTPUT_PATH_H */
