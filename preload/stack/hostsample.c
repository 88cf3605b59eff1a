/* SPDX-License-Identifier: MIT */
/*
 * hostsample.c - the host stack sampler (hostsample.h): per-thread timers,
 * and the SIGPROF handler that records where a thread outside every traced
 * call is.
 *
 * The handler interrupts the program anywhere (inside malloc, holding a
 * lock of its own or one of ours), so it takes no lock that the
 * interrupted thread can hold, allocates nothing and calls no Python: a
 * tick that finds the thread inside a traced call (busy set) is only
 * counted; otherwise the record is taken from the thread's ring as a
 * traced call takes it, the native frames come from the unwinder set up
 * at the dump's start (only crossed in a handler, never loaded there), the
 * Python frames from direct reads of CPython's structures (known layouts
 * only; with the C API, none), and the stack's id from the shared stack
 * table.  A new stack (or a new Python function) goes into the dump
 * through the writer's side buffer in its quiet mode: its lock is tried,
 * never waited for, and room was made beforehand; when it is taken, the
 * stack is written at a later tick.  errno is kept.
 *
 * With the CPU clock (the default) each tick stands for its period of the
 * thread's CPU time, times the expirations it covers (the timer's
 * overrun): nothing is read.  With the wall clock the thread's CPU time
 * is read at every tick (a system call) to tell a thread that ran from
 * one that waited.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ucontext.h>
#include <time.h>
#include <unistd.h>

#include "include/gputrace/format.h"
#include "preload/base/internal.h"
#include "preload/base/ops.h"
#include "preload/base/settings.h"
#include "preload/record/ring.h"
#include "preload/record/writer.h"
#include "preload/stack/callsite.h"
#include "preload/stack/hostsample.h"
#include "preload/stack/pyframes.h"
#include "preload/stack/stack_unwind.h"

#ifndef sigev_notify_thread_id
#define sigev_notify_thread_id _sigev_un._tid
#endif

#define MAGIC 0x6774686f73740000ull     /* "gthost": our timers' value */
#define MAGIC_MASK (~0xffffull)
#define KIND_SELF 1                     /* armed by the thread itself */
#define KIND_MAIN 2                     /* the main thread, armed by another */
#define NATIVE_MAX 32
#define SIDE_ROOM (256u << 10)          /* side buffer room kept for stacks */
#define WORDS_MAX (1 + NATIVE_MAX + 2 * GT_STACK_DEPTH_MAX)

/* A thread's CPU clock by its id (Linux: MAKE_THREAD_CPUCLOCK). */
#define THREAD_CPUCLOCK(tid) ((clockid_t)((~(unsigned)(tid) << 3) | 4 | 2))

static struct {
	unsigned hz;                    /* 0: off */
	int wall;                       /* GPUTRACE_HOST_CLOCK=wall */
	int native;                     /* native frames kept */
	uint64_t period_ns;
	atomic_int on;                  /* samples are taken in this dump */
	int child_on;                   /* a fork child's parent sampled */
	pid_t main_tid;
	timer_t main_timer;             /* KIND_MAIN's */
	atomic_uint main_gen;           /* generation it was armed in, 0 none */
	int hooked;                     /* the end note's hook is in */
	int prof;                       /* gt_hostsample_prof: 1 kept */
	_Atomic uint64_t samples, no_stack, trimmed;    /* this dump's */
} hs = { .hz = 0 };

/* The calling thread's timer; armed in generation gen (0: not). */
static __thread struct {
	timer_t timer;
	unsigned gen;
	uint32_t incall;                /* ticks inside calls since a sample */
	uint64_t cpu_ns;                /* wall clock: CPU time at the last tick */
} me __attribute__((tls_model("initial-exec")));

void gt_hostsample_config(void)
{
	hs.hz = (unsigned)gt_setting(GT_S_HOST_HZ);
	hs.wall = gt_setting(GT_S_HOST_CLOCK) == 1;
	hs.native = (int)gt_setting(GT_S_HOST_NATIVE);
	hs.period_ns = hs.hz ? 1000000000ull / hs.hz : 0;
	gt_writer_on_start(gt_hostsample_start);
	if (hs.hz)
		gt_ring_thread_hooks(gt_hostsample_thread, gt_hostsample_thread_exit);
}

int gt_hostsample_wanted(void)
{
	return hs.hz != 0;
}

void gt_hostsample_prof(int kept)
{
	hs.prof = kept;
}

static unsigned generation(void)
{
	return atomic_load_explicit(&gt_mark->generation, memory_order_relaxed);
}

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts))
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Every period from now (on), or never (off). */
static int set_timer(timer_t timer, int on)
{
	struct itimerspec its = { { 0, 0 }, { 0, 0 } };

	if (on) {
		its.it_interval.tv_sec = (time_t)(hs.period_ns / 1000000000u);
		its.it_interval.tv_nsec = (long)(hs.period_ns % 1000000000u);
		its.it_value = its.it_interval;
	}
	return timer_settime(timer, 0, &its, NULL);
}

/* A timer sending SIGPROF to thread tid every period; 0 or an errno. */
static int make_timer(pid_t tid, uint64_t kind, timer_t *out)
{
	struct sigevent ev;
	clockid_t clock = hs.wall ? CLOCK_MONOTONIC : THREAD_CPUCLOCK(tid);

	memset(&ev, 0, sizeof(ev));
	ev.sigev_notify = SIGEV_THREAD_ID;
	ev.sigev_signo = SIGPROF;
	ev.sigev_notify_thread_id = tid;
	ev.sigev_value.sival_ptr = (void *)(uintptr_t)(MAGIC | kind);
	if (timer_create(clock, &ev, out))
		return errno;
	if (set_timer(*out, 1)) {
		int err = errno;

		timer_delete(*out);
		return err;
	}
	return 0;
}

/* The calling thread's timer, armed (and its unwinder primed: libunwind
 * makes its per-thread cache at a thread's first unwind). */
static int arm_self(unsigned gen)
{
	uint64_t prime[2];
	int err = make_timer(gettid(), KIND_SELF, &me.timer);

	if (err)
		return err;
	me.gen = gen;
	me.incall = 0;
	me.cpu_ns = thread_cpu_ns();
	gt_unwind(prime, 2);
	return 0;
}

/* The main thread's timer, from another thread. */
static int arm_main(unsigned gen)
{
	int err = make_timer(hs.main_tid, KIND_MAIN, &hs.main_timer);

	if (!err)
		atomic_store(&hs.main_gen, gen);
	return err;
}

static void put_note(const char *text, int n)
{
	uint32_t level = 0;

	if (n > 0)
		gt_writer_side_chunk(GT_CHUNK_NOTE, &level, sizeof(level), text,
				     (size_t)n < 256 ? (size_t)n : 255);
}

/* The note of a dump whose threads are sampled. */
static void note_on(void)
{
	char note[256];
	int n = snprintf(note, sizeof(note), "host sampler: %u Hz of each thread's "
			 "%s time (SIGPROF), %d native frame%s%s; python frames: %s",
			 hs.hz, hs.wall ? "wall" : "CPU", hs.native, hs.native == 1 ? "" : "s",
			 hs.native == (int)gt_setting(GT_S_HOST_NATIVE) ? "" :
			 " (libgcc's unwinder is slow in a handler)",
			 gt_pyframes_raw() ? "read directly" : gt_pyframes_api() ?
			 "none (the C API is never called in a signal handler)" :
			 "none");

	put_note(note, n);
	gt_debug("gputrace: %s\n", note);
}

/* At the dump's end: what the samples could not keep, when anything. */
static void note_end(int final)
{
	char note[256];
	uint64_t all = atomic_load(&hs.samples), none = atomic_load(&hs.no_stack);
	uint64_t cut = atomic_load(&hs.trimmed);

	(void)final;
	if (!atomic_load(&hs.on) || (!none && !cut))
		return;
	put_note(note, snprintf(note, sizeof(note), "host sampler: of %llu samples, "
				"%llu have no stack (a new one could not be written at "
				"once, or the stack table is full) and %llu only their "
				"Python frames or innermost native frame (the table was "
				"half full)", (unsigned long long)all,
				(unsigned long long)none, (unsigned long long)cut));
}

/*
 * The native frames a sample keeps: GPUTRACE_HOST_NATIVE, unless unset in
 * a Python process whose frames are read directly while the unwinder is
 * libgcc's: that one parses the objects' unwind tables at every frame (in
 * PyTorch, 8 frames took 99 us a sample on an H200 host, against 29 us for
 * the interrupted instruction alone: test/gpu/sampler_cost.sh), and the
 * Python frames tell the stack; then the interrupted instruction alone.
 */
static int native_frames(void)
{
	int n = (int)gt_setting(GT_S_HOST_NATIVE);

	if (n > 1 && !gt_setting_given(GT_S_HOST_NATIVE) &&
	    gt_unwind_chosen() == GT_UNWIND_LIBGCC && gt_pyframes_raw())
		return 1;
	return n;
}

/* Samples off in this dump, and why (said on stderr too, but for 0 Hz). */
static void note_off(const char *why, int loud)
{
	char note[256];
	int n = snprintf(note, sizeof(note), "host sampler: off (%s)", why);

	put_note(note, n);
	if (loud)
		gt_log("gputrace: no host stack samples: %s\n", why);
}

void gt_hostsample_start(void)
{
	unsigned gen = generation();
	char why[128];
	int err;

	if (!hs.hz) {
		note_off("GPUTRACE_HOST_HZ=0", 0);
		return;
	}
	gt_callsite_prepare();
	hs.native = native_frames();
	gt_writer_side_reserve(SIDE_ROOM);
	if (hs.prof != 1) {
		note_off(hs.prof ? "SIGPROF is GPUTRACE_GPU_SIGNAL" :
			 "no SIGPROF handler could be kept", 1);
		return;
	}
	hs.main_tid = getpid();
	gt_pyframes_raw_pid(hs.main_tid);
	atomic_store(&hs.samples, 0);
	atomic_store(&hs.no_stack, 0);
	atomic_store(&hs.trimmed, 0);
	if (!hs.hooked) {               /* kept by a forked child, as the hook */
		hs.hooked = 1;
		gt_writer_on_end(note_end);
	}
	atomic_store(&hs.on, 1);
	err = gettid() == hs.main_tid ? arm_self(gen) : arm_main(gen);
	if (err) {
		atomic_store(&hs.on, 0);
		snprintf(why, sizeof(why), "timer_create failed: %s", strerror(err));
		note_off(why, 1);
		return;
	}
	note_on();
}

void gt_hostsample_thread(void)
{
	unsigned gen = generation();
	int err;

	if (!atomic_load(&hs.on) || me.gen == gen)
		return;
	if (gettid() == hs.main_tid && atomic_load(&hs.main_gen) == gen) {
		me.timer = hs.main_timer;   /* the main thread's, armed before */
		me.gen = gen;
		return;
	}
	err = arm_self(gen);
	if (err)
		gt_warn_once("gputrace: a thread cannot have its host sampling "
			     "timer (%s); it is not sampled\n", strerror(err));
}

void gt_hostsample_thread_exit(void)
{
	if (!me.gen || me.gen != generation())
		return;
	me.gen = 0;
	timer_delete(me.timer);
	if (gettid() == hs.main_tid)
		atomic_store(&hs.main_gen, 0);
}

void gt_hostsample_exec(int failed)
{
	if (me.gen && me.gen == generation())
		set_timer(me.timer, failed);
}

void gt_hostsample_after_fork(void)
{
	hs.child_on = atomic_exchange(&hs.on, 0);
	gt_pyframes_raw_pid(0);             /* the parent's: asked until a start */
	atomic_store(&hs.main_gen, 0);
	me.gen = 0;
	me.incall = 0;
}

void gt_hostsample_fork_child(void)
{
	struct gt_thread *t = &gt_self;

	if (!hs.child_on || !atomic_load(&gt_active))
		return;
	hs.child_on = 0;
	gt_writer_start_lazy();             /* no file until a sample comes */
	gt_thread_attach(t, gt_rec_frame());
	t->busy = 0;
}

/* ---- the handler ---------------------------------------------------- */

/* The interrupted instruction and frame pointer. */
static void interrupted_at(const ucontext_t *uc, uint64_t *pc, uint64_t *fp)
{
#if defined(__x86_64__)
	*pc = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
	*fp = (uint64_t)uc->uc_mcontext.gregs[REG_RBP];
#elif defined(__aarch64__)
	*pc = (uint64_t)uc->uc_mcontext.pc;
	*fp = (uint64_t)uc->uc_mcontext.regs[29];
#else
	*pc = *fp = 0;
#endif
}

/* The stack of the interrupted code, as an id (0: none), counted. */
static uint32_t capture(const ucontext_t *uc)
{
	uint64_t w[WORDS_MAX], pc, fp;
	int nn = 0, np, trimmed;
	uint32_t id;

	interrupted_at(uc, &pc, &fp);
	if (hs.native && pc)
		nn = gt_unwind_signal(w + 1, hs.native, pc, fp);
	np = gt_pyframes_capture_raw(w + 1 + nn, gt_callsite_depth());
	id = gt_callsite_intern_quiet(w, nn, np, &trimmed);
	atomic_fetch_add_explicit(&hs.samples, 1, memory_order_relaxed);
	if (!id)
		atomic_fetch_add_explicit(&hs.no_stack, 1, memory_order_relaxed);
	else if (trimmed)
		atomic_fetch_add_explicit(&hs.trimmed, 1, memory_order_relaxed);
	return id;
}

/* This thread's timer, known to it (the main thread's, at its first
 * tick); 0 when the tick is not to be recorded. */
static int ours_now(unsigned kind, unsigned gen)
{
	if (likely(me.gen == gen))
		return 1;
	if (kind != KIND_MAIN || atomic_load(&hs.main_gen) != gen)
		return 0;               /* a timer gone, or a parent's */
	me.timer = hs.main_timer;
	me.gen = gen;
	me.incall = 0;
	me.cpu_ns = 0;
	return 1;
}

/* The CPU time a tick stands for, and the thread's state; 0: skip it. */
static uint64_t tick_cpu(int overrun, uint32_t *state)
{
	uint64_t now, was = me.cpu_ns;

	*state = GT_HOST_RUNNING;
	if (!hs.wall)
		return hs.period_ns * (uint64_t)(1 + (overrun > 0 ? overrun : 0));
	now = thread_cpu_ns();
	me.cpu_ns = now;
	if (!was || now < was)
		return 0;               /* no previous reading: a baseline */
	if (2 * (now - was) < hs.period_ns)
		*state = GT_HOST_WAITING;
	return now - was ? now - was : 1;
}

static void tick(unsigned kind, int overrun, const ucontext_t *uc)
{
	struct gt_thread *t = &gt_self;
	unsigned gen = generation();
	uint64_t start = gt_stamp();
	struct gt_rec *r;
	uint32_t state;
	uint64_t cpu;

	if (!atomic_load_explicit(&hs.on, memory_order_relaxed) || !ours_now(kind, gen))
		return;
	cpu = tick_cpu(overrun, &state);
	if (t->busy) {
		me.incall++;
		return;
	}
	if (!cpu)
		return;
	if ((!t->ring || t->generation != gen) &&
	    (kind != KIND_MAIN || !gt_thread_attach_quiet(t, (uint32_t)hs.main_tid)))
		return;
	if (!(r = gt_rec_begin()))
		return;
	r->t0 = start;
	r->stream = 0;
	gt_side_quiet = 1;
	r->stack = capture(uc);
	gt_side_quiet = 0;
	r->t1 = gt_stamp();             /* the handler's own time, so far */
	r->u.host.cpu_ns = cpu;
	r->u.host.state = state;
	r->u.host.incall = me.incall;
	gt_rec_commit(r, GT_OP_host_sample, 0);
	me.incall = 0;
}

int gt_hostsample_signal(siginfo_t *si, void *uc)
{
	uint64_t v;
	int saved;

	if (!si || si->si_code != SI_TIMER)
		return 0;
	v = (uint64_t)(uintptr_t)si->si_value.sival_ptr;
	if ((v & MAGIC_MASK) != MAGIC)
		return 0;
	saved = errno;
	tick((unsigned)(v & 0xff), si->si_overrun, uc);
	errno = saved;
	return 1;
}
