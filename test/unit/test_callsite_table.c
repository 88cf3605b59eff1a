/* SPDX-License-Identifier: MIT */
/*
 * test_callsite_table.c - the call stack parts of the preload library,
 * linked alone with stand-ins for the writer: the lock-free id table
 * (same array, same id, also from many threads at once; a full table
 * answers 0; a publish put off is done at the next meeting; a part kept
 * for others is not taken), each unwinder (it finds the function that
 * called it, and from a signal handler the interrupted function and its
 * caller), and gt_callsite_capture (a stack is written once, before its
 * id is handed out, after the module map; depth 0 turns it off).  Also
 * prints what an unwind and a capture cost (a measurement, not a check).
 */
#include <dlfcn.h>
#include <pthread.h>
#include <link.h>
#include <setjmp.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <ucontext.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "include/gputrace/format.h"
#include "preload/stack/callsite.h"
#include "preload/base/internal.h"
#include "preload/base/settings.h"
#include "preload/record/stack_table.h"
#include "preload/stack/stack_unwind.h"
#include "preload/stack/pyframes_internal.h"

/* ---- stand-ins for the rest of the library ------------------------------- */

struct gt_config gt_cfg;

static pthread_mutex_t chunks_lock = PTHREAD_MUTEX_INITIALIZER;
static uint32_t chunk_types[4096];
static size_t nchunks;
static uint8_t last_stack[8192];
static size_t last_stack_len;
static uint32_t next_string;
__thread int gt_side_quiet;

int gt_writer_side_chunk(uint32_t type, const void *a, size_t an,
			 const void *b, size_t bn)
{
	pthread_mutex_lock(&chunks_lock);
	if (nchunks < 4096)
		chunk_types[nchunks++] = type;
	if (type == GT_CHUNK_STACK && an <= sizeof(last_stack)) {
		memcpy(last_stack, a, an);
		last_stack_len = an;
	}
	pthread_mutex_unlock(&chunks_lock);
	(void)b;
	(void)bn;
	return 0;
}

uint32_t gt_writer_string(const char *s, size_t len)
{
	(void)s;
	(void)len;
	return __atomic_add_fetch(&next_string, 1, __ATOMIC_RELAXED);
}

void gt_writer_on_cycle(void (*fn)(int final))
{
	(void)fn;
}

void gt_log(const char *fmt, ...)
{
	(void)fmt;
}

void *gt_real_dlsym(void *handle, const char *name)
{
	return dlsym(handle, name);
}

static size_t count_chunks(uint32_t type)
{
	size_t n = 0;

	for (size_t i = 0; i < nchunks; i++)
		n += chunk_types[i] == type;
	return n;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---- the id table ------------------------------------------------------ */

static int published;

static int count_publish(uint32_t id, const uint64_t *w, uint32_t len, void *arg)
{
	(void)id;
	(void)w;
	(void)len;
	(void)arg;
	__atomic_add_fetch(&published, 1, __ATOMIC_RELAXED);
	return 0;
}

static void same_array_same_id(void **state)
{
	struct gt_dedup t;
	uint64_t a[3] = { 1, 2, 3 }, b[3] = { 1, 2, 4 }, c[2] = { 1, 2 };
	uint32_t ia, ib, ic;

	(void)state;
	published = 0;
	assert_int_equal(gt_dedup_init(&t, 1000, 10000, count_publish), 0);
	ia = gt_dedup_get(&t, a, 3, NULL);
	ib = gt_dedup_get(&t, b, 3, NULL);
	ic = gt_dedup_get(&t, c, 2, NULL);
	assert_int_not_equal(ia, 0);
	assert_int_not_equal(ia, ib);
	assert_int_not_equal(ia, ic);
	assert_int_not_equal(ib, ic);
	for (int i = 0; i < 1000; i++)
		assert_int_equal(gt_dedup_get(&t, a, 3, NULL), ia);
	assert_int_equal(gt_dedup_get(&t, c, 2, NULL), ic);
	assert_int_equal(published, 3);
	gt_dedup_clear(&t);
	assert_int_equal(gt_dedup_get(&t, b, 3, NULL), 1);
	assert_int_equal(published, 4);
}

static void full_table_answers_zero(void **state)
{
	struct gt_dedup t;
	uint64_t w[1];

	(void)state;
	assert_int_equal(gt_dedup_init(&t, 4, 100, NULL), 0);
	for (uint64_t i = 0; i < 4; i++) {
		w[0] = i;
		assert_int_equal(gt_dedup_get(&t, w, 1, NULL), i + 1);
	}
	w[0] = 99;
	assert_int_equal(gt_dedup_get(&t, w, 1, NULL), 0);
	assert_true(atomic_load(&t.lost) > 0);
	w[0] = 2;
	assert_int_equal(gt_dedup_get(&t, w, 1, NULL), 3);   /* still found */
}

static int again_left;

/* Puts the first again_left publishes off. */
static int publish_later(uint32_t id, const uint64_t *w, uint32_t len, void *arg)
{
	(void)id;
	(void)w;
	(void)len;
	(void)arg;
	published++;
	return again_left-- > 0 ? GT_DEDUP_AGAIN : 0;
}

static void publish_put_off_then_done(void **state)
{
	struct gt_dedup t;
	uint64_t a[2] = { 7, 8 }, b[1] = { 9 };
	uint32_t id;

	(void)state;
	published = 0;
	again_left = 2;
	assert_int_equal(gt_dedup_init(&t, 100, 1000, publish_later), 0);
	assert_int_equal(gt_dedup_get(&t, a, 2, NULL), 0);     /* put off */
	assert_int_equal(gt_dedup_get(&t, a, 2, NULL), 0);     /* again */
	id = gt_dedup_get(&t, a, 2, NULL);
	assert_int_not_equal(id, 0);
	assert_int_equal(gt_dedup_get(&t, a, 2, NULL), id);
	assert_int_equal(published, 3);
	assert_int_equal(atomic_load(&t.lost), 0);
	/* one id given out: a new array is not added below 1, a known one is
	 * found, and neither counts as lost */
	assert_int_equal(gt_dedup_get_within(&t, b, 1, NULL, 1), 0);
	assert_int_equal(gt_dedup_get_within(&t, a, 2, NULL, 1), id);
	assert_int_equal(atomic_load(&t.lost), 0);
	assert_int_not_equal(gt_dedup_get(&t, b, 1, NULL), 0);
}

#define RACE_THREADS 8
#define RACE_ARRAYS 64

static struct gt_dedup race;
static uint32_t race_ids[RACE_THREADS][RACE_ARRAYS];

static void *race_main(void *arg)
{
	int me = (int)(intptr_t)arg;

	for (int round = 0; round < 2000; round++) {
		int k = (round * 7 + me) % RACE_ARRAYS;
		uint64_t w[4] = { (uint64_t)k, (uint64_t)k * 3, 42, (uint64_t)k };
		uint32_t id = gt_dedup_get(&race, w, 4, NULL);

		if (race_ids[me][k] && race_ids[me][k] != id)
			race_ids[me][k] = UINT32_MAX;   /* changed: wrong */
		else
			race_ids[me][k] = id;
	}
	return NULL;
}

static void many_threads_agree(void **state)
{
	pthread_t t[RACE_THREADS];

	(void)state;
	published = 0;
	assert_int_equal(gt_dedup_init(&race, 1024, 1 << 16, count_publish), 0);
	for (int i = 0; i < RACE_THREADS; i++)
		pthread_create(&t[i], NULL, race_main, (void *)(intptr_t)i);
	for (int i = 0; i < RACE_THREADS; i++)
		pthread_join(t[i], NULL);
	for (int k = 0; k < RACE_ARRAYS; k++) {
		assert_int_not_equal(race_ids[0][k], 0);
		for (int i = 1; i < RACE_THREADS; i++)
			assert_int_equal(race_ids[i][k], race_ids[0][k]);
	}
	assert_int_equal(published, RACE_ARRAYS);
}

/* ---- unwinders --------------------------------------------------------- */

__attribute__((noinline)) int unwind_from_here(uint64_t *pcs, int max)
{
	int n = gt_unwind(pcs, max);

	__asm__ __volatile__("" ::: "memory");
	return n;
}

/* Whether a return address lies in unwind_from_here's caller's caller:
 * the first frame outside the "library" is test code calling it. */
__attribute__((noinline)) static int finds_its_caller(void)
{
	uint64_t pcs[32];
	int n = unwind_from_here(pcs, 32);
	uintptr_t lo = (uintptr_t)&finds_its_caller;

	__asm__ __volatile__("" ::: "memory");
	for (int i = 0; i < n; i++)
		if (pcs[i] > lo && pcs[i] < lo + 512)
			return 1;
	return 0;
}

static void bench_unwind(const char *name)
{
	uint64_t pcs[24], t0;
	int n = 0, rounds = 20000;

	t0 = now_ns();
	for (int i = 0; i < rounds; i++)
		n = unwind_from_here(pcs, 24);
	printf("# bench: %-30s %5.0f ns per unwind (%d frames)\n", name,
	       (double)(now_ns() - t0) / rounds, n);
}

static void each_unwinder_finds_the_caller(void **state)
{
	static const enum gt_unwinder kinds[] = {
		GT_UNWIND_LIBGCC, GT_UNWIND_FP, GT_UNWIND_LIBUNWIND,
	};

	(void)state;
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		enum gt_unwinder got = gt_unwind_init(kinds[i]);

		if (got != kinds[i]) {
			printf("# %s: not available here\n", gt_unwind_name());
			continue;
		}
		assert_true(finds_its_caller());
		bench_unwind(gt_unwind_name());
	}
	assert_int_equal(gt_unwind_parse("fp"), GT_UNWIND_FP);
	assert_int_equal(gt_unwind_parse("bogus"), -1);
}

/* ---- unwinding from a signal handler ------------------------------------- */

static volatile sig_atomic_t sig_done;
static uint64_t sig_pcs[8];
static int sig_n;

static void on_prof(int sig, siginfo_t *si, void *ctx)
{
	const ucontext_t *uc = ctx;
	uint64_t pc = 0, fp = 0;

	(void)sig;
	(void)si;
#if defined(__x86_64__)
	pc = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
	fp = (uint64_t)uc->uc_mcontext.gregs[REG_RBP];
#elif defined(__aarch64__)
	pc = (uint64_t)uc->uc_mcontext.pc;
	fp = (uint64_t)uc->uc_mcontext.regs[29];
#endif
	sig_n = gt_unwind_signal(sig_pcs, 8, pc, fp);
	sig_done = 1;
}

/* Global, so that -rdynamic gives dladdr their extents. */
__attribute__((noinline)) void unit_spin_until_signal(void)
{
	while (!sig_done)
		__asm__ __volatile__("" ::: "memory");
}

__attribute__((noinline)) void unit_calls_spin(void)
{
	unit_spin_until_signal();
	__asm__ __volatile__("" ::: "memory");
}

static int in_fn(uint64_t pc, void *fn)
{
	Dl_info info;
	const ElfW(Sym) *sym = NULL;

	if (!dladdr1(fn, &info, (void **)&sym, RTLD_DL_SYMENT) || !sym)
		return 0;
	return pc >= (uint64_t)(uintptr_t)fn && pc < (uint64_t)(uintptr_t)fn + sym->st_size;
}

static void signal_unwind_finds_the_interrupted(void **state)
{
	static const enum gt_unwinder kinds[] = {
		GT_UNWIND_LIBGCC, GT_UNWIND_FP, GT_UNWIND_LIBUNWIND,
	};
	struct sigaction sa = { .sa_sigaction = on_prof, .sa_flags = SA_SIGINFO };
	struct itimerval once = { { 0, 0 }, { 0, 2000 } };
	uint64_t prime[2];

	(void)state;
	sigaction(SIGPROF, &sa, NULL);
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		if (gt_unwind_init(kinds[i]) != kinds[i])
			continue;
		gt_unwind(prime, 2);        /* this thread's first, off the handler */
		sig_done = 0;
		setitimer(ITIMER_PROF, &once, NULL);
		unit_calls_spin();
		printf("# %s from a handler: %d frames\n", gt_unwind_name(), sig_n);
		assert_true(sig_n >= 2);
		assert_true(in_fn(sig_pcs[0], (void *)unit_spin_until_signal));
		/* frame pointers: a leaf built without a frame of its own
		 * (GCC's default) hides its caller, the walk goes on above */
		if (kinds[i] != GT_UNWIND_FP)
			assert_true(in_fn(sig_pcs[1], (void *)unit_calls_spin));
	}
	signal(SIGPROF, SIG_DFL);
}

/* ---- gt_callsite_capture ------------------------------------------------ */

__attribute__((noinline)) static uint32_t site_a(void)
{
	uint32_t id = gt_callsite_capture();

	__asm__ __volatile__("" ::: "memory");
	return id;
}

__attribute__((noinline)) static uint32_t site_b(void)
{
	uint32_t id = gt_callsite_capture();

	__asm__ __volatile__("" ::: "memory");
	return id;
}

#define ROUNDS 20000

static uint32_t ids[ROUNDS];

static void capture_writes_each_stack_once(void **state)
{
	uint32_t a, b;
	uint64_t t0;
	struct gt_stack h;

	(void)state;
	setenv("GPUTRACE_STACK_DEPTH", "24", 1);
	setenv("GPUTRACE_UNWIND", "libgcc", 1);
	gt_settings_load(0);
	gt_callsite_config();
	t0 = now_ns();
	for (int i = 0; i < ROUNDS; i++)    /* one call instruction: one stack */
		ids[i] = site_a();
	printf("# bench: gt_callsite_capture, libgcc, mostly seen before: "
	       "%.0f ns\n", (double)(now_ns() - t0) / ROUNDS);
	a = ids[0];
	assert_int_not_equal(a, 0);
	for (int i = 1; i < ROUNDS; i++)
		assert_int_equal(ids[i], a);
	assert_int_equal(count_chunks(GT_CHUNK_STACK), 1);
	assert_true(count_chunks(GT_CHUNK_MODULES) >= 1);
	assert_int_equal(count_chunks(GT_CHUNK_NOTE), 1);
	assert_int_equal(chunk_types[0], GT_CHUNK_MODULES);  /* map first */
	memcpy(&h, last_stack, sizeof(h));
	assert_int_equal(h.id, a);
	assert_true(h.native > 2);
	assert_int_equal(h.python, 0);
	assert_int_equal(last_stack_len, sizeof(h) + h.native * 8u);
	b = site_b();
	assert_int_not_equal(b, 0);
	assert_int_not_equal(b, a);
	assert_int_equal(count_chunks(GT_CHUNK_STACK), 2);
}

static void depth_zero_takes_no_stack(void **state)
{
	(void)state;
	setenv("GPUTRACE_STACK_DEPTH", "0", 1);
	gt_settings_load(0);
	gt_callsite_config();
	assert_int_equal(site_a(), 0);
	setenv("GPUTRACE_STACK_DEPTH", "24", 1);
	gt_settings_load(0);
	gt_callsite_config();
	assert_int_not_equal(site_a(), 0);
}

/* ---- a sampled thread's innermost Python frame ---------------------- */

static uintptr_t fake_ts[32], fake_cf[4];
static const uintptr_t fake_code_type = 0x1234;

static int fake_initialized(void)
{
	return 1;
}

static void *fake_this_tstate(void)
{
	return fake_ts;
}

/* A tick in the first instructions of _PyEval_EvalFrameDefault: the
 * thread's current _PyCFrame names a frame that is whatever its stack
 * held, here memory that cannot be read, or readable memory that holds
 * no code object.  The sampler's walk reads nothing there (it would
 * die of SIGSEGV); the call sites' walk is never given such a frame. */
static void interrupted_frame_is_checked(void **state)
{
	const struct gt_py_layout *l = gt_py_layout_for(0x030c03f0);
	long pg = sysconf(_SC_PAGESIZE);
	uint8_t *hole = mmap(NULL, (size_t)pg, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uintptr_t junk[32] = { 0 }, not_code[4] = { 1, 0x999, 0, 0 };
	uint64_t words[16];

	(void)state;
	assert_non_null(l);
	assert_ptr_not_equal(hole, MAP_FAILED);
	gt_py.is_initialized = fake_initialized;
	gt_py.this_tstate = fake_this_tstate;
	gt_py.code_type = fake_code_type;
	fake_ts[l->ts_cframe / 8] = (uintptr_t)fake_cf;
	fake_cf[l->cf_current / 8] = (uintptr_t)hole;
	assert_int_equal(gt_py_walk_raw(l, words, 8, 1), 0);
	junk[l->fr_code / 8] = (uintptr_t)(hole + 64);
	fake_cf[l->cf_current / 8] = (uintptr_t)junk;
	assert_int_equal(gt_py_walk_raw(l, words, 8, 1), 0);
	junk[l->fr_code / 8] = (uintptr_t)not_code;
	assert_int_equal(gt_py_walk_raw(l, words, 8, 1), 0);
	memset(&gt_py, 0, sizeof(gt_py));
	munmap(hole, (size_t)pg);
}

int main(void)
{
	gt_unwind_keep_own_frames();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(same_array_same_id),
		cmocka_unit_test(full_table_answers_zero),
		cmocka_unit_test(publish_put_off_then_done),
		cmocka_unit_test(many_threads_agree),
		cmocka_unit_test(each_unwinder_finds_the_caller),
		cmocka_unit_test(signal_unwind_finds_the_interrupted),
		cmocka_unit_test(capture_writes_each_stack_once),
		cmocka_unit_test(depth_zero_takes_no_stack),
		cmocka_unit_test(interrupted_frame_is_checked),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
