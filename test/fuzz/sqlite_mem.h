/* SPDX-License-Identifier: MIT */
/*
 * sqlite_mem.h - SQLite's memory for the fuzzer, outside the sanitizer's
 * malloc (test/fuzz/sqlite_mem.c).
 */
#ifndef GT_TEST_FUZZ_SQLITE_MEM_H
#define GT_TEST_FUZZ_SQLITE_MEM_H

#include <stddef.h>

/* Gives SQLite the fuzzer's allocator and initializes it: 0, or -1. */
int fuzz_sqlite_mem(void);

/* The blocks SQLite holds now. */
size_t fuzz_sqlite_blocks(void);

#endif
