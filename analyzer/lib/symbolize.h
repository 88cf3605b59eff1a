/* SPDX-License-Identifier: MIT */
/*
 * symbolize.h - function names for addresses in the ELF files a traced
 * process had loaded, read at analysis time from .symtab (or .dynsym when
 * the file is stripped), only when the file on this machine is the one
 * that was loaded: same GNU build id.
 */
#ifndef GPUTRACE_ANALYZER_SYMBOLIZE_H
#define GPUTRACE_ANALYZER_SYMBOLIZE_H

#include <stddef.h>
#include <stdint.h>

struct symtab;

/*
 * The function symbols of path, when it is a readable 64-bit ELF file
 * whose build id is build_id (id_len 0: the file must have none either).
 * NULL otherwise, with *why saying why ("no such file", "build id
 * differs"...).  Any file, however malformed, gives NULL, never a crash.
 */
struct symtab *symtab_open(const char *path, const uint8_t *build_id,
			   size_t id_len, const char **why);

/* The (raw) name of the function at ELF virtual address vaddr, or NULL. */
const char *symtab_lookup(const struct symtab *s, uint64_t vaddr);

void symtab_close(struct symtab *s);

#endif /* GPUTRACE_ANALYZER_SYMBOLIZE_H */
