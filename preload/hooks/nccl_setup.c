/* SPDX-License-Identifier: MIT */
/*
 * nccl_setup.c - what the communicator set-up wrappers (ncclCommInit*,
 * ncclCommSplit, ncclCommDestroy, ncclCommAbort) do around the real call:
 * the new communicator's id is taken before it, so that NCCL's profiler
 * plugin, initialised inside the call on the same thread, can say it
 * serves that communicator; after it, the communicator is registered and
 * its chunk written.  Set-up is not a hot path.
 */
#include <stddef.h>
#include <string.h>

#include "preload/hooks/nccl_call.h"
#include "preload/record/writer.h"

#define CONFIG_MAGIC 0xcafebeefu

/* FNV-1a 64: the same id hashes the same in every rank's dump. */
static uint64_t uid_hash(const ncclUniqueId *id)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < sizeof(id->internal); i++) {
		h ^= (uint8_t)id->internal[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

static void plugin_reset(void)
{
	gt_nccl_self.plugin_hash = 0;
	gt_nccl_self.plugin_name = 0;
	gt_nccl_self.plugin_version = 0;
}

void gt_nccl_init_pre(struct gt_nccl_call *c, int nranks, int rank,
		      const ncclUniqueId *id, int new_id)
{
	c->count = nranks > 0 ? (uint64_t)nranks : 0;
	c->peer = rank >= 0 ? (uint32_t)rank + 1 : 0;
	c->uid_hash = id ? uid_hash(id) : 0;
	c->color = -1;
	c->comm = new_id ? gt_nccl_comm_new_id() : 0;
	gt_nccl_self.init_comm = c->comm;
	plugin_reset();
}

/* The commName a config carries, if its layout has one. */
static uint32_t config_name(const ncclConfig_t *config)
{
	size_t end = offsetof(ncclConfig_t, commName) + sizeof(config->commName);
	const char *name;

	if (gt_nccl_self.plugin_name)
		return gt_nccl_self.plugin_name;
	if (!config || config->magic != CONFIG_MAGIC || config->size < end)
		return 0;
	name = config->commName;
	return name && *name ? gt_writer_string(name, strnlen(name, 256)) : 0;
}

/* A communicator made by one of our wrappers, described and registered. */
static void made(const struct gt_nccl_call *c, ncclComm_t comm, int how,
		 const ncclConfig_t *config, int rank, int nranks)
{
	struct gt_nccl_comm gc = {
		.id = c->comm, .parent = c->parent, .rank = rank,
		.nranks = nranks, .device = -1, .color = c->color,
		.uid_hash = c->uid_hash, .how = (uint32_t)how,
		.nccl_hash = gt_nccl_self.plugin_hash,
		.plugin = gt_nccl_self.plugin_version,
	};
	int (*cu_device)(ncclComm_t, int *);

	*(void **)&cu_device = gt_nccl_sym("ncclCommCuDevice");
	if (cu_device && cu_device(comm, &gc.device) != ncclSuccess)
		gc.device = -1;
	gc.name_str = config_name(config);
	gt_nccl_comm_bind(comm, &gc);
}

void gt_nccl_init_post(struct gt_nccl_call *c, ncclResult_t res,
		       ncclComm_t *newcomm, int how, const ncclConfig_t *config)
{
	gt_nccl_self.init_comm = 0;
	if ((res == ncclSuccess || res == ncclInProgress) && newcomm && *newcomm)
		made(c, *newcomm, how, config, (int)c->peer - 1, (int)c->count);
	else
		c->comm = 0;
	plugin_reset();
}

void gt_nccl_init_all_post(struct gt_nccl_call *c, ncclResult_t res,
			   ncclComm_t *comms, int ndev, const int *devlist)
{
	gt_nccl_self.init_comm = 0;
	if (res != ncclSuccess || !comms)
		return;
	for (int i = 0; i < ndev; i++) {
		struct gt_nccl_call one = *c;

		if (!comms[i])
			continue;
		one.comm = gt_nccl_comm_new_id();
		if (!c->comm)
			c->comm = one.comm;     /* the event names the first */
		made(&one, comms[i], GT_NCCL_INIT_ALL, NULL, i, ndev);
	}
	(void)devlist;                  /* NCCL says the device itself */
}

void gt_nccl_split_pre(struct gt_nccl_call *c, ncclComm_t comm, int color)
{
	c->parent = gt_nccl_comm_id(comm);
	c->color = color;
	c->comm = gt_nccl_comm_new_id();
	gt_nccl_self.init_comm = c->comm;
	plugin_reset();
}

void gt_nccl_split_post(struct gt_nccl_call *c, ncclResult_t res,
			ncclComm_t *newcomm, const ncclConfig_t *config)
{
	int rank = -1, nranks = 0;
	int (*get)(ncclComm_t, int *);

	gt_nccl_self.init_comm = 0;
	if ((res != ncclSuccess && res != ncclInProgress) || !newcomm || !*newcomm) {
		c->comm = 0;                /* an error, or NCCL_SPLIT_NOCOLOR */
		plugin_reset();
		return;
	}
	if (res == ncclSuccess) {
		*(void **)&get = gt_nccl_sym("ncclCommUserRank");
		if (!get || get(*newcomm, &rank) != ncclSuccess)
			rank = -1;
		*(void **)&get = gt_nccl_sym("ncclCommCount");
		if (!get || get(*newcomm, &nranks) != ncclSuccess)
			nranks = 0;
	}
	c->count = nranks > 0 ? (uint64_t)nranks : 0;
	c->peer = rank >= 0 ? (uint32_t)rank + 1 : 0;
	made(c, *newcomm, GT_NCCL_SPLIT, config, rank, nranks);
	plugin_reset();
}

void gt_nccl_comm_pre(struct gt_nccl_call *c, ncclComm_t comm)
{
	c->comm = gt_nccl_comm_id(comm);
}

void gt_nccl_comm_gone(struct gt_nccl_call *c, ncclResult_t res,
		       ncclComm_t comm)
{
	(void)c;
	if (res == ncclSuccess)
		gt_nccl_comm_forget(comm);
}
