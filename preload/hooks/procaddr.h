/* SPDX-License-Identifier: MIT */
/*
 * procaddr.h - the cuGetProcAddress wrappers, and the library's own way to
 * reach driver functions it calls but does not trace.
 */
#ifndef GPUTRACE_PRELOAD_PROCADDR_H
#define GPUTRACE_PRELOAD_PROCADDR_H

/*
 * `real` is what the real cuGetProcAddress returned when asked for
 * "cuGetProcAddress" (the 5-argument _v2 when version >= 12000, else the
 * 4-argument one): returns our wrapper for it.
 */
void *gt_procaddr_swap_self(int version, void *real);

/*
 * `p` is what dlsym found for name ("cuGetProcAddress" or "..._v2"): our
 * wrapper when p is the driver's own export, else p untouched.
 */
void *gt_procaddr_dlsym(const char *name, void *p);

/*
 * Keep the object that defines p (the driver) loaded for good, the first
 * time the library meets it: a reference of its own, made undeletable
 * (dlopen RTLD_NOLOAD | RTLD_NODELETE), so that every pointer into it the
 * library keeps stays valid after the program's dlclose.  Returns p.
 */
void *gt_driver_hold(void *p);

/* A driver entry point for the library's own use (not traced), or NULL. */
void *gt_driver_proc(const char *name, int version);

#endif /* GPUTRACE_PRELOAD_PROCADDR_H */
