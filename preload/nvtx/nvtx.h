/* SPDX-License-Identifier: MIT */
/*
 * nvtx.h - what the NVTX injection's files share: interned messages,
 * domains, and the handlers NVTX calls (nvtx_record.c) that
 * InitializeInjectionNvtx2 (nvtx_inject.c) installs.
 *
 * NVTX v3 is header-only: each library that uses it holds its own copy of
 * the API and, at its first NVTX call, loads the library named by
 * NVTX_INJECTION64_PATH and hands it a table of function pointers to fill.
 * libgputrace.so names itself there at start, so LD_PRELOAD alone is
 * enough for torch.cuda.nvtx, emit_nvtx and libraries' own ranges.
 */
#ifndef GPUTRACE_PRELOAD_NVTX_H
#define GPUTRACE_PRELOAD_NVTX_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define GT_NVTX_TEXT_MAX 1024       /* longer messages are cut */
#define GT_NVTX_STRINGS (1u << 16)  /* slots of the message table */
#define GT_NVTX_MAX_TEXTS (GT_NVTX_STRINGS / 4 * 3) /* then no new ones */

/*
 * One distinct message.  Found by content, never only by pointer: callers
 * reuse buffers.  Its string id belongs to one dump; `gid` says which
 * (generation << 32 | id), so a forked child writes it again.
 */
struct gt_nvtx_str {
	_Atomic uint64_t hash;      /* 0: the slot is free */
	_Atomic(const char *) text; /* NULL while the slot is being filled */
	uint32_t len;
	_Atomic uint64_t gid;
};

/*
 * The interned copy of s[0..len), taking a slot the first time (which
 * allocates); NULL when the table is full.  Lock-free, any thread.
 */
struct gt_nvtx_str *gt_nvtx_intern(const char *s, size_t len);

/* The string's id in this process's dump, writing it the first time;
 * 0 when it cannot be written. */
uint32_t gt_nvtx_str_id(struct gt_nvtx_str *e);

/* The part of an NVTX message that names it: "aten::mm, seq = 12, ..."
 * (emit_nvtx) is recorded as "aten::mm".  Returns the length to keep. */
size_t gt_nvtx_name_len(const char *s, size_t len);

/* A wide (UTF-32) message as UTF-8 in buf; returns its length. */
size_t gt_nvtx_utf8(const wchar_t *w, char *buf, size_t cap);

/* What nvtxDomainCreate returns: one per distinct name. */
struct gt_nvtx_domain {
	uint32_t id;                /* >= 1; events of the default domain say 0 */
	struct gt_nvtx_str *name;
	_Atomic uint64_t gid;       /* generation << 32 | 1 once defined */
	struct gt_nvtx_domain *next;
};

/* Its fork handlers, registered at start (nvtx_domain.c). */
void gt_nvtx_domain_fork_init(void);

struct gt_nvtx_domain *gt_nvtx_domain_create(const char *name, size_t len);

/* The domain's id, its GT_CHUNK_NVTX definition written the first time
 * in this dump; 0 for the default domain (NULL). */
uint32_t gt_nvtx_domain_id(struct gt_nvtx_domain *d);

/* The tables the injection needs; 0, or -1 when out of memory. */
int gt_nvtx_tables_init(void);

/*
 * Fill one NVTX instance's callback tables with our handlers.  `module`
 * is NVTX's NvtxCallbackModule, table and size what GetModuleFunctionTable
 * returned.  Returns how many slots were filled.
 */
int gt_nvtx_fill_core(void (***table)(void), unsigned size);
int gt_nvtx_fill_core2(void (***table)(void), unsigned size);

#endif /* GPUTRACE_PRELOAD_NVTX_H */
