/* SPDX-License-Identifier: MIT */
/*
 * w_nccl.c - a workload linked with -lnccl (the fake libnccl.so.2) and
 * -lcuda (the fake driver), as PyTorch's libtorch_cuda.so is: three
 * communicators (ncclCommInitRank, ncclCommInitRankConfig named "grads",
 * ncclCommSplit of the first), ITERS rounds of known collectives and a
 * group of point-to-point calls, then the rarer calls once, two
 * communicators from ncclCommInitAll, and the teardown.
 *
 *   w_nccl [ITERS]
 *   w_nccl --threads T ITERS   T threads, each with a communicator of
 *                              its own, ITERS ncclAllReduce of
 *                              THREAD_COUNT floats each, at once
 *
 * The sizes below are written in test/t/300-nccl.t too: change both.
 * It prints "truth" lines with what NCCL says of each communicator.
 */
#include <cuda.h>
#include <nccl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define AR_COUNT 1000           /* ncclAllReduce, float, comm 1 */
#define BC_COUNT 256            /* ncclBroadcast, int32, comm 1, root 2 */
#define RED_COUNT 100           /* ncclReduce, double, comm 2, root 1, max */
#define AG_COUNT 300            /* ncclAllGather, half, comm 1 */
#define RS_COUNT 50             /* ncclReduceScatter, int64, comm 3, prod */
#define SEND_COUNT 64           /* ncclSend uint8 to 0, comm 1 */
#define RECV_COUNT 96           /* ncclRecv uint8 from 2, comm 1 */
#define SEND2_COUNT 10          /* ncclSend bfloat16 to 1, comm 2 */
#define BCAST_COUNT 77          /* ncclBcast, float, comm 2, root 0: once */
#define A2A_COUNT 20            /* ncclAlltoAll, float, comm 1: once */
#define GATHER_COUNT 8          /* ncclGather / ncclScatter, int32, comm 1 */
#define ALL_COUNT 16            /* ncclAllReduce on ncclCommInitAll's second */
#define THREAD_COUNT 512        /* --threads: ncclAllReduce, float */

#define CK(call)                                                             \
	do {                                                                 \
		int rc_ = (int)(call);                                       \
		if (rc_) {                                                   \
			fprintf(stderr, "%s:%d: %s failed: %d\n", __FILE__,  \
				__LINE__, #call, rc_);                       \
			exit(90);                                            \
		}                                                            \
	} while (0)

static void truth(const char *what, ncclComm_t c)
{
	int rank = -1, n = 0, dev = -1;

	CK(ncclCommUserRank(c, &rank));
	CK(ncclCommCount(c, &n));
	CK(ncclCommCuDevice(c, &dev));
	printf("truth comm=%s rank=%d nranks=%d device=%d\n", what, rank, n, dev);
}

static void round_of(ncclComm_t c1, ncclComm_t c2, ncclComm_t c3, cudaStream_t s1,
		     cudaStream_t s2)
{
	CK(ncclAllReduce(NULL, NULL, AR_COUNT, ncclFloat32, ncclSum, c1, s1));
	CK(ncclBroadcast(NULL, NULL, BC_COUNT, ncclInt32, 2, c1, s1));
	CK(ncclReduce(NULL, NULL, RED_COUNT, ncclFloat64, ncclMax, 1, c2, s2));
	CK(ncclAllGather(NULL, NULL, AG_COUNT, ncclFloat16, c1, s1));
	CK(ncclReduceScatter(NULL, NULL, RS_COUNT, ncclInt64, ncclProd, c3, s2));
	CK(ncclGroupStart());
	CK(ncclSend(NULL, SEND_COUNT, ncclUint8, 0, c1, s1));
	CK(ncclRecv(NULL, RECV_COUNT, ncclUint8, 2, c1, s1));
	CK(ncclSend(NULL, SEND2_COUNT, ncclBfloat16, 1, c2, s2));
	CK(ncclGroupEnd());
}

static void init_all(cudaStream_t s)
{
	ncclComm_t comms[2];
	int devs[2] = { 0, 1 };

	CK(ncclCommInitAll(comms, 2, devs));
	CK(ncclAllReduce(NULL, NULL, ALL_COUNT, ncclFloat32, ncclSum, comms[1], s));
	CK(ncclCommDestroy(comms[0]));
	CK(ncclCommDestroy(comms[1]));
}

static long thread_iters;

static void *thread_main(void *arg)
{
	ncclUniqueId id;
	ncclComm_t c;
	int rank = (int)(long)arg;

	CK(ncclGetUniqueId(&id));
	CK(ncclCommInitRank(&c, 8, id, rank));
	for (long i = 0; i < thread_iters; i++)
		CK(ncclAllReduce(NULL, NULL, THREAD_COUNT, ncclFloat32, ncclSum, c, NULL));
	CK(ncclCommDestroy(c));
	return NULL;
}

static int threads(int n, long iters)
{
	pthread_t t[64];

	thread_iters = iters;
	for (long i = 0; i < n && i < 64; i++)
		if (pthread_create(&t[i], NULL, thread_main, (void *)i))
			return 90;
	for (int i = 0; i < n && i < 64; i++)
		pthread_join(t[i], NULL);
	printf("truth threads=%d iters=%ld\n", n, iters);
	return 0;
}

int main(int argc, char **argv)
{
	long iters = argc > 1 ? strtol(argv[1], NULL, 10) : 5;
	ncclComm_t c1, c2, c3;
	ncclUniqueId id1, id2;
	ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
	CUcontext ctx;
	CUdevice dev;
	CUstream s1, s2;

	if (argc > 3 && !strcmp(argv[1], "--threads"))
		return threads(atoi(argv[2]), strtol(argv[3], NULL, 10));
	CK(cuInit(0));
	CK(cuDeviceGet(&dev, 0));
	CK(cuDevicePrimaryCtxRetain(&ctx, dev));
	CK(cuCtxSetCurrent(ctx));
	CK(cuStreamCreate(&s1, 0));
	CK(cuStreamCreate(&s2, 0));

	CK(ncclGetUniqueId(&id1));
	CK(ncclGetUniqueId(&id2));
	CK(ncclCommInitRank(&c1, 4, id1, 1));
	config.commName = "grads";
	CK(ncclCommInitRankConfig(&c2, 2, id2, 0, &config));
	CK(ncclCommSplit(c1, 3, 0, &c3, NULL));
	truth("world", c1);
	truth("grads", c2);
	truth("split", c3);

	for (long i = 0; i < iters; i++)
		round_of(c1, c2, c3, (cudaStream_t)s1, (cudaStream_t)s2);
	CK(ncclBcast(NULL, BCAST_COUNT, ncclFloat32, 0, c2, (cudaStream_t)s2));
	CK(ncclAlltoAll(NULL, NULL, A2A_COUNT, ncclFloat32, c1, (cudaStream_t)s1));
	CK(ncclGather(NULL, NULL, GATHER_COUNT, ncclInt32, 3, c1, (cudaStream_t)s1));
	CK(ncclScatter(NULL, NULL, GATHER_COUNT, ncclInt32, 0, c1, (cudaStream_t)s1));
	init_all((cudaStream_t)s1);

	CK(ncclCommDestroy(c3));
	CK(ncclCommDestroy(c2));
	CK(ncclCommAbort(c1));
	CK(cuStreamDestroy(s1));
	CK(cuStreamDestroy(s2));
	printf("truth iters=%ld\n", iters);
	return 0;
}
