/* SPDX-License-Identifier: MIT */
/*
 * procaddr.h - the cuGetProcAddress wrappers, and the library's own way to
 * reach driver functions it calls but does not trace.
 */
#ifndef GPUTRACE_PRELOAD_PROCADDR_H
#define GPUTRACE_PRELOAD_PROCADDR_H

/*
 * `real` is cuGetProcAddress as dlsym or the driver returned it (the
 * 5-argument _v2 when version >= 12000, else the 4-argument one): our
 * wrapper in its place when we recognise it, else real untouched.
 */
void *gt_procaddr_swap_self(int version, void *real);

/* A driver entry point for the library's own use (not traced), or NULL. */
void *gt_driver_proc(const char *name, int version);

#endif /* GPUTRACE_PRELOAD_PROCADDR_H */
