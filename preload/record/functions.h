/* SPDX-License-Identifier: MIT */
/*
 * functions.h - kernel handles to small ids, with the kernel's name looked
 * up once per handle (cuFuncGetName, else cuKernelGetName).
 */
#ifndef GPUTRACE_PRELOAD_FUNCTIONS_H
#define GPUTRACE_PRELOAD_FUNCTIONS_H

#include <stdint.h>

struct gt_func_info {
	uintptr_t handle;
	const char *name;           /* NULL when the driver would not say */
	_Atomic int ready;          /* handle and name are set */
	int written;                /* writer: already in the dump */
};

/*
 * The id (>= 1) of a CUfunction, taking a new one and asking the driver
 * for its name the first time; 0 when the ids are spent (counted).
 * Lock-free.
 */
uint32_t gt_func_id(const void *handle);

/* Writer: ids handed out so far, and the info behind one. */
uint32_t gt_func_count(void);
struct gt_func_info *gt_func_info(uint32_t id);

/* Launches whose kernel got no id (the table was full) so far. */
uint64_t gt_func_unnamed(void);

int gt_func_table_init(void);

/* Fork child: functions are written again in its dump (fork.c). */
void gt_func_after_fork(void);

#endif /* GPUTRACE_PRELOAD_FUNCTIONS_H */
