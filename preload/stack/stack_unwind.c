/* SPDX-License-Identifier: MIT */
/*
 * stack_unwind.c - native call stacks: libunwind when the process can load
 * libunwind.so.8, else libgcc's unwinder through glibc's backtrace(), or
 * frame pointers when asked (stack_unwind.h).
 *
 * Debian's libunwind.a is not position-independent, so it cannot be linked
 * into this library, and the GPU machines lack libunwind altogether: it is
 * only ever dlopened.  backtrace() loads libgcc_s and allocates at its
 * first call, so it is called once at set-up; after that, with glibc 2.35
 * or newer, finding a frame's unwind table takes no lock (_dl_find_object).
 */
#include <dlfcn.h>
#include <execinfo.h>
#include <link.h>
#include <pthread.h>
#include <string.h>

#include "preload/base/dl.h"
#include "preload/base/internal.h"
#include "preload/stack/stack_unwind.h"

#define OWN_FRAMES_MAX 8            /* this library's frames, dropped */
#define RAW_MAX (256 + OWN_FRAMES_MAX)
#define SIGNAL_FRAMES_MAX 24        /* a handler's frames and the kernel's */
#define SIGNAL_MAX 32               /* frames a signal handler keeps */

typedef int (*unw_backtrace_fn)(void **buf, int size);

static enum gt_unwinder chosen = GT_UNWIND_LIBGCC;
static unw_backtrace_fn unw_backtrace_p;
static int forked;                  /* libunwind's locks may be held */
static uintptr_t self_lo, self_hi;

/* The calling thread's stack, for the frame-pointer walk; 1 = unknown. */
static __thread uintptr_t stack_lo __attribute__((tls_model("initial-exec")));
static __thread uintptr_t stack_hi __attribute__((tls_model("initial-exec")));

int gt_unwind_parse(const char *s)
{
	static const char *const names[] = { "auto", "libunwind", "libgcc", "fp" };

	for (int i = 0; i < 4; i++)
		if (!strcmp(s, names[i]))
			return i;
	return -1;
}

enum gt_unwinder gt_unwind_chosen(void)
{
	return chosen;
}

const char *gt_unwind_name(void)
{
	switch (chosen) {
	case GT_UNWIND_LIBUNWIND: return "libunwind (libunwind.so.8)";
	case GT_UNWIND_FP: return "frame pointers";
	default: return "libgcc (glibc backtrace)";
	}
}

/* [self_lo, self_hi): where this library's code is mapped. */
static int find_self(struct dl_phdr_info *info, size_t size, void *arg)
{
	uintptr_t here = (uintptr_t)(void *)&find_self, lo = UINTPTR_MAX, hi = 0;

	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t a = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type != PT_LOAD)
			continue;
		if (a < lo)
			lo = a;
		if (a + ph->p_memsz > hi)
			hi = a + ph->p_memsz;
	}
	if (here < lo || here >= hi)
		return 0;
	self_lo = lo;
	self_hi = hi;
	return 1;
}

static int load_libunwind(void)
{
	void *h;

	if (gt_dl_enter())                  /* no fork while it loads */
		return -1;
	h = dlopen("libunwind.so.8", RTLD_NOW | RTLD_LOCAL);
	gt_dl_leave();

	if (!h)
		return -1;
	unw_backtrace_p = (unw_backtrace_fn)gt_real_dlsym(h, "unw_backtrace");
	if (!unw_backtrace_p) {
		dlclose(h);
		return -1;
	}
	return 0;
}

enum gt_unwinder gt_unwind_init(enum gt_unwinder want)
{
	uint64_t prime[8];

	if (!self_hi)
		gt_dl_iterate(find_self, NULL);
	if (want == GT_UNWIND_FP) {
		chosen = GT_UNWIND_FP;
	} else if ((want == GT_UNWIND_AUTO || want == GT_UNWIND_LIBUNWIND) &&
		   !forked && load_libunwind() == 0) {
		chosen = GT_UNWIND_LIBUNWIND;
	} else {
		if (want == GT_UNWIND_LIBUNWIND)
			gt_log("gputrace: GPUTRACE_UNWIND=libunwind: cannot load "
			       "'libunwind.so.8'; using libgcc\n");
		chosen = GT_UNWIND_LIBGCC;
	}
	gt_unwind(prime, 8);                /* first calls allocate */
	return chosen;
}

/*
 * A forked child: a parent's thread inside libunwind at the fork left its
 * mutex locked for good, so libgcc's unwinder (no lock with glibc 2.35 or
 * newer) takes over.
 */
void gt_unwind_after_fork(void)
{
	forked = 1;
	if (chosen == GT_UNWIND_LIBUNWIND)
		chosen = GT_UNWIND_LIBGCC;
}

void gt_unwind_keep_own_frames(void)
{
	self_lo = self_hi = 1;
}

/* This thread's stack bounds, found once per thread. */
static int stack_bounds(void)
{
	pthread_attr_t attr;
	void *addr;
	size_t size;

	if (likely(stack_hi))
		return stack_hi > 1;
	stack_hi = 1;
	if (pthread_getattr_np(pthread_self(), &attr))
		return 0;
	if (!pthread_attr_getstack(&attr, &addr, &size)) {
		stack_lo = (uintptr_t)addr;
		stack_hi = (uintptr_t)addr + size;
	}
	pthread_attr_destroy(&attr);
	return stack_hi > 1;
}

/* Follow saved frame pointers from fp while they stay in the stack and
 * go up (the thread's stack bounds known). */
static int fp_walk_from(uintptr_t fp, void **pcs, int max)
{
	int n = 0;

	while (n < max && fp >= stack_lo && fp + 2 * sizeof(void *) <= stack_hi &&
	       !(fp & (sizeof(void *) - 1))) {
		uintptr_t next = ((uintptr_t *)fp)[0];
		uintptr_t ret = ((uintptr_t *)fp)[1];

		if (!ret)
			break;
		pcs[n++] = (void *)ret;
		if (next <= fp)
			break;
		fp = next;
	}
	return n;
}

static int fp_walk(void **pcs, int max)
{
	if (!stack_bounds())
		return 0;
	return fp_walk_from((uintptr_t)__builtin_frame_address(0), pcs, max);
}

/* The chosen unwinder from here, without waiting; how many frames. */
static int raw_unwind_now(void **raw, int want)
{
	int n = 0;

	if (gt_dl_try_enter())
		return 0;
	if (chosen == GT_UNWIND_LIBUNWIND)
		n = unw_backtrace_p(raw, want);
	else
		n = backtrace(raw, want);
	gt_dl_leave();
	return n;
}

int gt_unwind_signal(uint64_t *pcs, int max, uint64_t pc, uint64_t fp)
{
	void *raw[SIGNAL_MAX + SIGNAL_FRAMES_MAX];
	int n = 0, i = 0, out = 0;

	if (max <= 0)
		return 0;
	if (max > SIGNAL_MAX)
		max = SIGNAL_MAX;
	if (max == 1) {                     /* the interrupted instruction alone */
		pcs[0] = pc;
		return 1;
	}
	if (chosen == GT_UNWIND_FP) {
		if (stack_hi > 1)           /* known: not looked up in a handler */
			n = fp_walk_from((uintptr_t)fp, raw, max - 1);
		pcs[out++] = pc;
		for (; i < n; i++)
			pcs[out++] = (uint64_t)(uintptr_t)raw[i];
		return out;
	}
	n = raw_unwind_now(raw, max + SIGNAL_FRAMES_MAX);
	while (i < n && (uint64_t)(uintptr_t)raw[i] != pc)
		i++;
	if (i == n)                         /* not crossed: the pc alone */
		n = i = 0;
	pcs[out++] = pc;
	for (i++; i < n && out < max; i++)
		pcs[out++] = (uint64_t)(uintptr_t)raw[i];
	return out;
}

int gt_unwind(uint64_t *pcs, int max)
{
	void *raw[RAW_MAX];
	int want = max + OWN_FRAMES_MAX, n, i = 0, out = 0;

	if (want > RAW_MAX)
		want = RAW_MAX;
	switch (chosen) {
	case GT_UNWIND_LIBUNWIND:       /* walks the objects: no fork meanwhile */
		n = 0;
		if (!gt_dl_enter()) {
			n = unw_backtrace_p(raw, want);
			gt_dl_leave();
		}
		break;
	case GT_UNWIND_FP:
		n = fp_walk(raw, want);
		break;
	default:
		n = 0;
		if (!gt_dl_enter()) {
			n = backtrace(raw, want);
			gt_dl_leave();
		}
		break;
	}
	while (i < n && (uintptr_t)raw[i] >= self_lo && (uintptr_t)raw[i] < self_hi)
		i++;
	for (; i < n && out < max; i++)
		pcs[out++] = (uint64_t)(uintptr_t)raw[i];
	return out;
}
