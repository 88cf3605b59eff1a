/* SPDX-License-Identifier: MIT */
/*
 * callsite.c - call stacks at waits, pageable copies, NCCL calls and pinned
 * allocations: native frames (stack_unwind.c) and Python frames
 * (pyframes.c), deduplicated into the dump's stack table (stack_table.c),
 * with the module map that symbolizes them (modules.c).
 *
 * Set-up happens at the first capture of the process (unwinder, Python),
 * and the first of each dump writes the module map and a note saying how
 * stacks are taken.  A new stack is written (GT_CHUNK_STACK, through the
 * writer's side buffer) before its id is handed out, so before the event
 * that names it.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "include/gputrace/format.h"
#include "preload/stack/callsite.h"
#include "preload/base/internal.h"
#include "preload/record/modules.h"
#include "preload/stack/pyframes.h"
#include "preload/base/settings.h"
#include "preload/record/stack_table.h"
#include "preload/stack/stack_unwind.h"
#include "preload/record/writer.h"

#define MAX_STACKS 65536
/* Host samples meet far more distinct stacks than call sites (each
 * interrupted instruction is another): they add whole stacks while the
 * table is less than half full, then their Python frames alone (or their
 * innermost native frame) up to three quarters; the rest is kept for the
 * call sites. */
#define SAMPLE_WHOLE_BELOW (MAX_STACKS / 2)
#define SAMPLE_TRIMMED_BELOW (MAX_STACKS / 4 * 3)
#define ARENA_WORDS ((uint64_t)MAX_STACKS * 64)     /* 32 MiB of address space */
#define WORDS_MAX (1 + GT_STACK_DEPTH_MAX * 3)

static struct {
	int depth;
	enum gt_unwinder unwinder;
	enum gt_pyframes_mode python;
	pthread_once_t once;
	atomic_int ready;           /* set up, stacks on */
	atomic_int dump_started;    /* this dump has the map and the note */
	pthread_mutex_t dump_lock;
	struct gt_dedup stacks;
} cs = { .depth = 24, .python = GT_PY_AUTO, .once = PTHREAD_ONCE_INIT,
	 .dump_lock = PTHREAD_MUTEX_INITIALIZER };

void gt_callsite_config(void)
{
	static const enum gt_pyframes_mode python[] = { GT_PY_OFF, GT_PY_AUTO,
							 GT_PY_API };
	const char *u = gt_setting_text(GT_S_UNWIND);

	cs.depth = (int)gt_setting(GT_S_STACK_DEPTH);
	if (u && gt_unwind_parse(u) < 0)
		gt_log("gputrace: ignoring GPUTRACE_UNWIND='%s' (want auto, "
		       "libunwind, libgcc or fp), using auto\n", u);
	else if (u)
		cs.unwinder = (enum gt_unwinder)gt_unwind_parse(u);
	cs.python = python[gt_setting(GT_S_PYTHON)];
}

/* Write a new stack: the objects it needs first, then the stack. */
static int publish_stack(uint32_t id, const uint64_t *w, uint32_t len,
			 void *arg)
{
	uint8_t buf[sizeof(struct gt_stack) + GT_STACK_DEPTH_MAX *
		    (sizeof(uint64_t) + sizeof(struct gt_pyframe))];
	struct gt_stack h = { .id = id, .native = (uint16_t)(w[0] & 0xffff),
			      .python = (uint16_t)(w[0] >> 16) };
	const uint64_t *py = w + 1 + h.native;
	size_t at = sizeof(h) + h.native * sizeof(uint64_t);

	gt_modules_cover(w + 1, h.native);
	memcpy(buf, &h, sizeof(h));
	memcpy(buf + sizeof(h), w + 1, h.native * sizeof(uint64_t));
	for (int i = 0; i < h.python; i++, at += sizeof(struct gt_pyframe)) {
		struct gt_pyframe f = { .file_str = (uint32_t)(py[2 * i] >> 32),
					.func_str = (uint32_t)py[2 * i],
					.line = (uint32_t)py[2 * i + 1] };

		memcpy(buf + at, &f, sizeof(f));
	}
	if (gt_writer_side_chunk(GT_CHUNK_STACK, buf, at, NULL, 0))
		return gt_side_quiet ? GT_DEDUP_AGAIN : -1;
	return 0;
}

static void after_fork_child(void)
{
	gt_dedup_clear(&cs.stacks);
	gt_pyframes_forget();
	gt_modules_forget();
	pthread_mutex_init(&cs.dump_lock, NULL);
	atomic_store(&cs.dump_started, 0);
}

/* Once per process: memory, the unwinder, Python. */
static void setup(void)
{
	if (gt_dedup_init(&cs.stacks, MAX_STACKS, ARENA_WORDS, publish_stack)) {
		gt_log("gputrace: no memory for call stacks; none are recorded\n");
		return;
	}
	gt_unwind_init(cs.unwinder);
	gt_pyframes_init(cs.python);
	atomic_store(&cs.ready, 1);
}

/* At start, before any thread can take dump_lock: registered lazily, the
 * handler missed a fork that came while the first stack was taken, and
 * the child found the lock held for good. */
int gt_callsite_fork_init(void)
{
	return pthread_atfork(NULL, NULL, after_fork_child) ? -1 : 0;
}

/* Once per dump: the module map, and a note on how stacks are taken. */
static void dump_start(void)
{
	char note[512];
	uint32_t level = 0;
	int n;

	gt_modules_start();
	n = snprintf(note, sizeof(note), "call stacks: %s unwinder, depth %d; %s",
		     gt_unwind_name(), cs.depth, gt_pyframes_describe());
	if (n < 0)
		return;
	gt_writer_side_chunk(GT_CHUNK_NOTE, &level, sizeof(level), note,
			     (size_t)n < sizeof(note) ? (size_t)n : sizeof(note) - 1);
	gt_debug("gputrace: %s\n", note);
}

int gt_callsite_depth(void)
{
	return cs.depth;
}

static int start(void)
{
	pthread_once(&cs.once, setup);
	if (!atomic_load(&cs.ready))
		return 0;
	pthread_mutex_lock(&cs.dump_lock);
	if (!atomic_load(&cs.dump_started)) {
		dump_start();
		atomic_store_explicit(&cs.dump_started, 1, memory_order_release);
	}
	pthread_mutex_unlock(&cs.dump_lock);
	return 1;
}

int gt_callsite_prepare(void)
{
	return start();
}

/* The id of words (w[0] set here), added only below `below` ids. */
static uint32_t intern_within(uint64_t *w, int nn, int np, uint32_t below)
{
	w[0] = (uint64_t)nn | (uint64_t)np << 16;
	return gt_dedup_get_within(&cs.stacks, w, (uint32_t)(1 + nn + 2 * np),
				   NULL, below);
}

uint32_t gt_callsite_intern_quiet(uint64_t *w, int nn, int np, int *trimmed)
{
	int was = gt_side_quiet;
	uint32_t id;

	*trimmed = 0;
	if (!atomic_load_explicit(&cs.dump_started, memory_order_acquire) ||
	    (!nn && !np))
		return 0;
	gt_side_quiet = 1;
	id = intern_within(w, nn, np, SAMPLE_WHOLE_BELOW);
	if (!id && atomic_load_explicit(&cs.stacks.next_id, memory_order_relaxed) >=
	    SAMPLE_WHOLE_BELOW && (np || nn > 1)) {
		if (np)                     /* the Python frames alone */
			memmove(w + 1, w + 1 + nn, 2 * (size_t)np * sizeof(*w));
		*trimmed = 1;
		id = intern_within(w, np ? 0 : 1, np, SAMPLE_TRIMMED_BELOW);
	}
	gt_side_quiet = was;
	return id;
}

uint32_t gt_callsite_capture(void)
{
	uint64_t w[WORDS_MAX];
	uint32_t id;
	int nn, np;

	if (unlikely(!cs.depth))
		return 0;
	if (unlikely(!atomic_load_explicit(&cs.dump_started, memory_order_acquire)) &&
	    !start())
		return 0;
	nn = gt_unwind(w + 1, cs.depth);
	np = gt_pyframes_capture(w + 1 + nn, cs.depth);
	if (!nn && !np)
		return 0;
	w[0] = (uint64_t)nn | (uint64_t)np << 16;
	id = gt_dedup_get(&cs.stacks, w, (uint32_t)(1 + nn + 2 * np), NULL);
	if (unlikely(!id) && atomic_load_explicit(&cs.stacks.lost, memory_order_relaxed))
		gt_warn_once("gputrace: more than %d distinct call stacks; later "
			     "ones are not recorded\n", MAX_STACKS);
	return id;
}
