/* SPDX-License-Identifier: MIT */
/*
 * dl.h - the real dlsym and dlvsym behind our interposed ones.
 */
#ifndef GPUTRACE_PRELOAD_DL_H
#define GPUTRACE_PRELOAD_DL_H

#include <stddef.h>
#include <sys/types.h>

/*
 * glibc's dlsym/dlvsym.  Any reference from this library to `dlsym` would
 * bind to our own definition, so they are found by reading the dynamic
 * symbol tables of the loaded objects (elf_lookup.c).  RTLD_NEXT passed to
 * these means "after libgputrace.so", and after any other copy of it.
 */
void *gt_real_dlsym(void *handle, const char *name);
void *gt_real_dlvsym(void *handle, const char *name, const char *version);

/*
 * A symbol of the CUDA driver itself: the next definition after this
 * library in the global scope, else the one in the loaded libcuda.so.1
 * (often dlopened with RTLD_LOCAL, so outside the global scope).
 */
void *gt_driver_symbol(const char *name);

/* The default-version definition of `name` in the first loaded object
 * other than a copy of this library that defines it, or NULL. */
void *gt_elf_find_global(const char *name);

/*
 * Other copies of this library in the process (elf_lookup.c): the path
 * of one loaded before this one, or NULL (then this copy is the one that
 * traces); whether p lies in another copy.
 */
const char *gt_elf_copy_before(void);
int gt_elf_in_copy(const void *p);

/*
 * CUPTI's own lookups of driver functions get the real ones, never our
 * wrappers: a profiler's internals are not the program's calls, and a
 * wrapper that calls into CUPTI from inside CUPTI re-enters it.
 * gt_dl_untouched(1) passes every lookup of this thread through (while
 * libcupti's constructors run); gt_dl_note_object() remembers the loaded
 * object holding `sym` so that calls from its code pass through.
 * gt_dl_leave_alone() is the one test of the lookup paths (dlsym, dlvsym,
 * cuGetProcAddress): this thread is untouched, or pc lies in a noted
 * object, or in a libcupti another library loaded (PyTorch's), which it
 * recognizes, and notes, from the lookup of a driver name ("cu...").
 */
void gt_dl_untouched(int on);

/*
 * No fork while the library walks the loaded objects (dl_guard.c): every
 * dl_iterate_phdr of ours goes through gt_dl_iterate, and code that walks
 * inside (an unwinder) runs between gt_dl_enter and gt_dl_leave.  No lock:
 * two atomic operations, and a wait only while a fork is being prepared.
 */
struct dl_phdr_info;
int gt_dl_iterate(int (*cb)(struct dl_phdr_info *, size_t, void *), void *data);
/* 0, or -1 in a child that must walk and load nothing (then no leave). */
int gt_dl_enter(void);
/* The same without waiting (a signal handler: the fork being prepared
 * may be the interrupted thread's own): -1 also while a fork is. */
int gt_dl_try_enter(void);
void gt_dl_leave(void);
/* In a child, forked or not: 1 if a walk or load of the parent's was
 * inside at the fork (this child must walk and load nothing), else 0. */
int gt_dl_after_fork(void);
/* The fork handlers, around a fork that runs none (_Fork, a fork system
 * call): begin before it; end after it, with what it returned, in both
 * the parent and the child.  Async-signal-safe. */
void gt_dl_fork_begin(void);
void gt_dl_fork_end(pid_t pid);
/* The fork handlers; 0, or -1 if they cannot be registered. */
int gt_dl_guard_init(void);
void gt_dl_note_object(const void *sym);
int gt_dl_leave_alone(const void *pc, const char *name);

#endif /* GPUTRACE_PRELOAD_DL_H */
