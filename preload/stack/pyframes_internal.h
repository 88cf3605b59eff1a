/* SPDX-License-Identifier: MIT */
/*
 * pyframes_internal.h - what pyframes.c (set-up, the C API walk, names)
 * and pyframes_raw.c (direct reads of known CPython layouts) share.
 */
#ifndef GPUTRACE_PRELOAD_PYFRAMES_INTERNAL_H
#define GPUTRACE_PRELOAD_PYFRAMES_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Python's functions, found in the process with dlsym(RTLD_DEFAULT). */
struct gt_py {
	unsigned long version;                  /* Py_Version: 0x030c03f0 */
	int (*is_initialized)(void);
	void *(*this_tstate)(void);             /* PyGILState_GetThisThreadState */
	int (*addr2line)(void *code, int addrq);
	uintptr_t code_type, unicode_type;      /* &PyCode_Type, &PyUnicode_Type */
	int (*gil_check)(void);
	void *(*get_frame)(void);               /* borrowed */
	void *(*frame_back)(void *frame);       /* new reference */
	void *(*frame_code)(void *frame);       /* new reference */
	int (*frame_line)(void *frame);
	void *(*getattr)(void *obj, const char *name);
	const char *(*as_utf8)(void *str, ssize_t *len);
	void (*incref)(void *obj);
	void (*decref)(void *obj);
	void (*err_fetch)(void **type, void **value, void **tb);
	void (*err_restore)(void *type, void *value, void *tb);
};

extern struct gt_py gt_py;

/* Byte offsets of the fields read directly, for one CPython minor version
 * on LP64 (x86_64 and aarch64 alike). */
struct gt_py_layout {
	unsigned minor;
	int ts_cframe;              /* PyThreadState.cframe */
	int cf_current;             /* _PyCFrame.current_frame */
	int fr_code;                /* _PyInterpreterFrame.f_code */
	int fr_previous;
	int fr_instr;               /* prev_instr */
	int fr_owner;
	int owner_cstack;           /* FRAME_OWNED_BY_CSTACK, -1: none */
	int co_filename, co_qualname, co_firstlineno, co_firsttraceable;
	int co_code;                /* co_code_adaptive */
	int str_ascii_data;         /* sizeof(PyASCIIObject) */
	int str_utf8_len, str_utf8; /* PyCompactUnicodeObject */
	int str_compact_data;       /* sizeof(PyCompactUnicodeObject) */
};

/* The layout of CPython 3.minor, or NULL when it is not known here. */
const struct gt_py_layout *gt_py_layout_for(unsigned long version);

/* The frames of the calling thread, read directly (pyframes.h format);
 * interrupted: the thread was stopped anywhere (a signal handler's
 * sample), so its innermost frame is checked before it is read. */
int gt_py_walk_raw(const struct gt_py_layout *l, uint64_t *words, int max,
		   int interrupted);

/* A str object's UTF-8 text read directly into buf (NUL-terminated). */
size_t gt_py_raw_str(const struct gt_py_layout *l, uintptr_t str, char *buf,
		     size_t cap);

/*
 * The names of a code object as one word, file_str << 32 | func_str,
 * written into the dump the first time; 0 when they cannot be.  key: the
 * code object, then (direct reads only) its filename and qualname objects
 * and first line, which tell a new code object at a recycled address.
 */
uint64_t gt_py_intern(const uint64_t key[4]);

#endif /* GPUTRACE_PRELOAD_PYFRAMES_INTERNAL_H */
