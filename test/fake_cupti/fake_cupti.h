/* SPDX-License-Identifier: MIT */
/*
 * fake_cupti.h - what a test workload tells the fake libcupti
 * (test/fake_cupti/fakecupti.c): the GPU work the next CUDA call makes.
 *
 * The fake stands where CUPTI stands: a workload brackets each CUDA call
 * with fake_cupti_begin() and fake_cupti_end(); in between, the tracer's
 * wrapper pushes and pops its external correlation id into the fake, as
 * it would into CUPTI.  At fake_cupti_end() the fake writes the records
 * real CUPTI would (for the kinds enabled): the external correlation
 * record, the driver API record spanning the push and pop, the runtime
 * API record spanning begin to end (with FAKE_CUPTI_RUNTIME=1, kernels
 * then carry the runtime call's correlation id, as with cudart), and the
 * GPU record, which starts FAKE_CUPTI_QUEUE_NS after the pop.  As in
 * CUPTI, what is recorded depends on the kinds enabled when the call
 * starts (the push, else fake_cupti_begin).
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
 *   FAKE_CUPTI_LATE_API=1       API records reach the client one flush
 *                               after the GPU records
 *   FAKE_CUPTI_NO_KERNELS=1     kernel records never come (kernels that
 *                               never finish, as far as CUPTI tells)
 *   FAKE_CUPTI_COUNTS=PATH      at exit, "name value" lines: what the
 *                               fake recorded and was asked
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
