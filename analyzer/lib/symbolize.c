/* SPDX-License-Identifier: MIT */
/*
 * symbolize.c - read an ELF file's build id and function symbols
 * (symbolize.h).  The file is mapped read-only; every offset and size in
 * it is checked against the file's length before use, and headers are
 * copied out with memcpy, so a truncated or hostile file only fails.
 */
#include <elf.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyzer/lib/symbolize.h"
#include "analyzer/lib/util.h"

#define LOOK_BACK 8                 /* symbols before the nearest one that
                                       may still hold the address */

struct sym {
	uint64_t addr, size;
	const char *name;
};

struct symtab {
	const uint8_t *map;
	size_t len;
	struct sym *v;
	size_t n;
};

static int in_file(size_t len, uint64_t off, uint64_t size)
{
	return off <= len && size <= len - off;
}

/* The section headers, copied out; NULL when this is not 64-bit LE ELF. */
static Elf64_Shdr *read_sections(const uint8_t *f, size_t len, size_t *n)
{
	Elf64_Ehdr eh;
	Elf64_Shdr *sh;

	if (len < sizeof(eh))
		return NULL;
	memcpy(&eh, f, sizeof(eh));
	if (memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_ident[EI_DATA] != ELFDATA2LSB || eh.e_shentsize != sizeof(*sh) ||
	    !eh.e_shnum || !in_file(len, eh.e_shoff, (uint64_t)eh.e_shnum * sizeof(*sh)))
		return NULL;
	sh = xmalloc(eh.e_shnum * sizeof(*sh));
	memcpy(sh, f + eh.e_shoff, eh.e_shnum * sizeof(*sh));
	*n = eh.e_shnum;
	return sh;
}

/* NT_GNU_BUILD_ID in one note section; its length, 0 if none. */
static size_t note_build_id(const uint8_t *p, uint64_t len, uint64_t align,
			    uint8_t *out, size_t max)
{
	align = align == 8 ? 8 : 4;
	while (len >= sizeof(Elf64_Nhdr)) {
		Elf64_Nhdr nh;
		uint64_t name, desc, all;

		memcpy(&nh, p, sizeof(nh));
		name = ((uint64_t)nh.n_namesz + align - 1) & ~(align - 1);
		desc = ((uint64_t)nh.n_descsz + align - 1) & ~(align - 1);
		all = sizeof(nh) + name + desc;
		if (all > len)
			break;
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    !memcmp(p + sizeof(nh), "GNU", 4) && nh.n_descsz <= max) {
			memcpy(out, p + sizeof(nh) + name, nh.n_descsz);
			return nh.n_descsz;
		}
		p += all;
		len -= all;
	}
	return 0;
}

static size_t file_build_id(const uint8_t *f, size_t len, const Elf64_Shdr *sh,
			    size_t n, uint8_t *out, size_t max)
{
	for (size_t i = 0; i < n; i++) {
		size_t got;

		if (sh[i].sh_type != SHT_NOTE || !in_file(len, sh[i].sh_offset, sh[i].sh_size))
			continue;
		got = note_build_id(f + sh[i].sh_offset, sh[i].sh_size,
				    sh[i].sh_addralign, out, max);
		if (got)
			return got;
	}
	return 0;
}

static int by_addr(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->size > y->size ? -1 : x->size < y->size;
}

/* The defined functions of symbol section s (strings in section s.sh_link). */
static void read_symbols(struct symtab *t, const Elf64_Shdr *sh, size_t n,
			 const Elf64_Shdr *s)
{
	const Elf64_Shdr *str = s->sh_link < n ? &sh[s->sh_link] : NULL;
	size_t count, cap = 0;

	if (!str || str->sh_type != SHT_STRTAB || s->sh_entsize != sizeof(Elf64_Sym) ||
	    !in_file(t->len, s->sh_offset, s->sh_size) ||
	    !in_file(t->len, str->sh_offset, str->sh_size))
		return;
	count = s->sh_size / sizeof(Elf64_Sym);
	for (size_t i = 1; i < count; i++) {
		Elf64_Sym y;
		int type;

		memcpy(&y, t->map + s->sh_offset + i * sizeof(y), sizeof(y));
		type = ELF64_ST_TYPE(y.st_info);
		if ((type != STT_FUNC && type != STT_GNU_IFUNC) || y.st_shndx == SHN_UNDEF ||
		    !y.st_value || y.st_name >= str->sh_size ||
		    !memchr(t->map + str->sh_offset + y.st_name, 0, str->sh_size - y.st_name))
			continue;
		if (t->n == cap) {
			cap = cap ? cap * 2 : 1024;
			t->v = xrealloc(t->v, cap * sizeof(*t->v));
		}
		t->v[t->n++] = (struct sym){ y.st_value, y.st_size,
			(const char *)t->map + str->sh_offset + y.st_name };
	}
	if (t->n)
		qsort(t->v, t->n, sizeof(*t->v), by_addr);
}

static int map_file(struct symtab *t, const char *path, const char **why)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);  /* a FIFO must not block */
	void *p;

	if (fd < 0) {
		*why = "not found";
		return -1;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size <= 0) {
		close(fd);
		*why = "not a regular file";
		return -1;
	}
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED) {
		*why = "cannot be mapped";
		return -1;
	}
	t->map = p;
	t->len = (size_t)st.st_size;
	return 0;
}

struct symtab *symtab_open(const char *path, const uint8_t *build_id,
			   size_t id_len, const char **why)
{
	struct symtab *t = xcalloc(1, sizeof(*t));
	uint8_t id[64];
	Elf64_Shdr *sh = NULL;
	const Elf64_Shdr *syms = NULL;
	size_t n = 0;

	if (map_file(t, path, why) < 0)
		goto fail;
	if (!(sh = read_sections(t->map, t->len, &n))) {
		*why = "not a 64-bit ELF file";
		goto fail;
	}
	if (file_build_id(t->map, t->len, sh, n, id, sizeof(id)) != id_len ||
	    memcmp(id, build_id, id_len)) {
		*why = "build id differs";
		goto fail;
	}
	for (size_t i = 0; i < n; i++)
		if (sh[i].sh_type == SHT_SYMTAB || (sh[i].sh_type == SHT_DYNSYM && !syms))
			syms = &sh[i];
	if (syms)
		read_symbols(t, sh, n, syms);
	free(sh);
	return t;
fail:
	free(sh);
	symtab_close(t);
	return NULL;
}

const char *symtab_lookup(const struct symtab *t, uint64_t vaddr)
{
	size_t lo = 0, hi = t->n;

	while (lo < hi) {                   /* first symbol above vaddr */
		size_t mid = lo + (hi - lo) / 2;

		if (t->v[mid].addr <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t k = 0; k < LOOK_BACK && lo > k; k++) {
		const struct sym *s = &t->v[lo - 1 - k];

		if (vaddr < s->addr + s->size || (!s->size && !k))
			return s->name;
	}
	return NULL;
}

void symtab_close(struct symtab *t)
{
	if (!t)
		return;
	if (t->map)
		munmap((void *)t->map, t->len);
	free(t->v);
	free(t);
}
