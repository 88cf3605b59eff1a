/* SPDX-License-Identifier: MIT */
/*
 * demangle.h - C++ symbol names for people.
 */
#ifndef GPUTRACE_ANALYZER_DEMANGLE_H
#define GPUTRACE_ANALYZER_DEMANGLE_H

#include <stddef.h>

/* What a demangled name may take, and 4 bytes per mangled byte more. */
#define DEMANGLE_MAX (64u << 10)

/*
 * The demangled form of a C++ symbol, or a copy of sym when it is not one
 * (extern "C" kernels, unknown names) or when its demangled form would
 * take more than DEMANGLE_MAX (demangle.c).  free() the result.
 */
char *demangle(const char *sym);

/* An upper bound of sym's demangled length, counted without demangling;
 * the count stops past cap. */
size_t demangle_estimate(const char *sym, size_t cap);

/* Shorter form of a demangled kernel name for tables (see demangle.c). */
void short_kernel_name(const char *full, char *out, size_t size);

#endif /* GPUTRACE_ANALYZER_DEMANGLE_H */
