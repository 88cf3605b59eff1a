/* SPDX-License-Identifier: MIT */
/*
 * w_copies.c - every copy and memset entry point once, the cudart way, each
 * with its own byte count, so that a test can check the api, direction,
 * async flag and bytes the tracer gives each one.
 *
 *   w_copies [--ptsz]
 *
 * The sizes are in test/t/130-copies.t too; change both together.
 */
#include "test/fake/workload.h"

#define ARRAY(p) ((CUarray)(uintptr_t)(p))

static struct wl_driver drv;
static CUcontext ctx;
static CUstream stream;
static CUdeviceptr d1, d2;
static unsigned char *h1, *h2;

#define CALL(type, name, version, ...)                                     \
	WL_CK(((type)wl_lookup(&drv, name, version, 1))(__VA_ARGS__))

static void setup(void)
{
	PFN_cuDeviceGet_v2000 get;
	PFN_cuDevicePrimaryCtxRetain_v7000 retain;
	PFN_cuCtxSetCurrent_v4000 set;
	PFN_cuMemAlloc_v3020 alloc;
	PFN_cuStreamCreate_v2000 create;
	CUdevice dev;

	get = (PFN_cuDeviceGet_v2000)wl_lookup(&drv, "cuDeviceGet", 2000, 0);
	retain = (PFN_cuDevicePrimaryCtxRetain_v7000)wl_lookup(
		&drv, "cuDevicePrimaryCtxRetain", 7000, 0);
	set = (PFN_cuCtxSetCurrent_v4000)wl_lookup(&drv, "cuCtxSetCurrent",
						   4000, 0);
	alloc = (PFN_cuMemAlloc_v3020)wl_lookup(&drv, "cuMemAlloc", 3020, 0);
	create = (PFN_cuStreamCreate_v2000)wl_lookup(&drv, "cuStreamCreate",
						     2000, 0);
	WL_CK(get(&dev, 0));
	WL_CK(retain(&ctx, dev));
	WL_CK(set(ctx));
	WL_CK(alloc(&d1, WL_BUF_BYTES));
	WL_CK(alloc(&d2, WL_BUF_BYTES));
	WL_CK(create(&stream, 0));
	h1 = calloc(1, WL_BUF_BYTES);
	h2 = calloc(1, WL_BUF_BYTES);
	if (!h1 || !h2)
		exit(WL_EXIT_FAIL);
	memset(h1, 0x11, WL_BUF_BYTES);
}

/* 1D copies: 101..117 bytes. */
static void copies_1d(void)
{
	CALL(PFN_cuMemcpyHtoD_v3020, "cuMemcpyHtoD", 3020, d1, h1, 101);
	CALL(PFN_cuMemcpyDtoH_v3020, "cuMemcpyDtoH", 3020, h2, d1, 102);
	if (memcmp(h1, h2, 101)) {
		fprintf(stderr, "HtoD then DtoH: wrong data\n");
		exit(WL_EXIT_DATA);
	}
	CALL(PFN_cuMemcpyDtoD_v3020, "cuMemcpyDtoD", 3020, d2, d1, 103);
	CALL(PFN_cuMemcpyHtoA_v3020, "cuMemcpyHtoA", 3020, ARRAY(d2), 16, h1,
	     104);
	CALL(PFN_cuMemcpyAtoH_v3020, "cuMemcpyAtoH", 3020, h2, ARRAY(d2), 16,
	     105);
	CALL(PFN_cuMemcpyDtoA_v3020, "cuMemcpyDtoA", 3020, ARRAY(d2), 0, d1,
	     106);
	CALL(PFN_cuMemcpyAtoD_v3020, "cuMemcpyAtoD", 3020, d1, ARRAY(d2), 0,
	     107);
	CALL(PFN_cuMemcpyAtoA_v3020, "cuMemcpyAtoA", 3020, ARRAY(d2), 1024,
	     ARRAY(d1), 0, 108);
	CALL(PFN_cuMemcpyHtoDAsync_v3020, "cuMemcpyHtoDAsync", 3020, d1, h1,
	     109, stream);
	CALL(PFN_cuMemcpyDtoHAsync_v3020, "cuMemcpyDtoHAsync", 3020, h2, d1,
	     110, stream);
	CALL(PFN_cuMemcpyDtoDAsync_v3020, "cuMemcpyDtoDAsync", 3020, d2, d1,
	     111, stream);
	CALL(PFN_cuMemcpyHtoAAsync_v3020, "cuMemcpyHtoAAsync", 3020,
	     ARRAY(d2), 0, h1, 112, stream);
	CALL(PFN_cuMemcpyAtoHAsync_v3020, "cuMemcpyAtoHAsync", 3020, h2,
	     ARRAY(d2), 0, 113, stream);
	CALL(PFN_cuMemcpy_v4000, "cuMemcpy", 4000, d2, d1, 114);
	CALL(PFN_cuMemcpyAsync_v4000, "cuMemcpyAsync", 4000, d2, d1, 115,
	     stream);
	CALL(PFN_cuMemcpyPeer_v4000, "cuMemcpyPeer", 4000, d2, ctx, d1, ctx,
	     116);
	CALL(PFN_cuMemcpyPeerAsync_v4000, "cuMemcpyPeerAsync", 4000, d2, ctx,
	     d1, ctx, 117, stream);
}

/* 2D and 3D copies: 120..126 bytes. */
static void copies_nd(void)
{
	CUDA_MEMCPY2D c2 = {
		.srcMemoryType = CU_MEMORYTYPE_HOST, .srcHost = h1,
		.srcPitch = 10,
		.dstMemoryType = CU_MEMORYTYPE_DEVICE, .dstDevice = d1,
		.dstPitch = 64, .WidthInBytes = 10, .Height = 12,
	};
	CUDA_MEMCPY3D c3 = {
		.srcMemoryType = CU_MEMORYTYPE_HOST, .srcHost = h1,
		.srcPitch = 41, .srcHeight = 3,
		.dstMemoryType = CU_MEMORYTYPE_DEVICE, .dstDevice = d1,
		.dstPitch = 64, .dstHeight = 3,
		.WidthInBytes = 41, .Height = 3, .Depth = 1,
	};
	CUDA_MEMCPY3D_PEER cp = {
		.srcMemoryType = CU_MEMORYTYPE_DEVICE, .srcDevice = d1,
		.srcContext = ctx, .srcPitch = 5, .srcHeight = 5,
		.dstMemoryType = CU_MEMORYTYPE_DEVICE, .dstDevice = d2,
		.dstContext = ctx, .dstPitch = 5, .dstHeight = 5,
		.WidthInBytes = 5, .Height = 5, .Depth = 5,
	};

	CALL(PFN_cuMemcpy2D_v3020, "cuMemcpy2D", 3020, &c2);
	c2 = (CUDA_MEMCPY2D){
		.srcMemoryType = CU_MEMORYTYPE_DEVICE, .srcDevice = d1,
		.srcPitch = 11,
		.dstMemoryType = CU_MEMORYTYPE_HOST, .dstHost = h2,
		.dstPitch = 11, .WidthInBytes = 11, .Height = 11,
	};
	CALL(PFN_cuMemcpy2DUnaligned_v3020, "cuMemcpy2DUnaligned", 3020, &c2);
	c2 = (CUDA_MEMCPY2D){
		.srcMemoryType = CU_MEMORYTYPE_DEVICE, .srcDevice = d1,
		.srcPitch = 61,
		.dstMemoryType = CU_MEMORYTYPE_DEVICE, .dstDevice = d2,
		.dstPitch = 128, .WidthInBytes = 61, .Height = 2,
	};
	CALL(PFN_cuMemcpy2DAsync_v3020, "cuMemcpy2DAsync", 3020, &c2, stream);

	CALL(PFN_cuMemcpy3D_v3020, "cuMemcpy3D", 3020, &c3);
	c3 = (CUDA_MEMCPY3D){
		.srcMemoryType = CU_MEMORYTYPE_DEVICE, .srcDevice = d1,
		.srcPitch = 31, .srcHeight = 2,
		.dstMemoryType = CU_MEMORYTYPE_HOST, .dstHost = h2,
		.dstPitch = 31, .dstHeight = 2,
		.WidthInBytes = 31, .Height = 2, .Depth = 2,
	};
	CALL(PFN_cuMemcpy3DAsync_v3020, "cuMemcpy3DAsync", 3020, &c3, stream);

	CALL(PFN_cuMemcpy3DPeer_v4000, "cuMemcpy3DPeer", 4000, &cp);
	cp.WidthInBytes = 63;
	cp.srcPitch = cp.dstPitch = 63;
	cp.Height = 2;
	cp.srcHeight = cp.dstHeight = 2;
	cp.Depth = 1;
	CALL(PFN_cuMemcpy3DPeerAsync_v4000, "cuMemcpy3DPeerAsync", 4000, &cp,
	     stream);
}

/* Both batch versions: 40 + 41 + 46 = 127 bytes, then 64 + 64 = 128. */
static void copies_batch(void)
{
	CUdeviceptr dsts[3] = { d2, d2 + 512, d2 + 1024 };
	CUdeviceptr srcs[3] = { d1, d1 + 512, d1 + 1024 };
	size_t sizes[3] = { 40, 41, 46 }, idx = 0, fail = 0;
	CUmemcpyAttributes attr;

	memset(&attr, 0, sizeof(attr));
	attr.srcAccessOrder = CU_MEMCPY_SRC_ACCESS_ORDER_STREAM;
	CALL(PFN_cuMemcpyBatchAsync_v12080, "cuMemcpyBatchAsync", 12080, dsts,
	     srcs, sizes, 3, &attr, &idx, 1, &fail, stream);
	sizes[0] = sizes[1] = 64;
	CALL(PFN_cuMemcpyBatchAsync_v13000, "cuMemcpyBatchAsync", 13000, dsts,
	     srcs, sizes, 2, &attr, &idx, 1, stream);
}

/* Sync memsets: 200, 202, 204, 30, 60, 120 bytes. */
static void memsets_sync(void)
{
	CALL(PFN_cuMemsetD8_v3020, "cuMemsetD8", 3020, d1, 1, 200);
	CALL(PFN_cuMemsetD16_v3020, "cuMemsetD16", 3020, d1, 2, 101);
	CALL(PFN_cuMemsetD32_v3020, "cuMemsetD32", 3020, d1, 3u, 51);
	CALL(PFN_cuMemsetD2D8_v3020, "cuMemsetD2D8", 3020, d1, 64, 4, 10, 3);
	CALL(PFN_cuMemsetD2D16_v3020, "cuMemsetD2D16", 3020, d1, 64, 5, 10, 3);
	CALL(PFN_cuMemsetD2D32_v3020, "cuMemsetD2D32", 3020, d1, 64, 6u, 10,
	     3);
}

/* Async memsets: 205, 206, 208, 33, 66, 132 bytes. */
static void memsets_async(void)
{
	CALL(PFN_cuMemsetD8Async_v3020, "cuMemsetD8Async", 3020, d1, 1, 205,
	     stream);
	CALL(PFN_cuMemsetD16Async_v3020, "cuMemsetD16Async", 3020, d1, 2, 103,
	     stream);
	CALL(PFN_cuMemsetD32Async_v3020, "cuMemsetD32Async", 3020, d1, 3u, 52,
	     stream);
	CALL(PFN_cuMemsetD2D8Async_v3020, "cuMemsetD2D8Async", 3020, d1, 64, 4,
	     11, 3, stream);
	CALL(PFN_cuMemsetD2D16Async_v3020, "cuMemsetD2D16Async", 3020, d1, 64,
	     5, 11, 3, stream);
	CALL(PFN_cuMemsetD2D32Async_v3020, "cuMemsetD2D32Async", 3020, d1, 64,
	     6u, 11, 3, stream);
}

int main(int argc, char **argv)
{
	int ptsz = argc > 1 && !strcmp(argv[1], "--ptsz");

	wl_open(&drv, 0, ptsz);
	setup();
	copies_1d();
	copies_nd();
	copies_batch();
	memsets_sync();
	memsets_async();
	return 0;
}
