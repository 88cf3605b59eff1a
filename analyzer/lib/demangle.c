/* SPDX-License-Identifier: MIT */
/*
 * demangle.c - C++ demangling through the C++ runtime's demangler (the
 * analyzer links libstdc++ for it), so the analyzer needs no demangler of
 * its own.
 *
 * A demangled name has no bound of its own: each back-reference of a
 * mangled name (S_, S0_..., T_...) prints again a part printed before, so
 * a name of a few hundred bytes whose parts each refer twice to the one
 * before expands to gigabytes, and as much work.  So a demangled name may
 * take DEMANGLE_MAX bytes, and the mangled name stands for one that would
 * take more.  Where the static libstdc++ has its demangler's callback form
 * (HAVE_DEMANGLE_CALLBACK, found by the Makefile), printing is cut at the
 * bound: the work is the bound's.  Elsewhere a name whose expansion could
 * pass DEMANGLE_WORK, counted before demangling (demangle_estimate), is
 * left mangled: a sound count, so names with many back-references stay
 * mangled there.
 */
#include <setjmp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/lib/demangle.h"
#include "analyzer/lib/util.h"

/* The longest demangled name for a mangled one of len bytes: real names
 * come out a few times longer than they went in. */
static size_t demangle_max(size_t len)
{
	return DEMANGLE_MAX + 4 * len;
}

/* The most one character of a mangled name prints, back-references
 * aside: "Ss" in a constructor's name prints std::basic_string<char,
 * std::char_traits<char>, std::allocator<char> > (70 characters). */
#define PER_CHAR 48

/* A back-reference at s: S<seq>_ or T<n>_ (S followed by a lowercase
 * letter is a name of std::, printed in a few characters). */
static const char *back_reference(const char *s)
{
	const char *p = s + 1;

	if (*s != 'S' && *s != 'T')
		return NULL;
	while ((*p >= '0' && *p <= '9') || (*s == 'S' && *p >= 'A' && *p <= 'Z'))
		p++;
	return *p == '_' ? p + 1 : NULL;
}

size_t demangle_estimate(const char *sym, size_t cap)
{
	size_t est = 0;
	const char *s = sym, *next;

	while (*s && est <= cap) {
		next = back_reference(s);
		if (next || !strncmp(s, "Dp", 2)) {
			est += est;     /* at most all that came before, again */
			s = next ? next : s + 2;
		} else {
			est += PER_CHAR;
			s++;
		}
	}
	return est;
}

#ifdef HAVE_DEMANGLE_CALLBACK

/* libstdc++'s demangler with its output handed to a callback (the form
 * its terminate handler uses): 0 on success.  It allocates nothing: all
 * its state is on the stack, so the callback may longjmp out of it. */
int __gcclibcxx_demangle_callback(const char *mangled,
				  void (*cb)(const char *, size_t, void *),
				  void *opaque);

struct bounded {
	char *buf;
	size_t len, cap, max;
	jmp_buf past;               /* the output passed max */
};

static void put(const char *s, size_t n, void *ctx)
{
	struct bounded *b = ctx;

	if (n > b->max - b->len)
		longjmp(b->past, 1);
	if (b->len + n >= b->cap) {
		b->cap = b->len + n + 1 > 2 * b->cap ? b->len + n + 1 : 2 * b->cap;
		b->buf = xrealloc(b->buf, b->cap);
	}
	memcpy(b->buf + b->len, s, n);
	b->len += n;
	b->buf[b->len] = '\0';
}

/* 0 with b->buf the demangled name, or -1 (not a name, or too long). */
static int run(struct bounded *b, const char *sym)
{
	if (setjmp(b->past))
		return -1;
	return __gcclibcxx_demangle_callback(sym, put, b) == 0 && b->buf ? 0 : -1;
}

static char *demangled(const char *sym)
{
	struct bounded b = { .max = demangle_max(strlen(sym)) };

	if (run(&b, sym) < 0) {
		free(b.buf);
		return NULL;
	}
	return b.buf;
}

#else

/* From the Itanium C++ ABI; it is an extern "C" function. */
char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

/* The most a name may be estimated to print to be demangled at all: the
 * work allowed, as the demangler's output is not cut. */
#define DEMANGLE_WORK (16u << 20)

static char *demangled(const char *sym)
{
	int status = 0;
	size_t max = demangle_max(strlen(sym));
	char *out;

	if (demangle_estimate(sym, DEMANGLE_WORK) > DEMANGLE_WORK)
		return NULL;
	out = __cxa_demangle(sym, NULL, NULL, &status);
	if (status != 0 || !out || strlen(out) > max) {
		free(out);
		return NULL;
	}
	return out;
}

#endif /* HAVE_DEMANGLE_CALLBACK */

char *demangle(const char *sym)
{
	char *out;

	/* Itanium mangled names start with _Z; leave the rest alone */
	if (strncmp(sym, "_Z", 2) != 0)
		return xstrdup(sym);
	out = demangled(sym);
	return out ? out : xstrdup(sym);
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
