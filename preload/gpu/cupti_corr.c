/* SPDX-License-Identifier: MIT */
/*
 * cupti_corr.c - the exact join of GPU records to host events: which
 * CUPTI correlation ids each traced driver call had, learned from CUPTI's
 * API callbacks while a window is open (cupti.h says why not external
 * correlation ids).
 *
 * CUPTI calls gt_corr_on_api() at the entry and exit of the runtime and
 * driver calls that can put work on the GPU or wait for it (cupti.c
 * enables those).  A runtime call's id is kept for the call's
 * length, the last driver call's id for ours.  When the real driver call
 * of a traced wrapper returns, the wrapper publishes (driver id -> event)
 * and, for the first call of each class inside a runtime call, (runtime
 * id -> event): a kernel launched through cudart carries the runtime
 * call's id, one launched through the driver the driver call's.  The
 * table is written by program threads (two stores and a release) and
 * read by the writer thread; a slot is overwritten only 2^18 ids later
 * (CUPTI gives every API call an id: about 2.5 s of a launch-bound loop
 * at 20000 launches a second, while records come within about 1 s).
 */
#include <stdlib.h>

#include "preload/gpu/cupti.h"
#include "preload/gpu/cupti_internal.h"

#define SLOTS (1u << 19)          /* 8 MiB: ids stay 262144 calls apart */

struct slot {
	_Atomic uint64_t key;       /* (corr << 1 | class) + 1, 0 = empty */
	_Atomic uint64_t id;
};

static struct slot *table;
static atomic_uint generation;     /* bumped at each window: stale depths */

static __thread struct {
	uint32_t rt_corr;           /* the runtime call around, 0 none */
	uint32_t drv_corr;          /* the last driver call's */
	uint32_t depth;             /* runtime calls nested */
	uint32_t gen;
	uint8_t claimed[2];         /* rt_corr published for this class */
} tls __attribute__((tls_model("initial-exec")));

int gt_corr_init(void)
{
	if (!table)
		table = calloc(SLOTS, sizeof(*table));
	return table ? 0 : -1;
}

void gt_corr_new_window(void)
{
	atomic_fetch_add(&generation, 1);
}

static void put(uint32_t corr, unsigned cls, uint64_t id)
{
	uint64_t key = ((uint64_t)corr << 1 | cls) + 1;
	struct slot *s = &table[(corr * 2u + cls) & (SLOTS - 1)];

	atomic_store_explicit(&s->key, 0, memory_order_relaxed);
	atomic_thread_fence(memory_order_release);
	atomic_store_explicit(&s->id, id, memory_order_relaxed);
	atomic_store_explicit(&s->key, key, memory_order_release);
}

uint64_t gt_corr_get(uint32_t corr, unsigned cls)
{
	uint64_t key = ((uint64_t)corr << 1 | cls) + 1, id;
	const struct slot *s;

	if (!table || !corr)
		return 0;
	s = &table[(corr * 2u + cls) & (SLOTS - 1)];
	if (atomic_load_explicit(&s->key, memory_order_acquire) != key)
		return 0;
	id = atomic_load_explicit(&s->id, memory_order_relaxed);
	atomic_thread_fence(memory_order_acquire);
	return atomic_load_explicit(&s->key, memory_order_relaxed) == key ? id : 0;
}

void CUPTIAPI gt_corr_on_api(void *user, CUpti_CallbackDomain domain,
			     CUpti_CallbackId cbid, const void *data)
{
	const CUpti_CallbackData *d = data;
	unsigned gen = atomic_load_explicit(&generation, memory_order_relaxed);

	(void)user, (void)cbid;
	if (tls.gen != gen) {       /* a window ago: an exit may have been missed */
		tls.gen = gen;
		tls.depth = 0;
		tls.rt_corr = 0;
	}
	if (domain == CUPTI_CB_DOMAIN_DRIVER_API) {
		if (d->callbackSite == CUPTI_API_ENTER)
			tls.drv_corr = d->correlationId;
	} else if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) {
		if (d->callbackSite == CUPTI_API_ENTER) {
			if (!tls.depth++) {
				tls.rt_corr = d->correlationId;
				tls.claimed[0] = tls.claimed[1] = 0;
			}
		} else if (tls.depth && !--tls.depth) {
			tls.rt_corr = 0;
		}
	}
}

void gt_corr_begin(void)
{
	tls.drv_corr = 0;
}

void gt_corr_end(uint64_t id, unsigned cls)
{
	if (tls.drv_corr)
		put(tls.drv_corr, cls, id);
	if (tls.rt_corr && !tls.claimed[cls]) {
		tls.claimed[cls] = 1;
		put(tls.rt_corr, cls, id);
	}
}
