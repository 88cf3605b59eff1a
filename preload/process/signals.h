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
 * SIG_DFL.  Called once tracing has a dump (gt_writer_start), so a
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
 * The host sampler's SIGPROF (hostsample.c): ours is installed now and
 * stays whatever the program sets; fn (async-signal-safe) is given each
 * SIGPROF first and returns 1 when it was its timer's, else the program's
 * setting runs as without the library (its handler, SIG_IGN, or SIG_DFL:
 * the dump ended, then death).  -1 when SIGPROF asks for GPU windows.
 */
int gt_signals_prof(int (*fn)(siginfo_t *si, void *uc));

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
