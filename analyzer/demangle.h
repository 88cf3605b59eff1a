/* SPDX-License-Identifier: MIT */
/*
 * demangle.h - C++ symbol names for people.
 */
#ifndef GPUTRACE_ANALYZER_DEMANGLE_H
#define GPUTRACE_ANALYZER_DEMANGLE_H

/*
 * The demangled form of a C++ symbol, or a copy of sym when it is not one
 * (extern "C" kernels, unknown names).  free() the result.
 */
char *demangle(const char *sym);

#endif /* GPUTRACE_ANALYZER_DEMANGLE_H */
