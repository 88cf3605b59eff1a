/* SPDX-License-Identifier: MIT */
/*
 * demangle.h - C++ symbol names for people.
 */
#ifndef GPUTRACE_ANALYZER_DEMANGLE_H
#define GPUTRACE_ANALYZER_DEMANGLE_H

#include <stddef.h>

/*
 * The demangled form of a C++ symbol, or a copy of sym when it is not one
 * (extern "C" kernels, unknown names).  free() the result.
 */
char *demangle(const char *sym);

/* Shorter form of a demangled kernel name for tables (see demangle.c). */
void short_kernel_name(const char *full, char *out, size_t size);

#endif /* GPUTRACE_ANALYZER_DEMANGLE_H */
