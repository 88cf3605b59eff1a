/* SPDX-License-Identifier: MIT */
/*
 * fake_nccl.h - internals of the fake libnccl.so.2 (test/fake_nccl/):
 * communicators, the queued work of a group, settings read from
 * FAKE_NCCL_* at load, and the profiler plugin driver (fake_prof.c).
 *
 * Like the real library, every call is a weak ncclX with a strong alias
 * pncclX, and ncclBcast calls ncclBroadcast through the public symbol.
 * Nothing is communicated: each call only takes the time it is told to.
 */
#ifndef GT_TEST_FAKE_NCCL_H
#define GT_TEST_FAKE_NCCL_H

#include <nccl.h>
#include <stdint.h>

#define FN_HIDDEN __attribute__((visibility("hidden")))

struct ncclComm {
	int magic;
	int rank, nranks, device;
	uint64_t hash;              /* what the plugin is told: NCCL's commHash */
	void *prof_ctx;             /* the plugin's context for it */
	uint64_t seq;               /* collectives so far */
};
#define FAKE_COMM_MAGIC 0x6e63636c

/* One collective or point-to-point operation, as NCCL plans it. */
struct fake_task {
	int p2p;
	const char *func;           /* "AllReduce", "Send"... */
	size_t count;
	ncclDataType_t datatype;
	int root;                   /* root or peer, -1 none */
	struct ncclComm *comm;
};

struct fake_nccl_settings {
	uint64_t call_ns;           /* FAKE_NCCL_CALL_NS: host time per call */
	uint64_t gpu_ns;            /* FAKE_NCCL_GPU_NS: each channel's kernel */
	int channels;               /* FAKE_NCCL_CHANNELS: per collective */
	int prof_max;               /* FAKE_NCCL_PROFILER_MAX: newest plugin
	                               version this "NCCL" knows */
};

extern struct fake_nccl_settings fn_cfg FN_HIDDEN;

/* Count a call of the named API (the truth the tests compare with). */
FN_HIDDEN void fn_count(const char *api);
FN_HIDDEN void fn_spin(uint64_t ns);

/* ---- the profiler plugin driver (fake_prof.c) ---- */

/* Load the plugin (once) and init it for comm; name may be NULL. */
FN_HIDDEN void fp_comm_init(struct ncclComm *comm, const char *name);
/* Report a launched batch of tasks: start, stop, then kernel channels. */
FN_HIDDEN void fp_launch(const struct fake_task *tasks, int n);
/* Wait until the proxy thread has reported every kernel channel. */
FN_HIDDEN void fp_flush(void);
FN_HIDDEN void fp_comm_fini(struct ncclComm *comm);

#endif /* GT_TEST_FAKE_NCCL_H */
