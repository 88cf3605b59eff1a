/* SPDX-License-Identifier: MIT */
/*
 * signals.c - end the dump when a terminating signal ends the program,
 * invisibly to the program (see signals.h for the rules).
 *
 * Our handler sits only where the program left the default action, so the
 * program's own handlers run untouched: Python's SIGINT handler still
 * raises KeyboardInterrupt, and when Python then dies of SIGINT (it sets
 * SIG_DFL and kills itself) our handler is back in place to end the dump
 * first.  sigaction() and signal() are interposed to keep the lie
 * consistent: they show the program's setting, never ours.  A small
 * spinlock, taken with every signal blocked, orders our installs against
 * the program's calls; the handler itself takes no lock.
 *
 * Two more signals are kept: ours stays installed whatever the program
 * sets, the program's setting is kept aside (and shown), and ours runs it
 * as the kernel would have (its mask, SA_NODEFER, SA_RESETHAND).  One may
 * ask for a GPU window (GPUTRACE_GPU_SIGNAL): ours notes the request, then
 * calls the program's handler; the default action (ending the program) is
 * replaced by the request.  The other is SIGPROF while the host sampler
 * runs (hostsample.c): a tick of its timers is taken by the sampler; any
 * other SIGPROF (the program's setitimer, a kill) gets exactly what the
 * program set: its handler, nothing for SIG_IGN, death for SIG_DFL (the
 * dump ended first, as for the watched signals).
 */
#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "preload/base/dl.h"
#include "preload/base/internal.h"
#include "preload/process/signals.h"
#include "preload/record/writer.h"
#include "preload/stack/hostsample.h"

typedef int (*sigaction_fn)(int, const struct sigaction *, struct sigaction *);
typedef void (*handler_fn)(int);
typedef handler_fn (*signal_fn)(int, handler_fn);

static _Atomic(sigaction_fn) real_sigaction;
static _Atomic(signal_fn) real_signal;
static atomic_int armed;
static atomic_flag lock = ATOMIC_FLAG_INIT;

/* What the program set for each signal while ours is installed (SIG_DFL,
 * with the program's flags and mask). */
static struct sigaction prog[NSIG];

static int req_sig;                 /* asks for a GPU window, 0 none */
static void (*req_fn)(void);
static atomic_int prof_kept;        /* SIGPROF is kept for the sampler */

static const int watched[] = {
	SIGINT, SIGTERM, SIGHUP, SIGQUIT,           /* asked to stop */
	SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL,   /* crashed */
};

static int is_request(int sig)
{
	return req_sig && sig == req_sig;
}

/* Ours stays installed for sig; the program's setting is kept aside. */
static int is_kept(int sig)
{
	return (is_request(sig) && atomic_load(&armed)) ||
	       (sig == SIGPROF && atomic_load(&prof_kept));
}

static int is_watched(int sig)
{
	for (size_t i = 0; i < sizeof(watched) / sizeof(watched[0]); i++)
		if (watched[i] == sig)
			return 1;
	return 0;
}

static sigaction_fn get_sigaction(void)
{
	sigaction_fn f = atomic_load_explicit(&real_sigaction, memory_order_relaxed);

	if (unlikely(!f)) {
		f = (sigaction_fn)gt_real_dlsym(RTLD_NEXT, "sigaction");
		atomic_store(&real_sigaction, f);
	}
	return f;
}

static signal_fn get_signal(void)
{
	signal_fn f = atomic_load_explicit(&real_signal, memory_order_relaxed);

	if (unlikely(!f)) {
		f = (signal_fn)gt_real_dlsym(RTLD_NEXT, "signal");
		atomic_store(&real_signal, f);
	}
	return f;
}

void gt_signals_init(void)
{
	get_sigaction();
	get_signal();
}

static int is_crash(int sig)
{
	return sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE ||
	       sig == SIGILL || sig == SIGABRT;
}

/* GPUTRACE_DEBUG: the native stack of a crash, for reports (backtrace()
 * was called once when armed, so libgcc is loaded and nothing allocates). */
static void say_crash_stack(int sig)
{
	static const char head[] = "gputrace: crashed; native stack:\n";
	struct gt_nopipe g;
	void *pcs[64];
	int n;

	if (!gt_cfg.debug || !is_crash(sig))
		return;
	if (gt_write(2, head, sizeof(head) - 1) < 0)
		return;
	n = backtrace(pcs, 64);
	gt_nopipe_begin(&g);
	backtrace_symbols_fd(pcs, n, 2);
	gt_nopipe_end(&g);
}

/*
 * The signal would have killed the program: have the writer end the dump
 * (it does the work; we only wait on a futex), then die of the same
 * signal with the default action, as the program would have.
 */
static void on_signal(int sig, siginfo_t *si, void *uc)
{
	struct sigaction dfl = prog[sig];
	int saved = errno;

	(void)si, (void)uc;
	say_crash_stack(sig);
	atomic_store(&gt_active, 0);
	gt_writer_end_async(GT_SIGNAL_WAIT_MS);
	dfl.sa_handler = SIG_DFL;
	get_sigaction()(sig, &dfl, NULL);
	raise(sig);                 /* pending until we return: then fatal */
	errno = saved;
}

static void lock_take(sigset_t *old)
{
	sigset_t all;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, old);
	while (atomic_flag_test_and_set_explicit(&lock, memory_order_acquire))
		sched_yield();
}

static void lock_give(const sigset_t *old)
{
	atomic_flag_clear_explicit(&lock, memory_order_release);
	pthread_sigmask(SIG_SETMASK, old, NULL);
}

/* SA_RESETHAND: the kernel would have set the default before the handler
 * ran, so the program's setting is now SIG_DFL. */
static void reset_hand(int sig)
{
	sigset_t mask;

	lock_take(&mask);
	prog[sig].sa_handler = SIG_DFL;
	prog[sig].sa_flags &= ~(SA_SIGINFO | SA_RESETHAND);
	lock_give(&mask);
}

/*
 * The program's handler of a kept signal, with the mask the kernel would
 * have given it (the mask when the signal came, uc's, with the program's
 * sa_mask and the signal itself unless SA_NODEFER); SIG_IGN: nothing;
 * SIG_DFL: nothing, or (dfl_ends) what a watched signal gets: the dump
 * ended, then the default action.
 */
static void run_program(int sig, siginfo_t *si, void *uc, int dfl_ends)
{
	struct sigaction p = prog[sig];
	sigset_t mask, old;

	if (p.sa_handler == SIG_IGN)
		return;
	if (p.sa_handler == SIG_DFL) {
		if (dfl_ends)
			on_signal(sig, si, uc);
		return;
	}
	if (p.sa_flags & SA_RESETHAND)
		reset_hand(sig);
	sigorset(&mask, &((ucontext_t *)uc)->uc_sigmask, &p.sa_mask);
	if (p.sa_flags & SA_NODEFER)
		sigdelset(&mask, sig);
	else
		sigaddset(&mask, sig);
	pthread_sigmask(SIG_SETMASK, &mask, &old);
	if (p.sa_flags & SA_SIGINFO)
		p.sa_sigaction(sig, si, uc);
	else
		p.sa_handler(sig);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* The request signal: note it, then run what the program set for it. */
static void on_request(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;

	if (req_fn)
		req_fn();
	errno = saved;
	run_program(sig, si, uc, 0);
}

/* SIGPROF: the sampler's tick, or the program's signal. */
static void on_prof(int sig, siginfo_t *si, void *uc)
{
	if (gt_hostsample_signal(si, uc))
		return;
	run_program(sig, si, uc, 1);
}

static int is_ours(const struct sigaction *a)
{
	return (a->sa_flags & SA_SIGINFO) &&
	       (a->sa_sigaction == on_signal || a->sa_sigaction == on_request ||
		a->sa_sigaction == on_prof);
}

/*
 * Under the lock: ours (fn) in place for a kept signal, the program's
 * setting kept to be run.  Every signal but a fault's is blocked while
 * ours runs (a handler of the program's that came in between could wait
 * for a lock the sampler holds); run_program gives the program's handler
 * its own mask.  SIGPROF's runs on the thread's own stack: the sampler's
 * unwind needs more than an alternate stack may have.
 */
static void install_kept(int sig, void (*fn)(int, siginfo_t *, void *))
{
	static const int faults[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP,
				      SIGABRT, SIGSYS };
	struct sigaction cur, mine;

	if (!sig || get_sigaction()(sig, NULL, &cur) || is_ours(&cur))
		return;
	memset(&mine, 0, sizeof(mine));
	mine.sa_sigaction = fn;
	sigfillset(&mine.sa_mask);
	for (size_t i = 0; i < sizeof(faults) / sizeof(faults[0]); i++)
		sigdelset(&mine.sa_mask, faults[i]);
	mine.sa_flags = SA_SIGINFO | SA_RESTART | (sig == SIGPROF ? 0 : SA_ONSTACK);
	prog[sig] = cur;
	get_sigaction()(sig, &mine, NULL);
}

void gt_signals_request(int sig, void (*fn)(void))
{
	if (sig <= 0 || sig >= NSIG || is_watched(sig) || sig == SIGKILL ||
	    sig == SIGSTOP)
		return;
	req_fn = fn;
	req_sig = sig;
}

/* Under the lock, when armed: SIGPROF kept if the host sampler is to
 * run, and the sampler told whether it is. */
static void keep_prof(void)
{
	if (!gt_hostsample_wanted())
		return;
	if (is_request(SIGPROF)) {
		gt_hostsample_prof(-1);
		return;
	}
	atomic_store(&prof_kept, 1);    /* the program's calls wait for the lock */
	install_kept(SIGPROF, on_prof);
	gt_hostsample_prof(1);
}

/* The program's sigaction() on a kept signal: kept aside, ours stays. */
static int set_kept(int sig, const struct sigaction *act, struct sigaction *old)
{
	struct sigaction shown;
	sigset_t mask;

	lock_take(&mask);
	shown = prog[sig];
	if (act)
		prog[sig] = *act;
	lock_give(&mask);
	if (old)
		*old = shown;
	return 0;
}

/* Under the lock: if sig is at SIG_DFL now, put our handler in its place. */
static void install_if_default(int sig)
{
	struct sigaction cur, mine;

	if (get_sigaction()(sig, NULL, &cur) || cur.sa_handler != SIG_DFL)
		return;
	memset(&mine, 0, sizeof(mine));
	mine.sa_sigaction = on_signal;
	mine.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
	sigfillset(&mine.sa_mask);
	prog[sig] = cur;
	get_sigaction()(sig, &mine, NULL);
}

/* Under the lock: a kept signal to SIG_IGN for real, if the program's
 * setting is (before an exec), or ours back (after a failed one). */
static void exec_kept(int sig, void (*fn)(int, siginfo_t *, void *), int failed)
{
	struct sigaction ign;

	if (!sig || prog[sig].sa_handler != SIG_IGN)
		return;
	if (failed) {
		install_kept(sig, fn);
		return;
	}
	ign = prog[sig];
	get_sigaction()(sig, &ign, NULL);
}

void gt_signals_exec(int failed)
{
	sigset_t old;

	lock_take(&old);
	if (atomic_load(&armed))
		exec_kept(req_sig, on_request, failed);
	if (atomic_load(&prof_kept))
		exec_kept(SIGPROF, on_prof, failed);
	lock_give(&old);
}

void gt_signals_after_fork(void)
{
	atomic_flag_clear(&lock);
}

void gt_signals_arm(void)
{
	sigset_t old;

	if (atomic_exchange(&armed, 1))
		return;
	if (gt_cfg.debug) {         /* load libgcc now, not in the handler */
		void *pc;
		backtrace(&pc, 1);
	}
	lock_take(&old);
	for (size_t i = 0; i < sizeof(watched) / sizeof(watched[0]); i++)
		install_if_default(watched[i]);
	install_kept(req_sig, on_request);
	keep_prof();
	lock_give(&old);
}

/* The program's sigaction() on a watched signal once we are armed. */
static int set_action(int sig, const struct sigaction *act, struct sigaction *old)
{
	struct sigaction was, shown;
	sigset_t mask;
	int rc;

	lock_take(&mask);
	shown = prog[sig];
	rc = get_sigaction()(sig, act, &was);
	if (rc == 0 && act)
		install_if_default(sig);
	lock_give(&mask);
	if (rc == 0 && old)
		*old = is_ours(&was) ? shown : was;
	return rc;
}

GT_EXPORT int sigaction(int sig, const struct sigaction *act,
			struct sigaction *old)
{
	if (is_kept(sig))
		return set_kept(sig, act, old);
	if (sig <= 0 || sig >= NSIG || !atomic_load(&armed) || !is_watched(sig))
		return get_sigaction()(sig, act, old);
	return set_action(sig, act, old);
}

GT_EXPORT handler_fn signal(int sig, handler_fn h)
{
	handler_fn was, shown;
	sigset_t mask;

	if (is_kept(sig)) {
		struct sigaction act = { .sa_handler = h, .sa_flags = SA_RESTART }, old;

		sigemptyset(&act.sa_mask);
		sigaddset(&act.sa_mask, sig);   /* as glibc's signal() */
		set_kept(sig, &act, &old);
		return (old.sa_flags & SA_SIGINFO) ? (handler_fn)(void *)old.sa_sigaction
						    : old.sa_handler;
	}
	if (sig <= 0 || sig >= NSIG || !atomic_load(&armed) || !is_watched(sig))
		return get_signal()(sig, h);
	lock_take(&mask);
	shown = prog[sig].sa_handler;
	was = get_signal()(sig, h);
	if (was != SIG_ERR)
		install_if_default(sig);
	lock_give(&mask);
	return (void *)was == (void *)on_signal ? shown : was;
}
