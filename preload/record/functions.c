/* SPDX-License-Identifier: MIT */
/*
 * functions.c - CUfunction handles to ids, and their names, lock-free.
 *
 * An open-addressing table keyed by the handle: a thread that meets a new
 * handle claims a slot with one CAS, takes the next id, asks the driver for
 * the name (once per kernel, outside the steady state) and publishes the id.
 * A thread that meets the same handle meanwhile waits for that id: a race
 * that lasts one cuFuncGetName call and happens once per kernel.
 *
 * Once the ids are spent (GPUTRACE_MAX_FUNCTIONS) no slot is claimed any
 * more: the table has twice as many slots as ids, so it stays at most
 * half full (a few more claims when threads race at the last id) and a
 * handle not in it is known as such after a few probes.  Launches of
 * kernels left without an id are counted (gt_func_unnamed).
 */
#include <cuda.h>
#include <cudaTypedefs.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "preload/record/functions.h"
#include "preload/base/internal.h"
#include "preload/hooks/procaddr.h"

#define ID_FULL UINT32_MAX          /* claimed, but the id space is spent */
#define ID_AGAIN (UINT32_MAX - 1)   /* claimed by a thread lost at a fork */

struct slot {
	_Atomic uintptr_t key;
	_Atomic uint32_t id;        /* 0 until published */
};

static struct slot *slots;
static uint64_t slot_mask;
static struct gt_func_info *infos; /* by id; infos[0] unused */
static _Atomic uint32_t next_id;
static uint32_t max_id;
static _Atomic int publishing;      /* threads between claim and publish */
static _Atomic uint64_t unnamed;    /* launches of kernels with no id */
static _Atomic uint32_t code_epoch; /* unloads so far (gt_func_code_unloaded) */

int gt_func_table_init(void)
{
	uint64_t cap = 1;

	max_id = gt_cfg.max_functions;
	while (cap < 2ull * max_id)
		cap <<= 1;
	slots = calloc(cap, sizeof(*slots));
	infos = calloc((size_t)max_id + 1, sizeof(*infos));
	if (!slots || !infos) {
		free(slots);
		free(infos);
		slots = NULL;
		return -1;
	}
	slot_mask = cap - 1;
	return 0;
}

#define NOT_THERE ((void *)1)        /* looked up, not found */

/*
 * The driver's function `name` (cudaVersion version) through *slot: looked
 * up by the first caller, never again (a missing one included: a later
 * launch may be made in a signal handler while the loader is busy); NULL
 * when the driver lacks it.
 */
static void *driver_fn(_Atomic(void *) *slot, const char *name, int version)
{
	void *f = atomic_load(slot);

	if (!f) {
		void *none = NULL, *got = gt_driver_proc(name, version);

		atomic_compare_exchange_strong(slot, &none, got ? got : NOT_THERE);
		f = atomic_load(slot);
	}
	return f == NOT_THERE ? NULL : f;
}

static const char *driver_name(const void *handle)
{
	static _Atomic(void *) fn_slot, kernel_slot;
	PFN_cuFuncGetName_v12030 fgn = driver_fn(&fn_slot, "cuFuncGetName", 12030);
	PFN_cuKernelGetName_v12030 kgn;
	const char *name = NULL;

	if (fgn && fgn(&name, (CUfunction)handle) == CUDA_SUCCESS && name)
		return strdup(name);
	kgn = driver_fn(&kernel_slot, "cuKernelGetName", 12030);
	if (kgn && kgn(&name, (CUkernel)handle) == CUDA_SUCCESS && name)
		return strdup(name);
	return NULL;
}

/* A kernel's argument layout (gt_func_info.args_state). */
enum { ARGS_UNKNOWN, ARGS_LOOKING, ARGS_KNOWN, ARGS_NONE };
#define ARGS_TRIES 4                /* launches that may look it up */
#define ARGS_SPACE 32768            /* a kernel's parameters fit in this:
				       a layout past it is not believed */

typedef CUresult (*param_info_fn)(void *f, size_t i, size_t *off, size_t *size);

/* cuFuncGetParamInfo, else (a runtime's library-managed kernel)
 * cuKernelGetParamInfo: the driver's (driver_fn), both looked up on the
 * first lookup of either, or NULL. */
static param_info_fn param_info(int kernel)
{
	static _Atomic(void *) fns[2];
	void *f[2] = { driver_fn(&fns[0], "cuFuncGetParamInfo", 12040),
		       driver_fn(&fns[1], "cuKernelGetParamInfo", 12040) };

	return (param_info_fn)f[kernel];
}

/* The first parameters' sizes and offsets through fn: how many. */
static uint8_t read_layout(struct gt_func_info *fi, param_info_fn fn, CUresult *rc)
{
	size_t off, size, left = GT_ARG_HASH_BYTES, end = 0;
	uint8_t n = 0;

	while (fn && n < GT_ARG_HASH_PARAMS && left &&
	       (*rc = fn((void *)fi->handle, n, &off, &size)) == CUDA_SUCCESS &&
	       size && off >= end && off + size <= ARGS_SPACE) {
		end = off + size;
		fi->arg_bytes[n] = (uint16_t)(size < left ? size : left);
		left -= fi->arg_bytes[n];
		fi->arg_off[n++] = (uint16_t)off;
	}
	return n;
}

/*
 * The layout of the kernel's first parameters, for gt_func_arg_hash, by
 * the one thread that claimed the lookup: asked on the kernel's first
 * launches (ARGS_TRIES: a kernel loaded lazily may answer only once it
 * ran), then never again.  A kernel without parameters has none to hash.
 */
static void arg_layout(struct gt_func_info *fi)
{
	CUresult rc[2] = { CUDA_ERROR_NOT_FOUND, CUDA_ERROR_NOT_FOUND };
	uint8_t n = read_layout(fi, param_info(0), &rc[0]);

	/* only a handle the driver says is no CUfunction may be a CUkernel */
	if (!n && rc[0] == CUDA_ERROR_INVALID_HANDLE)
		n = read_layout(fi, param_info(1), &rc[1]);
	fi->nargs = n;
	gt_debug("gputrace: kernel %s: %u parameters hashed (results %d, %d)\n",
		 fi->name ? fi->name : "?", n, (int)rc[0], (int)rc[1]);
	if (n || rc[0] == CUDA_SUCCESS || rc[1] == CUDA_SUCCESS || ++fi->args_tries >= ARGS_TRIES)
		atomic_store_explicit(&fi->args_state, n ? ARGS_KNOWN : ARGS_NONE,
				      memory_order_release);
	else
		atomic_store_explicit(&fi->args_state, ARGS_UNKNOWN, memory_order_release);
}

/* Whether the layout is known, looking it up when no thread does. */
static int args_known(struct gt_func_info *fi)
{
	uint8_t st = atomic_load_explicit(&fi->args_state, memory_order_acquire);

	if (likely(st == ARGS_KNOWN))
		return 1;
	if (st != ARGS_UNKNOWN ||
	    !atomic_compare_exchange_strong(&fi->args_state, &st, ARGS_LOOKING))
		return 0;
	arg_layout(fi);
	return atomic_load_explicit(&fi->args_state, memory_order_acquire) == ARGS_KNOWN;
}

/*
 * The layout read before code was unloaded may be another kernel's now:
 * the thread that takes it back (from known or none to unknown) marks it
 * of this epoch, and it is read again (args_known).  0: not this call's
 * to use (another thread renews it, or reads it now).
 */
static int args_renew(struct gt_func_info *fi)
{
	uint8_t st = atomic_load(&fi->args_state);

	if (st == ARGS_LOOKING || (st != ARGS_UNKNOWN &&
	    !atomic_compare_exchange_strong(&fi->args_state, &st, ARGS_UNKNOWN)))
		return 0;
	fi->args_tries = 0;
	atomic_store(&fi->args_epoch, atomic_load(&code_epoch));
	return 1;
}

/* A launch whose kernel gets no id: counted, and said at the first. */
static uint32_t unnamed_launch(void)
{
	if (!atomic_fetch_add_explicit(&unnamed, 1, memory_order_relaxed))
		gt_log("gputrace: more than %u kernels (GPUTRACE_MAX_FUNCTIONS): "
		       "further kernels are unnamed\n", max_id);
	return 0;
}

static uint32_t publish(struct slot *s, uintptr_t key)
{
	uint32_t id = atomic_fetch_add(&next_id, 1) + 1;

	if (id > max_id) {
		atomic_store_explicit(&s->id, ID_FULL, memory_order_release);
		return unnamed_launch();
	}
	infos[id].handle = key;
	infos[id].name_epoch = atomic_load(&code_epoch);
	infos[id].args_epoch = infos[id].name_epoch;
	infos[id].name = driver_name((const void *)key);
	atomic_store_explicit(&infos[id].ready, 1, memory_order_release);
	atomic_store_explicit(&s->id, id, memory_order_release);
	return id;
}

/* A slot whose publisher was a parent's thread lost at a fork: the first
 * thread of the child to meet it publishes it. */
static uint32_t publish_again(struct slot *s)
{
	uint32_t again = ID_AGAIN, id = 0;

	atomic_fetch_add(&publishing, 1);       /* see gt_func_after_fork */
	if (atomic_compare_exchange_strong(&s->id, &again, 0))
		id = publish(s, atomic_load(&s->key));
	atomic_fetch_sub(&publishing, 1);
	return id;
}

/* The slot's id once its publisher has set it (a slot left by a thread
 * lost at a fork is published here); 0: unnamed. */
static uint32_t wait_id(struct slot *s)
{
	for (int spins = 0; spins <= 1000000; spins++) {
		uint32_t id = atomic_load_explicit(&s->id, memory_order_acquire);

		if (id == ID_AGAIN)
			id = publish_again(s);  /* 0: another thread took it */
		if (id)
			return id == ID_FULL ? unnamed_launch() : id;
		if (spins > 100)
			sched_yield();
	}
	return 0;
}

static inline uint64_t hash_ptr(uintptr_t p)
{
	return (uint64_t)(p >> 4) * 0x9e3779b97f4a7c15ull >> 20;
}

void gt_func_code_unloaded(int res)
{
	if (res == CUDA_SUCCESS)
		atomic_fetch_add(&code_epoch, 1);
}

static int same_name(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/*
 * A kernel met again after code was unloaded (id's name_epoch is not e):
 * the one thread that claims it asks the driver for the handle's name;
 * a handle now given to another kernel gets a new id, which its slot
 * holds from then on.  Threads that meet it meanwhile keep the old id.
 */
static uint32_t renew_id(struct slot *s, uint32_t id, uint32_t e)
{
	struct gt_func_info *fi = &infos[id];
	uint32_t seen = atomic_load(&fi->name_epoch), nid;
	const char *name;

	if (seen == e || !atomic_compare_exchange_strong(&fi->name_epoch, &seen, e))
		return id;
	name = driver_name((const void *)fi->handle);
	if (same_name(name, fi->name)) {
		free((void *)name);
		return id;
	}
	nid = atomic_fetch_add(&next_id, 1) + 1;
	if (nid > max_id) {
		free((void *)name);
		return id;
	}
	infos[nid].handle = fi->handle;
	infos[nid].name_epoch = e;
	infos[nid].args_epoch = e;
	infos[nid].name = name;
	atomic_store_explicit(&infos[nid].ready, 1, memory_order_release);
	atomic_store_explicit(&s->id, nid, memory_order_release);
	return nid;
}

/* The id of a slot found holding the handle. */
static uint32_t found_id(struct slot *s)
{
	uint32_t id = wait_id(s), e;

	if (likely(id && id <= max_id) &&
	    unlikely(atomic_load_explicit(&infos[id].name_epoch, memory_order_relaxed) !=
		     (e = atomic_load_explicit(&code_epoch, memory_order_relaxed))))
		return renew_id(s, id, e);
	return id;
}

uint32_t gt_func_id(const void *handle)
{
	uintptr_t key = (uintptr_t)handle;
	uint64_t i;

	if (unlikely(!key || !slots))
		return 0;
	i = hash_ptr(key) & slot_mask;
	for (uint64_t probe = 0; probe <= slot_mask; probe++, i = (i + 1) & slot_mask) {
		struct slot *s = &slots[i];
		uintptr_t k = atomic_load_explicit(&s->key, memory_order_acquire);

		if (likely(k == key))
			return found_id(s);
		if (k != 0)
			continue;
		if (atomic_load_explicit(&next_id, memory_order_relaxed) >= max_id)
			break;                  /* not there, and no id to give */
		atomic_fetch_add(&publishing, 1);       /* see gt_func_after_fork */
		if (atomic_compare_exchange_strong(&s->key, &k, key)) {
			uint32_t id = publish(s, key);

			atomic_fetch_sub(&publishing, 1);
			return id;
		}
		atomic_fetch_sub(&publishing, 1);
		if (k == key)
			return found_id(s);
	}
	return unnamed_launch();
}

/*
 * Fork child: the new dump must define every function again, and a slot
 * that a parent's thread had claimed but not yet published at the fork
 * never will be by that thread (it is not in the child): the child's
 * first call that meets it publishes it (its id and name).
 */
void gt_func_after_fork(void)
{
	uint32_t n = gt_func_count();

	for (uint32_t id = 1; id <= n; id++) {
		uint8_t looking = ARGS_LOOKING;

		infos[id].written = 0;      /* a lookup lost at the fork: again */
		atomic_compare_exchange_strong(&infos[id].args_state, &looking, ARGS_UNKNOWN);
	}
	atomic_store(&unnamed, 0);
	if (!atomic_load(&publishing) || !slots)
		return;
	for (uint64_t i = 0; i <= slot_mask; i++)
		if (atomic_load(&slots[i].key) && !atomic_load(&slots[i].id))
			atomic_store(&slots[i].id, ID_AGAIN);
	atomic_store(&publishing, 0);
}

/* The packed parameter buffer in a launch's extra list and its size
 * (CU_LAUNCH_PARAM_BUFFER_SIZE), or NULL. */
static const uint8_t *packed_args(void **extra, size_t *size)
{
	const uint8_t *buf = NULL;
	const size_t *len = NULL;

	for (int i = 0; extra && i < 8 && extra[i] != CU_LAUNCH_PARAM_END; i += 2) {
		if (extra[i] == CU_LAUNCH_PARAM_BUFFER_POINTER)
			buf = extra[i + 1];
		else if (extra[i] == CU_LAUNCH_PARAM_BUFFER_SIZE)
			len = extra[i + 1];
	}
	*size = len ? *len : 0;
	return len ? buf : NULL;
}

static inline uint64_t rotl(uint64_t x, unsigned r)
{
	return x << (r & 63) | x >> (-r & 63);
}

/* n bytes at p folded into h, each 8 bytes rotated by its place: about a
 * cycle a word, no multiply in the loop. */
static inline uint64_t fold_bytes(uint64_t h, const uint8_t *p, uint16_t n)
{
	uint64_t w;
	unsigned i = 0;

	for (; (unsigned)n - i >= 8; i += 8) {
		memcpy(&w, p + i, 8);
		h ^= rotl(w, i / 8 * 7);
	}
	if (i < n) {
		w = 0;
		memcpy(&w, p + i, n - i);
		h ^= rotl(w, i / 8 * 7);
	}
	return rotl(h, 29) * 0x9e3779b97f4a7c15ull;
}

uint32_t gt_func_arg_hash(uint32_t id, void **kp, void **extra)
{
	struct gt_func_info *fi;
	const uint8_t *buf = NULL;
	size_t size = 0;
	uint64_t h = 0;

	if (unlikely(!id || id > max_id))
		return 0;
	fi = &infos[id];
	if (unlikely(atomic_load_explicit(&fi->args_epoch, memory_order_acquire) !=
		     atomic_load_explicit(&code_epoch, memory_order_relaxed)) && !args_renew(fi))
		return 0;
	if (!args_known(fi) || (!kp && !(buf = packed_args(extra, &size))))
		return 0;
	for (uint8_t i = 0; i < fi->nargs; i++) {
		const uint8_t *p = kp ? kp[i] : buf + fi->arg_off[i];

		if (unlikely(!p || (!kp && (size_t)fi->arg_off[i] + fi->arg_bytes[i] > size)))
			return 0;
		h = fold_bytes(h, p, fi->arg_bytes[i]);
	}
	return 1 + (uint32_t)((h >> 32) % 127);
}

uint32_t gt_func_count(void)
{
	uint32_t n = atomic_load(&next_id);

	return n > max_id ? max_id : n;
}

uint64_t gt_func_unnamed(void)
{
	return atomic_load_explicit(&unnamed, memory_order_relaxed);
}

struct gt_func_info *gt_func_info(uint32_t id)
{
	return id && id <= max_id ? &infos[id] : NULL;
}
