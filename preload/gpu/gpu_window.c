/* SPDX-License-Identifier: MIT */
/*
 * gpu_window.c - the GPU timing windows (gpu_window.h): settings, the
 * schedule, and what the dump learns about them (windows, clock pairs,
 * CUPTI's state, drops, switching spans).  The schedule runs in the
 * writer thread's cycle:
 *
 *   wait  --(the program's first GPU work, steady steps, a request, a
 *         step range, else the clock)-->
 *         open: attach, clock pair, enable kinds, window chunk
 *   open  --(whole steps and time covered; the clock's window_ms; the
 *         start window's calls; never with GPUTRACE_GPU=all)-->  close:
 *         disable, window chunk, clock pair, forced flush
 *   open, the start window  --(steady steps)-->  a window on the steps,
 *         CUPTI on throughout
 *   drain --(every record the window's work should bring came, else
 *         DRAIN_MS; no wrapper inside a push)-->  forced flush, detach
 *         (GPUTRACE_GPU_SWITCH=finalize), switching span, wait
 *
 * Records of kernels launched in a window but still running when it
 * closes come in during the drain.  At exit a window still open is closed
 * and everything CUPTI holds is flushed.
 *
 * The start window times a program's first GPUTRACE_GPU_START_CALLS
 * calls that give the GPU work, so that a short program (whose host can
 * queue all its steps faster than CUPTI attaches, or which ends before
 * its steps are steady) and a loop of CUDA graphs get GPU timing too.
 * CUPTI is subscribed and its kinds enabled before CUDA initializes (the
 * first cuGetProcAddress, as for GPUTRACE_GPU=all), so the first launch
 * is timed; the counted calls' last wakes the writer to close it
 * (cupti.c), and once the steps are steady it becomes their window.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "include/gputrace/format.h"
#include "preload/gpu/cupti.h"
#include "preload/gpu/cupti_internal.h"
#include "preload/gpu/gpu_window.h"
#include "preload/base/dl.h"
#include "preload/base/internal.h"
#include "preload/base/settings.h"
#include "preload/process/signals.h"
#include "preload/gpu/steps.h"
#include "preload/record/writer.h"

#define MS 1000000ull
#define DRAIN_MS 500                /* after a window, for late records
                                       (detached sooner once all came) */
#define DRAIN_MAX_MS 30000          /* ... and at most, waiting to detach */
#define CLOCK_EVERY_MS 10000        /* clock pairs while a window is open */
#define CLOCK_BATCH_MS 100          /* ... and before records, at most */
#define NOT_YET UINT64_MAX          /* next_open before the first GPU work */
#define TRIGGER_EVERY_MS 200        /* GPUTRACE_GPU_TRIGGER looked for */
#define STEP_CAP 3                  /* a steps window closes by this many
                                       times its expected length at most */
#define SHORT_RETRIES 3             /* windows without their steps that may
                                       each be followed by another at once */

struct gt_gpu_cfg gt_gpu_cfg;
atomic_int gt_cupti_early_done;

/* A window opened before the dump (GPUTRACE_GPU=all, or the start
 * window) on the program's thread: when, why, and what switching CUPTI
 * on took there (attach, enable). */
static _Atomic uint64_t early_opened;
static atomic_uint early_reason;
static _Atomic uint64_t early_took[2];

enum phase { P_START, P_WAIT, P_OPEN, P_DRAIN, P_DONE };

/* What switching CUPTI on and off took (the writer thread's time, during
 * which CUPTI may hold the program's CUDA calls too): said in notes. */
enum sw { SW_ATTACH, SW_ENABLE, SW_DISABLE, SW_DETACH, SW_N };
#define SWITCH_NOTES 3              /* windows noted one by one */

/* A window asked for by the signal or the trigger file (a reason). */
static atomic_uint requested;

static struct {
	enum phase phase;
	uint32_t reason;            /* enum gt_window_reason of the current */
	uint64_t next_open, opened, closed, attach;
	uint64_t steps_windows;     /* windows that covered whole steps so far */
	int short_window;           /* the last closed without its steps */
	uint32_t short_run;         /* ... and those before it, in a row */
	uint64_t last_trigger;      /* when the trigger file was last looked for */
	int trigger_stuck;          /* it is there, and could not be removed */
	int range_done;
	uint64_t range_end;         /* the range's window closes after this
	                               step (GPUTRACE_GPU_STEPS, or as many
	                               steps from a late start) */
	uint64_t last_flush, last_clock;
	int start_done;             /* the start window opened, or could not */
	uint32_t seq;
	uint32_t state_written;
	uint32_t path_str;
	struct gt_gpu_drops drops;  /* as last written */
	unsigned generation;        /* the generation (gt_mark) of the session */
	uint64_t took[SW_N];        /* this window's switching, ns */
	uint64_t took_all[SW_N];    /* all windows' */
} gw;

/* ---- settings ------------------------------------------------------------ */

/* "a-b" (steps, from 1), else 0 (said once). */
static void env_range(uint64_t *lo, uint64_t *hi)
{
	const char *v = gt_setting_text(GT_S_GPU_STEPS);
	unsigned long long a, b;
	int n = 0;

	*lo = *hi = 0;
	if (!v)
		return;
	if (sscanf(v, "%llu-%llu%n", &a, &b, &n) == 2 && !v[n] && a >= 1 && b >= a) {
		*lo = a;
		*hi = b;
		return;
	}
	gt_log("gputrace: ignoring GPUTRACE_GPU_STEPS='%s' (want FIRST-LAST, "
	       "steps counted from 1)\n", v);
}

/* A signal's name or number: USR2, SIGUSR2, RTMIN+N, 12; 0 or off: none. */
static int signal_number(const char *v)
{
	static const struct { const char *name; int sig; } names[] = {
		{ "USR1", SIGUSR1 }, { "USR2", SIGUSR2 }, { "HUP", SIGHUP },
		{ "URG", SIGURG }, { "WINCH", SIGWINCH }, { "PROF", SIGPROF },
	};
	char *end;
	long n;

	if (!strncmp(v, "SIG", 3))
		v += 3;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(v, names[i].name))
			return names[i].sig;
	if (!strncmp(v, "RTMIN+", 6) && (n = strtol(v + 6, &end, 10)) >= 0 &&
	    !*end && SIGRTMIN + n <= SIGRTMAX)
		return SIGRTMIN + (int)n;
	n = strtol(v, &end, 10);
	return *v && !*end && n >= 0 && n < NSIG ? (int)n : -1;
}

static int env_signal(void)
{
	const char *v = gt_setting_text(GT_S_GPU_SIGNAL);
	int sig;

	if (!v)
		return SIGUSR2;
	if (!strcmp(v, "off"))
		return 0;
	sig = signal_number(v);
	if (sig < 0 || sig == SIGKILL || sig == SIGSTOP) {
		gt_log("gputrace: ignoring GPUTRACE_GPU_SIGNAL='%s' (want USR1, "
		       "USR2, RTMIN+N, a number, or off); using SIGUSR2\n", v);
		return SIGUSR2;
	}
	return sig;
}

#define START_CALLS_NATIVE 4096

/*
 * The start window's calls: GPUTRACE_GPU_START_CALLS where given; else
 * on (4096) in a program without a Python interpreter, which a short run
 * or a loop of CUDA graphs needs for any GPU timing, and off in one:
 * with it on, 4 of 31 Python runs of the H200 diagnosis suite died at
 * exit with the heap corrupted (cause not found), where no native
 * program did, and Python programs' steps get windows of their own.
 */
static uint32_t start_calls(void)
{
	if (gt_setting_given(GT_S_GPU_START_CALLS))
		return (uint32_t)gt_setting(GT_S_GPU_START_CALLS);
	return gt_real_dlsym(RTLD_DEFAULT, "Py_IsInitialized") ? 0 : START_CALLS_NATIVE;
}

static void load_windows(struct gt_gpu_cfg *c)
{
	const char *t = gt_setting_text(GT_S_GPU_TRIGGER);

	c->window_ms = (uint32_t)gt_setting(GT_S_GPU_WINDOW_MS);
	c->period_ms = (uint32_t)gt_setting(GT_S_GPU_PERIOD_MS);
	c->warmup_ms = (uint32_t)gt_setting(GT_S_GPU_WARMUP_MS);
	c->window_steps = (uint32_t)gt_setting(GT_S_GPU_WINDOW_STEPS);
	c->place_clock = (int)gt_setting(GT_S_GPU_PLACE);      /* steps|clock */
	env_range(&c->range_lo, &c->range_hi);
	c->start_calls = c->range_lo ? 0 : start_calls();
	c->signal = env_signal();
	if (t && strlen(t) < sizeof(c->trigger))
		strcpy(c->trigger, t);
	if (c->period_ms < c->window_ms)
		c->period_ms = c->window_ms;
}

GT_STATIC_ASSERT(GT_BUFFERS_MAX == 64, "GPUTRACE_CUPTI_BUFFERS: at most 64 "
		 "(settings.def)");

static void load_settings(void)
{
	struct gt_gpu_cfg *c = &gt_gpu_cfg;

	c->cupti = (int)gt_setting(GT_S_CUPTI);
	c->mode = (uint32_t)gt_setting(GT_S_GPU) + GT_GPU_MODE_WINDOWS;
	load_windows(c);
	/*
	 * Between windows CUPTI is detached: attached with its kinds off it
	 * still cost about 1 us per launch on the H200 (cupti_probe.cu), and
	 * so does being attached before the first window (a launch-bound
	 * PyTorch loop 1.42x); hence, too, subscribing early only for "all"
	 * and the start window, whose kinds are on from then.
	 */
	c->finalize = (int)gt_setting(GT_S_GPU_SWITCH);        /* disable|finalize */
	c->graph_trace = (int)gt_setting(GT_S_GPU_GRAPHS);     /* nodes|graph */
	c->buffers = (uint32_t)gt_setting(GT_S_CUPTI_BUFFERS);
	c->buffer_bytes = (size_t)gt_setting(GT_S_CUPTI_BUFFER_KB) << 10;
	c->flush_ms = (uint32_t)gt_setting(GT_S_CUPTI_FLUSH_MS);
	c->latency = (int)gt_setting(GT_S_CUPTI_LATENCY);      /* 0|1|auto */
	if (c->latency == 2)
		c->latency = -1;    /* auto: where CUPTI is safe with them */
	if (!c->cupti)
		c->mode = GT_GPU_MODE_OFF;
	if (c->mode != GT_GPU_MODE_WINDOWS)
		c->start_calls = 0;
	c->early = gt_setting_given(GT_S_CUPTI_EARLY) ?
		   (int)gt_setting(GT_S_CUPTI_EARLY) :
		   c->mode == GT_GPU_MODE_ALL || c->start_calls;
}

/* ---- what the dump learns ------------------------------------------------ */

static void put_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void put_note(const char *fmt, ...)
{
	char note[512];
	uint32_t level = 0;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(note, sizeof(note), fmt, ap);
	va_end(ap);
	if (n > 0)
		gt_writer_side_chunk(GT_CHUNK_NOTE, &level, sizeof(level), note,
				     (size_t)n < sizeof(note) ? (size_t)n : sizeof(note) - 1);
}

static uint64_t timed_since(enum sw what, uint64_t t0)
{
	uint64_t t1 = gt_now(), d = t1 - t0;

	gw.took[what] += d;
	gw.took_all[what] += d;
	return t1;
}

#define SW_MS(a, i) ((double)(a)[i] / 1e6)

/* One window's switching, for the first few (and in the debug output). */
static void note_switching(void)
{
	gt_debug("gputrace: window %u: CUPTI attach %.1f ms, enable %.1f ms, "
		 "disable %.1f ms, detach %.1f ms\n", gw.seq, SW_MS(gw.took, 0),
		 SW_MS(gw.took, 1), SW_MS(gw.took, 2), SW_MS(gw.took, 3));
	if (gw.seq <= SWITCH_NOTES)
		put_note("gpu: window %u: switching CUPTI on took %.1f ms (attach "
			 "%.1f, enable %.1f), off %.1f ms (disable %.1f, detach %.1f)",
			 gw.seq, SW_MS(gw.took, 0) + SW_MS(gw.took, 1),
			 SW_MS(gw.took, 0), SW_MS(gw.took, 1),
			 SW_MS(gw.took, 2) + SW_MS(gw.took, 3), SW_MS(gw.took, 2),
			 SW_MS(gw.took, 3));
	memset(gw.took, 0, sizeof(gw.took));
}

static void say_host_only(void)
{
	uint32_t state = gt_cupti_state();

	if (state == GT_CUPTI_TAKEN)
		gt_warn_once("gputrace: CUPTI is held by another tool (%s); tracing "
			     "the host side only\n",
			     *gt_cupti_holder() ? gt_cupti_holder() : "torch.profiler, "
			     "nsys or compute-sanitizer?");
	else if (state == GT_CUPTI_MISSING || state == GT_CUPTI_FAILED)
		gt_warn_once("gputrace: no GPU timing (%s); tracing the host side "
			     "only\n", gt_cupti_why());
}

static void put_state(void)
{
	uint32_t state = gt_gpu_cfg.mode == GT_GPU_MODE_OFF ? GT_CUPTI_OFF
							    : gt_cupti_state();
	struct gt_gpu_state s = {
		.state = state, .mode = gt_gpu_cfg.mode,
		.window_ms = gt_gpu_cfg.window_ms, .period_ms = gt_gpu_cfg.period_ms,
		.warmup_ms = gt_gpu_cfg.warmup_ms, .cupti_version = gt_cupti_version(),
	};
	struct gt_gpu_header h = { .kind = GT_GPU_STATE, .count = 1,
				   .rec_size = sizeof(s) };
	const char *holder = gt_cupti_holder();

	if (!state || state == gw.state_written)
		return;
	if (!gw.path_str && *gt_cupti_path())
		gw.path_str = gt_writer_string(gt_cupti_path(), strlen(gt_cupti_path()));
	s.path_str = gw.path_str;
	if (state == GT_CUPTI_TAKEN && *holder)
		s.holder_str = gt_writer_string(holder, strlen(holder));
	if (gt_writer_side_chunk(GT_CHUNK_GPU, &h, sizeof(h), &s, sizeof(s)))
		return;
	gw.state_written = state;
	say_host_only();
	if (state == GT_CUPTI_TAKEN)
		put_note("gpu: CUPTI is held by another tool (%s): no GPU timing",
			 *holder ? holder : "not named");
	else if (state == GT_CUPTI_MISSING || state == GT_CUPTI_FAILED)
		put_note("gpu: no GPU timing: %s", gt_cupti_why());
	else if (state == GT_CUPTI_ON && gt_cupti_latency_unsafe())
		put_note("gpu: launch latency timestamps off: CUPTI API version %u "
			 "can deadlock a launch with them (fixed in CUDA 13.4 Update 1); "
			 "GPUTRACE_CUPTI_LATENCY=1 asks for them", gt_cupti_version());
}

static void put_window(uint64_t start, uint64_t end)
{
	struct gt_gpu_window win = { .start_ns = start, .end_ns = end,
				     .seq = gw.seq };

	gt_writer_side_chunk(GT_CHUNK_WINDOW, &win, sizeof(win), NULL, 0);
}

/* CUPTI's clock against ours: the tightest of a few tries. */
static void put_clock(uint64_t now)
{
	struct gt_clock_pair best = { .spread_ns = UINT32_MAX };

	for (int i = 0; i < 5; i++) {
		uint64_t a = gt_now(), c = gt_cupti_now(), b = gt_now();

		if (!c)
			return;
		if (b - a < best.spread_ns)
			best = (struct gt_clock_pair){ .gpu_ns = c,
				.host_ns = a + (b - a) / 2, .spread_ns = (uint32_t)(b - a) };
	}
	gt_writer_side_chunk(GT_CHUNK_CLOCK, &best, sizeof(best), NULL, 0);
	gw.last_clock = now;
}

static void put_drops(void)
{
	struct gt_gpu_drops d = {
		.cupti_dropped = gt_buffers_dropped(),
		.refused = gt_buffers_refused(),
		.lost = gt_buffers_lost() + gt_records_lost(),
	};
	struct gt_gpu_header h = { .kind = GT_GPU_DROPS, .count = 1,
				   .rec_size = sizeof(d) };

	if (!memcmp(&d, &gw.drops, sizeof(d)))
		return;
	if (gt_writer_side_chunk(GT_CHUNK_GPU, &h, sizeof(h), &d, sizeof(d)) == 0)
		gw.drops = d;
}

/* ---- the schedule ----------------------------------------------------------- */

/* The whole switching span of a window, once CUPTI is off again. */
static void put_switch(uint64_t off)
{
	struct gt_gpu_switch sw = {
		.seq = gw.seq, .reason = gw.reason, .attach_ns = gw.attach,
		.off_ns = off,
		.steps = gw.reason == GT_WINDOW_STEPS ? gt_gpu_cfg.window_steps : 0,
	};

	gt_writer_side_chunk(GT_CHUNK_SWITCH, &sw, sizeof(sw), NULL, 0);
}

static void open_window(uint64_t now, uint32_t reason)
{
	uint64_t t = now;
	int failed;

	if (reason == GT_WINDOW_START)
		gw.start_done = 1;
	failed = gt_cupti_attach();

	t = timed_since(SW_ATTACH, t);
	if (failed) {
		/* held by another tool: maybe free at the next period */
		gw.phase = gt_cupti_state() == GT_CUPTI_TAKEN ? P_WAIT : P_DONE;
		gw.next_open = now + (uint64_t)gt_gpu_cfg.period_ms * MS;
		return;
	}
	put_clock(now);
	gt_cupti_work_reset();
	gt_cupti_limit_calls(reason == GT_WINDOW_START ? gt_gpu_cfg.start_calls : 0);
	failed = gt_cupti_enable(reason == GT_WINDOW_START);
	timed_since(SW_ENABLE, t);
	if (failed) {
		gw.phase = P_DONE;
		return;
	}
	gw.attach = now;
	gw.reason = reason;
	gw.opened = gt_now();       /* ids pushed and kinds on from here */
	gw.seq++;
	put_window(gw.opened, 0);
	gw.phase = P_OPEN;
	gw.last_flush = gw.opened;
	gt_debug("gputrace: window %u opens (reason %u)\n", gw.seq, reason);
}

/* The window ends before the kinds go off: a call that starts after its
 * end may still bring a record (the analyzer joins it as an edge), but no
 * call inside it misses its record. */
static void close_window(void)
{
	gw.closed = gt_now();
	gt_cupti_disable();
	gt_cupti_ids_off();
	timed_since(SW_DISABLE, gw.closed);
	put_window(gw.opened, gw.closed);
	put_clock(gw.closed);
	gt_cupti_flush(0);          /* forced only once late kernels are done */
	gw.phase = P_DRAIN;
	gw.last_flush = gw.closed;
}

/* The drain gave up waiting: CUPTI stays attached (kinds off, about 1 us
 * per launch) until the next window's drain; the report shows why. */
static void note_still_attached(uint64_t now)
{
	uint64_t missing = gt_cupti_work_missing();

	if (missing)
		put_note("gpu: window %u: CUPTI stayed attached with its kinds off "
			 "after %.1f s of waiting: %llu GPU records of the window's "
			 "work never came", gw.seq, (double)(now - gw.closed) / 1e9,
			 (unsigned long long)missing);
	else
		put_note("gpu: window %u: CUPTI stayed attached with its kinds off "
			 "after %.1f s of waiting: a CUDA graph launched in the "
			 "window, or a call still inside it", gw.seq,
			 (double)(now - gw.closed) / 1e9);
}

/*
 * Detach only once the GPU finished the window's work: every record it
 * should bring came (CUPTI's device buffers are freed on detach), and no
 * call is inside a push.  Until the next window is due (at most
 * DRAIN_MAX_MS), wait; then stay attached with the kinds off and try
 * again after the next window.
 */
static void end_drain(uint64_t now)
{
	int done = gt_cupti_work_done() && !gt_cupti_inflight();
	uint64_t due = gw.opened + (uint64_t)gt_gpu_cfg.period_ms * MS;

	if (due > gw.closed + DRAIN_MAX_MS * MS)
		due = gw.closed + DRAIN_MAX_MS * MS;
	if (gt_gpu_cfg.finalize && !done && now < due)
		return;                 /* step() keeps flushing meanwhile */
	if (gt_gpu_cfg.finalize && done) {
		uint64_t t = gt_now();

		gt_cupti_detach();
		timed_since(SW_DETACH, t);
	} else {
		if (gt_gpu_cfg.finalize)
			note_still_attached(now);
		gt_cupti_flush(1);
	}
	put_switch(gt_now());
	note_switching();
	gw.next_open = gw.opened + (uint64_t)gt_gpu_cfg.period_ms * MS;
	if (gw.next_open <= now)
		gw.next_open = now + MS;
	if (gw.reason == GT_WINDOW_START)   /* the clock's plan stands */
		gw.next_open = NOT_YET;
	gw.phase = P_WAIT;
}

/* The first cycle: the dump exists now. */
static void first_cycle(uint64_t now)
{
	uint64_t early = atomic_load(&early_opened);

	atomic_store(&gt_cupti_early_done, 1);      /* too late for "early" */
	gw.phase = P_WAIT;
	gw.next_open = NOT_YET;     /* warm-up from the first GPU work: step() */
	if (early) {                /* GPUTRACE_GPU=all or the start, early */
		gw.opened = gw.attach = early;
		gw.reason = atomic_load(&early_reason);
		gw.start_done = 1;
		gw.took[SW_ATTACH] = gw.took_all[SW_ATTACH] = atomic_load(&early_took[0]);
		gw.took[SW_ENABLE] = gw.took_all[SW_ENABLE] = atomic_load(&early_took[1]);
		gw.seq++;
		put_clock(now);
		put_window(gw.opened, 0);
		gw.phase = P_OPEN;
		gw.last_flush = now;
	} else if (gt_gpu_cfg.mode == GT_GPU_MODE_ALL) {
		gw.next_open = now;
	} else if (gt_gpu_cfg.early) {
		gt_cupti_attach();                  /* claim CUPTI, or say why */
	} else {
		gt_cupti_waiting();                 /* the dump says why none yet */
	}
}

/*
 * The clock's first window counts its warm-up from the program's first
 * GPU work, not from its start: loading a framework and a data set can
 * take longer than the warm-up, and a window before any launch times
 * nothing.
 */
static void first_work_seen(void)
{
	uint64_t first = gt_writer_first_work();

	if (!first)
		return;
	gw.next_open = first + (uint64_t)gt_gpu_cfg.warmup_ms * MS;
	gt_debug("gputrace: first GPU work %.3f s after the start: a window by "
		 "the clock opens %u ms later unless steps are found\n",
		 (double)(first - gt_start_ns) / 1e9, gt_gpu_cfg.warmup_ms);
}

static void on_request(void)
{
	atomic_store(&requested, GT_WINDOW_SIGNAL);
}

/* The trigger file, looked for every TRIGGER_EVERY_MS: its appearing
 * asks for one window, and it is removed (one that cannot be removed
 * asks once, until it is gone). */
static int triggered(uint64_t now)
{
	int there;

	if (!gt_gpu_cfg.trigger[0] || now - gw.last_trigger < TRIGGER_EVERY_MS * MS)
		return 0;
	gw.last_trigger = now;
	there = access(gt_gpu_cfg.trigger, F_OK) == 0;
	if (!there || gw.trigger_stuck) {
		gw.trigger_stuck = there;
		return 0;
	}
	if (unlink(gt_gpu_cfg.trigger)) {
		gt_warn_once("gputrace: cannot remove GPUTRACE_GPU_TRIGGER '%s' (%s); "
			     "it asks for one window until it is gone\n",
			     gt_gpu_cfg.trigger, strerror(errno));
		gw.trigger_stuck = 1;
	}
	return 1;
}

/*
 * Whether the steps still come: calls that made no step for STEP_CAP
 * steps, or no call for a second more, mean they stopped (each counted
 * from `since` where that is later).  Measured on the calls drained, not on
 * the clock: a writer cycle that runs late (CUPTI's buffers to take in)
 * stops nothing.  An open window counts from its opening: CUPTI's attach
 * can hold the program's calls for seconds (another process on the GPU:
 * 1.7 s on an H200), and steps held by it have not stopped.
 */
static int steps_alive(uint64_t now, const struct gt_steps_view *v, uint64_t since)
{
	uint64_t slack = STEP_CAP * v->median_ns + 50 * MS;
	uint64_t step = v->last_ns > since ? v->last_ns : since;
	uint64_t call = v->last_call_ns > since ? v->last_call_ns : since;

	return v->last_call_ns <= step + slack && now <= call + slack + 1000 * MS;
}

/* After a window that closed without its steps, the next steady steps
 * may have one before the period: once steps come again (as many as the
 * steadiness needs twice), and at most SHORT_RETRIES times in a row. */
static int retry_short(void)
{
	uint64_t first;

	return gw.short_window && gw.short_run <= SHORT_RETRIES &&
	       gt_steps_bounds_after(gw.closed, &first) >= 2 * (uint64_t)gt_steps_steady_n();
}

/* Whether steady steps would have a window now (placed on steps). */
static int steps_due(uint64_t now, const struct gt_steps_view *v)
{
	return v->source && !gt_gpu_cfg.place_clock && !gt_gpu_cfg.range_lo &&
	       v->steady && steps_alive(now, v, 0) &&
	       (!gw.steps_windows || retry_short() || now >= gw.next_open);
}

/* Why a window should open now (enum gt_window_reason), or 0. */
static uint32_t due_reason(uint64_t now)
{
	const struct gt_steps_view *v = gt_steps_view();
	uint32_t req = atomic_exchange(&requested, 0);

	if (req || triggered(now))
		return req ? req : GT_WINDOW_FILE;
	if (gt_gpu_cfg.mode == GT_GPU_MODE_ALL)
		return now >= gw.next_open ? GT_WINDOW_ALL : 0;
	if (gt_gpu_cfg.start_calls && !gw.start_done)   /* not opened early */
		return gt_writer_first_work() ? GT_WINDOW_START : 0;
	if (gt_gpu_cfg.range_lo)
		return !gw.range_done && v->source &&
		       v->count + 1 >= gt_gpu_cfg.range_lo ? GT_WINDOW_RANGE : 0;
	if (v->source && !gt_gpu_cfg.place_clock)
		return steps_due(now, v) ? GT_WINDOW_STEPS : 0;
	return now >= gw.next_open ? GT_WINDOW_CLOCK : 0;
}

/* Whole steps begun and ended inside the open window, and their span. */
static uint64_t steps_inside(uint64_t *span)
{
	uint64_t first = 0, n = gt_steps_bounds_after(gw.opened, &first);

	*span = n ? gt_steps_view()->last_ns - first : 0;
	return n ? n - 1 : 0;
}

/*
 * Whether a window on steps is done: it covers the whole steps and the
 * time it was to, or the steps stopped coming (a loop over layers while
 * a model was built looked like steps), or it ran STEP_CAP times longer
 * than expected.  One without its steps lets the next steady steps open
 * another at once.
 */
static int steps_window_done(uint64_t now, const struct gt_steps_view *v, uint64_t len)
{
	uint64_t span, whole = steps_inside(&span), expected;
	int stopped = !steps_alive(now, v, gw.opened);

	expected = (gt_gpu_cfg.window_steps + 1) * v->median_ns;
	if (expected < len)
		expected = len;
	if (whole >= gt_gpu_cfg.window_steps && span >= len) {
		gw.steps_windows++;
		gw.short_window = 0;
		gw.short_run = 0;
		return 1;
	}
	if (!stopped && now - gw.opened < STEP_CAP * expected)
		return 0;
	gw.short_window = 1;
	gw.short_run++;
	return 1;
}

/* Whether the open window has what it was opened for. */
static int window_done(uint64_t now)
{
	const struct gt_steps_view *v = gt_steps_view();
	uint64_t len = (uint64_t)gt_gpu_cfg.window_ms * MS;

	if (gt_gpu_cfg.mode == GT_GPU_MODE_ALL)
		return 0;
	if (gw.reason == GT_WINDOW_START)
		return gt_cupti_calls_spent();
	if (gw.reason == GT_WINDOW_RANGE)
		return v->count >= gw.range_end + 1 ||
		       (v->median_ns && now - gw.opened > (gt_gpu_cfg.range_hi -
			gt_gpu_cfg.range_lo + 3) * STEP_CAP * v->median_ns + len);
	if (!v->source || gw.reason == GT_WINDOW_CLOCK || !v->median_ns)
		return now >= gw.opened + len;
	return steps_window_done(now, v, len);
}

/*
 * The start window's steps are steady: it becomes their window, CUPTI on
 * throughout (no switching).  Its span ends just before the steps'
 * window's begins, so that the analyzer tells them apart; the work of
 * both is counted together (the drain waits for all of it).
 */
static void hand_over(void)
{
	uint64_t t = gt_now();

	put_window(gw.opened, t);
	put_switch(t);
	note_switching();
	gt_cupti_limit_calls(0);
	gw.seq++;
	gw.reason = GT_WINDOW_STEPS;
	gw.attach = gw.opened = t + 1;
	put_window(gw.opened, 0);
	gt_debug("gputrace: window %u opens on the steady steps (the start "
		 "window's CUPTI stays on)\n", gw.seq);
}

/*
 * The range's window opened at the step the writer thread saw last: on a
 * loaded machine it may run late, and see the range's first step only
 * when its last is past.  The window then covers as many steps from
 * there, not none.
 */
static void range_opened(void)
{
	uint64_t at = gt_steps_view()->count + 1;
	uint64_t lo = gt_gpu_cfg.range_lo, hi = gt_gpu_cfg.range_hi;

	gw.range_done = 1;
	gw.range_end = at > lo ? at + (hi - lo) : hi;
	if (at > lo)
		gt_debug("gputrace: the window of steps %llu-%llu opens at step %llu: "
			 "it covers steps %llu-%llu\n", (unsigned long long)lo,
			 (unsigned long long)hi, (unsigned long long)at,
			 (unsigned long long)at, (unsigned long long)gw.range_end);
}

static void step(uint64_t now)
{
	uint32_t reason;

	switch (gw.phase) {
	case P_WAIT:
		if (gw.next_open == NOT_YET)
			first_work_seen();
		if ((reason = due_reason(now)))
			open_window(now, reason);
		if (reason == GT_WINDOW_RANGE)
			range_opened();
		break;
	case P_OPEN:
		atomic_store(&requested, 0);    /* asked for: this one is it */
		if (gw.reason == GT_WINDOW_START && steps_due(now, gt_steps_view()))
			hand_over();
		else if (window_done(now))
			close_window();
		else if (now - gw.last_clock >= CLOCK_EVERY_MS * MS)
			put_clock(now);
		break;
	case P_DRAIN:       /* detached as soon as the records are in */
		if ((gt_gpu_cfg.finalize && gt_cupti_work_done() &&
		     !gt_cupti_inflight()) || now >= gw.closed + DRAIN_MS * MS)
			end_drain(now);
		break;
	default:
		break;
	}
	if ((gw.phase == P_OPEN || gw.phase == P_DRAIN) &&
	    now - gw.last_flush >= (uint64_t)gt_gpu_cfg.flush_ms * MS) {
		gt_cupti_flush(0);
		gw.last_flush = now;
	}
}

/* A run that ends with no window: the notes say why. */
static void note_no_window(void)
{
	const struct gt_steps_view *v = gt_steps_view();

	if (gw.seq || gt_gpu_cfg.mode != GT_GPU_MODE_WINDOWS)
		return;
	if (!gt_writer_first_work())
		put_note("gpu: no GPU window opened: the program gave the GPU no work");
	else if (gt_gpu_cfg.range_lo)
		put_note("gpu: no GPU window opened: GPUTRACE_GPU_STEPS=%llu-%llu, and "
			 "%llu steps were found", (unsigned long long)gt_gpu_cfg.range_lo,
			 (unsigned long long)gt_gpu_cfg.range_hi,
			 (unsigned long long)v->count);
	else if (v->source && !gt_gpu_cfg.place_clock)
		put_note("gpu: no GPU window opened: %llu steps were found, but %s "
			 "(GPUTRACE_GPU_STEADY_STEPS); GPUTRACE_GPU=all times every "
			 "kernel of a short run", (unsigned long long)v->count,
			 v->why ? v->why : "they ended first");
	else
		put_note("gpu: no GPU window opened: %s, and the run ended before "
			 "the clock's first window (%.1f s after the first GPU work, "
			 "GPUTRACE_GPU_WARMUP_MS); GPUTRACE_GPU=all times every kernel "
			 "of a short run", v->why ? v->why : "no steps were found",
			 gt_gpu_cfg.warmup_ms / 1e3);
}

/* At exit: close what is open, take everything CUPTI holds. */
static void final_step(void)
{
	int was_on = gw.phase == P_OPEN || gw.phase == P_DRAIN;

	if (gw.phase == P_OPEN)
		close_window();
	if (gw.phase == P_DRAIN)
		note_switching();
	if (gw.seq > 1)
		put_note("gpu: switching CUPTI on and off for %u windows took %.1f ms "
			 "(attach %.1f, enable %.1f, disable %.1f, detach %.1f)", gw.seq,
			 SW_MS(gw.took_all, 0) + SW_MS(gw.took_all, 1) +
			 SW_MS(gw.took_all, 2) + SW_MS(gw.took_all, 3),
			 SW_MS(gw.took_all, 0), SW_MS(gw.took_all, 1),
			 SW_MS(gw.took_all, 2), SW_MS(gw.took_all, 3));
	gt_cupti_flush(1);          /* nothing when detached */
	if (was_on)
		put_switch(0);
	put_clock(gt_now());
	gw.phase = P_DONE;
}

/* Records of the buffers CUPTI handed over, after a fresh clock pair. */
static void process(uint64_t now, int final)
{
	static struct gt_filled f;  /* the writer thread's */
	static int seen;

	gt_buffers_take(&f);
	if (f.n && !seen) {
		seen = 1;
		gt_end_in_exit_handlers();  /* after CUDA's and CUPTI's */
	}
	if (f.n && now - gw.last_clock >= CLOCK_BATCH_MS * MS)
		put_clock(now);
	gt_records_process(&f, final);
	gt_buffers_give_back(&f);
}

static void gpu_cycle(int final)
{
	uint64_t now = gt_now();

	if (gw.generation != atomic_load(&gt_mark->generation))
		return;                     /* a forked child: CUPTI is not ours */
	if (gw.phase == P_START) {
		if (gt_gpu_cfg.mode == GT_GPU_MODE_OFF) {
			put_state();
			if (!gt_gpu_cfg.cupti) {    /* asked for; said once */
				put_note("gpu: no GPU timing (GPUTRACE_CUPTI=0)");
				gt_warn_once("gputrace: GPUTRACE_CUPTI=0: tracing the "
					     "host side only\n");
			}
			gw.phase = P_DONE;
			return;
		}
		first_cycle(now);
	}
	if (final)
		final_step();
	else
		step(now);
	put_state();
	process(now, final);
	put_drops();
}

/* The dump ends: every event is in, so a run with none can say why. */
static void gpu_end(int final)
{
	(void)final;
	if (gw.generation == atomic_load(&gt_mark->generation) && gw.phase != P_START)
		note_no_window();
}

/* ---- start, early, fork ------------------------------------------------------ */

void gt_cupti_early_slow(void)
{
	uint32_t reason;
	uint64_t t0, t1;

	if (atomic_exchange(&gt_cupti_early_done, 1))
		return;
	gt_init();
	if (!atomic_load(&gt_active) || gt_gpu_cfg.mode == GT_GPU_MODE_OFF ||
	    !gt_gpu_cfg.early)
		return;
	t0 = gt_now();
	if (gt_cupti_attach())
		return;                     /* said at the first cycle */
	t1 = gt_now();
	reason = gt_gpu_cfg.mode == GT_GPU_MODE_ALL ? GT_WINDOW_ALL :
		 gt_gpu_cfg.start_calls ? GT_WINDOW_START : 0;
	if (!reason)
		return;
	gt_cupti_limit_calls(reason == GT_WINDOW_START ? gt_gpu_cfg.start_calls : 0);
	if (gt_cupti_enable(reason == GT_WINDOW_START))
		return;
	atomic_store(&early_took[0], t1 - t0);
	atomic_store(&early_took[1], gt_now() - t1);
	atomic_store(&early_reason, reason);
	atomic_store(&early_opened, gt_now());
}

static void after_fork_child(void)
{
	gt_cupti_forget();
	gt_steps_forget();
	atomic_store(&requested, 0);
	gw.phase = P_DONE;
}

void gt_gpu_init(void)
{
	load_settings();
	gw.generation = atomic_load(&gt_mark->generation);
	if (gt_gpu_cfg.mode == GT_GPU_MODE_OFF || !gt_gpu_cfg.early)
		atomic_store(&gt_cupti_early_done, 1);
	pthread_atfork(NULL, NULL, after_fork_child);
	gt_steps_init();
	gt_writer_on_cycle(gt_steps_cycle);     /* first: the windows read it */
	gt_writer_on_cycle(gpu_cycle);
	gt_writer_on_end(gt_steps_end);
	gt_writer_on_end(gpu_end);
	if (gt_gpu_cfg.mode == GT_GPU_MODE_WINDOWS && gt_gpu_cfg.signal)
		gt_signals_request(gt_gpu_cfg.signal, on_request);
}
