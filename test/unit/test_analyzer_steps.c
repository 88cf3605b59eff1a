/* SPDX-License-Identifier: MIT */
/*
 * test_analyzer_steps.c - how the steps of a whole run are told from
 * what repeats within them: the optimizer's step over micro-batches
 * (gradient accumulation), anchor calls before the loop began (weights
 * uploaded one by one), a compiler's threads whose patterns came in
 * bursts, an NVTX range repeated twice a step of the launch pattern, and
 * an autotuning burst of longer NVTX ranges before the loop.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "analyzer/diagnosis/diagnosis_internal.h"
#include "analyzer/lib/hmap.h"
#include "gputrace/period.h"

#define MS 1000000ull
#define OPT_TOK 900             /* the optimizer's kernel */

static struct diagnosis *new_diag(void)
{
	struct diagnosis *d = calloc(1, sizeof(*d));

	hmap_init(&d->opt_fns);
	hmap_init(&d->cands);
	return d;
}

static void free_diag(struct diagnosis *d)
{
	steps_period_release(d);
	hmap_release(&d->opt_fns);
	hmap_release(&d->cands);
	free(d);
}

/* One micro-batch on thread tid: p calls from token 1, 10 us apart, a
 * 100 us pause before its first. */
static void micro_batch(struct diagnosis *d, uint32_t tid, uint64_t *t, uint32_t p)
{
	for (uint32_t i = 0; i < p; i++) {
		*t += i ? 10000 : 100000;
		steps_period_token(d, tid, 1 + i, 0, *t);
	}
}

/* The optimizer's step: 6 calls of its kernel, 5 us apart. */
static void optimizer(struct diagnosis *d, uint32_t tid, uint64_t *t)
{
	for (int i = 0; i < 6; i++) {
		*t += 5000;
		steps_period_token(d, tid, OPT_TOK, 0, *t);
	}
}

/* iters iterations of `micro` micro-batches of 138 calls, an optimizer
 * step after every `every` of them; the steps found in *s.  Returns the
 * time one iteration took. */
static uint64_t accumulate(struct diagnosis *d, struct step_stats *s,
			   int iters, int micro, int every)
{
	uint64_t t = MS, start = 0, end = 0;

	hmap_put_int(&d->opt_fns, OPT_TOK, (void *)1);
	for (int it = 0; it < iters; it++) {
		if (it == iters - 2)
			start = t;
		for (int k = 0; k < micro; k++) {
			micro_batch(d, 7, &t, 138);
			if ((k + 1) % every == 0)
				optimizer(d, 7, &t);
		}
		if (it == iters - 2)
			end = t;
	}
	assert_int_equal(steps_period_pick(d, s), 1);
	return end - start;
}

/* The steps' median time. */
static uint64_t median(const struct step_stats *s)
{
	uint64_t *v = malloc((s->nt - 1) * sizeof(*v)), m;

	for (size_t i = 0; i + 1 < s->nt; i++)
		v[i] = s->t[i + 1] - s->t[i];
	m = gt_median_half(v, s->nt - 1);
	free(v);
	return m;
}

static void test_optimizer_over_micro_batches(void **state)
{
	struct diagnosis *d = new_diag();
	struct step_stats s = { 0 };
	uint64_t iter;

	(void)state;
	/* 16 micro-batches, one optimizer step: a step is the 16 */
	iter = accumulate(d, &s, 40, 16, 16);
	assert_true(s.nt >= 38 && s.nt <= 40);
	assert_int_equal(median(&s), iter);
	assert_int_equal(s.period, 16 * 138);
	assert_non_null(strstr(s.name, "optimizer"));
	steps_release(&s);
	free_diag(d);
}

static void test_optimizer_every_step(void **state)
{
	struct diagnosis *d = new_diag();
	struct step_stats s = { 0 };
	uint64_t iter;

	(void)state;
	/* an optimizer step every micro-batch: the steps stay */
	iter = accumulate(d, &s, 100, 4, 1);
	assert_int_equal(median(&s), iter / 4);
	assert_null(strstr(s.name, "optimizer"));
	steps_release(&s);
	free_diag(d);
	/* an optimizer step every two of four micro-batches: the same */
	d = new_diag();
	iter = accumulate(d, &s, 100, 4, 2);
	assert_int_equal(median(&s), iter / 2);
	assert_null(strstr(s.name, "optimizer"));
	steps_release(&s);
	free_diag(d);
}

/*
 * A loop whose steps begin with an upload (token 1) after a setup that
 * made 300 uploads, two calls apart, then `more` other calls: those are
 * no steps.
 */
static void uploads_then_loop(int more)
{
	struct diagnosis *d = new_diag();
	struct step_stats s = { 0 };
	uint64_t t = MS;

	for (int i = 0; i < 300; i++) {
		t += 5000;
		steps_period_token(d, 7, 1, 0, t);
		t += 5000;
		steps_period_token(d, 7, 500 + (uint32_t)i % 3, 0, t);
	}
	for (int i = 0; i < more; i++) {
		t += 5000;
		steps_period_token(d, 7, 2000 + (uint32_t)i, 0, t);
	}
	t += 300 * MS;
	for (int i = 0; i < 100; i++)
		micro_batch(d, 7, &t, 40);
	assert_int_equal(steps_period_pick(d, &s), 1);
	assert_int_equal(s.period, 40);
	assert_int_equal(s.nt, 100);
	for (size_t i = 0; i + 1 < s.nt; i++)
		assert_int_equal(s.t[i + 1] - s.t[i], 100000 + 39 * 10000);
	steps_release(&s);
	free_diag(d);
}

static void test_anchor_before_loop(void **state)
{
	(void)state;
	uploads_then_loop(0);
	uploads_then_loop(200);         /* more setup after the uploads */
}

/*
 * A compiler's thread whose calls repeat in bursts seconds apart (a
 * median step of a few ms, a span of seconds), and the training loop's
 * thread with fewer but steady steps over a shorter time: the loop's.
 */
static void test_bursts_are_no_loop(void **state)
{
	struct diagnosis *d = new_diag();
	struct step_stats s = { 0 };
	uint64_t t = MS;

	(void)state;
	for (int burst = 0; burst < 4; burst++) {
		for (int i = 0; i < 12; i++)
			micro_batch(d, 8, &t, 40);     /* 0.49 ms steps */
		t += 1000 * MS;
	}
	for (int i = 0; i < 60; i++) {
		micro_batch(d, 7, &t, 20);
		t += 5 * MS;
	}
	assert_int_equal(steps_period_pick(d, &s), 1);
	assert_non_null(strstr(s.name, "thread 7"));
	steps_release(&s);
	free_diag(d);
}

/* A top-level NVTX range name repeated n times, each range len long,
 * every `gap` from `at`. */
static struct nvtx_cand *range(struct diagnosis *d, const char *name, size_t n,
			       uint64_t at, uint64_t gap, uint64_t len)
{
	struct nvtx_cand *c = calloc(1, sizeof(*c));

	c->key = strdup(name);
	c->name = strdup(name);
	c->count = c->gpu_calls = n;
	c->spans.v = calloc(n, sizeof(*c->spans.v));
	for (size_t i = 0; i < n; i++, c->spans.n++) {
		c->spans.v[i] = (struct span){ at + i * gap, at + i * gap + len };
		c->total_ns += len;
	}
	c->first_t0 = at;
	c->last_t1 = at + (n - 1) * gap + len;
	hmap_put_str(&d->cands, c->key, c);
	return c;
}

static void free_cands(struct diagnosis *d)
{
	struct nvtx_cand *c;
	size_t pos = 0;

	while ((c = hmap_next(&d->cands, &pos))) {
		free(c->key);
		free(c->name);
		free(c->spans.v);
		free(c);
	}
}

/*
 * JAX's step, a jitted train_step (200 ranges), and a jitted add run
 * twice an iteration after it (400 ranges that take more of the host's
 * time): with a launch pattern of 200 steps, the step is train_step.
 */
static void test_nvtx_twice_a_step(void **state)
{
	struct step_stats s = { 0 };
	uint64_t pattern[] = { 0, 200, 400, 21 };
	const char *want[] = { "jit_add", "jit_train_step", "jit_add", "jit_add" };

	(void)state;
	for (size_t i = 0; i < 4; i++) {
		struct diagnosis *d = new_diag();

		d->first_t = MS;
		d->last_t = MS + 200 * 6 * MS;
		range(d, "jit_train_step", 200, MS, 6 * MS, 200000);
		range(d, "jit_add", 400, MS + 600000, 3 * MS, 250000);
		assert_int_equal(steps_nvtx_pick(d, &s, pattern[i]), 1);
		assert_non_null(strstr(s.name, want[i]));
		steps_release(&s);
		free_cands(d);
		free_diag(d);
	}
}

/*
 * XLA autotunes a module in a burst near the end of its compile: 40
 * ranges of 1.2 ms over 100 ms, late enough to reach the run's last
 * quarter, with more time in them (48 ms) than the 200 short ranges of
 * the step (0.2 ms each, over 1.2 s).  The step spreads over the loop:
 * it is jit_train_step, whatever the launch pattern says.
 */
static void test_nvtx_autotune_burst(void **state)
{
	struct step_stats s = { 0 };
	uint64_t pattern[] = { 0, 40, 200 };

	(void)state;
	for (size_t i = 0; i < 3; i++) {
		struct diagnosis *d = new_diag();
		uint64_t loop = 8000 * MS;

		d->first_t = MS;
		d->last_t = loop + 200 * 6 * MS;
		range(d, "gemm_fusion_dot.1", 40, loop - 300 * MS, 2500000, 1200000);
		range(d, "jit_train_step", 200, loop, 6 * MS, 200000);
		assert_int_equal(steps_nvtx_pick(d, &s, pattern[i]), 1);
		assert_non_null(strstr(s.name, "jit_train_step"));
		assert_int_equal(s.nt, 201);
		steps_release(&s);
		free_cands(d);
		free_diag(d);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_optimizer_over_micro_batches),
		cmocka_unit_test(test_optimizer_every_step),
		cmocka_unit_test(test_anchor_before_loop),
		cmocka_unit_test(test_bursts_are_no_loop),
		cmocka_unit_test(test_nvtx_twice_a_step),
		cmocka_unit_test(test_nvtx_autotune_burst),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
