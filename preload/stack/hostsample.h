/* SPDX-License-Identifier: MIT */
/*
 * hostsample.h - the host stack sampler: what each traced thread runs
 * while it is outside every traced call, GPUTRACE_HOST_HZ times per second
 * of its CPU time (GPUTRACE_HOST_CLOCK=wall: of wall time), as events of
 * kind GT_KIND_HOSTSAMPLE (format.h) with a stack: the Python frames and
 * GPUTRACE_HOST_NATIVE native ones of the interrupted code.
 *
 * Each sampled thread has a POSIX timer of its own that sends it SIGPROF
 * (SIGEV_THREAD_ID), marked with our value so that the handler tells its
 * ticks from the program's SIGPROF, which runs as without the library
 * (signals.c keeps SIGPROF and hands each one to gt_hostsample_signal).
 * The parts below it in the pipeline call it back through hooks set by
 * gt_hostsample_config: the ring's (a thread got its ring, or exits) and
 * the writer's (the dump starts).  Sampled: the main thread from when the dump
 * opens, every other thread from its first traced call (when it gets its
 * buffer), and the thread that forked, in a forked child (a DataLoader
 * worker), which then has a dump of its own even without traced calls.
 */
#ifndef GPUTRACE_PRELOAD_HOSTSAMPLE_H
#define GPUTRACE_PRELOAD_HOSTSAMPLE_H

#include <signal.h>

/* Read GPUTRACE_HOST_HZ, GPUTRACE_HOST_CLOCK, GPUTRACE_HOST_NATIVE; when
 * sampling, set the ring's and the writer's hooks. */
void gt_hostsample_config(void);

/* 1 when samples are to be taken (GPUTRACE_HOST_HZ > 0). */
int gt_hostsample_wanted(void);

/* From signals.c, when it arms: SIGPROF kept for the sampler (1), or not,
 * being GPUTRACE_GPU_SIGNAL (-1).  Never said: not kept either. */
void gt_hostsample_prof(int kept);

/*
 * The dump opened (gt_writer_start, through its hook; SIGPROF is kept
 * by then): set stacks up, say in the dump how samples are taken (or why
 * not), and arm the main thread.
 */
void gt_hostsample_start(void);

/* The calling thread got its buffer (gt_thread_attach's hook): arm its
 * timer. */
void gt_hostsample_thread(void);

/* The calling thread exits (its buffer's key destructor, through the
 * ring's hook): no more ticks. */
void gt_hostsample_thread_exit(void);

/* Fork child (fork.c, in every child): the parent's timers are gone. */
void gt_hostsample_after_fork(void);

/*
 * Fork child of glibc's fork() (its handler, after the above): if the
 * parent sampled, the forking thread takes a buffer and the child its
 * dump at once (removed at the end if it holds no event), and its timer.
 */
void gt_hostsample_fork_child(void);

/*
 * Around exec (exec.c): the calling thread's timer is stopped before
 * (failed = 0), so that no tick falls inside the exec and stays pending
 * for the new image, where SIGPROF ends the program; armed again if the
 * exec failed (failed = 1).
 */
void gt_hostsample_exec(int failed);

/* Handler path: 1 when si is one of our ticks (taken), 0 when it is the
 * program's SIGPROF.  Async-signal-safe. */
int gt_hostsample_signal(siginfo_t *si, void *uc);

#endif /* GPUTRACE_PRELOAD_HOSTSAMPLE_H */
