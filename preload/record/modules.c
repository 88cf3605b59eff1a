/* SPDX-License-Identifier: MIT */
/*
 * modules.c - write the loaded objects into the dump (GT_CHUNK_MODULES):
 * at the first call stack of a dump, when a new stack has an address no
 * written object holds, and when the writer thread sees that the dynamic
 * loader added or removed objects.  Each chunk holds only objects not
 * written before.  Everything here runs under one mutex, off the steady
 * state (see modules.h).
 */
#include <elf.h>
#include <link.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "include/gputrace/format.h"
#include "preload/base/dl.h"
#include "preload/base/internal.h"
#include "preload/record/modules.h"
#include "preload/record/writer.h"

#define PER_CHUNK 4096              /* modules per chunk (256 KiB) */

struct known {
	uint64_t start, end, base;
};

struct found {
	struct gt_module m;
	char *path;
};

struct scan {
	struct found *v;
	size_t n, cap;
	unsigned long long adds, subs;
	int have_counts;
};

static struct {
	pthread_mutex_t lock;
	struct known *v;
	size_t n, cap;
	unsigned long long adds, subs;
	int started;
	int hooked;
	atomic_int want;            /* a quiet stack met an unknown address */
	char exe[4096];
} mods = { .lock = PTHREAD_MUTEX_INITIALIZER };

static int is_known(uint64_t start, uint64_t end, uint64_t base)
{
	for (size_t i = 0; i < mods.n; i++)
		if (mods.v[i].start == start && mods.v[i].end == end &&
		    mods.v[i].base == base)
			return 1;
	return 0;
}

static int covered(uint64_t pc)
{
	for (size_t i = 0; i < mods.n; i++)
		if (pc - 1 >= mods.v[i].start && pc - 1 < mods.v[i].end)
			return 1;
	return 0;
}

/* Walk one note segment for NT_GNU_BUILD_ID. */
static int note_build_id(const uint8_t *p, size_t len, size_t align,
			 uint8_t *out, int max)
{
	while (len >= sizeof(ElfW(Nhdr))) {
		const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)p;
		size_t name = (nh->n_namesz + align - 1) & ~(align - 1);
		size_t desc = (nh->n_descsz + align - 1) & ~(align - 1);
		size_t all = sizeof(*nh) + name + desc;

		if (all > len)
			break;
		if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
		    !memcmp(p + sizeof(*nh), "GNU", 4)) {
			int n = nh->n_descsz < (unsigned)max ? (int)nh->n_descsz : max;

			memcpy(out, p + sizeof(*nh) + name, (size_t)n);
			return n;
		}
		p += all;
		len -= all;
	}
	return 0;
}

int gt_modules_build_id(const struct dl_phdr_info *info, uint8_t *out, int max)
{
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		int n;

		if (ph->p_type != PT_NOTE)
			continue;
		n = note_build_id((const uint8_t *)(info->dlpi_addr + ph->p_vaddr),
				  ph->p_memsz, ph->p_align == 8 ? 8 : 4, out, max);
		if (n)
			return n;
	}
	return 0;
}

static int add_found(struct scan *s, const struct dl_phdr_info *info,
		     uint64_t lo, uint64_t hi)
{
	const char *name = info->dlpi_name && *info->dlpi_name ? info->dlpi_name
							       : mods.exe;
	struct found *f;

	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;
		struct found *v = realloc(s->v, cap * sizeof(*v));

		if (!v)
			return 1;
		s->v = v;
		s->cap = cap;
	}
	f = &s->v[s->n];
	memset(f, 0, sizeof(*f));
	f->m.base = info->dlpi_addr;
	f->m.start = lo;
	f->m.size = hi - lo;
	f->m.build_id_len = (uint8_t)gt_modules_build_id(info, f->m.build_id,
							 sizeof(f->m.build_id));
	f->path = strdup(name);
	s->n += f->path != NULL;
	return 0;
}

static int scan_one(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct scan *s = arg;
	uint64_t lo = UINT64_MAX, hi = 0;

	if (size >= offsetof(struct dl_phdr_info, dlpi_subs) + sizeof(info->dlpi_subs)) {
		s->adds = info->dlpi_adds;
		s->subs = info->dlpi_subs;
		s->have_counts = 1;
	}
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type != PT_LOAD)
			continue;
		if (info->dlpi_addr + ph->p_vaddr < lo)
			lo = info->dlpi_addr + ph->p_vaddr;
		if (info->dlpi_addr + ph->p_vaddr + ph->p_memsz > hi)
			hi = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
	}
	if (hi <= lo || is_known(lo, hi, info->dlpi_addr))
		return 0;
	return add_found(s, info, lo, hi);
}

static void remember(const struct found *f)
{
	if (mods.n == mods.cap) {
		size_t cap = mods.cap ? mods.cap * 2 : 256;
		struct known *v = realloc(mods.v, cap * sizeof(*v));

		if (!v)
			return;
		mods.v = v;
		mods.cap = cap;
	}
	mods.v[mods.n++] = (struct known){ f->m.start, f->m.start + f->m.size,
					   f->m.base };
}

/* Write the found modules, PER_CHUNK at a time; their paths first. */
static void write_found(struct scan *s)
{
	struct gt_module batch[64];
	uint32_t head[2];

	for (size_t i = 0; i < s->n; i += PER_CHUNK) {
		size_t n = s->n - i < PER_CHUNK ? s->n - i : PER_CHUNK;
		struct gt_module *ms = n <= 64 ? batch : malloc(n * sizeof(*ms));

		if (!ms)
			return;
		for (size_t k = 0; k < n; k++) {
			struct found *f = &s->v[i + k];

			f->m.path_str = gt_writer_string(f->path, strlen(f->path));
			ms[k] = f->m;
			remember(f);
		}
		head[0] = (uint32_t)n;
		head[1] = 0;
		gt_writer_side_chunk(GT_CHUNK_MODULES, head, sizeof(head), ms,
				     n * sizeof(*ms));
		if (ms != batch)
			free(ms);
	}
}

/* Under mods.lock: find the objects not yet written and write them. */
static void refresh(void)
{
	struct scan s = { 0 };

	gt_dl_iterate(scan_one, &s);
	if (s.have_counts) {
		mods.adds = s.adds;
		mods.subs = s.subs;
	}
	write_found(&s);
	for (size_t i = 0; i < s.n; i++)
		free(s.v[i].path);
	free(s.v);
}

static int read_counts(struct dl_phdr_info *info, size_t size, void *arg)
{
	unsigned long long *c = arg;

	if (size >= offsetof(struct dl_phdr_info, dlpi_subs) + sizeof(info->dlpi_subs)) {
		c[0] = info->dlpi_adds;
		c[1] = info->dlpi_subs;
	}
	return 1;
}

/* Writer thread, each cycle: objects came or went since the last look? */
static void on_cycle(int final)
{
	unsigned long long c[2] = { 0, 0 };

	pthread_mutex_lock(&mods.lock);
	if (mods.started) {
		gt_dl_iterate(read_counts, c);
		if (c[0] != mods.adds || c[1] != mods.subs ||
		    atomic_exchange(&mods.want, 0))
			refresh();
	}
	pthread_mutex_unlock(&mods.lock);
}

void gt_modules_start(void)
{
	ssize_t n;

	pthread_mutex_lock(&mods.lock);
	if (!mods.started) {
		n = readlink("/proc/self/exe", mods.exe, sizeof(mods.exe) - 1);
		mods.exe[n > 0 ? n : 0] = 0;
		refresh();
		mods.started = 1;
		if (!mods.hooked) {
			mods.hooked = 1;
			gt_writer_on_cycle(on_cycle);
		}
	}
	pthread_mutex_unlock(&mods.lock);
}

void gt_modules_cover(const uint64_t *pcs, int n)
{
	if (gt_side_quiet) {
		if (pthread_mutex_trylock(&mods.lock))
			return;
		for (int i = 0; i < n; i++)
			if (!covered(pcs[i]))
				atomic_store(&mods.want, 1);
		pthread_mutex_unlock(&mods.lock);
		return;
	}
	pthread_mutex_lock(&mods.lock);
	for (int i = 0; i < n; i++) {
		if (!covered(pcs[i])) {
			refresh();
			break;
		}
	}
	pthread_mutex_unlock(&mods.lock);
}

void gt_modules_forget(void)
{
	pthread_mutex_init(&mods.lock, NULL);
	free(mods.v);
	mods.v = NULL;
	mods.n = mods.cap = 0;
	mods.started = 0;
}
