/* SPDX-License-Identifier: MIT */
/*
 * test_analyzer_replay.c - the replay engine and its fixes on small
 * graphs whose times are worked out by hand in the comments: the
 * unmodified replay (waits, stream order, latencies, a second thread, a
 * backlog), then each fix: syncs removed, pinned copies, CUDA graphs,
 * DataLoader workers (a supply of batches), a larger batch (the host's
 * data work growing with it, gradient accumulation merged), the
 * environment (launches unblocked, kernels as long as alone, a long
 * kernel that never ran alone), a sync whose value goes back to the GPU
 * kept, the host's work on data read back going with its sync.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "analyzer/diagnosis/diagnosis_internal.h"
#include "analyzer/diagnosis/replay.h"

#define MAXN 64

struct fixture {
	struct rp_item items[MAXN];
	struct rp_op ops[MAXN];
	struct rp_thread th[2];
	uint64_t backlog[2];
	struct rp_graph g;
};

static void init(struct fixture *f, uint32_t steps)
{
	memset(f, 0, sizeof(*f));
	f->g.items = f->items;
	f->g.ops = f->ops;
	f->g.th = f->th;
	f->g.nth = 1;
	f->g.backlog = f->backlog;
	f->g.nstreams = 1;
	f->g.steps = steps;
}

static struct rp_item *item(struct fixture *f, uint8_t kind, uint64_t own,
			    uint32_t step)
{
	struct rp_item *it = &f->items[f->g.nitems++];

	it->kind = kind;
	it->own = own;
	it->step = step;
	f->th[f->g.nth - 1].n++;
	return it;
}

static struct rp_op *op(struct fixture *f, struct rp_item *it, uint64_t dur,
			uint64_t lat, uint64_t gap)
{
	struct rp_op *o = &f->ops[f->g.nops];

	o->dur = dur;
	o->lat = lat;
	o->gap = gap;
	o->item = (uint32_t)(it - f->items);
	it->op = (uint32_t)++f->g.nops;
	return o;
}

static void wait_on(struct rp_item *it, uint8_t wkind, uint32_t what,
		    uint64_t ret)
{
	it->wkind = wkind;
	it->wait = what;
	it->ret = ret;
}

/* CPU 10; launch 5 (kernel 100, lat 3); launch 5 (kernel 50, lat 3,
 * gap 2); stream sync (own 1, ret 4); CPU 20:
 *   kernel A 13-113, B max(18, 115) = 115-165, sync max(21, 169) = 169,
 *   CPU 169-189: the span is 189. */
static void test_unmodified(void **state)
{
	struct fixture f;
	struct rp_times t;
	struct rp_item *a, *b, *s;

	(void)state;
	init(&f, 1);
	item(&f, RK_CPU, 10, 0);
	a = item(&f, RK_LAUNCH, 5, 0);
	op(&f, a, 100, 3, 0);
	b = item(&f, RK_LAUNCH, 5, 0);
	op(&f, b, 50, 3, 2);
	s = item(&f, RK_SYNC, 1, 0);
	wait_on(s, RW_STREAM, 0, 4);
	item(&f, RK_CPU, 20, 0);
	replay_times_alloc(&f.g, &t);
	assert_int_equal(replay_run(&f.g, &t), 189);
	assert_int_equal(t.op0[0], 13);
	assert_int_equal(t.op1[0], 113);
	assert_int_equal(t.op0[1], 115);
	assert_int_equal(t.op1[1], 165);
	assert_int_equal(t.it0[3], 20);
	assert_int_equal(t.it1[3], 169);
	assert_int_equal(t.step0[0], 0);
	assert_int_equal(t.step0[1], 189);
	replay_times_release(&t);
}

/* A second stream busy until 300 at the start (backlog), a second thread
 * that launches onto it at 10 (kernel 40), the first thread's context
 * sync at 20 (own 1, ret 0) waits for both streams: kernel 300-340, the
 * sync returns at 340; the span is the later of the first thread's 340
 * and the GPU's 340 less the 300 of backlog. */
static void test_threads_backlog(void **state)
{
	struct fixture f;
	struct rp_times t;
	struct rp_item *s, *l;

	(void)state;
	init(&f, 1);
	f.g.nstreams = 2;
	f.backlog[1] = 300;
	item(&f, RK_CPU, 20, 0);
	s = item(&f, RK_SYNC, 1, 0);
	wait_on(s, RW_ALL, 0, 0);
	f.g.nth = 2;
	f.th[1].first = f.g.nitems;
	f.th[1].start = 10;
	l = item(&f, RK_LAUNCH, 5, 0);
	op(&f, l, 40, 0, 0)->stream = 1;
	replay_times_alloc(&f.g, &t);
	assert_int_equal(replay_run(&f.g, &t), 340);
	assert_int_equal(t.op0[0], 300);
	assert_int_equal(t.it1[1], 340);
	replay_times_release(&t);
}

/* Three steps of launch 5 (kernel 100), stream sync (own 1, ret 4), CPU
 * 50.  Recorded: each step waits for its kernel: 154 a step, 462.  The
 * sync of step 0 is kept (one in RP_SYNC_KEEP); steps 1 and 2 run ahead:
 * step 1 ends at 210, its kernel at 254; step 2's kernel 254-354: 354. */
static void test_fix_sync(void **state)
{
	struct fixture f;
	struct rp_fix_result r;
	struct rp_env e = { 0 };
	uint64_t base;

	(void)state;
	init(&f, 3);
	for (uint32_t s = 0; s < 3; s++) {
		op(&f, item(&f, RK_LAUNCH, 5, s), 100, 0, 0);
		wait_on(item(&f, RK_SYNC, 1, s), RW_STREAM, 0, 4);
		item(&f, RK_CPU, 50, s);
	}
	base = replay_run(&f.g, NULL);
	assert_int_equal(base, 462);
	replay_fix(&f.g, &e, FIX_SYNC, base, &r, NULL, NULL);
	assert_true(r.applies);
	assert_int_equal(r.cls, VC_COMM);
	assert_int_equal(r.span, 354);
	assert_float_equal(r.gain, 1 - 354.0 / 462, 1e-9);
	assert_int_equal(f.items[1].wkind, RW_STREAM);  /* the graph is kept */
}

/* A pageable upload of 1000 bytes the call waits for (own 2, ret 3,
 * copy 500), a launch 5 (kernel 100), CPU 10: copy 0-500, the call
 * returns at 503, kernel 503-603: 603.  Pinned at 10 bytes/ns: copy
 * 0-100, the call returns at 2, kernel 100-200: 200. */
static void test_fix_pinned(void **state)
{
	struct fixture f;
	struct rp_fix_result r;
	struct rp_env e = { .pinned_gbps = 10 };
	struct rp_item *c;
	uint64_t base;

	(void)state;
	init(&f, 1);
	c = item(&f, RK_COPY, 2, 0);
	c->flags = RPF_PAGEABLE;
	c->dir = GT_DIR_HTOD;
	c->bytes = 1000;
	op(&f, c, 500, 0, 0)->kind = RO_COPY;
	wait_on(c, RW_OP, 0, 3);
	op(&f, item(&f, RK_LAUNCH, 5, 0), 100, 0, 0);
	item(&f, RK_CPU, 10, 0);
	base = replay_run(&f.g, NULL);
	assert_int_equal(base, 603);
	replay_fix(&f.g, &e, FIX_PINNED, base, &r, NULL, NULL);
	assert_true(r.applies);
	assert_int_equal(r.cls, VC_MEMORY);
	assert_int_equal(r.span, 200);
}

/* Launches of 1000 ns (kernels of 50, lat 1) with 2000 ns of CPU between
 * them, then a context sync: 7001.  As one graph launch of 15 ns: the
 * kernels run RP_GRAPH_GAP_NS apart from 100: 100-150, 250-300, 400-450,
 * and the sync returns at 451. */
static void test_fix_graph(void **state)
{
	struct fixture f;
	struct rp_fix_result r;
	struct rp_env e = { .graph_launch_ns = 15 };
	uint64_t base;

	(void)state;
	assert_int_equal(RP_GRAPH_GAP_NS, 100);
	init(&f, 1);
	for (int k = 0; k < 3; k++) {
		op(&f, item(&f, RK_LAUNCH, 1000, 0), 50, 1, 0);
		if (k < 2)
			item(&f, RK_CPU, 2000, 0);
	}
	wait_on(item(&f, RK_SYNC, 1, 0), RW_ALL, 0, 1);
	base = replay_run(&f.g, NULL);
	assert_int_equal(base, 7001);
	replay_fix(&f.g, &e, FIX_GRAPH, base, &r, NULL, NULL);
	assert_true(r.applies);
	assert_int_equal(r.cls, VC_KERNEL);
	assert_int_equal(r.span, 451);
}

/* Three steps of a 4 ms batch fetch in the main thread (RPF_DATA), a
 * launch of 10 us (its kernel of 1 ms queued as it starts), a context
 * sync (own 1 us, ret 1 us): 5.001 ms a step, 15.003 ms.  A DataLoader
 * seen, five cores: four workers, a batch every 1 ms, the main process's
 * take RP_HANDOFF_NS:
 *   step 0: take 0-0.3 (the first batch ready), kernel 0.3-1.3, sync
 *           1.301;
 *   step 1: take at 1.301, ready at 1.0: 1.601, kernel to 2.601, sync
 *           2.602;
 *   step 2: take at 2.602, ready at 2.0: 2.902, kernel to 3.902, sync
 *           3.903 ms.
 * With two workers now, at the steps' pace (5.001 ms) four hand over a
 * batch every 2.5005 ms: take 1 ends at 2.5005, take 2 at 5.001, its
 * sync at 6.002 ms.  With the CPU saturated it is CPU preprocessing,
 * halved: 3.001 ms a step.  No DataLoader seen: nothing to change. */
static void workers_steps(struct fixture *f)
{
	init(f, 3);
	for (uint32_t s = 0; s < 3; s++) {
		item(f, RK_CPU, 4000000, s)->flags = RPF_DATA;
		op(f, item(f, RK_LAUNCH, 10000, s), 1000000, 0, 0);
		wait_on(item(f, RK_SYNC, 1000, s), RW_ALL, 0, 1000);
	}
}

static void test_fix_workers(void **state)
{
	struct fixture f;
	struct rp_fix_result r;
	struct rp_env e = { .cores = 5, .dataloader = 1 };
	uint64_t base;

	(void)state;
	assert_int_equal(RP_HANDOFF_NS, 300000);
	workers_steps(&f);
	base = replay_run(&f.g, NULL);
	assert_int_equal(base, 15003000);
	f.g.measured = base;
	replay_fix(&f.g, &e, FIX_WORKERS, base, &r, NULL, NULL);
	assert_true(r.applies);
	assert_int_equal(r.cls, VC_DATA);
	assert_float_equal(r.k, 4, 0);
	assert_int_equal(r.span, 3903000);
	e.nworkers = 2;
	replay_fix(&f.g, &e, FIX_WORKERS, base, &r, NULL, NULL);
	assert_int_equal(r.span, 6002000);
	e.saturated = 1;
	replay_fix(&f.g, &e, FIX_WORKERS, base, &r, NULL, NULL);
	assert_int_equal(r.cls, VC_CPU);
	assert_int_equal(r.span, 9003000);
	e = (struct rp_env){ .cores = 5 };
	replay_fix(&f.g, &e, FIX_WORKERS, base, &r, NULL, NULL);
	assert_false(r.applies);
}

/* A launch of 400 ns queues a kernel of 100 filling a quarter of the
 * GPU: 400 a step.  Batch x k: the kernel stays 100 up to k = 4, then
 * grows with k; per sample 400 / k until k = 16, then 25 (the kernel
 * of 25 k): k = 16, the step still 400, per sample 25. */
static void test_fix_batch(void **state)
{
	struct fixture f;
	struct rp_fix_result r;
	struct rp_env e = { .small_batch = 1 };
	uint64_t base;

	(void)state;
	init(&f, 1);
	op(&f, item(&f, RK_LAUNCH, 400, 0), 100, 0, 0)->fill = 0.25f;
	base = replay_run(&f.g, NULL);
	assert_int_equal(base, 400);
	replay_fix(&f.g, &e, FIX_BATCH, base, &r, NULL, NULL);
	assert_true(r.applies);
	assert_int_equal(r.cls, VC_MEMORY);
	assert_float_equal(r.k, 16, 0);
	assert_int_equal(r.span, 400);
	assert_float_equal(r.gain, 1 - 25.0 / 400, 1e-9);
	e.small_batch = 0;              /* no sign of a small batch */
	replay_fix(&f.g, &e, FIX_BATCH, base, &r, NULL, NULL);
	assert_false(r.applies);
}

/* CUDA_LAUNCH_BLOCKING: two launches (own 2, ret 3) wait for their
 * kernels (100, lat 4), CPU 10 after each: 107 + 10, 234.  Unset, a
 * launch takes ret + lat = 7 and the kernels run back to back: 4-104,
 * 104-204: 204.  Another process on the GPU: latencies capped at their
 * median. */
static void test_fix_env(void **state)
{
	struct fixture f;
	struct rp_fix_result r;
	struct rp_env e = { .launch_blocking = 1 };
	uint64_t base;

	(void)state;
	init(&f, 1);
	for (int k = 0; k < 2; k++) {
		struct rp_item *l = item(&f, RK_LAUNCH, 2, 0);

		op(&f, l, 100, 4, 0);
		wait_on(l, RW_OP, (uint32_t)k, 3);
		l->flags = RPF_BLOCKING;
		item(&f, RK_CPU, 10, 0);
	}
	base = replay_run(&f.g, NULL);
	assert_int_equal(base, 234);
	replay_fix(&f.g, &e, FIX_ENV, base, &r, NULL, NULL);
	assert_true(r.applies);
	assert_int_equal(r.cls, VC_ENV);
	assert_int_equal(r.span, 204);

	/* the second kernel waited 500 for another process: lat 504 */
	f.ops[1].lat = 504;
	base = replay_run(&f.g, NULL);
	assert_int_equal(base, 117 + 504 + 100 + 3 + 10);
	e = (struct rp_env){ .other_share = 0.5 };
	replay_fix(&f.g, &e, FIX_ENV, base, &r, NULL, NULL);
	assert_true(r.applies);
	assert_int_equal(r.span, 234);
	e.other_share = 0;
	replay_fix(&f.g, &e, FIX_ENV, base, &r, NULL, NULL);
	assert_false(r.applies);
}

/* A step: an optimizer's kernel O (launch 10, kernel 50), then four
 * micro-batches alike, each CPU 20 and a launch of 10 three times
 * (kernels A, B, C of 100, filling a tenth of the GPU), then a context
 * sync (own 1, ret 1).  The kernels run back to back from 0: 50 + 1200,
 * the sync returns at 1251; two steps 2502.  Merged into one batch four
 * times as large: the first micro-batch on 4x the samples (its kernels
 * fill 0.4 of the GPU: as long), the others gone: the kernels end at
 * 350, the sync at 351; two steps 702, the same samples. */
static void test_fix_accumulation(void **state)
{
	struct fixture f;
	struct rp_fix_result r;
	struct rp_env e = { 0 };
	uint64_t base;

	(void)state;
	init(&f, 2);
	for (uint32_t s = 0; s < 2; s++) {
		struct rp_op *o = op(&f, item(&f, RK_LAUNCH, 10, s), 50, 0, 0);

		o->shape = 9;
		o->opt = 1;
		for (int b = 0; b < 4; b++)
			for (uint32_t k = 1; k <= 3; k++) {
				item(&f, RK_CPU, 20, s);
				o = op(&f, item(&f, RK_LAUNCH, 10, s), 100, 0, 0);
				o->shape = k;
				o->fill = 0.1f;
			}
		wait_on(item(&f, RK_SYNC, 1, s), RW_ALL, 0, 1);
	}
	base = replay_run(&f.g, NULL);
	assert_int_equal(base, 2502);
	replay_fix(&f.g, &e, FIX_BATCH, base, &r, NULL, NULL);
	assert_true(r.applies);
	assert_float_equal(r.accum, 4, 0);
	assert_float_equal(r.k, 4, 0);
	assert_int_equal(r.span, 702);
	assert_float_equal(r.gain, 1 - 702.0 / 2502, 1e-9);
	f.ops[0].opt = f.ops[13].opt = 0;       /* no optimizer seen */
	replay_fix(&f.g, &e, FIX_BATCH, base, &r, NULL, NULL);
	assert_false(r.applies);
}

/* A larger batch with the host's data work: CPU 1000 (RPF_DATA), a
 * launch of 400 whose kernel (100, a quarter of the GPU) runs meanwhile:
 * 1400.  With a DataLoader the fetch grows with the batch: per sample
 * 1000 + 400 / k until the kernel outlasts the launch (k > 16), then
 * 1025: k = 16, -27%; the band's low end grows the kernel from the first
 * sample: 100 (1 + 15 / 4) = 475 after 16000, 16475 / 16 per sample.
 * Without one the host's work stays: k = 256 (the kernel of 6400 after
 * 1000), 7400 / 256 per sample, -98%; the band's low end grows it and the
 * kernel (100 (1 + 255 / 4) = 6475): 262475 / 256 per sample, and the
 * band says why it is wide. */
static void test_fix_batch_host(void **state)
{
	struct fixture f;
	struct rp_fix_result r;
	struct rp_env e = { .small_batch = 1, .dataloader = 1 };
	uint64_t base;

	(void)state;
	init(&f, 1);
	item(&f, RK_CPU, 1000, 0)->flags = RPF_DATA;
	op(&f, item(&f, RK_LAUNCH, 400, 0), 100, 0, 0)->fill = 0.25f;
	base = replay_run(&f.g, NULL);
	assert_int_equal(base, 1400);
	replay_fix(&f.g, &e, FIX_BATCH, base, &r, NULL, NULL);
	assert_float_equal(r.k, 16, 0);
	assert_float_equal(r.gain, 1 - 1025.0 / 1400, 1e-9);
	assert_float_equal(r.gain_lo, 1 - 16475.0 / 16 / 1400, 1e-9);
	assert_float_equal(r.gain_hi, r.gain, 1e-9);
	e.dataloader = 0;
	replay_fix(&f.g, &e, FIX_BATCH, base, &r, NULL, NULL);
	assert_float_equal(r.k, 256, 0);
	assert_float_equal(r.gain, 1 - 7400.0 / 256 / 1400, 1e-9);
	assert_float_equal(r.gain_lo, 1 - 262475.0 / 256 / 1400, 1e-9);
	assert_true(r.wide[0] != 0);
}

/* A kernel shape S that mostly ran alone (100 eight times, 1100 twice:
 * slowed by a slice) and a long one L that never did (2400 to 3600,
 * mean 3000), launched back to back, then a context sync: 18000.  The
 * stretch: S took 3000 where alone 1000, 3x; L alone 3000 / 3 = 1000:
 * 1000 + 5000, -67%.  Two runs slowed: the stretch's error 1/sqrt(2),
 * its ends 1 + 2 (1 -+ 0.707): L 1892 or 680 a run. */
/* Kernels of durations dur (shape 1 up to `short_max`, else 2) launched
 * back to back, then a context sync; the environment fixed: base and
 * what the fix says. */
static uint64_t unshared(const uint64_t *dur, size_t n, uint64_t short_max,
			 struct rp_fix_result *r)
{
	struct fixture f;
	struct rp_env e = { .other_share = 0.5 };
	uint64_t base;

	init(&f, 1);
	for (size_t i = 0; i < n; i++)
		op(&f, item(&f, RK_LAUNCH, 1, 0), dur[i], 0, 0)->shape =
			dur[i] <= short_max ? 1 : 2;
	wait_on(item(&f, RK_SYNC, 1, 0), RW_ALL, 0, 0);
	base = replay_run(&f.g, NULL);
	replay_fix(&f.g, &e, FIX_ENV, base, r, NULL, NULL);
	return base;
}

static void test_fix_unshared(void **state)
{
	static const uint64_t dur[15] = { 100, 2400, 100, 100, 1100, 2700, 100,
					   100, 3000, 100, 1100, 3300, 100, 100,
					   3600 };
	struct rp_fix_result r;

	(void)state;
	assert_int_equal(unshared(dur, 15, 1100, &r), 18000);
	assert_true(r.applies);
	assert_int_equal(r.span, 6000);
	assert_float_equal(r.gain_lo, 1 - (1000 + 5 * 1892.0) / 18000, 1e-3);
	assert_float_equal(r.gain_hi, 1 - (1000 + 5 * 680.0) / 18000, 1e-3);
}

/* A long shape L whose runs are all slowed alike (4900 to 5100: as if
 * alone by their spread) beside a short one S slowed twice in 20 runs by
 * a slice of 2500 (100, or 2600): L's fast runs are longer than a slice,
 * so none ran between two.  S says the stretch: 7000 where alone 2000,
 * 3.5x; L alone 5010 / 3.5 = 1431 a run: 32050 becomes 2000 + 7157. */
static void test_fix_unshared_long(void **state)
{
	uint64_t dur[25] = { 5000, 5100, 4900, 5050, 5000 };
	struct rp_fix_result r;

	(void)state;
	for (int i = 0; i < 20; i++)
		dur[5 + i] = i % 10 == 3 ? 2600 : 100;
	assert_int_equal(unshared(dur, 25, 2600, &r), 32050);
	assert_true(r.applies);
	assert_float_equal(r.gain, 1 - (2000 + 5 * 5010 / 3.5) / 32050, 1e-3);
}

/* Two steps of a launch (kernel 100), a copy of 4 bytes back that waits
 * for itself, CPU 50, then a copy of the value back up (4 bytes): the
 * launches after the wait depend on what it read; it stays.  A larger
 * copy up (64 bytes: a batch) does not keep it. */
static void test_fix_sync_value(void **state)
{
	struct fixture f;
	struct rp_fix_result r;
	struct rp_env e = { 0 };
	uint64_t base;

	(void)state;
	init(&f, 2);
	for (uint32_t s = 0; s < 2; s++) {
		struct rp_item *c;

		op(&f, item(&f, RK_LAUNCH, 10, s), 100, 0, 0);
		c = item(&f, RK_COPY, 5, s);
		c->dir = GT_DIR_DTOH;
		c->bytes = 4;
		c->flags = RPF_READBACK;
		op(&f, c, 1, 0, 0)->kind = RO_COPY;
		wait_on(c, RW_OP, f.g.nops - 1, 2);
		item(&f, RK_CPU, 50, s);
		c = item(&f, RK_COPY, 5, s);
		c->dir = GT_DIR_HTOD;
		c->bytes = 4;
		op(&f, c, 1, 0, 0)->kind = RO_COPY;
	}
	base = replay_run(&f.g, NULL);
	replay_fix(&f.g, &e, FIX_SYNC, base, &r, NULL, NULL);
	assert_false(r.applies);
	f.items[7].bytes = 64;
	replay_fix(&f.g, &e, FIX_SYNC, base, &r, NULL, NULL);
	assert_true(r.applies);
}

/* Four steps of a launch (kernel 100), a readback of `bytes` that waits
 * for itself, a scalar's (.item()), then CPU 300 (metrics on what was
 * read).  Read back as data (32 KiB), the CPU after it goes with the
 * syncs at the point and the band's high end; at its low end it stays,
 * as after a scalar's readback alone (4 bytes), where nothing goes. */
static double sync_gain(uint64_t bytes, struct rp_fix_result *r)
{
	struct fixture f;
	struct rp_env e = { 0 };

	init(&f, 4);
	for (uint32_t s = 0; s < 4; s++) {
		op(&f, item(&f, RK_LAUNCH, 10, s), 100, 0, 0);
		for (int k = 0; k < 2; k++) {
			struct rp_item *c = item(&f, RK_COPY, 5, s);

			c->dir = GT_DIR_DTOH;
			c->bytes = k ? 4 : bytes;
			c->flags = RPF_READBACK;
			op(&f, c, 1, 0, 0)->kind = RO_COPY;
			wait_on(c, RW_OP, f.g.nops - 1, 2);
		}
		item(&f, RK_CPU, 300, s);
	}
	replay_fix(&f.g, &e, FIX_SYNC, replay_run(&f.g, NULL), r, NULL, NULL);
	return r->gain;
}

static void test_fix_sync_data(void **state)
{
	struct rp_fix_result scalar, data;

	(void)state;
	sync_gain(4, &scalar);
	sync_gain(32768, &data);
	assert_true(scalar.applies && data.applies);
	assert_float_equal(scalar.gain_hi, scalar.gain, 1e-9);
	assert_true(data.gain > scalar.gain + 0.3);
	assert_float_equal(data.gain_hi, data.gain, 1e-9);
	assert_float_equal(data.gain_lo, scalar.gain, 1e-9);
	assert_non_null(strstr(data.assume, "more than 1024 bytes"));
	assert_null(strstr(scalar.assume, "more than 1024 bytes"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unmodified),
		cmocka_unit_test(test_threads_backlog),
		cmocka_unit_test(test_fix_sync),
		cmocka_unit_test(test_fix_pinned),
		cmocka_unit_test(test_fix_graph),
		cmocka_unit_test(test_fix_workers),
		cmocka_unit_test(test_fix_batch),
		cmocka_unit_test(test_fix_env),
		cmocka_unit_test(test_fix_accumulation),
		cmocka_unit_test(test_fix_batch_host),
		cmocka_unit_test(test_fix_unshared),
		cmocka_unit_test(test_fix_unshared_long),
		cmocka_unit_test(test_fix_sync_value),
		cmocka_unit_test(test_fix_sync_data),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
