/* SPDX-License-Identifier: MIT */
/*
 * nccl_hooks.h - what the dlsym hook asks of the NCCL wrappers.
 */
#ifndef GPUTRACE_PRELOAD_NCCL_HOOKS_H
#define GPUTRACE_PRELOAD_NCCL_HOOKS_H

/*
 * What dlsym found for the NCCL name `name` (p not NULL): our wrapper in
 * place of NCCL's own function, NULL for our wrapper with no NCCL behind
 * it, else p.
 */
void *gt_nccl_dlsym(const char *name, void *p);

#endif /* GPUTRACE_PRELOAD_NCCL_HOOKS_H */
