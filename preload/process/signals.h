/* SPDX-License-Identifier: MIT */
/*
 * signals.h - ending the dump when a signal ends the program, and the
 * futex wait/wake that a signal handler may use to ask the writer thread.
 *
 * The library installs its handler for a terminating signal (SIGINT,
 * SIGTERM, SIGHUP, SIGQUIT, SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL) only
 * while the program leaves it at SIG_DFL, and hides it: sigaction() and
 * signal() report the program's own setting.  When the program installs a
 * handler, that handler replaces ours and runs as it would without the
 * library (Python's KeyboardInterrupt included); when it sets SIG_DFL back,
 * ours is installed again.  Ours asks the writer thread to end the dump,
 * waits for it (at most GT_SIGNAL_WAIT_MS), then dies of the same signal
 * with the default action.  It only uses atomics, futexes and sigaction.
 */
#ifndef GPUTRACE_PRELOAD_SIGNALS_H
#define GPUTRACE_PRELOAD_SIGNALS_H

#include <linux/futex.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define GT_SIGNAL_WAIT_MS 1000      /* longest wait for the dump's end */

/* Resolve the real sigaction and signal; at start, before any wrapper. */
void gt_signals_init(void);

/*
 * Install our handler for every watched signal the program left at
 * SIG_DFL, and keep the request signal and, when the host sampler is to
 * run (hostsample.h), SIGPROF: ours stays whatever the program sets, and
 * runs the program's setting for every SIGPROF that is not a tick of the
 * sampler's (its handler, SIG_IGN, or SIG_DFL: the dump ended, then
 * death).  Called once tracing has a dump (gt_writer_start), so a
 * program that never uses CUDA keeps its signals untouched.
 */
void gt_signals_arm(void);

/*
 * Before gt_signals_arm: let signal sig ask for a GPU window (fn is called
 * in the handler: it must be async-signal-safe).  The program's own
 * handler for sig still runs, after fn; its default action does not.
 */
void gt_signals_request(int sig, void (*fn)(void));

/*
 * Around exec: a kept signal the program ignores is ignored for real
 * before (failed = 0), as exec keeps SIG_IGN but puts a handler back to
 * SIG_DFL; ours again if the exec failed (failed = 1).
 */
void gt_signals_exec(int failed);

/* Fork child: our lock is free (the thread that held it is not there). */
void gt_signals_after_fork(void);

/* Wait while *word == seen, at most ms (0: no limit).  Async-signal-safe. */
static inline void gt_futex_wait(_Atomic uint32_t *word, uint32_t seen,
				 unsigned ms)
{
	struct timespec ts = { .tv_sec = ms / 1000,
			       .tv_nsec = (long)(ms % 1000) * 1000000L };

	syscall(SYS_futex, (uint32_t *)word, FUTEX_WAIT_PRIVATE, seen,
		ms ? &ts : NULL, NULL, 0);
}

/* Wake every waiter on word.  Async-signal-safe. */
static inline void gt_futex_wake(_Atomic uint32_t *word)
{
	syscall(SYS_futex, (uint32_t *)word, FUTEX_WAKE_PRIVATE, 0x7fffffff,
		NULL, NULL, 0);
}

#endif /* GPUTRACE_PRELOAD_SIGNALS_H */
