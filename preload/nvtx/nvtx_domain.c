/* SPDX-License-Identifier: MIT */
/*
 * nvtx_domain.c - NVTX domains: nvtxDomainCreate's handle is one of ours,
 * shared by every library that creates a domain of the same name, and the
 * dump learns its name (GT_CHUNK_NVTX) before the first event in it.
 *
 * Creating a domain takes a lock (it happens once per domain and library);
 * using one is a load and a compare.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "include/gputrace/format.h"
#include "preload/base/internal.h"
#include "preload/nvtx/nvtx.h"
#include "preload/record/writer.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static struct gt_nvtx_domain *domains;
static uint32_t next_id;

/* A fork while another thread creates a domain leaves the lock free. */
static void lock_it(void) { pthread_mutex_lock(&lock); }
static void unlock_it(void) { pthread_mutex_unlock(&lock); }
static void at_fork(void) { pthread_atfork(lock_it, unlock_it, unlock_it); }

/* At start (and at the first domain, for a program that calls NVTX
 * before the library starts): a fork racing the first domain must not
 * miss the handlers. */
void gt_nvtx_domain_fork_init(void)
{
	pthread_once(&once, at_fork);
}

struct gt_nvtx_domain *gt_nvtx_domain_create(const char *name, size_t len)
{
	struct gt_nvtx_str *s = gt_nvtx_intern(name, len);
	struct gt_nvtx_domain *d;

	pthread_once(&once, at_fork);
	pthread_mutex_lock(&lock);
	for (d = domains; d; d = d->next)
		if (d->name == s)
			break;
	if (!d && (d = calloc(1, sizeof(*d))) != NULL) {
		d->id = ++next_id;
		d->name = s;
		d->next = domains;
		domains = d;
	}
	pthread_mutex_unlock(&lock);
	return d;
}

uint32_t gt_nvtx_domain_id(struct gt_nvtx_domain *d)
{
	uint64_t g, gen;
	struct gt_nvtx_def def;

	if (!d)
		return 0;
	g = atomic_load_explicit(&d->gid, memory_order_acquire);
	gen = atomic_load_explicit(&gt_mark->generation, memory_order_relaxed);
	if (likely(g >> 32 == gen))
		return d->id;
	def = (struct gt_nvtx_def){ .what = GT_NVTX_DEF_DOMAIN, .id = d->id,
				    .name_str = d->name ? gt_nvtx_str_id(d->name) : 0 };
	if (gt_writer_side_chunk(GT_CHUNK_NVTX, &def, sizeof(def), NULL, 0) == 0)
		atomic_compare_exchange_strong(&d->gid, &g, gen << 32 | 1);
	return d->id;
}
