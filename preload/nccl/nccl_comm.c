/* SPDX-License-Identifier: MIT */
/*
 * nccl_comm.c - the communicator registry: ncclComm_t -> small id.
 *
 * An open-addressing table of (address, id) pairs.  Collectives look their
 * communicator up with atomic loads only; a slot's address is claimed
 * once with a compare-and-swap and never given back, a destroyed
 * communicator just loses its id, so a new one made at the same address
 * gets a new id.  Writing the chunk (a mutex in the side buffer) happens
 * once per communicator.
 */
#include <string.h>

#include "preload/nccl/nccl_comm.h"
#include "preload/base/internal.h"
#include "preload/record/writer.h"

#define SLOTS 4096                  /* communicators one process can have */

struct slot {
	_Atomic uint64_t key;       /* the ncclComm_t, 0 = free */
	_Atomic uint32_t id;        /* 0 = not (or no longer) known */
};

static struct slot slots[SLOTS];
static _Atomic uint32_t next_id;
__thread struct gt_nccl_thread gt_nccl_self;

typedef int (*query_fn)(const void *comm, int *out);

uint32_t gt_nccl_comm_new_id(void)
{
	return atomic_fetch_add(&next_id, 1) + 1;
}

static size_t slot_hash(uint64_t key)
{
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdull;
	key ^= key >> 33;
	return (size_t)key & (SLOTS - 1);
}

/* The slot of key; with insert, claim a free one when key has none. */
static struct slot *find(uint64_t key, int insert)
{
	size_t i = slot_hash(key);

	for (size_t n = 0; n < SLOTS; n++, i = (i + 1) & (SLOTS - 1)) {
		uint64_t k = atomic_load_explicit(&slots[i].key, memory_order_acquire);

		if (k == key)
			return &slots[i];
		if (k != 0)
			continue;
		if (!insert)
			return NULL;
		if (atomic_compare_exchange_strong(&slots[i].key, &k, key) || k == key)
			return &slots[i];
	}
	return NULL;
}

static uint32_t nccl_version(void)
{
	static _Atomic uint32_t version;
	uint32_t v = atomic_load(&version);
	int (*get)(int *) = NULL;
	int got = 0;

	if (v)
		return v;
	*(void **)&get = gt_nccl_sym("ncclGetVersion");
	if (get && get(&got) == 0 && got > 0)
		atomic_store(&version, v = (uint32_t)got);
	return v;
}

void gt_nccl_comm_write(struct gt_nccl_comm *c)
{
	if (!atomic_load(&gt_active))
		return;
	c->t_ns = c->t_ns ? c->t_ns : gt_now();
	c->nccl_version = nccl_version();
	gt_writer_start();          /* the dump may not exist yet */
	gt_writer_side_chunk(GT_CHUNK_NCCL_COMM, c, sizeof(*c), NULL, 0);
}

void gt_nccl_comm_bind(const void *comm, struct gt_nccl_comm *c)
{
	struct slot *s = comm ? find((uint64_t)(uintptr_t)comm, 1) : NULL;

	c->handle = (uint64_t)(uintptr_t)comm;
	if (s)
		atomic_store(&s->id, c->id);
	else if (comm)
		gt_warn_once("gputrace: more than %d NCCL communicators; the "
			     "others are not told apart\n", SLOTS);
	gt_nccl_comm_write(c);
}

/* Ask NCCL about a communicator made without us; -1 when it cannot say. */
static int query(const char *name, const void *comm, int fallback)
{
	query_fn fn;
	int v = fallback;

	*(void **)&fn = gt_nccl_sym(name);
	if (!fn || fn(comm, &v) != 0)
		return fallback;
	return v;
}

/* First sight of a communicator: claim an id, then describe it. */
static uint32_t comm_seen(const void *comm)
{
	struct slot *s = find((uint64_t)(uintptr_t)comm, 1);
	uint32_t id, expected = 0;
	struct gt_nccl_comm c = { .color = -1, .how = GT_NCCL_SEEN };

	if (!s) {
		gt_warn_once("gputrace: more than %d NCCL communicators; the "
			     "others are not told apart\n", SLOTS);
		return 0;
	}
	id = gt_nccl_comm_new_id();
	if (!atomic_compare_exchange_strong(&s->id, &expected, id))
		return expected;            /* another thread was first */
	c.id = id;
	c.rank = query("ncclCommUserRank", comm, -1);
	c.nranks = query("ncclCommCount", comm, 0);
	c.device = query("ncclCommCuDevice", comm, -1);
	c.handle = (uint64_t)(uintptr_t)comm;
	gt_nccl_comm_write(&c);
	return id;
}

uint32_t gt_nccl_comm_id(const void *comm)
{
	struct slot *s;
	uint32_t id;

	if (!comm)
		return 0;
	s = find((uint64_t)(uintptr_t)comm, 0);
	if (s && (id = atomic_load_explicit(&s->id, memory_order_acquire)))
		return id;
	return comm_seen(comm);
}

void gt_nccl_comm_forget(const void *comm)
{
	struct slot *s = comm ? find((uint64_t)(uintptr_t)comm, 0) : NULL;

	if (s)
		atomic_store(&s->id, 0);
}
