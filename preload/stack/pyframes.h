/* SPDX-License-Identifier: MIT */
/*
 * pyframes.h - the Python frames (file, function, line) of the calling
 * thread, for call stacks in Python programs.  libpython is never linked:
 * its functions are looked up in the process at set-up.
 *
 * Most CUDA waits in Python programs happen with the GIL released (PyTorch
 * releases it around .item(), copies and synchronize; ctypes around every
 * foreign call), so on the CPython versions whose frame layout is known
 * here (3.11, 3.12) the thread's own frames are read directly, without
 * the GIL, touching nothing but memory: a thread blocked in a C call
 * cannot change its own frames, and nothing is allocated or counted.  On
 * other versions frames are walked through the C API, only while the
 * thread holds the GIL.
 */
#ifndef GPUTRACE_PRELOAD_PYFRAMES_H
#define GPUTRACE_PRELOAD_PYFRAMES_H

#include <stdint.h>
#include <sys/types.h>

enum gt_pyframes_mode {
	GT_PY_OFF = 0,              /* GPUTRACE_PYTHON=0 */
	GT_PY_AUTO = 1,             /* direct reads where the layout is known */
	GT_PY_API = 2,              /* the C API only, GIL held */
};

/* Find Python in the process and pick how to read its frames.  Once. */
void gt_pyframes_init(enum gt_pyframes_mode mode);

/* What was chosen, for the dump's note: "read directly (CPython 3.12)". */
const char *gt_pyframes_describe(void);

/*
 * Up to max Python frames of the calling thread, innermost first, two
 * words each: file_str << 32 | func_str (GT_CHUNK_STRING ids), and the
 * line.  Returns how many frames; 0 when the thread runs no Python.
 */
int gt_pyframes_capture(uint64_t *words, int max);

/*
 * The same from a signal handler: only where frames are read directly
 * (no lock, no allocation, no Python call that could run Python); else 0.
 */
int gt_pyframes_capture_raw(uint64_t *words, int max);
/* The process id its reads name (the sampler's, known; 0: asked each
 * time): set at the sampler's start and in a fork child. */
void gt_pyframes_raw_pid(pid_t pid);
/* 1 when gt_pyframes_capture_raw can find frames in this process. */
int gt_pyframes_raw(void);
/* 1 when Python frames are read through the C API only. */
int gt_pyframes_api(void);

/* Fork child: the strings went into the parent's dump. */
void gt_pyframes_forget(void);

#endif /* GPUTRACE_PRELOAD_PYFRAMES_H */
