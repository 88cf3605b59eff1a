/* SPDX-License-Identifier: MIT */
/*
 * pyframes.c - Python frames behind a call: finding Python in the process,
 * the C API walk (GIL held), and the names of code objects, written into
 * the dump once per code object (pyframes.h).
 *
 * Code objects are interned by address in a lock-free table.  Direct reads
 * also key on the filename and qualname objects and the first line, so a
 * code object freed and another made at the same address is told apart;
 * the C API walk holds a reference to every code object it names instead.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "preload/base/dl.h"
#include "preload/base/internal.h"
#include "preload/stack/pyframes.h"
#include "preload/stack/pyframes_internal.h"
#include "preload/record/stack_table.h"
#include "preload/record/writer.h"

#define MAX_CODES 65536
#define NAME_BYTES 1024

struct gt_py gt_py;

static const struct gt_py_layout *layout;
static enum { WALK_NONE, WALK_RAW, WALK_API } walk;
static char description[160] = "python: not in this process";
static struct gt_dedup codes;
static uint32_t code_names[MAX_CODES + 1][2];  /* id -> file, func strings */

#define SYM(field, name) \
	(*(void **)&gt_py.field = gt_real_dlsym(RTLD_DEFAULT, name))

/* Py_Version (3.11+), else the "3.10.12 (main..." of Py_GetVersion(). */
static unsigned long py_version(void)
{
	const unsigned long *v = gt_real_dlsym(RTLD_DEFAULT, "Py_Version");
	const char *(*get)(void);
	unsigned major = 0, minor = 0;

	if (v)
		return *v;
	*(void **)&get = gt_real_dlsym(RTLD_DEFAULT, "Py_GetVersion");
	if (get && sscanf(get(), "%u.%u", &major, &minor) == 2)
		return (unsigned long)major << 24 | (unsigned long)minor << 16;
	return 0;
}

static void resolve(void)
{
	SYM(is_initialized, "Py_IsInitialized");
	SYM(this_tstate, "PyGILState_GetThisThreadState");
	SYM(addr2line, "PyCode_Addr2Line");
	gt_py.code_type = (uintptr_t)gt_real_dlsym(RTLD_DEFAULT, "PyCode_Type");
	gt_py.unicode_type = (uintptr_t)gt_real_dlsym(RTLD_DEFAULT, "PyUnicode_Type");
	SYM(gil_check, "PyGILState_Check");
	SYM(get_frame, "PyEval_GetFrame");
	SYM(frame_back, "PyFrame_GetBack");
	SYM(frame_code, "PyFrame_GetCode");
	SYM(frame_line, "PyFrame_GetLineNumber");
	SYM(getattr, "PyObject_GetAttrString");
	SYM(as_utf8, "PyUnicode_AsUTF8AndSize");
	SYM(incref, "Py_IncRef");
	SYM(decref, "Py_DecRef");
	SYM(err_fetch, "PyErr_Fetch");
	SYM(err_restore, "PyErr_Restore");
	gt_py.version = py_version();
}

static int have_raw(void)
{
	return gt_py.this_tstate && gt_py.addr2line && gt_py.code_type &&
	       gt_py.unicode_type;
}

static int have_api(void)
{
	return gt_py.gil_check && gt_py.get_frame && gt_py.frame_back &&
	       gt_py.frame_code && gt_py.frame_line && gt_py.getattr &&
	       gt_py.as_utf8 && gt_py.incref && gt_py.decref &&
	       gt_py.err_fetch && gt_py.err_restore;
}

/* One attribute of a code object as text (GIL held). */
static void api_attr(void *code, const char *name, char *buf)
{
	void *o = gt_py.getattr(code, name);
	const char *s = NULL;
	ssize_t len = 0;

	buf[0] = 0;
	if (o && (s = gt_py.as_utf8(o, &len)) && len > 0) {
		if (len >= NAME_BYTES)
			len = NAME_BYTES - 1;
		memcpy(buf, s, (size_t)len);
		buf[len] = 0;
	}
	if (o)
		gt_py.decref(o);
}

/* The names of code object key[0] (GIL held); it is kept alive. */
static void api_names(void *code, char *file, char *func)
{
	void *type, *value, *tb;

	gt_py.err_fetch(&type, &value, &tb);
	api_attr(code, "co_filename", file);
	api_attr(code, "co_qualname", func);
	if (!*func)
		api_attr(code, "co_name", func);
	gt_py.err_restore(type, value, tb);     /* also drops our errors */
	gt_py.incref(code);
}

static int publish_code(uint32_t id, const uint64_t *key, uint32_t len,
			void *arg)
{
	char file[NAME_BYTES], func[NAME_BYTES];
	uint32_t fs, ns;

	if (walk == WALK_RAW) {
		gt_py_raw_str(layout, (uintptr_t)key[1], file, sizeof(file));
		gt_py_raw_str(layout, (uintptr_t)key[2], func, sizeof(func));
	} else {
		api_names((void *)(uintptr_t)key[0], file, func);
	}
	if (!*file)
		strcpy(file, "?");
	if (!*func)
		strcpy(func, "?");
	fs = gt_writer_string(file, strlen(file));
	ns = fs ? gt_writer_string(func, strlen(func)) : 0;
	if (!ns)                        /* quiet: the side buffer was busy */
		return gt_side_quiet ? GT_DEDUP_AGAIN : -1;
	code_names[id][0] = fs;
	code_names[id][1] = ns;
	return 0;
}

uint64_t gt_py_intern(const uint64_t key[4])
{
	uint32_t id = gt_dedup_get(&codes, key, 4, NULL);

	return id ? (uint64_t)code_names[id][0] << 32 | code_names[id][1] : 0;
}

static int walk_api(uint64_t *w, int max)
{
	void *f, *back, *code;
	int n = 0;

	if (!gt_py.is_initialized() || !gt_py.gil_check() || !(f = gt_py.get_frame()))
		return 0;
	gt_py.incref(f);                        /* borrowed: own it like the rest */
	while (f && n < max) {
		if ((code = gt_py.frame_code(f))) {
			uint64_t key[4] = { (uintptr_t)code, 0, 0, 0 };
			uint64_t names = gt_py_intern(key);
			int line = gt_py.frame_line(f);

			if (names) {
				w[2 * n] = names;
				w[2 * n + 1] = line > 0 ? (uint64_t)line : 0;
				n++;
			}
			gt_py.decref(code);
		}
		back = gt_py.frame_back(f);
		gt_py.decref(f);
		f = back;
	}
	if (f)
		gt_py.decref(f);
	return n;
}

void gt_pyframes_init(enum gt_pyframes_mode mode)
{
	unsigned minor;

	if (mode == GT_PY_OFF) {
		strcpy(description, "python frames: off (GPUTRACE_PYTHON=0)");
		return;
	}
	resolve();
	if (!gt_py.is_initialized)
		return;
	minor = (unsigned)(gt_py.version >> 16) & 0xff;
	if (gt_dedup_init(&codes, MAX_CODES, (uint64_t)MAX_CODES * 4, publish_code)) {
		strcpy(description, "python frames: off (no memory)");
		return;
	}
	layout = mode == GT_PY_AUTO ? gt_py_layout_for(gt_py.version) : NULL;
	if (layout && have_raw()) {
		walk = WALK_RAW;
		snprintf(description, sizeof(description), "python frames: read "
			 "directly (CPython 3.%u)", minor);
	} else if (have_api()) {
		walk = WALK_API;
		snprintf(description, sizeof(description), "python frames: through "
			 "the C API, only where the GIL is held (CPython 3.%u)", minor);
	} else {
		snprintf(description, sizeof(description), "python frames: off "
			 "(CPython 3.%u lacks the functions needed)", minor);
	}
}

const char *gt_pyframes_describe(void)
{
	return description;
}

int gt_pyframes_capture(uint64_t *words, int max)
{
	switch (walk) {
	case WALK_RAW:
		return gt_py_walk_raw(layout, words, max, 0);
	case WALK_API:
		return walk_api(words, max);
	default:
		return 0;
	}
}

int gt_pyframes_capture_raw(uint64_t *words, int max)
{
	return walk == WALK_RAW ? gt_py_walk_raw(layout, words, max, 1) : 0;
}

int gt_pyframes_raw(void)
{
	return walk == WALK_RAW;
}

int gt_pyframes_api(void)
{
	return walk == WALK_API;
}

void gt_pyframes_forget(void)
{
	gt_dedup_clear(&codes);
}
