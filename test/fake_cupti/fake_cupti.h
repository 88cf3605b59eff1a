/* SPDX-License-Identifier: MIT */
/*
 * fake_cupti.h - what a test workload tells the fake libcupti
 * (test/fake_cupti/fakecupti.c): the GPU work the next CUDA call makes.
 *
 * The fake stands where CUPTI stands: it hooks into the fake driver
 * (fake_driver_set_tool) to see every driver call's entry and exit, gives
 * each a correlation id and calls the subscriber's API callback when the
 * driver domain is enabled.  A workload brackets each CUDA call with
 * fake_cupti_begin() and fake_cupti_end(), which stand for the runtime
 * call around it (with FAKE_CUPTI_RUNTIME=1 they get their own id and
 * runtime-domain callbacks, and kernels then carry the runtime call's id,
 * as with cudart).  At fake_cupti_end() the fake writes the GPU record
 * real CUPTI would for the kinds enabled at the driver call's entry; it
 * starts FAKE_CUPTI_QUEUE_NS after the driver call returned.
 *
 * Settings (environment, read at load):
 *   FAKE_CUPTI_TAKEN=1          cuptiSubscribe says another subscriber
 *   FAKE_CUPTI_QUEUE_NS         GPU start after the driver call (20000)
 *   FAKE_CUPTI_KERNEL_NS        each kernel's GPU time (10000)
 *   FAKE_CUPTI_COPY_NS          each copy's and memset's GPU time (5000)
 *   FAKE_CUPTI_OFFSET_NS        CUPTI's clock minus CLOCK_MONOTONIC at load
 *   FAKE_CUPTI_DRIFT_PPM        and how fast it runs ahead (0)
 *   FAKE_CUPTI_DROPPED          records cuptiActivityGetNumDroppedRecords
 *                               reports (once)
 *   FAKE_CUPTI_RUNTIME=1        kernels correlate with the runtime call
 *   FAKE_CUPTI_NO_NAMES=1       cuptiGetCallbackName names nothing
 *   FAKE_CUPTI_NO_KERNELS=1     kernel records never come (kernels that
 *                               never finish, as far as CUPTI tells)
 *   FAKE_CUPTI_COUNTS=PATH      at exit, "name value" lines: what the
 *                               fake recorded and was asked
 *   FAKE_CUPTI_SWITCH_US        each cuptiActivityEnable and Disable
 *                               takes this long (0)
 *   FAKE_CUPTI_ATTACH_US        each cuptiSubscribe takes this long (0)
 *   FAKE_CUPTI_ATTACH_HOLDS     1: other threads' driver calls wait until
 *                               a cuptiSubscribe is done (0)
 *   FAKE_CUPTI_FLUSH_STALL_MS   the first flush stalls this long (0)
 */
#ifndef GT_TEST_FAKE_CUPTI_H
#define GT_TEST_FAKE_CUPTI_H

#include <stdint.h>

enum fake_gpu_kind {
	FAKE_GPU_NONE = 0,          /* a call with no GPU work */
	FAKE_GPU_KERNEL = 1,
	FAKE_GPU_MEMCPY = 2,
	FAKE_GPU_MEMSET = 3,
	FAKE_GPU_SYNC = 4,
};

struct fake_gpu_op {
	enum fake_gpu_kind kind;
	const char *name;           /* kernels: the symbol */
	int grid[3], block[3];
	uint64_t bytes;
	uint8_t copy_kind, src_kind, dst_kind;  /* CUPTI's enums */
};

void fake_cupti_begin(const struct fake_gpu_op *op);
void fake_cupti_end(void);

#endif /* GT_TEST_FAKE_CUPTI_H */
