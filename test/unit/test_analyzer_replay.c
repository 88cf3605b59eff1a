/* SPDX-License-Identifier: MIT */
/*
 * test_analyzer_replay.c - the replay engine and its fixes on small
 * graphs whose times are worked out by hand in the comments: the
 * unmodified replay (waits, stream order, latencies, a second thread, a
 * backlog), then each fix: syncs removed, pinned copies, CUDA graphs,
 * DataLoader workers, a larger batch, the environment.
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

/* Two steps of a 4000 ns batch fetch (no workers), launch 10 (kernel
 * 100), context sync (own 1, ret 1): 4101 a step, 8202.  Five cores:
 * four workers, the fetch takes 1000: 2202.  With the CPU saturated it
 * is CPU preprocessing, halved: 2000 + 101 a step, 4202. */
static void test_fix_workers(void **state)
{
	struct fixture f;
	struct rp_fix_result r;
	struct rp_env e = { .cores = 5 };
	uint64_t base;

	(void)state;
	init(&f, 2);
	for (uint32_t s = 0; s < 2; s++) {
		item(&f, RK_CPU, 4000, s)->flags = RPF_DATA;
		op(&f, item(&f, RK_LAUNCH, 10, s), 100, 0, 0);
		wait_on(item(&f, RK_SYNC, 1, s), RW_ALL, 0, 1);
	}
	base = replay_run(&f.g, NULL);
	assert_int_equal(base, 8202);
	replay_fix(&f.g, &e, FIX_WORKERS, base, &r, NULL, NULL);
	assert_true(r.applies);
	assert_int_equal(r.cls, VC_DATA);
	assert_float_equal(r.k, 4, 0);
	assert_int_equal(r.span, 2202);
	e.saturated = 1;
	replay_fix(&f.g, &e, FIX_WORKERS, base, &r, NULL, NULL);
	assert_int_equal(r.cls, VC_CPU);
	assert_int_equal(r.span, 4202);
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
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
