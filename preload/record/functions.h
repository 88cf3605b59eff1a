/* SPDX-License-Identifier: MIT */
/*
 * functions.h - kernel handles to small ids, with the kernel's name looked
 * up once per handle (cuFuncGetName, else cuKernelGetName).
 */
#ifndef GPUTRACE_PRELOAD_FUNCTIONS_H
#define GPUTRACE_PRELOAD_FUNCTIONS_H

#include <stdint.h>

/* A launch's arguments, hashed: at most this many of the kernel's first
 * parameters, GT_ARG_HASH_BYTES of them in all (a GEMM's one parameter
 * block holds its matrices' addresses past its sizes), so that the same
 * kernel run on other buffers (the next layer's weights) tells apart. */
#define GT_ARG_HASH_PARAMS 8
#define GT_ARG_HASH_BYTES 1024

struct gt_func_info {
	uintptr_t handle;
	const char *name;           /* NULL when the driver would not say */
	_Atomic int ready;          /* handle and name are set */
	int written;                /* writer: already in the dump */
	_Atomic uint8_t args_state; /* ARGS_*: the layout below */
	uint8_t args_tries;         /* lookups that failed */
	uint8_t nargs;              /* parameters hashed (GT_ARG_HASH_PARAMS
				       at most), 0: none known */
	uint16_t arg_bytes[GT_ARG_HASH_PARAMS]; /* bytes of each hashed */
	uint16_t arg_off[GT_ARG_HASH_PARAMS];   /* offsets in a param buffer */
	_Atomic uint32_t name_epoch;    /* gt_func_code_unloaded's count when */
	_Atomic uint32_t args_epoch;    /* the name, the layout were read */
};

/*
 * The id (>= 1) of a CUfunction, taking a new one and asking the driver
 * for its name the first time (and once after code was unloaded: see
 * gt_func_code_unloaded); 0 when the ids are spent (counted).  Lock-free.
 */
uint32_t gt_func_id(const void *handle);

/*
 * A 7-bit hash (1..127) of a launch's first arguments, from the kernel
 * parameter pointers kp or the packed buffer of extra
 * (CU_LAUNCH_PARAM_BUFFER_POINTER); 0 when the kernel's parameters are
 * not known (cuFuncGetParamInfo, CUDA 12.4) or none is given.  No lock,
 * no system call: reads at most GT_ARG_HASH_BYTES bytes that the driver
 * is about to read too (about a cycle each 8 bytes).
 */
uint32_t gt_func_arg_hash(uint32_t id, void **kp, void **extra);

/*
 * After cuModuleUnload or cuLibraryUnload (res: its result): the handles
 * of the code unloaded may come back as other kernels, with other names
 * and parameters.  Each kernel met after that has its name and parameter
 * layout read again on its next launch (a new id when the name differs):
 * a layout believed for a handle given to another kernel would read past
 * that kernel's parameters.
 */
void gt_func_code_unloaded(int res);

/* Writer: ids handed out so far, and the info behind one. */
uint32_t gt_func_count(void);
struct gt_func_info *gt_func_info(uint32_t id);

/* Launches whose kernel got no id (the table was full) so far. */
uint64_t gt_func_unnamed(void);

int gt_func_table_init(void);

/* Fork child: functions are written again in its dump (fork.c). */
void gt_func_after_fork(void);

#endif /* GPUTRACE_PRELOAD_FUNCTIONS_H */
