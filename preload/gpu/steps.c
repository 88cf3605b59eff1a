/* SPDX-License-Identifier: MIT */
/*
 * steps.c - training steps found online (steps.h), on the writer thread.
 *
 * Each of the first ST_THREADS threads that give the GPU work keeps its
 * last ST_RING calls (tokens: launch shapes, copies, memsets, graphs),
 * their times and their arguments' hashes.  Every ST_CHECK calls the
 * period of the newest calls is computed (gputrace/period.h, O(ST_RING));
 * when two checks in a row agree, the anchor is chosen: a call that,
 * with the few calls before it, comes once per period (once per step,
 * when the period is made of near copies of a step that take alike
 * times: gt_sub_period), the one after the longest pauses summed over
 * the periods the ring holds (the loop's pause may come once in several
 * periods, and one period's pauses on a loaded machine are the
 * scheduler's as much as the loop's).  From
 * then on each call equal to the anchor's last token is checked against
 * it and, when it matches, starts a block.  A step is one block or
 * several, as the analyzer makes them (period.h): a model of identical
 * blocks repeats every block, and the launches' arguments tell how many
 * blocks a step holds (gt_args_copies), and a loop that launches one
 * kernel k times and then pauses makes a step of the k and the pause
 * (gt_pause_cycle); that is decided once per pattern, on the blocks kept
 * (ST_BLOCKS), as soon as they tell, and the blocks found until then
 * become steps by the same rule.  The thread with the longest steps is
 * the outer loop (the primary), and its boundaries are what the dump gets
 * and what the windows follow.  Steps shorter than GT_STEP_MIN_NS are
 * counted in groups at least that long.
 */
#include <stdlib.h>
#include <string.h>

#include "include/gputrace/format.h"
#include "include/gputrace/period.h"
#include "include/gputrace/varint.h"
#include "preload/base/internal.h"
#include "preload/nvtx/nvtx.h"
#include "preload/base/settings.h"
#include "preload/gpu/steps.h"
#include "preload/record/writer.h"

#define ST_RING 16384               /* calls kept per thread */
#define ST_THREADS 4                /* threads watched */
#define ST_CHECK_MIN 32             /* calls between checks, at first */
#define ST_CHECK_NS 100000000ull    /* ... or this long, if 16 calls came */
#define ST_GRAM 8                   /* calls an anchor may span */
#define ST_HIST 256                 /* boundaries kept per thread */
_Static_assert(ST_HIST >= 4 * 64, "GPUTRACE_GPU_STEADY_STEPS (at most 64, "
	       "settings.def) needs 4 times its steps");
#define ST_MEDIAN_OF 16             /* recent steps a median is taken of */
#define ST_IDLE_NS 5000000000ull    /* a thread this quiet may be replaced */
#define ST_EMIT_NS 1000000000ull    /* boundaries written at least this often */
#define ST_EMIT_BATCH 128           /* ... or once this many wait */
#define GT_STEP_MIN_NS 1000000ull   /* shorter steps are grouped */
#define ST_BLOCKS 1024              /* blocks kept per thread, to make steps
                                       of: 3 cycles of the most a step holds */
_Static_assert(ST_BLOCKS >= 3 * GT_ARGS_MAX_COPIES, "a cycle of the arguments "
	       "is seen three times");
#define ST_ARGS_DECIDE 8            /* blocks between tries to decide */
#define ST_ARGS_UNKNOWN 32          /* blocks with few arguments known: one a step */
#define ST_ARGS_WAIT_NS 10000000000ull /* blocks kept this long: decided */
#define ST_TURN_CYCLES 16           /* cycles of the arguments whose pauses
                                       tell where the loop turns */

struct st_thread {
	uint32_t tid;
	uint32_t period;            /* calls per block, 0: none yet */
	uint32_t cand;              /* period the last check found */
	uint32_t group;             /* steps per counted step */
	uint32_t anchor_w, anchor_tok;
	uint64_t anchor;            /* hash of the anchor's calls */
	uint64_t seen, last_t;      /* calls, and when the last was made */
	uint64_t checked, checked_t; /* calls, and the time, at the last check */
	uint64_t raw;               /* steps, grouped into bounds */
	uint32_t epoch, prev_epoch; /* its pattern's number (st.epochs), and
	                               the one before */
	uint64_t epoch_nb;          /* nb when the present pattern began */
	uint32_t prev_calls;        /* calls a counted step of the one before */
	/* the blocks (anchor matches) and how they make steps */
	uint64_t nr;                /* blocks found */
	uint64_t epoch_nr;          /* nr when the present pattern began */
	uint64_t tried_nr;          /* nr at the last try to decide */
	uint32_t copies;            /* blocks a step holds, 0: not decided */
	int provisional;            /* copies 1 while more blocks may still
	                               show the arguments' cycle (redecide) */
	uint32_t step_calls;        /* calls a step holds */
	uint64_t phase;             /* the number of a block that starts one */
	uint64_t pause_med;         /* steps start after pauses of a loop
	                               with this median gap (gt_is_pause), 0:
	                               every copies-th block */
	uint64_t last_kth;          /* the last copies-th block, 0: none */
	uint64_t nb;                /* boundaries found */
	uint64_t b[ST_HIST];        /* the newest boundaries */
	uint32_t tok[ST_RING];
	uint8_t ah[ST_RING];        /* arguments' hashes, 0 unknown */
	uint64_t t[ST_RING];
	uint64_t rb[ST_BLOCKS];     /* the newest blocks' first calls */
	uint64_t re[ST_BLOCKS];     /* ... the calls before them */
	uint32_t rs[ST_BLOCKS];     /* ... their arguments (gt_arg_sig) */
};

static struct {
	int marker;                 /* 0 (launch pattern), GT_STEPS_NVTX, _KERNEL */
	char text[256];
	uint32_t steady_n;
	struct st_thread *th[ST_THREADS];
	struct st_thread *primary;
	struct st_thread mark;      /* boundaries of a marker */
	uint32_t nvtx_id;
	uint8_t *marked;            /* kernel marker: function ids, a bitmap */
	uint32_t nmarked;
	uint64_t last_new;          /* when a kernel or shape was last new */
	uint64_t emitted_t;         /* the last boundary written */
	const struct st_thread *emitted_p; /* ... of this thread and pattern */
	uint32_t emitted_epoch, epochs;
	uint64_t seq, last_emit;
	struct gt_steps_view view;
	uint32_t rev[ST_RING];      /* scratch of a check */
	int32_t pi[ST_RING];
	uint64_t h[ST_RING], v[ST_RING], gap[ST_RING];
	uint64_t db[ST_BLOCKS], de[ST_BLOCKS];  /* scratch of a decision */
	uint64_t dv[2 * ST_BLOCKS];
	uint32_t ds[ST_BLOCKS];
} st;

/* ---- settings ------------------------------------------------------------- */

void gt_steps_init(void)
{
	const char *v = gt_setting_text(GT_S_STEP);

	st.steady_n = (uint32_t)gt_setting(GT_S_GPU_STEADY_STEPS);
	st.mark.group = 1;
	if (!v || !strcmp(v, "auto"))
		return;
	if (!strncmp(v, "nvtx:", 5) && v[5])
		st.marker = GT_STEPS_NVTX;
	else if (!strncmp(v, "kernel:", 7) && v[7])
		st.marker = GT_STEPS_KERNEL;
	else {
		gt_log("gputrace: ignoring GPUTRACE_STEP='%s' (want auto, nvtx:NAME "
		       "or kernel:TEXT); steps from the launch pattern\n", v);
		return;
	}
	strncpy(st.text, strchr(v, ':') + 1, sizeof(st.text) - 1);
}

/* ---- the ring of a thread ------------------------------------------------- */

static size_t ring_len(const struct st_thread *p)
{
	return p->seen < ST_RING ? (size_t)p->seen : ST_RING;
}

/* The call at chronological position i (0: the oldest kept). */
static size_t ring_pos(const struct st_thread *p, size_t i)
{
	uint64_t first = p->seen > ST_RING ? p->seen - ST_RING : 0;

	return (size_t)((first + i) % ST_RING);
}

/* Hash of the w calls ending at chronological position end. */
static uint64_t gram(const struct st_thread *p, size_t end, uint32_t w)
{
	uint64_t h = GT_GRAM_SEED;

	for (uint32_t k = 0; k < w; k++)
		h = gt_gram_step(h, p->tok[ring_pos(p, end - k)]);
	return h;
}

static void add_bound(struct st_thread *p, uint64_t t)
{
	if (p->nb && t <= p->b[(p->nb - 1) % ST_HIST])
		return;
	if (p->raw++ % p->group)
		return;
	p->b[p->nb % ST_HIST] = t;
	p->nb++;
}

/* ---- finding the period and the anchor ------------------------------------ */

/* A step's first call: the hash of the calls up to it, their number, and
 * its own token. */
struct st_anchor {
	uint64_t h;
	uint32_t w, tok;
};

/* The pauses before the period calls from chronological position first,
 * summed over the ring's periods (gt_period_gaps), in st.gap; st.rev and
 * st.h are its scratch. */
static void place_gaps(const struct st_thread *p, size_t first, uint32_t period)
{
	size_t len = first + period;

	for (size_t i = 0; i < len; i++) {
		st.rev[i] = p->tok[ring_pos(p, i)];
		st.h[i] = p->t[ring_pos(p, i)];
	}
	gt_period_gaps(st.rev, st.h, first, period, st.gap);
}

/*
 * The anchor among the last period calls before skip ones, once per step
 * of sub calls (see the top), in *a; its position in the ring, or -1.
 */
static long choose_anchor(const struct st_thread *p, uint32_t period, uint32_t sub,
			  size_t skip, struct st_anchor *a)
{
	size_t first = ring_len(p) - skip - period;
	long at = -1;

	place_gaps(p, first, period);
	for (uint32_t w = 1; w <= ST_GRAM && w <= first + 1 && at < 0; w++) {
		for (size_t i = 0; i < period; i++)
			st.h[i] = gram(p, first + i, w);
		at = gt_anchor_pick_sub(st.h, st.gap, period, sub, st.v);
		if (at >= 0)
			*a = (struct st_anchor){ st.h[at], w,
						 p->tok[ring_pos(p, first + (size_t)at)] };
	}
	return at >= 0 ? (long)(first + (size_t)at) : -1;
}

/*
 * Whether a period's steps of sub calls take alike times
 * (gt_even_steps), over the periods before ring position c.
 */
static int even_steps(const struct st_thread *p, uint32_t period, uint32_t sub,
		      size_t c)
{
	size_t blocks = c / period < GT_EVEN_BLOCKS ? c / period : GT_EVEN_BLOCKS;
	size_t from = c - blocks * period;

	for (size_t i = 0; i < blocks * period; i++)
		st.v[i] = p->t[ring_pos(p, from + i)];
	return gt_even_steps(st.v, period, sub, blocks);
}

/*
 * The anchor of a step of sub calls when the period is made of such
 * steps that take alike times, else of the whole period, in *a; the
 * calls per step, or 0 if no anchor.
 */
static uint32_t choose_step(const struct st_thread *p, uint32_t period,
			    uint32_t sub, size_t skip, struct st_anchor *a)
{
	long c = sub < period ? choose_anchor(p, period, sub, skip, a) : -1;

	if (c >= 0 && even_steps(p, period, sub, (size_t)c))
		return sub;
	return choose_anchor(p, period, period, skip, a) >= 0 ? period : 0;
}

/* Median of the last (at most ST_MEDIAN_OF) steps of p, 0 if under 2. */
static uint64_t median_step(const struct st_thread *p, uint32_t of)
{
	uint64_t d[ST_HIST];
	uint64_t n = p->nb < (uint64_t)of + 1 ? p->nb : (uint64_t)of + 1;

	if (n < 3)
		return 0;
	for (uint64_t i = 0; i + 1 < n; i++)
		d[i] = p->b[(p->nb - 1 - i) % ST_HIST] - p->b[(p->nb - 2 - i) % ST_HIST];
	qsort(d, (size_t)(n - 1), sizeof(d[0]), gt_cmp_u64);
	return d[(n - 1) / 2];
}

/* Steps shorter than GT_STEP_MIN_NS: how many make one (from the ring). */
static uint32_t group_of(const struct st_thread *p)
{
	uint64_t span = p->t[ring_pos(p, ring_len(p) - 1)] - p->t[ring_pos(p, 0)];
	uint64_t steps = ring_len(p) / p->step_calls, per;

	if (steps < 2 || !span)
		return 1;
	per = span / steps;
	return per >= GT_STEP_MIN_NS ? 1 : (uint32_t)((GT_STEP_MIN_NS + per - 1) / per);
}

/* ---- steps of blocks ------------------------------------------------------- */

/* Where block number j is kept. */
static size_t block_at(uint64_t j)
{
	return (size_t)(j % ST_BLOCKS);
}

/* The present pattern's blocks still kept. */
static size_t blocks_kept(const struct st_thread *p)
{
	uint64_t n = p->nr - p->epoch_nr;

	return n < ST_BLOCKS ? (size_t)n : ST_BLOCKS;
}

/* Whether block number j, at t, starts a step (once decided). */
static int starts_step(struct st_thread *p, uint64_t j, uint64_t t)
{
	int after_pause;

	if (j < p->phase || (j - p->phase) % p->copies)
		return 0;
	if (!p->pause_med)
		return 1;
	after_pause = p->last_kth && gt_is_pause(p->last_kth, t, p->pause_med);
	p->last_kth = t;
	return after_pause;
}

/* The kept blocks, the oldest first, into st.db, st.de and st.ds; how
 * many. */
static size_t copy_blocks(const struct st_thread *p)
{
	size_t n = blocks_kept(p);

	for (size_t i = 0; i < n; i++) {
		size_t at = block_at(p->nr - n + i);

		st.db[i] = p->rb[at];
		st.de[i] = p->re[at];
		st.ds[i] = p->rs[at];
	}
	return n;
}

static int any_args(size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (st.ds[i])
			return 1;
	return 0;
}

/*
 * The blocks a step holds by their arguments (gt_args_cycle, then
 * gt_loop_turn) over the n copied, or 0 while they cannot tell yet: too
 * few arguments are known, or the pauses of fewer than ST_TURN_CYCLES
 * cycles are known.  Once every block the ring holds, or ST_ARGS_WAIT_NS
 * of them, or the run's end (final), they must.  Arguments that came back
 * in no cycle of the blocks there are (a framework hands each step new
 * tensors) make a step of each block from ST_ARGS_UNKNOWN blocks on, in
 * *provisional: a short loop after a long set-up would end before
 * ST_BLOCKS or ST_ARGS_WAIT_NS, its steps found only at its end and no
 * window opened on them; more blocks may still show a longer cycle
 * (redecide).
 */
static uint32_t copies_of(const struct st_thread *p, size_t n, int final,
			  int *provisional)
{
	int must = final || p->nr - p->epoch_nr >= ST_BLOCKS ||
		   st.db[n - 1] - st.db[0] >= ST_ARGS_WAIT_NS;
	size_t k = 1;

	*provisional = 0;
	switch (gt_args_cycle(st.ds, 0, n, &k)) {
	case GT_ARGS_CYCLE:         /* the pauses of a few cycles: the scheduler's */
		if (!must && n < ST_TURN_CYCLES * k)
			return 0;
		return (uint32_t)gt_loop_turn(st.db, st.de, 0, n, k, st.dv);
	case GT_ARGS_UNKNOWN:       /* none known after a few: none will be */
		return must || n >= ST_ARGS_UNKNOWN || (n >= 4 && !any_args(n));
	case GT_ARGS_MORE:
		*provisional = !must;
		return must || n >= ST_ARGS_UNKNOWN;
	default:
		return 1;
	}
}

/*
 * How the blocks make steps, once they tell (copies_of): every copies-th,
 * from the one after the longest pauses (gt_kth_phase), or those of them
 * after the loop's pauses (gt_pause_cycle); the kept blocks that start a
 * step are its first steps.
 */
static void decide(struct st_thread *p, int final)
{
	size_t n = copy_blocks(p), m;
	uint64_t med = 0;
	uint32_t k, q = 1;
	int prov;

	p->tried_nr = p->nr;
	if (!n || !(k = copies_of(p, n, final, &prov)))
		return;
	p->provisional = prov;
	p->phase = p->nr - n + gt_kth_phase(st.db, st.de, 0, n, k);
	m = gt_every_kth(st.db, st.de, 0, n, k);
	if (m >= 2)
		q = (uint32_t)gt_pause_cycle(st.db, st.de, m, &med, st.dv);
	p->pause_med = q > 1 ? med : 0;
	p->copies = k;
	p->step_calls = p->period * k * q;
	p->group = group_of(p);
	p->raw = 0;
	p->last_kth = 0;
	for (uint64_t j = p->nr - n; j < p->nr; j++)
		if (starts_step(p, j, p->rb[block_at(j)]))
			add_bound(p, p->rb[block_at(j)]);
	gt_debug("gputrace: steps: thread %u: %u GPU calls a step (%u blocks of %u%s), "
		 "grouped by %u\n", p->tid, p->step_calls, k, p->period,
		 q > 1 ? ", steps after the loop's pauses" : "", p->group);
}

/* The pattern's steps begin anew (its blocks kept): those found so far
 * are written as another pattern's. */
static void new_epoch(struct st_thread *p)
{
	p->prev_calls = p->step_calls * p->group;
	p->prev_epoch = p->epoch;
	p->epoch = ++st.epochs;
	p->epoch_nb = p->nb;
}

/*
 * Steps of one block each, taken while more blocks might show the
 * arguments' cycle (copies_of): looked at again every ST_ARGS_DECIDE
 * blocks, and at the run's end (final).  A cycle found makes steps of
 * several blocks from then on; no cycle once the blocks must tell makes
 * the steps taken final.
 */
static void redecide(struct st_thread *p, int final)
{
	size_t n = copy_blocks(p);
	uint32_t k;
	int prov;

	p->tried_nr = p->nr;
	k = copies_of(p, n, final, &prov);
	if (k == 1 || !k) {
		p->provisional = k == 1 ? prov : p->provisional;
		return;
	}
	gt_debug("gputrace: steps: thread %u: the arguments come back every %u "
		 "blocks: steps of several blocks from here\n", p->tid, k);
	new_epoch(p);
	p->copies = 0;
	p->provisional = 0;
	decide(p, final);
}

/* A block starts at chronological position i of the ring. */
static void add_block(struct st_thread *p, size_t i)
{
	uint64_t t = p->t[ring_pos(p, i)];
	size_t at = block_at(p->nr);

	if (p->nr && t <= p->rb[block_at(p->nr - 1)])
		return;
	p->rb[at] = t;
	p->re[at] = p->t[ring_pos(p, i ? i - 1 : i)];
	p->rs[at] = gt_arg_sig(p->ah, ST_RING, p->seen, i);
	if (p->copies && starts_step(p, p->nr, t))
		add_bound(p, t);
	p->nr++;
	if (p->nr - p->tried_nr < ST_ARGS_DECIDE)
		return;
	if (!p->copies)
		decide(p, 0);
	else if (p->provisional)
		redecide(p, 0);
}

/* A period agreed on twice: the anchor, and the blocks already in the
 * ring. */
static void establish(struct st_thread *p, uint32_t period, uint32_t sub,
		      size_t skip)
{
	size_t len = ring_len(p);
	struct st_anchor a;

	period = choose_step(p, period, sub, skip, &a);
	if (!period)
		return;
	p->anchor = a.h;
	p->anchor_w = a.w;
	p->anchor_tok = a.tok;
	new_epoch(p);
	p->period = period;
	p->step_calls = period;
	p->copies = 0;
	p->provisional = 0;
	p->epoch_nr = p->tried_nr = p->nr;
	gt_debug("gputrace: steps: thread %u repeats every %u GPU calls\n",
		 p->tid, period);
	for (size_t i = p->anchor_w - 1; i < len; i++)
		if (gram(p, i, p->anchor_w) == p->anchor)
			add_block(p, i);
	if (!p->copies)
		decide(p, 0);
}

static void check(struct st_thread *p, int final)
{
	static const size_t skips[] = { 0, 1, 2, 4, 8, 16 };
	size_t len = ring_len(p), skip = 0;
	uint32_t period = 0, sub;

	for (size_t i = 0; i < len; i++)        /* the newest first */
		st.rev[i] = p->tok[ring_pos(p, len - 1 - i)];
	/* the newest calls may not be a whole step yet: look past a few;
	 * and the loop may have begun only lately: look at fewer calls */
	for (size_t k = 0; k < sizeof(skips) / sizeof(skips[0]) && !period; k++) {
		skip = skips[k];
		for (size_t n = len - skip; skip + 24 <= len && n >= 24 && !period; n /= 2)
			period = gt_suffix_period(st.rev + skip, n, st.pi);
	}
	sub = period ? gt_sub_period(st.rev + skip, period) : 0;
	if (period && (period == p->cand || final) && period != p->period &&
	    sub != p->period && len >= skip + period + ST_GRAM)
		establish(p, period, sub, skip);
	p->cand = period;
}

/* ---- calls ---------------------------------------------------------------- */

/*
 * Checks come every ST_CHECK_MIN calls at first, then less often as calls
 * go by without a period (a sixteenth of them, at most ST_RING), or after
 * ST_CHECK_NS: a step is found within a few steps of the loop's start,
 * and a program that never repeats costs little.  Once found, a check
 * every ST_RING calls follows a change of pattern.
 */
static int check_due(struct st_thread *p, uint64_t t)
{
	uint64_t every = p->period ? ST_RING : p->seen / 16;
	uint64_t since = p->seen - p->checked;

	if (every < ST_CHECK_MIN)
		every = ST_CHECK_MIN;
	if (every > ST_RING)
		every = ST_RING;
	if (since < every && (since < 16 || t - p->checked_t < ST_CHECK_NS))
		return 0;
	p->checked = p->seen;
	p->checked_t = t;
	return 1;
}

static struct st_thread *thread_of(uint32_t tid, uint64_t t)
{
	struct st_thread **slot = NULL;

	for (size_t i = 0; i < ST_THREADS; i++) {
		struct st_thread *p = st.th[i];

		if (p && p->tid == tid)
			return p;
		if (!slot && (!p || (p != st.primary && t - p->last_t > ST_IDLE_NS)))
			slot = &st.th[i];
	}
	if (!slot)
		return NULL;
	if (!*slot && !(*slot = malloc(sizeof(**slot))))
		return NULL;
	memset(*slot, 0, offsetof(struct st_thread, tok));
	(*slot)->tid = tid;
	(*slot)->group = 1;
	(*slot)->checked_t = t;
	return *slot;
}

void gt_steps_call(uint32_t tid, uint32_t tok, uint32_t func, uint8_t args,
		   uint64_t t)
{
	struct st_thread *p;
	size_t at;

	if (st.marker) {
		st.mark.last_t = t;
		if (st.marker == GT_STEPS_KERNEL && func < st.nmarked &&
		    (st.marked[func >> 3] >> (func & 7) & 1))
			add_bound(&st.mark, t);
		return;
	}
	if (!(p = thread_of(tid, t)))
		return;
	at = (size_t)(p->seen % ST_RING);
	p->tok[at] = tok;
	p->ah[at] = args;
	p->t[at] = t;
	p->seen++;
	p->last_t = t;
	if (p->period && tok == p->anchor_tok &&
	    gram(p, ring_len(p) - 1, p->anchor_w) == p->anchor)
		add_block(p, ring_len(p) - 1);
	if (check_due(p, t))
		check(p, 0);
}

/* The marker's string id, once the NVTX tables exist (a range came). */
static uint32_t marker_id(void)
{
	struct gt_nvtx_str *e;

	if (!st.nvtx_id && (e = gt_nvtx_intern(st.text, strlen(st.text))))
		st.nvtx_id = gt_nvtx_str_id(e);
	return st.nvtx_id;
}

void gt_steps_nvtx(uint32_t msg, uint64_t t)
{
	if (t > st.mark.last_t)
		st.mark.last_t = t;
	if (st.marker == GT_STEPS_NVTX && msg && msg == marker_id())
		add_bound(&st.mark, t);
}

void gt_steps_new_kernel(uint64_t t)
{
	if (t > st.last_new)
		st.last_new = t;
}

void gt_steps_function(uint32_t id, const char *name)
{
	if (st.marker != GT_STEPS_KERNEL || !name || !strstr(name, st.text))
		return;
	if (id >= st.nmarked) {
		uint32_t n = (id / 4096 + 1) * 4096;
		uint8_t *m = realloc(st.marked, n / 8);

		if (!m)
			return;
		memset(m + st.nmarked / 8, 0, (n - st.nmarked) / 8);
		st.marked = m;
		st.nmarked = n;
	}
	st.marked[id >> 3] |= (uint8_t)(1u << (id & 7));
}

/* ---- the primary thread, steadiness ---------------------------------------- */

/* Among threads with a period and a tenth of the calls or more, the one
 * whose steps are longest: the outer loop.  Threads whose steps are as
 * long (the main thread and autograd's, once a step each) do not take
 * over from each other: another must be half as long again. */
static struct st_thread *pick_primary(void)
{
	struct st_thread *best = NULL;
	uint64_t most = 0, best_med = 0, cur = 0;

	if (st.marker)
		return &st.mark;
	for (size_t i = 0; i < ST_THREADS; i++)
		if (st.th[i] && st.th[i]->seen > most)
			most = st.th[i]->seen;
	for (size_t i = 0; i < ST_THREADS; i++) {
		struct st_thread *p = st.th[i];
		uint64_t med;

		if (!p || !p->period || 10 * p->seen < most)
			continue;
		med = median_step(p, ST_MEDIAN_OF);
		if (p == st.primary)
			cur = med;
		if (med > best_med)
			best = p, best_med = med;
	}
	if (st.primary && st.primary->period && cur && 2 * best_med < 3 * cur)
		return st.primary;
	return best ? best : st.primary;
}

/* Boundaries of p after t (of those kept). */
static uint64_t bounds_after(const struct st_thread *p, uint64_t t)
{
	uint64_t n = 0;

	while (n < p->nb && n < ST_HIST && p->b[(p->nb - 1 - n) % ST_HIST] > t)
		n++;
	return n;
}

/* Whole steps of p begun after t. */
static uint64_t steps_after(const struct st_thread *p, uint64_t t)
{
	uint64_t n = bounds_after(p, t);

	return n ? n - 1 : 0;
}

/* Whether each of the last n steps is within 1.5x of their median. */
static int stable(const struct st_thread *p, uint32_t n)
{
	uint64_t med = median_step(p, n);

	for (uint32_t i = 0; med && i < n && i + 1 < p->nb; i++) {
		uint64_t d = p->b[(p->nb - 1 - i) % ST_HIST] - p->b[(p->nb - 2 - i) % ST_HIST];

		if (2 * d > 3 * med || 3 * d < 2 * med)
			return 0;
	}
	return med != 0;
}

/* Why there are no steps (yet). */
static const char *no_steps_why(void)
{
	if (st.marker)
		return "the step marker of GPUTRACE_STEP never came";
	for (size_t i = 0; i < ST_THREADS; i++)
		if (st.th[i] && st.th[i]->period && !st.th[i]->copies)
			return "the launch pattern repeated, but its blocks were "
			       "not yet told apart into steps";
	for (size_t i = 0; i < ST_THREADS; i++)
		if (st.th[i] && st.th[i]->period)
			return "the launch pattern repeated, but too few times to "
			       "make steps of 1 ms or more";
	return "no repeating launch pattern was found";
}

static void update_view(void)
{
	struct gt_steps_view *v = &st.view;
	struct st_thread *p = st.primary;
	uint64_t fresh;

	v->steady = 0;
	if (!p || p->nb < 2) {
		v->why = no_steps_why();
		return;
	}
	v->source = st.marker ? (uint32_t)st.marker : GT_STEPS_PATTERN;
	v->count = st.seq + bounds_after(p, st.emitted_t);
	v->last_ns = p->b[(p->nb - 1) % ST_HIST];
	v->last_call_ns = p->last_t;
	v->median_ns = median_step(p, ST_MEDIAN_OF);
	fresh = steps_after(p, st.last_new);
	if (fresh < st.steady_n)
		v->why = "new kernels kept coming";
	else if (!stable(p, st.steady_n) && fresh < 3 * st.steady_n)
		v->why = "the step time was not stable yet";
	else
		v->steady = 1, v->why = NULL;
}

/* ---- the dump ------------------------------------------------------------------ */

/* Write p's boundaries [lo, hi) (indices), of pattern epoch (period
 * calls a step), as a chunk. */
static void emit_range(struct st_thread *p, uint64_t lo, uint64_t hi, uint32_t epoch,
		       uint32_t period)
{
	uint8_t buf[ST_HIST * GT_VARINT_MAX], *q = buf;
	struct gt_steps_header h = { .source = st.marker ? (uint32_t)st.marker
							 : GT_STEPS_PATTERN,
				     .period = period, .tid = p->tid };
	uint64_t prev = 0;

	if (lo >= hi)
		return;
	for (uint64_t i = lo; i < hi; i++) {
		uint64_t b = p->b[i % ST_HIST];

		if (h.count++ == 0)
			h.first_ns = b;
		else
			q = gt_varint_put(q, b - prev);
		prev = b;
	}
	/* a new pattern, or another thread's: the step across is none */
	if (st.emitted_p && (st.emitted_p != p || st.emitted_epoch != epoch))
		st.seq++;
	h.seq = st.seq + 1;
	if (gt_writer_side_chunk(GT_CHUNK_STEPS, &h, sizeof(h), buf, (size_t)(q - buf)))
		return;
	st.seq += h.count;
	st.emitted_t = prev;
	st.emitted_p = p;
	st.emitted_epoch = epoch;
}

/* Write p's boundaries after the last written one (those still kept),
 * those of its earlier pattern apart from those of its present one. */
static void emit(struct st_thread *p)
{
	uint64_t hi = p->nb, lo = hi - bounds_after(p, st.emitted_t);
	uint64_t cut = p->epoch_nb < lo ? lo : p->epoch_nb > hi ? hi : p->epoch_nb;

	emit_range(p, lo, cut, p->prev_epoch, p->prev_calls);
	emit_range(p, cut, hi, p->epoch, p->step_calls * p->group);
}

void gt_steps_cycle(int final)
{
	uint64_t now = gt_now();
	struct st_thread *p = pick_primary();
	uint64_t waiting;

	if (p != st.primary && p) {
		if (st.primary)
			emit(st.primary);       /* the old one's last steps */
		st.primary = p;
	}
	if (!p)
		return update_view();
	waiting = bounds_after(p, st.emitted_t);
	if (final || waiting >= ST_EMIT_BATCH || now - st.last_emit >= ST_EMIT_NS) {
		emit(p);
		st.last_emit = now;
	}
	update_view();
}

uint64_t gt_steps_bounds_after(uint64_t t, uint64_t *first)
{
	struct st_thread *p = st.primary;
	uint64_t n = p ? bounds_after(p, t) : 0;

	*first = n ? p->b[(p->nb - n) % ST_HIST] : 0;
	return n;
}

/* The calls since the last check, for a run that ended in a few steps. */
void gt_steps_end(int final)
{
	(void)final;
	for (size_t i = 0; i < ST_THREADS; i++) {
		struct st_thread *p = st.th[i];

		if (p && !p->period && p->seen > p->checked)
			check(p, 1);
		if (p && p->period && !p->copies)
			decide(p, 1);
		else if (p && p->period && p->provisional)
			redecide(p, 1);
	}
	gt_steps_cycle(1);
}

uint32_t gt_steps_steady_n(void)
{
	return st.steady_n;
}

const struct gt_steps_view *gt_steps_view(void)
{
	return &st.view;
}

void gt_steps_forget(void)
{
	for (size_t i = 0; i < ST_THREADS; i++)
		free(st.th[i]);
	free(st.marked);
	memset(st.th, 0, sizeof(st.th));
	st.primary = NULL;
	st.marked = NULL;
	st.nmarked = 0;
	memset(&st.mark, 0, offsetof(struct st_thread, tok));
	st.mark.group = 1;
	st.nvtx_id = 0;
	st.last_new = st.emitted_t = st.seq = st.last_emit = 0;
	st.emitted_p = NULL;
	memset(&st.view, 0, sizeof(st.view));
}
