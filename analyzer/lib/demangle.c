/* SPDX-License-Identifier: MIT */
/*
 * demangle.c - C++ demangling through the C++ runtime's __cxa_demangle
 * (the analyzer links libstdc++ for it), so the analyzer needs no
 * demangler of its own.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/lib/demangle.h"
#include "analyzer/lib/util.h"

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

/*
 * A demangled kernel name cut to what tells kernels apart in a table: no
 * return type, no parameter list, "(anon)" for anonymous namespaces, and
 * template arguments nested two deep shown as "...".
 */
void short_kernel_name(const char *full, char *out, size_t size)
{
	static const char anon[] = "(anonymous namespace)";
	size_t n = 0;
	int depth = 0;

	if (!strncmp(full, "void ", 5))
		full += 5;
	for (const char *p = full; *p && n + 4 < size; p++) {
		if (!strncmp(p, anon, sizeof(anon) - 1)) {
			if (depth < 2)
				n += (size_t)snprintf(out + n, size - n, "(anon)");
			p += sizeof(anon) - 2;
			continue;
		}
		if (*p == '(' && depth == 0)
			break;                  /* the parameter list */
		if (*p == '<' && ++depth == 2) {
			n += (size_t)snprintf(out + n, size - n, "<...");
			continue;
		}
		if (*p == '>' && depth-- == 2) {
			out[n++] = '>';
			continue;
		}
		if (depth < 2)
			out[n++] = *p;
	}
	out[n < size ? n : size - 1] = 0;
}
