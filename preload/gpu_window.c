/* SPDX-License-Identifier: MIT */
/*
 * gpu_window.c - the GPU timing windows (gpu_window.h): settings, the
 * schedule, and what the dump learns about them (windows, clock pairs,
 * CUPTI's state, drops).  The schedule runs in the writer thread's cycle:
 *
 *   wait  --(time)-->  open: attach, clock pair, enable kinds, window chunk
 *   open  --(window_ms, or never with GPUTRACE_GPU=all)-->  close: disable,
 *         window chunk, clock pair, forced flush
 *   drain --(DRAIN_MS, no wrapper inside a push)-->  forced flush, detach
 *         (GPUTRACE_GPU_SWITCH=finalize), wait for the next period
 *
 * Records of kernels launched in a window but still running when it
 * closes come in during the drain.  At exit a window still open is closed
 * and everything CUPTI holds is flushed.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "include/gputrace/format.h"
#include "preload/cupti.h"
#include "preload/cupti_internal.h"
#include "preload/gpu_window.h"
#include "preload/internal.h"
#include "preload/writer.h"

#define MS 1000000ull
#define DRAIN_MS 500                /* after a window, for late records */
#define DRAIN_MAX_MS 30000          /* ... and at most, waiting to detach */
#define CLOCK_EVERY_MS 10000        /* clock pairs while a window is open */
#define CLOCK_BATCH_MS 100          /* ... and before records, at most */

struct gt_gpu_cfg gt_gpu_cfg;
atomic_int gt_cupti_early_done;

enum phase { P_START, P_WAIT, P_OPEN, P_DRAIN, P_DONE };

static struct {
	enum phase phase;
	uint64_t next_open, opened, closed;
	uint64_t last_flush, last_clock;
	uint64_t early_opened;      /* GPUTRACE_GPU=all opened before the dump */
	uint32_t seq;
	uint32_t state_written;
	uint32_t path_str;
	struct gt_gpu_drops drops;  /* as last written */
	unsigned generation;        /* gt_generation the session belongs to */
} gw;

/* ---- settings ------------------------------------------------------------ */

static uint32_t env_ms(const char *name, uint32_t def, uint32_t min, uint32_t max)
{
	const char *v = getenv(name);
	char *end;
	unsigned long long n;

	if (!v || !*v)
		return def;
	n = strtoull(v, &end, 10);
	if (*end || v[0] == '-' || n < min || n > max) {
		gt_log("gputrace: ignoring %s='%s' (want %u..%u), using %u\n",
		       name, v, min, max, def);
		return def;
	}
	return (uint32_t)n;
}

/* A word setting: the index of v in words, else def (said once). */
static int env_word(const char *name, const char *const *words, int n, int def)
{
	const char *v = getenv(name);

	if (!v || !*v)
		return def;
	for (int i = 0; i < n; i++)
		if (!strcmp(v, words[i]))
			return i;
	gt_log("gputrace: ignoring %s='%s' (want %s or %s...), using %s\n",
	       name, v, words[0], words[1], words[def]);
	return def;
}

static void load_settings(void)
{
	static const char *const modes[] = { "windows", "all", "off" };
	static const char *const switches[] = { "disable", "finalize" };
	static const char *const graphs[] = { "nodes", "graph" };
	struct gt_gpu_cfg *c = &gt_gpu_cfg;

	c->cupti = (int)env_ms("GPUTRACE_CUPTI", 1, 0, 1);
	c->mode = (uint32_t)env_word("GPUTRACE_GPU", modes, 3, 0) + GT_GPU_MODE_WINDOWS;
	c->window_ms = env_ms("GPUTRACE_GPU_WINDOW_MS", 2000, 10, 3600000);
	c->period_ms = env_ms("GPUTRACE_GPU_PERIOD_MS", 30000, 10, 86400000);
	c->warmup_ms = env_ms("GPUTRACE_GPU_WARMUP_MS", 5000, 0, 86400000);
	/*
	 * Between windows CUPTI is detached: attached with its kinds off it
	 * still cost about 1 us per launch on the H200 (cupti_probe.cu), and
	 * so does being attached before the first window (a launch-bound
	 * PyTorch loop 1.42x); hence, too, subscribing early only for "all".
	 */
	c->finalize = env_word("GPUTRACE_GPU_SWITCH", switches, 2, 1);
	c->graph_trace = env_word("GPUTRACE_GPU_GRAPHS", graphs, 2, 0);
	c->buffers = env_ms("GPUTRACE_CUPTI_BUFFERS", 8, 2, GT_BUFFERS_MAX);
	c->buffer_bytes = (size_t)env_ms("GPUTRACE_CUPTI_BUFFER_KB", 4096, 64,
					 1 << 20) << 10;
	c->flush_ms = env_ms("GPUTRACE_CUPTI_FLUSH_MS", 100, 1, 60000);
	c->latency = (int)env_ms("GPUTRACE_CUPTI_LATENCY", 1, 0, 1);
	c->early = (int)env_ms("GPUTRACE_CUPTI_EARLY",
			       c->mode == GT_GPU_MODE_ALL, 0, 1);
	if (c->period_ms < c->window_ms)
		c->period_ms = c->window_ms;
	if (!c->cupti)
		c->mode = GT_GPU_MODE_OFF;
}

/* ---- what the dump learns ------------------------------------------------ */

static void put_note(const char *fmt, const char *a, const char *b)
{
	char note[512];
	uint32_t level = 0;
	int n = snprintf(note, sizeof(note), fmt, a, b);

	if (n > 0)
		gt_writer_side_chunk(GT_CHUNK_NOTE, &level, sizeof(level), note,
				     (size_t)n < sizeof(note) ? (size_t)n : sizeof(note) - 1);
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
		put_note("gpu: CUPTI is held by another tool (%s%s): no GPU timing",
			 *holder ? holder : "not named", "");
	else if (state == GT_CUPTI_MISSING || state == GT_CUPTI_FAILED)
		put_note("gpu: no GPU timing: %s%s", gt_cupti_why(), "");
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

static void open_window(uint64_t now)
{
	if (gt_cupti_attach()) {
		/* held by another tool: maybe free at the next period */
		gw.phase = gt_cupti_state() == GT_CUPTI_TAKEN ? P_WAIT : P_DONE;
		gw.next_open = now + (uint64_t)gt_gpu_cfg.period_ms * MS;
		return;
	}
	put_clock(now);
	gt_cupti_work_reset();
	if (gt_cupti_enable()) {
		gw.phase = P_DONE;
		return;
	}
	gw.opened = gt_now();       /* ids pushed and kinds on from here */
	gw.seq++;
	put_window(gw.opened, 0);
	gw.phase = P_OPEN;
	gw.last_flush = gw.opened;
}

/* The window ends before the kinds go off: a call that starts after its
 * end may still bring a record (the analyzer joins it as an edge), but no
 * call inside it misses its record. */
static void close_window(void)
{
	gw.closed = gt_now();
	gt_cupti_disable();
	gt_cupti_ids_off();
	put_window(gw.opened, gw.closed);
	put_clock(gw.closed);
	gt_cupti_flush(0);          /* forced only once late kernels are done */
	gw.phase = P_DRAIN;
	gw.last_flush = gw.closed;
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
	if (gt_gpu_cfg.finalize && done)
		gt_cupti_detach();
	else
		gt_cupti_flush(1);
	gw.next_open = gw.opened + (uint64_t)gt_gpu_cfg.period_ms * MS;
	if (gw.next_open <= now)
		gw.next_open = now + MS;
	gw.phase = P_WAIT;
}

/* The first cycle: the dump exists now. */
static void first_cycle(uint64_t now)
{
	atomic_store(&gt_cupti_early_done, 1);      /* too late for "early" */
	gw.phase = P_WAIT;
	gw.next_open = now + (uint64_t)gt_gpu_cfg.warmup_ms * MS;
	if (gw.early_opened) {                      /* GPUTRACE_GPU=all, early */
		gw.opened = gw.early_opened;
		gw.seq++;
		put_clock(now);
		put_window(gw.opened, 0);
		gw.phase = P_OPEN;
	} else if (gt_gpu_cfg.mode == GT_GPU_MODE_ALL) {
		gw.next_open = now;
	} else if (gt_gpu_cfg.early) {
		gt_cupti_attach();                  /* claim CUPTI, or say why */
	} else {
		gt_cupti_waiting();                 /* the dump says why none yet */
	}
}

static void step(uint64_t now)
{
	switch (gw.phase) {
	case P_WAIT:
		if (now >= gw.next_open)
			open_window(now);
		break;
	case P_OPEN:
		if (gt_gpu_cfg.mode == GT_GPU_MODE_WINDOWS &&
		    now >= gw.opened + (uint64_t)gt_gpu_cfg.window_ms * MS)
			close_window();
		else if (now - gw.last_clock >= CLOCK_EVERY_MS * MS)
			put_clock(now);
		break;
	case P_DRAIN:
		if (now >= gw.closed + DRAIN_MS * MS)
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

/* At exit: close what is open, take everything CUPTI holds. */
static void final_step(void)
{
	if (gw.phase == P_OPEN)
		close_window();
	gt_cupti_flush(1);          /* nothing when detached */
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

	if (gw.generation != atomic_load(&gt_generation))
		return;                     /* a forked child: CUPTI is not ours */
	if (gw.phase == P_START) {
		if (gt_gpu_cfg.mode == GT_GPU_MODE_OFF) {
			put_state();
			if (!gt_gpu_cfg.cupti) {    /* asked for; said once */
				put_note("gpu: no GPU timing (GPUTRACE_CUPTI=0)%s%s", "", "");
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

/* ---- start, early, fork ------------------------------------------------------ */

void gt_cupti_early_slow(void)
{
	if (atomic_exchange(&gt_cupti_early_done, 1))
		return;
	gt_init();
	if (!atomic_load(&gt_active) || gt_gpu_cfg.mode == GT_GPU_MODE_OFF ||
	    !gt_gpu_cfg.early)
		return;
	if (gt_cupti_attach())
		return;                     /* said at the first cycle */
	if (gt_gpu_cfg.mode == GT_GPU_MODE_ALL && gt_cupti_enable() == 0)
		gw.early_opened = gt_now();
}

static void after_fork_child(void)
{
	gt_cupti_forget();
	gw.phase = P_DONE;
}

void gt_gpu_init(void)
{
	load_settings();
	gw.generation = atomic_load(&gt_generation);
	if (gt_gpu_cfg.mode == GT_GPU_MODE_OFF || !gt_gpu_cfg.early)
		atomic_store(&gt_cupti_early_done, 1);
	pthread_atfork(NULL, NULL, after_fork_child);
	gt_writer_on_cycle(gpu_cycle);
}
