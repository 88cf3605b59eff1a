/* SPDX-License-Identifier: MIT */
/*
 * nccl_profiler.c - libgputrace.so as NCCL's profiler plugin (NCCL 2.23
 * and later): the ncclProfiler_v6 ... _v1 structs NCCL looks up, newest
 * first, in the library NCCL_PROFILER_PLUGIN names.
 *
 * NCCL dlopens that path; the preloaded library is returned, so the
 * plugin and the interposer are one instance.  We ask for collective and
 * point-to-point events, and from v4 on for kernel-channel events, which
 * carry the GPU timestamps of each channel's part of the kernel.  Every
 * other event type NCCL sends gets a NULL handle.  init() runs once per
 * communicator; when it runs inside one of our ncclCommInit* wrappers on
 * the same thread, the plugin context takes that communicator's id.
 */
#include <stdlib.h>
#include <string.h>

#include "preload/nccl/nccl_comm.h"
#include "preload/nccl/nccl_prof_pool.h"
#include "preload/nccl/nccl_profiler_abi.h"
#include "preload/base/internal.h"
#include "preload/record/writer.h"

#define KERNEL_TAG ((uintptr_t)1)   /* a handle for a kernel-channel event */

struct plugin_ctx {
	uint32_t comm;
	int version;
};

static const char *const v1_funcs[] = { "Broadcast", "Reduce", "AllGather",
	"ReduceScatter", "AllReduce", "SendRecv", "Send", "Recv" };
static const char *const v1_algos[] = { "Tree", "Ring", "CollNetDirect",
	"CollNetChain", "NVLS", "NVLSTree", "PAT" };
static const char *const v1_protos[] = { "LL", "LL128", "Simple" };
static const char *const v1_types[] = { "ncclInt8", "ncclUint8", "ncclInt32",
	"ncclUint32", "ncclInt64", "ncclUint64", "ncclFloat16", "ncclFloat32",
	"ncclFloat64", "ncclBfloat16", "ncclFloat8e4m3", "ncclFloat8e5m2" };

#define PICK(tab, i) ((size_t)(i) < sizeof(tab) / sizeof(tab[0]) ? tab[i] : NULL)

static uint32_t name_id(const char *name)
{
	return name && *name ? gt_writer_string(name, strnlen(name, 256)) : 0;
}

/* One communicator's context: adopt the id of the wrapper making it. */
static gt_ncclp_result ctx_init(void **ctx, int *mask, int version,
				uint64_t hash, const char *name, int nranks,
				int rank)
{
	struct plugin_ctx *c;

	*ctx = NULL;
	*mask = 0;
	if (!atomic_load(&gt_active) || !gt_nccl_plugin_allowed() ||
	    gt_nccl_pev_init() || !(c = calloc(1, sizeof(*c))))
		return 0;                   /* no events, NCCL carries on */
	c->version = version;
	if (gt_nccl_self.init_comm) {
		c->comm = gt_nccl_self.init_comm;
		gt_nccl_self.plugin_hash = hash;
		gt_nccl_self.plugin_name = name_id(name);
		gt_nccl_self.plugin_version = (uint32_t)version;
	} else {
		struct gt_nccl_comm gc = {
			.id = gt_nccl_comm_new_id(), .rank = rank,
			.nranks = nranks, .device = -1, .color = -1,
			.nccl_hash = hash, .name_str = name_id(name),
			.how = GT_NCCL_PLUGIN, .plugin = (uint32_t)version,
		};

		c->comm = gc.id;
		gt_nccl_comm_write(&gc);
	}
	*mask = GT_NCCLP_COLL | GT_NCCLP_P2P |
		(version >= 4 ? GT_NCCLP_KERNEL_CH : 0);
	*ctx = c;
	gt_debug("gputrace: NCCL profiler plugin v%d serves communicator %u\n",
		 version, c->comm);
	return 0;
}

static gt_ncclp_result init_v1(void **ctx, int *mask)
{
	return ctx_init(ctx, mask, 1, 0, NULL, 0, -1);
}

static gt_ncclp_result init_v2(void **ctx, int *mask)
{
	return ctx_init(ctx, mask, 2, 0, NULL, 0, -1);
}

static gt_ncclp_result init_v3(void **ctx, int *mask)
{
	return ctx_init(ctx, mask, 3, 0, NULL, 0, -1);
}

static gt_ncclp_result init_v4(void **ctx, int *mask, const char *name,
			       uint64_t hash, int nnodes, int nranks, int rank,
			       gt_ncclp_logger log)
{
	(void)nnodes, (void)log;
	return ctx_init(ctx, mask, 4, hash, name, nranks, rank);
}

static gt_ncclp_result init_v5(void **ctx, uint64_t id, int *mask,
			       const char *name, int nnodes, int nranks,
			       int rank, gt_ncclp_logger log)
{
	(void)nnodes, (void)log;
	return ctx_init(ctx, mask, 5, id, name, nranks, rank);
}

static gt_ncclp_result init_v6(void **ctx, uint64_t id, int *mask,
			       const char *name, int nnodes, int nranks,
			       int rank, gt_ncclp_logger log)
{
	(void)nnodes, (void)log;
	return ctx_init(ctx, mask, 6, id, name, nranks, rank);
}

static gt_ncclp_result finalize(void *ctx)
{
	free(ctx);
	return 0;
}

/* ---- events ---- */

static void *op_start(const struct plugin_ctx *c, struct gt_nccl_pev_desc *d)
{
	d->comm = c ? c->comm : 0;
	d->kernel_events = c && c->version >= 4;
	return gt_nccl_pev_start(d);
}

static void *channel_start(void *parent, uint64_t ptimer)
{
	if (!parent || ((uintptr_t)parent & KERNEL_TAG))
		return NULL;
	gt_nccl_pev_channel_start(parent, ptimer);
	return (void *)((uintptr_t)parent | KERNEL_TAG);
}

static void *coll_v4(const struct plugin_ctx *c, const struct gt_ncclp_coll_v4 *e)
{
	struct gt_nccl_pev_desc d = {
		.type = GT_NCCL_PROF_COLL, .channels = e->channels,
		.peer = e->root, .count = e->count, .seq = e->seq,
		.func = e->func, .dtype = e->datatype, .algo = e->algo,
		.proto = e->proto,
	};

	return op_start(c, &d);
}

static void *p2p_v4(const struct plugin_ctx *c, const struct gt_ncclp_p2p_v4 *e)
{
	struct gt_nccl_pev_desc d = {
		.type = GT_NCCL_PROF_P2P, .channels = e->channels,
		.peer = e->peer, .count = e->count, .func = e->func,
		.dtype = e->datatype,
	};

	return op_start(c, &d);
}

static gt_ncclp_result start_v5(void *ctx, void **h, void *descr)
{
	const struct gt_ncclp_descr_v5 *e = descr;

	*h = NULL;
	if (e->type == GT_NCCLP_COLL)
		*h = coll_v4(ctx, &e->coll);
	else if (e->type == GT_NCCLP_P2P)
		*h = p2p_v4(ctx, &e->p2p);
	else if (e->type == GT_NCCLP_KERNEL_CH)
		*h = channel_start(e->parent, e->kernel_ch.ptimer);
	return 0;
}

static gt_ncclp_result start_v4(void *ctx, void **h, void *descr)
{
	const struct gt_ncclp_descr_v4 *e = descr;

	*h = NULL;
	if (e->type == GT_NCCLP_COLL)
		*h = coll_v4(ctx, &e->coll);
	else if (e->type == GT_NCCLP_P2P)
		*h = p2p_v4(ctx, &e->p2p);
	else if (e->type == GT_NCCLP_KERNEL_CH)
		*h = channel_start(e->parent, e->kernel_ch.ptimer);
	return 0;
}

/* v2 and v3 differ in the coll layout only. */
static void *p2p_v2(const struct plugin_ctx *c, const struct gt_ncclp_p2p_v2 *e)
{
	struct gt_nccl_pev_desc d = {
		.type = GT_NCCL_PROF_P2P, .peer = e->peer, .count = e->count,
		.func = e->func, .dtype = e->datatype,
	};

	return op_start(c, &d);
}

/* v2 and v3 describe a collective alike, in structs of their own. */
#define START_V2_V3(descr_t)                                                   \
	{                                                                      \
		const descr_t *e = descr;                                      \
		struct gt_nccl_pev_desc d = {                                  \
			.type = GT_NCCL_PROF_COLL, .channels = e->coll.max_channels, \
			.peer = e->coll.root, .count = e->coll.count,          \
			.seq = e->coll.seq, .func = e->coll.func,              \
			.dtype = e->coll.datatype, .algo = e->coll.algo,       \
			.proto = e->coll.proto,                                \
		};                                                             \
		*h = e->type == GT_NCCLP_COLL ? op_start(ctx, &d)              \
		   : e->type == GT_NCCLP_P2P ? p2p_v2(ctx, &e->p2p) : NULL;    \
		return 0;                                                      \
	}

static gt_ncclp_result start_v3(void *ctx, void **h, void *descr)
START_V2_V3(struct gt_ncclp_descr_v3)

static gt_ncclp_result start_v2(void *ctx, void **h, void *descr)
START_V2_V3(struct gt_ncclp_descr_v2)

static gt_ncclp_result start_v1(void *ctx, void **h, void *descr)
{
	const struct gt_ncclp_descr_v1 *e = descr;
	struct gt_nccl_pev_desc d = { .type = GT_NCCL_PROF_COLL };

	*h = NULL;
	if (e->type == GT_NCCLP_COLL) {
		d.channels = e->coll.max_channels;
		d.peer = e->coll.root;
		d.count = e->coll.count;
		d.seq = e->coll.seq;
		d.func = PICK(v1_funcs, e->coll.func);
		d.dtype = PICK(v1_types, e->coll.datatype);
		d.algo = PICK(v1_algos, e->coll.algo);
		d.proto = PICK(v1_protos, e->coll.proto);
	} else if (e->type == GT_NCCLP_P2P) {
		d.type = GT_NCCL_PROF_P2P;
		d.peer = e->p2p.peer;
		d.count = e->p2p.count;
		d.func = PICK(v1_funcs, e->p2p.func);
		d.dtype = PICK(v1_types, e->p2p.datatype);
	} else {
		return 0;
	}
	*h = op_start(ctx, &d);
	return 0;
}

static gt_ncclp_result stop_event(void *h)
{
	if (!h)
		return 0;
	if ((uintptr_t)h & KERNEL_TAG)
		gt_nccl_pev_channel_stop((void *)((uintptr_t)h & ~KERNEL_TAG));
	else
		gt_nccl_pev_stop(h);
	return 0;
}

static gt_ncclp_result record_state(void *h, int state,
				    union gt_ncclp_state_args *args)
{
	if (h && ((uintptr_t)h & KERNEL_TAG) && args &&
	    state == GT_NCCLP_STATE_KERNEL_CH_STOP)
		gt_nccl_pev_channel_time((void *)((uintptr_t)h & ~KERNEL_TAG),
					 args->kernel_ch.ptimer);
	return 0;
}

/* v1 to v3 never send kernel events (they are not asked for), so their
 * record_state only ever sees other types' handles: NULL. */
#define PLUGIN(ver, type, start)                                             \
	GT_EXPORT const struct type ncclProfiler_v##ver = {                  \
		"gputrace", init_v##ver, start, stop_event, record_state,    \
		finalize,                                                    \
	};

PLUGIN(6, gt_ncclp_v5, start_v5)
PLUGIN(5, gt_ncclp_v5, start_v5)
PLUGIN(4, gt_ncclp_v4, start_v4)
PLUGIN(3, gt_ncclp_v1, start_v3)
PLUGIN(2, gt_ncclp_v1, start_v2)
PLUGIN(1, gt_ncclp_v1, start_v1)
