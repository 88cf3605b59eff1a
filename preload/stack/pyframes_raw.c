/* SPDX-License-Identifier: MIT */
/*
 * pyframes_raw.c - read the calling thread's Python frames straight from
 * CPython's structures, without the GIL (pyframes.h says why that is
 * safe: only this thread changes its frames, and it is inside our call).
 *
 * The offsets are those of CPython's own headers (cpython/pystate.h,
 * internal/pycore_frame.h, cpython/code.h, cpython/unicodeobject.h),
 * measured with offsetof() on 3.11 (Debian 12) and 3.12 (Ubuntu 24.04).
 * Every code object is checked to be one (its type is &PyCode_Type)
 * before anything else in it is read; an unknown version reads nothing.
 */
#include <stdatomic.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "preload/stack/pyframes_internal.h"

#define OB_TYPE 8                   /* PyObject: ob_refcnt, ob_type */
#define STR_LENGTH 16               /* PyASCIIObject.length */
#define STR_STATE 32                /* PyASCIIObject.state bit-field */
#define OWNED_BY_GENERATOR 1
#define MAX_WALK 1024               /* frames looked at, kept or not */

static const struct gt_py_layout layouts[] = {
	{ .minor = 11, .ts_cframe = 56, .cf_current = 8, .fr_code = 32,
	  .fr_previous = 48, .fr_instr = 56, .fr_owner = 69, .owner_cstack = -1,
	  .co_filename = 112, .co_qualname = 128, .co_firstlineno = 72,
	  .co_firsttraceable = 168, .co_code = 184, .str_ascii_data = 48,
	  .str_utf8_len = 48, .str_utf8 = 56, .str_compact_data = 72 },
	{ .minor = 12, .ts_cframe = 56, .cf_current = 0, .fr_code = 0,
	  .fr_previous = 8, .fr_instr = 56, .fr_owner = 70, .owner_cstack = 3,
	  .co_filename = 112, .co_qualname = 128, .co_firstlineno = 68,
	  .co_firsttraceable = 176, .co_code = 192, .str_ascii_data = 40,
	  .str_utf8_len = 40, .str_utf8 = 48, .str_compact_data = 56 },
};

const struct gt_py_layout *gt_py_layout_for(unsigned long version)
{
	unsigned major = (unsigned)(version >> 24) & 0xff;
	unsigned minor = (unsigned)(version >> 16) & 0xff;

	if (major != 3 || sizeof(void *) != 8)
		return NULL;
	for (size_t i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++)
		if (layouts[i].minor == minor)
			return &layouts[i];
	return NULL;
}

static inline uintptr_t rd(uintptr_t addr)
{
	return *(const uintptr_t *)addr;
}

static inline int rd32(uintptr_t addr)
{
	return *(const int *)addr;
}

/* Latin-1 text as UTF-8. */
static size_t latin1(const uint8_t *s, size_t n, char *buf, size_t cap)
{
	size_t o = 0;

	for (size_t i = 0; i < n && o + 2 < cap; i++) {
		if (s[i] < 0x80) {
			buf[o++] = (char)s[i];
		} else {
			buf[o++] = (char)(0xc0 | s[i] >> 6);
			buf[o++] = (char)(0x80 | (s[i] & 0x3f));
		}
	}
	buf[o] = 0;
	return o;
}

size_t gt_py_raw_str(const struct gt_py_layout *l, uintptr_t s, char *buf,
		     size_t cap)
{
	uint32_t state;
	size_t len;
	const char *utf8;

	buf[0] = 0;
	if (!s || rd(s + OB_TYPE) != gt_py.unicode_type)
		return 0;
	len = (size_t)rd(s + STR_LENGTH);
	state = (uint32_t)rd32(s + STR_STATE);
	if (!(state & 0x20))                /* not compact: leave it */
		return 0;
	if (state & 0x40) {                 /* compact ASCII: bytes follow */
		utf8 = (const char *)(s + (uintptr_t)l->str_ascii_data);
	} else if ((utf8 = (const char *)rd(s + (uintptr_t)l->str_utf8))) {
		len = (size_t)rd(s + (uintptr_t)l->str_utf8_len);
	} else if (((state >> 2) & 7) == 1) {   /* one byte per character */
		return latin1((const uint8_t *)(s + (uintptr_t)l->str_compact_data),
			      len, buf, cap);
	} else {
		return 0;
	}
	if (len >= cap)
		len = cap - 1;
	memcpy(buf, utf8, len);
	buf[len] = 0;
	return len;
}

/* The innermost frame of this thread, or 0. */
static uintptr_t first_frame(const struct gt_py_layout *l)
{
	uintptr_t ts, cf;

	if (!gt_py.is_initialized() || !(ts = (uintptr_t)gt_py.this_tstate()))
		return 0;
	cf = rd(ts + (uintptr_t)l->ts_cframe);
	return cf ? rd(cf + (uintptr_t)l->cf_current) : 0;
}

/*
 * Lines by (code, instruction offset), found once: CPython's
 * PyCode_Addr2Line scans the code's location table from its start, a
 * cost that grows with the function (several us for a long one, at every
 * frame of every sample).  One atomic word an entry, direct-mapped: the
 * key's other 40 bits check it, the line is the low 24 (larger lines are
 * not kept).  Threads race only to write the same answer.
 */
#define LINE_SLOTS 8192u
#define LINE_BITS 24
static _Atomic uint64_t line_cache[LINE_SLOTS];

static uint64_t line_key(const uint64_t key[4], uintptr_t off)
{
	uint64_t h = 0;

	for (int i = 0; i < 4; i++)
		h = (h ^ key[i]) * 0x9e3779b97f4a7c15ull;
	h = (h ^ (uint64_t)off) * 0xbf58476d1ce4e5b9ull;
	return h ^ (h >> 31);
}

/* The line at off in the code key[0] (its file, name and first line in
 * key[1..3]: a code object made anew at a freed one's address is
 * another key unless it is the same function). */
static int line_of(const uint64_t key[4], uintptr_t off)
{
	uint64_t h = line_key(key, off), check = h >> LINE_BITS;
	_Atomic uint64_t *slot = &line_cache[h % LINE_SLOTS];
	uint64_t e = atomic_load_explicit(slot, memory_order_relaxed);
	int line;

	if (e && e >> LINE_BITS == check)
		return (int)(e & ((1u << LINE_BITS) - 1));
	line = gt_py.addr2line((void *)(uintptr_t)key[0], (int)off);
	if (line > 0 && line < (1 << LINE_BITS))
		atomic_store_explicit(slot, check << LINE_BITS | (uint64_t)line,
				      memory_order_relaxed);
	return line;
}

/* One frame as two words, or 0 when it is not a frame to show. */
static int one_frame(const struct gt_py_layout *l, uintptr_t fr, uint64_t *w)
{
	int owner = *(const signed char *)(fr + (uintptr_t)l->fr_owner);
	uintptr_t code = rd(fr + (uintptr_t)l->fr_code);
	uintptr_t instr = rd(fr + (uintptr_t)l->fr_instr);
	uintptr_t start;
	uint64_t key[4], names;
	int line;

	if (owner == l->owner_cstack || !code || rd(code + OB_TYPE) != gt_py.code_type)
		return 0;
	start = code + (uintptr_t)l->co_code;
	if (owner != OWNED_BY_GENERATOR &&      /* not started yet */
	    instr < start + 2 * (uintptr_t)rd32(code + (uintptr_t)l->co_firsttraceable))
		return 0;
	key[0] = code;
	key[1] = rd(code + (uintptr_t)l->co_filename);
	key[2] = rd(code + (uintptr_t)l->co_qualname);
	key[3] = (uint64_t)rd32(code + (uintptr_t)l->co_firstlineno);
	if (!(names = gt_py_intern(key)))
		return 0;
	line = instr >= start ? line_of(key, instr - start) : (int)key[3];
	w[0] = names;
	w[1] = line > 0 ? (uint64_t)line : 0;
	return 1;
}

/* This process's id for process_vm_readv, set by the sampler at its
 * start and in a fork child; 0: ask (a system call). */
static pid_t self_pid;

void gt_pyframes_raw_pid(pid_t pid)
{
	self_pid = pid;
}

/*
 * Whether n bytes at addr (n <= 128) can be read, copied into buf through
 * the kernel, which answers EFAULT for memory that is not there rather
 * than faulting.  One system call: for the sampler's tick only.
 */
static int readable(uintptr_t addr, size_t n, void *buf)
{
	struct iovec mine = { buf, n }, at = { (void *)addr, n };

	return addr && !(addr & 7) &&
	       process_vm_readv(self_pid ? self_pid : getpid(), &mine, 1, &at, 1, 0) ==
	       (ssize_t)n;
}

/*
 * Whether the innermost frame fr can be walked from an interrupted
 * thread.  A tick may land where CPython has made a new _PyCFrame current
 * but not yet set its current_frame (the first instructions of
 * _PyEval_EvalFrameDefault, 3.11 and 3.12): the pointer read is whatever
 * the stack held.  So the frame, and the code object it names, are read
 * through the kernel first; the frames before it were linked whole.
 */
static int frame_sound(const struct gt_py_layout *l, uintptr_t fr)
{
	uint8_t f[128];
	uintptr_t code, head[2];

	if ((size_t)l->fr_owner >= sizeof(f) || !readable(fr, (size_t)l->fr_owner + 1, f))
		return 0;
	memcpy(&code, f + l->fr_code, sizeof(code));
	return readable(code, sizeof(head), head) && head[1] == gt_py.code_type;
}

int gt_py_walk_raw(const struct gt_py_layout *l, uint64_t *words, int max,
		   int interrupted)
{
	uintptr_t fr = first_frame(l);
	int n = 0;

	if (interrupted && fr && !frame_sound(l, fr))
		return 0;
	for (int steps = 0; fr && n < max && steps < MAX_WALK; steps++) {
		n += one_frame(l, fr, words + 2 * n);
		fr = rd(fr + (uintptr_t)l->fr_previous);
	}
	return n;
}
