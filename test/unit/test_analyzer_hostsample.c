/* SPDX-License-Identifier: MIT */
/*
 * test_analyzer_hostsample.c - host stack samples tied to the GPU's idle
 * time (idle_samples.h), on a dump and a worker's dump built here whose
 * answers follow from their design: 40 iterations of 10 ms (3 launches,
 * a 1 ms wait, then the host outside CUDA), the first 20 CPU-bound in the
 * process (3 samples in burn_a, 5 in burn_b each), the last 20 waiting on
 * a worker (the process's CPU time low, its children's two cores), where
 * the worker samples decode 6 times and augment twice and the process
 * once, waiting, in DataLoader.__next__ (10 ms after its previous one).  The worker also samples during
 * the CPU-bound half, which counts in no cause, but in the workers'
 * profile over the steady steps.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyzer/diagnosis/idle_samples.h"
#include "analyzer/passes/hostsample.h"
#include "analyzer/pipeline/loader.h"
#include "analyzer/pipeline/pipeline.h"
#include "gputrace/varint.h"
#include "test/unit/test_dump.h"

#define T0 1000000000ull
#define MS 1000000ull
#define ITERS 40
#define HALF 20

enum { S_NEXT = 1, S_BURN_A, S_BURN_B, S_DECODE, S_AUGMENT };
enum { OP_LAUNCH = 1, OP_SYNC, OP_SAMPLE };

struct buf {
	uint8_t *p;
	size_t len, cap;
};

static void put(struct buf *b, const void *p, size_t n)
{
	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2;
		b->p = realloc(b->p, b->cap);
		assert_non_null(b->p);
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
}

static void chunk(struct buf *b, uint32_t type, const void *p, size_t n)
{
	struct gt_chunk_header ch = { type, (uint32_t)n };

	put(b, &ch, sizeof(ch));
	put(b, p, n);
}

static void header(struct buf *b, uint32_t pid)
{
	struct gt_file_header h;

	test_dump_header(&h, pid, T0 - MS);
	put(b, &h, sizeof(h));
}

static void string(struct buf *b, uint32_t id, const char *s)
{
	uint8_t p[256];

	chunk(b, GT_CHUNK_STRING, p, test_dump_string(p, id, s));
}

static void process(struct buf *b, uint32_t pid, uint32_t ppid)
{
	struct gt_process gp = { pid, ppid, UINT32_MAX, 0 };
	uint8_t p[64];
	uint32_t len = 4;

	memcpy(p, &gp, sizeof(gp));
	memcpy(p + 16, &len, 4);
	memcpy(p + 20, "node", 4);
	memcpy(p + 24, &len, 4);
	memcpy(p + 28, "test", 4);
	chunk(b, GT_CHUNK_PROCESS, p, 32);
}

static void op(struct buf *b, uint16_t id, uint8_t kind, uint8_t nargs,
	       uint32_t name)
{
	struct gt_op_info oi = { .op = id, .kind = kind, .nargs = nargs,
				 .api_str = name, .symbol_str = name };

	chunk(b, GT_CHUNK_OP, &oi, sizeof(oi));
}

/* Stack id: Python frames (func, file, line) innermost first, strings. */
static void stack(struct buf *b, uint32_t id, int n, const uint32_t *f)
{
	struct gt_stack h = { id, 0, (uint16_t)n };
	uint8_t p[128];

	memcpy(p, &h, sizeof(h));
	for (int i = 0; i < n; i++) {
		struct gt_pyframe pf = { f[3 * i + 1], f[3 * i], f[3 * i + 2], 0 };

		memcpy(p + sizeof(h) + i * sizeof(pf), &pf, sizeof(pf));
	}
	chunk(b, GT_CHUNK_STACK, p, sizeof(h) + n * sizeof(struct gt_pyframe));
}

/* Strings 1..: the names the dumps use. */
static const char *const names[] = {
	NULL, "cuLaunchKernel", "cuStreamSynchronize", "host sample",
	"train.py", "main", "burn_a", "burn_b", "dataloader.py",
	"DataLoader.__next__", "dataset.py", "__getitem__", "decode", "augment",
};

static void prologue(struct buf *b, uint32_t pid, uint32_t ppid)
{
	static const uint32_t next[] = { 9, 8, 630, 5, 4, 50 };
	static const uint32_t burn_a[] = { 6, 4, 11, 5, 4, 51 };
	static const uint32_t burn_b[] = { 7, 4, 21, 5, 4, 52 };
	static const uint32_t decode[] = { 12, 10, 5, 11, 10, 9 };
	static const uint32_t augment[] = { 13, 10, 15, 11, 10, 9 };

	header(b, pid);
	process(b, pid, ppid);
	for (uint32_t i = 1; i < sizeof(names) / sizeof(names[0]); i++)
		string(b, i, names[i]);
	op(b, OP_LAUNCH, GT_KIND_LAUNCH, GT_ARG_LAUNCH_N, 1);
	op(b, OP_SYNC, GT_KIND_SYNC, GT_ARG_SYNC_N, 2);
	op(b, OP_SAMPLE, GT_KIND_HOSTSAMPLE, GT_ARG_HOSTSAMPLE_N, 3);
	stack(b, S_NEXT, 2, next);
	stack(b, S_BURN_A, 2, burn_a);
	stack(b, S_BURN_B, 2, burn_b);
	stack(b, S_DECODE, 2, decode);
	stack(b, S_AUGMENT, 2, augment);
}

/* An events chunk being packed. */
struct evs {
	uint8_t p[1 << 16], *q;
	uint32_t n;
	uint64_t prev;
};

static void ev(struct evs *e, uint64_t op_id, uint64_t t0, uint64_t dur,
	       int nargs, const uint64_t *arg)
{
	if (!e->n)
		e->q = e->p + sizeof(struct gt_events_header);
	e->q = gt_varint_put(e->q, op_id);
	e->q = gt_varint_put(e->q, gt_zigzag((int64_t)(t0 - e->prev)));
	e->q = gt_varint_put(e->q, dur);
	e->q = gt_varint_put(e->q, 0);
	e->q = gt_varint_put(e->q, 0);
	for (int i = 0; i < nargs; i++)
		e->q = gt_varint_put(e->q, arg[i]);
	e->prev = t0;
	e->n++;
}

static void sample(struct evs *e, uint64_t t, uint32_t stack_id, int waiting)
{
	uint64_t a[] = { stack_id, waiting ? GT_HOST_WAITING : GT_HOST_RUNNING,
			 1 };

	ev(e, OP_SAMPLE, t, waiting ? 0 : MS, 3, a);
}

static void flush(struct buf *b, struct evs *e, uint32_t tid)
{
	struct gt_events_header eh = { .tid = tid, .count = e->n, .base_ns = T0,
				       .buffer = tid };

	memcpy(e->p, &eh, sizeof(eh));
	chunk(b, GT_CHUNK_EVENTS, e->p, (size_t)(e->q - e->p));
	e->n = 0;
	e->prev = T0;
}

/* The process's /proc sample at t: its and its children's CPU time. */
static void cpu_sample(struct buf *b, uint64_t t, uint64_t proc, uint64_t child)
{
	struct gt_info_header h = { .time_ns = t, .scope = GT_SCOPE_HOST, .count = 4 };
	const uint16_t keys[] = { GT_SAMPLE_CPU_USER, GT_SAMPLE_CPU_SYS,
				  GT_SAMPLE_CHILD_USER, GT_SAMPLE_CHILD_SYS };
	const int64_t vals[] = { (int64_t)proc, 0, (int64_t)child, 0 };
	uint8_t p[256];
	size_t n = sizeof(h);

	memcpy(p, &h, sizeof(h));
	for (int i = 0; i < 4; i++) {
		struct gt_info_item it = { .key = keys[i], .status = GT_INFO_OK,
					   .value = vals[i] };

		memcpy(p + n, &it, sizeof(it));
		n += sizeof(it);
	}
	chunk(b, GT_CHUNK_SAMPLE, p, n);
}

static void main_iteration(struct buf *b, struct evs *e, int i)
{
	uint64_t t = T0 + (uint64_t)i * 10 * MS;
	const uint64_t launch[] = { 0, 0 }, sync[] = { 0x50, 0 };

	for (int k = 0; k < 3; k++)
		ev(e, OP_LAUNCH, t + k * 10000, 5000, 2, launch);
	ev(e, OP_SYNC, t + 100000, MS, 2, sync);
	for (int k = 0; k < 8 && i < HALF; k++)
		sample(e, t + 2 * MS + MS / 2 + k * MS, k < 3 ? S_BURN_A : S_BURN_B, 0);
	if (i >= HALF)          /* 10 ms after the process's previous one */
		sample(e, t + 9 * MS + MS / 2, S_NEXT, 1);
}

static char *write_tmp(struct buf *b)
{
	struct gt_end end = { T0 + ITERS * 10 * MS + MS, 0, 0 };
	char *path = strdup("/tmp/gt-hostsample-XXXXXX");
	int fd;

	chunk(b, GT_CHUNK_END, &end, sizeof(end));
	assert_non_null(path);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, b->p, b->len), (ssize_t)b->len);
	close(fd);
	return path;
}

static char *main_dump(void)
{
	static struct evs e;
	struct buf b = { 0 };
	uint64_t proc = 0, child = 0;
	char *path;

	prologue(&b, 100, 1);
	e.prev = T0;
	for (int i = 0; i < ITERS; i++) {
		cpu_sample(&b, T0 + (uint64_t)i * 10 * MS + 50000, proc, child);
		proc += i < HALF ? 9 * MS : MS;
		child += i < HALF ? 0 : 20 * MS;
		main_iteration(&b, &e, i);
		flush(&b, &e, 100);
	}
	path = write_tmp(&b);
	free(b.p);
	return path;
}

/* The worker: samples in each iteration's time outside CUDA; a sample
 * naming a stack its dump does not define, once. */
static char *worker_dump(void)
{
	static struct evs e;
	struct buf b = { 0 };
	char *path;

	prologue(&b, 101, 100);
	e.prev = T0;
	for (int i = 0; i < ITERS; i++) {
		uint64_t t = T0 + (uint64_t)i * 10 * MS;

		for (int k = 0; k < 8; k++)
			sample(&e, t + 2 * MS + MS / 2 + k * MS,
			       k < 6 || i < HALF ? S_DECODE : S_AUGMENT, 0);
	}
	sample(&e, T0 + ITERS * 10 * MS, 99, 0);
	flush(&b, &e, 101);
	path = write_tmp(&b);
	free(b.p);
	return path;
}

struct family {
	char *main_path, *worker_path;
	struct model m;
};

static int setup(void **state)
{
	struct family *f = calloc(1, sizeof(*f));
	struct model *w = calloc(1, sizeof(*w));

	f->main_path = main_dump();
	f->worker_path = worker_dump();
	if (loader_model(f->worker_path, w, LOADER_NO_PROGRESS) < 0)
		return -1;
	f->m.workers = calloc(1, sizeof(*f->m.workers));
	f->m.workers[0] = w;
	f->m.nworkers = 1;
	if (loader_model_workers(f->main_path, &f->m, LOADER_NO_PROGRESS, 0) < 0)
		return -1;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct family *f = *state;

	pipeline_release(&f->m);
	unlink(f->main_path);
	unlink(f->worker_path);
	free(f->main_path);
	free(f->worker_path);
	free(f);
	return 0;
}

static const struct idle_fn *fn_in(const struct idle_fn *fn, size_t n,
				   const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(fn[i].name, name))
			return &fn[i];
	return NULL;
}

static const struct idle_fn *fn_named(const struct idle_cause_samples *c,
				      const char *name)
{
	return fn_in(c->fn, c->nfn, name);
}

static const struct idle_cause_samples *cause(const struct idle_samples *is,
					      const char *key)
{
	for (int k = 0; k < IDLE_SAMPLE_CAUSES; k++)
		if (!strcmp(is->c[k].key, key))
			return &is->c[k];
	fail_msg("no cause %s", key);
	return NULL;
}

/* The process's samples are CPU-bound time; its functions' shares are
 * those of the design. */
static void test_cpu_bound(void **state)
{
	struct family *f = *state;
	const struct idle_samples *is = idle_samples_of(&f->m);
	const struct idle_cause_samples *c;
	const struct idle_fn *a, *b, *m;

	assert_non_null(is);
	assert_int_equal(is->samples, HALF * 8 + (ITERS - HALF));
	assert_int_equal(is->incall, is->samples);
	assert_int_equal(is->workers, 1);
	c = cause(is, "cpu_preprocessing");
	assert_true(c->samples >= 8 * 5);        /* steady iterations of the half */
	assert_int_equal(c->samples % 8, 0);
	assert_int_equal(c->worker_samples, 0);
	assert_int_equal(c->fn[0].self_n * 8, c->samples * 5);
	a = fn_named(c, "burn_a (train.py:11)");
	b = fn_named(c, "burn_b (train.py:21)");
	m = fn_named(c, "main (train.py:52)");
	assert_non_null(a);
	assert_non_null(b);
	assert_non_null(m);                     /* line 52 ran in 5 of 8 */
	assert_ptr_equal(b, &c->fn[0]);
	assert_int_equal(a->self_ns * 8, c->ns * 3);
	assert_int_equal(m->self_ns, 0);
	assert_int_equal(m->total_ns, c->ns);
	assert_int_equal(a->total_n, a->self_n);
}

/* Waiting on the worker: its samples, and the process's own waiting
 * sample (10 ms since its previous one), count there; the worker's
 * samples of the CPU-bound half count nowhere. */
static void test_loader_wait(void **state)
{
	struct family *f = *state;
	const struct idle_samples *is = idle_samples_of(&f->m);
	const struct idle_cause_samples *c = cause(is, "dataloader_wait");
	const struct idle_fn *next, *dec, *aug, *get;

	assert_true(c->worker_samples >= 8 * 5);
	assert_int_equal(c->worker_samples % 8, 0);
	assert_int_equal(c->samples - c->worker_samples, c->worker_samples / 8);
	assert_int_equal(c->waiting, c->samples - c->worker_samples);
	next = fn_named(c, "DataLoader.__next__ (dataloader.py:630)");
	dec = fn_named(c, "decode (dataset.py:5)");
	aug = fn_named(c, "augment (dataset.py:15)");
	get = fn_named(c, "__getitem__ (dataset.py:9)");
	assert_non_null(next);
	assert_non_null(dec);
	assert_non_null(aug);
	assert_non_null(get);
	/* per iteration: 10 ms waiting in the process, 6 + 2 ms in the worker */
	assert_int_equal(next->self_ns * 18, c->ns * 10);
	assert_int_equal(dec->self_ns * 18, c->ns * 6);
	assert_int_equal(aug->self_ns * 18, c->ns * 2);
	assert_int_equal(get->total_ns * 18, c->ns * 8);
	assert_int_equal(cause(is, "io_wait")->samples, 0);
	assert_int_equal(cause(is, "outside_cuda")->samples, 0);
	assert_int_equal(is->worker_samples, ITERS * 8 + 1);
}

static const struct idle_fn *prof_fn(const struct idle_profile *p,
				     const char *name)
{
	const struct idle_fn *f = fn_in(p->fn, p->nfn, name);

	if (!f)
		fail_msg("no function %s", name);
	return f;
}

/* Over the steady steps, shares of the thread's own running samples (its
 * waiting ones left out), and of the worker's, whatever the idle cause:
 * burn_a 3 and burn_b 5 of the thread's 8 each iteration; the worker's 8
 * are decode, or 6 decode and 2 augment while the process waits on it. */
static void test_profiles(void **state)
{
	struct family *f = *state;
	const struct idle_samples *is = idle_samples_of(&f->m);
	const struct idle_profile *t, *w;
	const struct idle_fn *dec, *aug;

	assert_int_equal(is->nthreads, 1);
	t = &is->threads[0];
	assert_true(t->samples >= 8 * 5);
	assert_int_equal(t->samples % 8, 0);
	assert_int_equal(prof_fn(t, "burn_a (train.py:11)")->total_ns * 8, t->ns * 3);
	assert_int_equal(prof_fn(t, "burn_b (train.py:21)")->self_ns * 8, t->ns * 5);
	assert_int_equal(prof_fn(t, "main (train.py:52)")->total_ns, t->ns);
	w = &is->wprof;
	assert_int_equal(w->processes, 1);
	assert_int_equal(w->tid, 0);
	assert_true(w->samples > t->samples);   /* both halves */
	assert_int_equal(w->samples % 8, 0);
	dec = prof_fn(w, "decode (dataset.py:5)");
	aug = prof_fn(w, "augment (dataset.py:15)");
	assert_int_equal(dec->self_n + aug->self_n, w->samples);
	assert_true(aug->self_n > 0);
	assert_int_equal(aug->self_n % 2, 0);   /* 2 an iteration, second half */
	assert_true(dec->self_n * 8 >= w->samples * 6);
	assert_int_equal(aug->total_ns * w->samples, w->ns * aug->total_n);
	assert_int_equal(prof_fn(w, "__getitem__ (dataset.py:9)")->total_ns, w->ns);
}

/* What a class rule asks: shares in functions a test picks. */
static void test_share(void **state)
{
	struct family *f = *state;
	struct idle_share s;
	uint64_t t5 = T0 + 5 * 10 * MS;

	assert_int_equal(idle_samples_share(&f->m, "dataloader_wait", IDLE_WORKERS,
					    idle_frame_named, "decode", &s), 0);
	assert_int_equal(s.matched * 4, s.samples * 3);
	assert_true(s.share > 0.749 && s.share < 0.751);
	assert_int_equal(idle_samples_share(&f->m, "dataloader_wait",
					    IDLE_MAIN | IDLE_WORKERS | IDLE_SELF,
					    idle_frame_named, "__getitem__", &s), 0);
	assert_int_equal(s.matched, 0);         /* never the innermost */
	assert_int_equal(idle_samples_share(&f->m, "dataloader_wait",
					    IDLE_MAIN | IDLE_WORKERS,
					    idle_frame_named, "__getitem__", &s), 0);
	assert_true(s.share > 8.0 / 18 - 0.001 && s.share < 8.0 / 18 + 0.001);
	assert_int_equal(idle_samples_share(&f->m, "io_wait", IDLE_MAIN, NULL,
					    NULL, &s), -1);
	assert_int_equal(idle_samples_share(&f->m, "no_such_cause", IDLE_MAIN,
					    NULL, NULL, &s), -1);
	/* one iteration of the CPU-bound half, idle time or not */
	assert_int_equal(idle_samples_share_between(&f->m, t5, t5 + 10 * MS,
						    IDLE_MAIN, idle_frame_named,
						    "burn_a", &s), 0);
	assert_int_equal(s.samples, 8);
	assert_int_equal(s.matched, 3);
	assert_int_equal(idle_samples_share_between(&f->m, t5, t5 + 10 * MS,
						    IDLE_WORKERS, NULL, NULL, &s), 0);
	assert_int_equal(s.samples, 8);
	assert_true(s.share == 1.0);
}

/* A sample naming a stack its dump never defined is named as such. */
static void test_missing_stack(void **state)
{
	struct family *f = *state;
	const struct hostsamples *hs = hostsamples_of(f->m.workers[0]);
	const struct callsite_frame *fr;
	size_t n, py;

	assert_non_null(hs);
	assert_int_equal(hs->total, ITERS * 8 + 1);
	assert_int_equal(hs->v[hs->n - 1].stack, 99);
	assert_null(callsites_frames(f->m.workers[0], 99, 1, &n, &py));
	fr = callsites_frames(f->m.workers[0], S_DECODE, 1, &n, &py);
	assert_non_null(fr);
	assert_int_equal(n, 2);
	assert_int_equal(py, 2);
	assert_string_equal(fr[0].func, "decode");
	assert_string_equal(fr[0].file, "dataset.py");
	assert_int_equal(fr[0].line, 5);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cpu_bound),
		cmocka_unit_test(test_loader_wait),
		cmocka_unit_test(test_share),
		cmocka_unit_test(test_profiles),
		cmocka_unit_test(test_missing_stack),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
