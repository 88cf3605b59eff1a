/* SPDX-License-Identifier: MIT */
/*
 * standins.h - what the libc interposers of the library define, for a
 * program that links the library's other objects into itself (the TSan
 * stress test, test/bench/host_handler_cost.c): included by exactly one
 * file of such a program.  SIGPROF is left to the program: the host
 * sampler takes samples only where it calls gt_hostsample_prof(1) and
 * hands SIGPROF to gt_hostsample_signal.
 */
#ifndef GT_TSAN_STANDINS_H
#define GT_TSAN_STANDINS_H

#include <dlfcn.h>

void *gt_real_dlsym(void *h, const char *name) { return dlsym(h, name); }
void *gt_real_dlvsym(void *h, const char *name, const char *v) { return dlvsym(h, name, v); }
void *gt_driver_symbol(const char *name) { (void)name; return NULL; }
void gt_signals_init(void) {}
void gt_signals_arm(void) {}
void gt_signals_after_fork(void) {}
void gt_signals_request(int sig, void (*fn)(void)) { (void)sig; (void)fn; }
void gt_exec_init(void) {}

#endif /* GT_TSAN_STANDINS_H */
