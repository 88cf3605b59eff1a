/* SPDX-License-Identifier: MIT */
/*
 * library.h - how a copy of libgputrace.so is recognised, by the library
 * (two copies loaded in one process: the second stays inert) and by the
 * gputrace command (a copy already in LD_PRELOAD: it adds none).
 *
 * Every copy exports a function of this name; copies older than it are
 * known by their file name, which starts with GT_LIB_NAME.
 */
#ifndef GPUTRACE_LIBRARY_H
#define GPUTRACE_LIBRARY_H

#define GT_LIB_MARKER "gputrace_library"
#define GT_LIB_NAME "libgputrace"

#endif /* GPUTRACE_LIBRARY_H */
