/* SPDX-License-Identifier: MIT */
/*
 * nccl_profiler_abi.h - the binary interface of NCCL's profiler plugins,
 * versions 1 (NCCL 2.23) to 6 (2.29), as far as gputrace uses it.
 *
 * NCCL dlopens the library NCCL_PROFILER_PLUGIN names and looks for the
 * symbols ncclProfiler_v6 ... ncclProfiler_v1, newest first; each is a
 * struct of a name and five functions.  The toolkit does not install the
 * plugin headers, so the layouts are written here from NCCL's public
 * ext-profiler interface; only the event fields read are named, and the
 * offsets are checked below against the published layouts.
 *
 * Versions differ in init()'s arguments (v4 and up pass the communicator),
 * in the descriptor's `type` width (uint64_t from v5) and in the coll/p2p
 * fields (v1 passes enums, later versions strings).  Kernel-channel events
 * carry GPU timestamps from v4.
 */
#ifndef GPUTRACE_PRELOAD_NCCL_PROFILER_ABI_H
#define GPUTRACE_PRELOAD_NCCL_PROFILER_ABI_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Event types (eActivationMask bits and descriptor types). */
enum {
	GT_NCCLP_GROUP = 1 << 0,
	GT_NCCLP_COLL = 1 << 1,
	GT_NCCLP_P2P = 1 << 2,
	GT_NCCLP_PROXY_OP = 1 << 3,
	GT_NCCLP_PROXY_STEP = 1 << 4,
	GT_NCCLP_PROXY_CTRL = 1 << 5,
	GT_NCCLP_KERNEL_CH = 1 << 6,        /* v3; GPU timers from v4 */
	GT_NCCLP_NET = 1 << 7,
	GT_NCCLP_GROUP_API = 1 << 8,        /* v5 */
	GT_NCCLP_COLL_API = 1 << 9,         /* v5 */
	GT_NCCLP_P2P_API = 1 << 10,         /* v5 */
	GT_NCCLP_KERNEL_LAUNCH = 1 << 11,   /* v5 */
};

/* recordEventState states used here. */
#define GT_NCCLP_STATE_KERNEL_CH_STOP 22

typedef int gt_ncclp_result;            /* ncclResult_t; 0 = success */
typedef void (*gt_ncclp_logger)(int level, unsigned long flags,
				const char *file, int line, const char *fmt, ...);

/* ---- descriptors ---- */

/* v1: enums instead of strings. */
struct gt_ncclp_coll_v1 {
	const char *name;
	uint64_t comm_hash;
	uint64_t seq;
	uint8_t func;
	const void *send_buff;
	void *recv_buff;
	size_t count;
	int root;
	uint8_t datatype;
	uint32_t op;
	size_t traffic_bytes;
	uint8_t max_channels;
	uint8_t warps;
	uint8_t algo;
	uint8_t proto;
	int is_collnet;
	int is_nvls;
};

struct gt_ncclp_p2p_v1 {
	const char *name;
	uint64_t comm_hash;
	uint8_t func;
	void *buff;
	uint8_t datatype;
	size_t count;
	int peer;
};

/* v2 and v3 (v3 dropped traffic_bytes). */
struct gt_ncclp_coll_v2 {
	const char *name;
	uint64_t comm_hash;
	uint64_t seq;
	const char *func;
	const void *send_buff;
	void *recv_buff;
	size_t count;
	int root;
	const char *datatype;
	size_t traffic_bytes;
	uint8_t max_channels;
	uint8_t warps;
	const char *algo;
	const char *proto;
};

struct gt_ncclp_coll_v3 {
	const char *name;
	uint64_t comm_hash;
	uint64_t seq;
	const char *func;
	const void *send_buff;
	void *recv_buff;
	size_t count;
	int root;
	const char *datatype;
	uint8_t max_channels;
	uint8_t warps;
	const char *algo;
	const char *proto;
};

struct gt_ncclp_p2p_v2 {                /* v2 and v3 */
	const char *name;
	uint64_t comm_hash;
	const char *func;
	void *buff;
	const char *datatype;
	size_t count;
	int peer;
};

/* v4 to v6 (v5 appended parent_group to both). */
struct gt_ncclp_coll_v4 {
	uint64_t seq;
	const char *func;
	const void *send_buff;
	void *recv_buff;
	size_t count;
	int root;
	const char *datatype;
	uint8_t channels;
	uint8_t warps;
	const char *algo;
	const char *proto;
	void *parent_group;             /* v5 and up */
};

struct gt_ncclp_p2p_v4 {
	const char *func;
	void *buff;
	const char *datatype;
	size_t count;
	int peer;
	uint8_t channels;
	void *parent_group;             /* v5 and up */
};

struct gt_ncclp_kernel_ch {             /* v4 and up */
	uint8_t channel;
	uint64_t ptimer;                /* GPU globaltimer at the start */
};

/* The union is as large as NCCL's in every version; only its start is
 * read, so the members not used here are left out. */
#define GT_NCCLP_DESCR(name, type_t, ...)                                    \
	struct name {                                                        \
		type_t type;                                                 \
		void *parent;                                                \
		int rank;                                                    \
		union { __VA_ARGS__ };                                       \
	}

GT_NCCLP_DESCR(gt_ncclp_descr_v1, uint8_t,
	       struct gt_ncclp_coll_v1 coll; struct gt_ncclp_p2p_v1 p2p;);
GT_NCCLP_DESCR(gt_ncclp_descr_v2, uint8_t,
	       struct gt_ncclp_coll_v2 coll; struct gt_ncclp_p2p_v2 p2p;);
GT_NCCLP_DESCR(gt_ncclp_descr_v3, uint8_t,
	       struct gt_ncclp_coll_v3 coll; struct gt_ncclp_p2p_v2 p2p;);
GT_NCCLP_DESCR(gt_ncclp_descr_v4, uint8_t,
	       struct gt_ncclp_coll_v4 coll; struct gt_ncclp_p2p_v4 p2p;
	       struct gt_ncclp_kernel_ch kernel_ch;);
GT_NCCLP_DESCR(gt_ncclp_descr_v5, uint64_t,       /* v6 too */
	       struct gt_ncclp_coll_v4 coll; struct gt_ncclp_p2p_v4 p2p;
	       struct gt_ncclp_kernel_ch kernel_ch;);

/* recordEventState's arguments: a union whose kernel-channel member (v4
 * and up) is one uint64_t at its start. */
union gt_ncclp_state_args {
	struct {
		uint64_t ptimer;        /* GPU globaltimer at the stop */
	} kernel_ch;
	uint64_t pad[2];
};

/* ---- the plugin structs ---- */

#define GT_NCCLP_COMMON_FNS                                                  \
	gt_ncclp_result (*start_event)(void *ctx, void **handle, void *descr); \
	gt_ncclp_result (*stop_event)(void *handle);                         \
	gt_ncclp_result (*record_state)(void *handle, int state,             \
					union gt_ncclp_state_args *args);    \
	gt_ncclp_result (*finalize)(void *ctx)

struct gt_ncclp_v1 {                    /* v1, v2, v3 */
	const char *name;
	gt_ncclp_result (*init)(void **ctx, int *mask);
	GT_NCCLP_COMMON_FNS;
};

struct gt_ncclp_v4 {
	const char *name;
	gt_ncclp_result (*init)(void **ctx, int *mask, const char *comm_name,
				uint64_t comm_hash, int nnodes, int nranks,
				int rank, gt_ncclp_logger log);
	GT_NCCLP_COMMON_FNS;
};

struct gt_ncclp_v5 {                    /* v5, v6 */
	const char *name;
	gt_ncclp_result (*init)(void **ctx, uint64_t comm_id, int *mask,
				const char *comm_name, int nnodes, int nranks,
				int rank, gt_ncclp_logger log);
	GT_NCCLP_COMMON_FNS;
};

/* The published layouts (x86-64 and aarch64 LP64). */
_Static_assert(offsetof(struct gt_ncclp_descr_v1, coll) == 24, "v1 union");
_Static_assert(offsetof(struct gt_ncclp_coll_v1, func) == 24, "v1 func");
_Static_assert(offsetof(struct gt_ncclp_coll_v1, datatype) == 60, "v1 dtype");
_Static_assert(offsetof(struct gt_ncclp_coll_v1, algo) == 82, "v1 algo");
_Static_assert(offsetof(struct gt_ncclp_p2p_v1, peer) == 48, "v1 peer");
_Static_assert(offsetof(struct gt_ncclp_coll_v2, algo) == 88, "v2 algo");
_Static_assert(offsetof(struct gt_ncclp_coll_v3, algo) == 80, "v3 algo");
_Static_assert(offsetof(struct gt_ncclp_p2p_v2, peer) == 48, "v2 peer");
_Static_assert(offsetof(struct gt_ncclp_descr_v4, coll) == 24, "v4 union");
_Static_assert(offsetof(struct gt_ncclp_coll_v4, channels) == 56, "v4 chans");
_Static_assert(offsetof(struct gt_ncclp_coll_v4, proto) == 72, "v4 proto");
_Static_assert(offsetof(struct gt_ncclp_p2p_v4, channels) == 36, "v4 p2p");
_Static_assert(offsetof(struct gt_ncclp_kernel_ch, ptimer) == 8, "ptimer");
_Static_assert(offsetof(struct gt_ncclp_descr_v5, coll) == 24, "v5 union");

#endif /* GPUTRACE_PRELOAD_NCCL_PROFILER_ABI_H */
