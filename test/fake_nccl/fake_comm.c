/* SPDX-License-Identifier: MIT */
/*
 * fake_comm.c - the fake NCCL's communicators: unique ids, the init,
 * split, destroy and query calls, and the version.
 *
 * Nothing is communicated.  A communicator is what the arguments say; a
 * split one has half the ranks of its parent (at least one), rank =
 * parent rank % that, so a test can tell what the tracer must report.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test/fake_nccl/fake_nccl.h"

#define FN_API(ret, name, params)                                            \
	__attribute__((visibility("default"), alias(#name))) ret p##name params; \
	__attribute__((visibility("default"), weak)) ret name params

static uint64_t fnv(const void *p, size_t n)
{
	const unsigned char *s = p;
	uint64_t h = 1469598103934665603ull;

	while (n--)
		h = (h ^ *s++) * 1099511628211ull;
	return h;
}

static struct ncclComm *make_comm(int nranks, int rank, uint64_t hash,
				  const char *name)
{
	struct ncclComm *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->magic = FAKE_COMM_MAGIC;
	c->nranks = nranks;
	c->rank = rank;
	c->device = rank % 4;
	c->hash = hash;
	fp_comm_init(c, name);
	return c;
}

FN_API(ncclResult_t, ncclGetVersion, (int *version))
{
	fn_count("ncclGetVersion");
	if (!version)
		return ncclInvalidArgument;
	*version = NCCL_VERSION_CODE;
	return ncclSuccess;
}

FN_API(ncclResult_t, ncclGetUniqueId, (ncclUniqueId *id))
{
	static atomic_uint n;
	unsigned k = atomic_fetch_add(&n, 1);

	fn_count("ncclGetUniqueId");
	if (!id)
		return ncclInvalidArgument;
	memset(id, 0, sizeof(*id));
	memcpy(id->internal, "fakeid", 6);
	memcpy(id->internal + 8, &k, sizeof(k));
	*(pid_t *)(id->internal + 16) = getpid();
	return ncclSuccess;
}

static ncclResult_t init_rank(ncclComm_t *comm, int nranks, const ncclUniqueId *id,
			      int rank, const char *name)
{
	if (!comm || nranks < 1 || rank < 0 || rank >= nranks)
		return ncclInvalidArgument;
	fn_spin(fn_cfg.call_ns);
	*comm = make_comm(nranks, rank, fnv(id, sizeof(*id)), name);
	return *comm ? ncclSuccess : ncclSystemError;
}

FN_API(ncclResult_t, ncclCommInitRank, (ncclComm_t *comm, int nranks, ncclUniqueId id,
					int rank))
{
	fn_count("ncclCommInitRank");
	return init_rank(comm, nranks, &id, rank, NULL);
}

FN_API(ncclResult_t, ncclCommInitRankConfig, (ncclComm_t *comm, int nranks,
					      ncclUniqueId id, int rank,
					      ncclConfig_t *config))
{
	fn_count("ncclCommInitRankConfig");
	return init_rank(comm, nranks, &id, rank, config ? config->commName : NULL);
}

FN_API(ncclResult_t, ncclCommInitAll, (ncclComm_t *comms, int ndev, const int *devlist))
{
	ncclUniqueId id;

	fn_count("ncclCommInitAll");
	if (!comms || ndev < 1 || pncclGetUniqueId(&id) != ncclSuccess)
		return ncclInvalidArgument;
	for (int i = 0; i < ndev; i++) {
		comms[i] = make_comm(ndev, i, fnv(&id, sizeof(id)), NULL);
		if (!comms[i])
			return ncclSystemError;
		comms[i]->device = devlist ? devlist[i] : i;
	}
	return ncclSuccess;
}

FN_API(ncclResult_t, ncclCommSplit, (ncclComm_t comm, int color, int key,
				     ncclComm_t *newcomm, ncclConfig_t *config))
{
	int n;

	fn_count("ncclCommSplit");
	(void)key;
	if (!comm || comm->magic != FAKE_COMM_MAGIC || !newcomm)
		return ncclInvalidArgument;
	if (color == NCCL_SPLIT_NOCOLOR) {
		*newcomm = NULL;
		return ncclSuccess;
	}
	n = comm->nranks / 2 > 0 ? comm->nranks / 2 : 1;
	*newcomm = make_comm(n, comm->rank % n, comm->hash ^ (uint64_t)color,
			     config ? config->commName : NULL);
	return *newcomm ? ncclSuccess : ncclSystemError;
}

static ncclResult_t release(ncclComm_t comm)
{
	if (!comm || comm->magic != FAKE_COMM_MAGIC)
		return ncclInvalidArgument;
	fp_flush();
	fp_comm_fini(comm);
	comm->magic = 0;
	free(comm);
	return ncclSuccess;
}

FN_API(ncclResult_t, ncclCommDestroy, (ncclComm_t comm))
{
	fn_count("ncclCommDestroy");
	return release(comm);
}

FN_API(ncclResult_t, ncclCommAbort, (ncclComm_t comm))
{
	fn_count("ncclCommAbort");
	return release(comm);
}

FN_API(ncclResult_t, ncclCommCount, (const ncclComm_t comm, int *count))
{
	fn_count("ncclCommCount");
	if (!comm || comm->magic != FAKE_COMM_MAGIC || !count)
		return ncclInvalidArgument;
	*count = comm->nranks;
	return ncclSuccess;
}

FN_API(ncclResult_t, ncclCommUserRank, (const ncclComm_t comm, int *rank))
{
	fn_count("ncclCommUserRank");
	if (!comm || comm->magic != FAKE_COMM_MAGIC || !rank)
		return ncclInvalidArgument;
	*rank = comm->rank;
	return ncclSuccess;
}

FN_API(ncclResult_t, ncclCommCuDevice, (const ncclComm_t comm, int *device))
{
	fn_count("ncclCommCuDevice");
	if (!comm || comm->magic != FAKE_COMM_MAGIC || !device)
		return ncclInvalidArgument;
	*device = comm->device;
	return ncclSuccess;
}
