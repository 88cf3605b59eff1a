/* SPDX-License-Identifier: MIT */
/*
 * demangle.c - C++ demangling through the C++ runtime's __cxa_demangle
 * (the analyzer links libstdc++ for it), so the analyzer needs no
 * demangler of its own.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/demangle.h"
#include "analyzer/util.h"

/* From the Itanium C++ ABI; it is an extern "C" function. */
char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

char *demangle(const char *sym)
{
	char *out;
	int status = 0;

	/* Itanium mangled names start with _Z; leave the rest alone */
	if (strncmp(sym, "_Z", 2) != 0)
		return xstrdup(sym);
	out = __cxa_demangle(sym, NULL, NULL, &status);
	if (!out || status != 0) {
		free(out);
		return xstrdup(sym);
	}
	return out;
}
