/* SPDX-License-Identifier: MIT */
/*
 * make_big_dump.c - a large, valid, synthetic dump, to measure how fast
 * the analyzer reads (events per second) and that its memory does not
 * grow with the events (check_overhead.py, make bench-analyzer).
 *
 *   make_big_dump OUT EVENTS [THREADS [RANK RANKS]]
 *
 * The mix of a training loop: per thread, 70% launches of 48 kernels in
 * 96 shapes on 4 streams, 10% copies, 10% memsets, 10% stream syncs, a
 * few microseconds apart, in events chunks of up to 64Ki events.  With
 * RANK and RANKS, rank RANK of a job of RANKS (its own pid, a
 * communicator common to the job): the first thread makes one
 * ncclAllReduce in every NCCL_EVERY of its events instead of the mix's,
 * the same in every rank, so that the ranks report matches them all
 * (test/bench/bench_ranks.sh).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "include/gputrace/format.h"
#include "include/gputrace/varint.h"
#include "test/bench/dump_writer.h"

#define KERNELS 48
#define SHAPES 96
#define STREAMS 4
#define CHUNK_EVENTS 65536
#define NCCL_EVERY 100
#define COMM_ID 1

enum { OP_LAUNCH, OP_COPY, OP_SET, OP_SYNC, OP_NCCL, N_OPS };

static int ranked;              /* a rank of a job: NCCL calls */

/* The job's communicator, as this rank's dump has it. */
static void comm(uint32_t rank, uint32_t ranks)
{
	struct gt_nccl_comm c = { .id = COMM_ID, .rank = (int32_t)rank,
				  .nranks = (int32_t)ranks, .device = (int32_t)rank,
				  .color = -1, .uid_hash = 0xfeedfacecafebeefull,
				  .t_ns = 1000000000ull, .how = GT_NCCL_INIT_RANK };

	chunk(GT_CHUNK_NCCL_COMM, &c, sizeof(c), NULL, 0);
}

static void header_and_tables(uint32_t rank, uint32_t ranks)
{
	static const struct { const char *api; uint8_t kind, dir, nargs; } ops[N_OPS] = {
		[OP_LAUNCH] = { "cuLaunchKernel", GT_KIND_LAUNCH, 0, 1 },
		[OP_COPY] = { "cuMemcpyHtoDAsync", GT_KIND_COPY, GT_DIR_HTOD, 6 },
		[OP_SET] = { "cuMemsetD32Async", GT_KIND_SET, 0, 2 },
		[OP_SYNC] = { "cuStreamSynchronize", GT_KIND_SYNC, 0, 2 },
		[OP_NCCL] = { "ncclAllReduce", GT_KIND_NCCL, 0, 7 },
	};
	char base[32], name[64];

	header_and_process_of(4242 + rank, rank);
	if (ranked)
		comm(rank, ranks);
	for (int op = 0; op < (ranked ? N_OPS : OP_NCCL); op++) {
		struct gt_op_info info = { .op = (uint16_t)op, .kind = ops[op].kind,
					   .direction = ops[op].dir,
					   .flags = op == OP_SYNC ? 0 : GT_OPF_ASYNC,
					   .nargs = ops[op].nargs };

		info.api_str = info.symbol_str = string(ops[op].api);
		chunk(GT_CHUNK_OP, &info, sizeof(info), NULL, 0);
	}
	for (uint32_t k = 1; k <= KERNELS; k++) {
		struct gt_function f = { .id = k, .handle = 0x7f0000000000ull + k * 64 };

		snprintf(base, sizeof(base), "bench_kernel%u", k);
		snprintf(name, sizeof(name), "_Z%zu%sPfS_i", strlen(base), base);
		f.name_str = string(name);
		chunk(GT_CHUNK_FUNCTION, &f, sizeof(f), NULL, 0);
	}
	for (uint32_t s = 1; s <= SHAPES; s++) {
		struct gt_shape sh = { .id = s, .function = 1 + (s - 1) % KERNELS,
				       .grid = { 64 * s, 1, 1 }, .block = { 256, 1, 1 } };

		chunk(GT_CHUNK_SHAPE, &sh, sizeof(sh), NULL, 0);
	}
	for (uint32_t s = 1; s <= STREAMS; s++) {
		struct gt_stream st = { .id = s, .handle = 0x5500000000ull + s * 16 };

		chunk(GT_CHUNK_STREAM, &st, sizeof(st), NULL, 0);
	}
}

/* One event's varints after the common ones, by op (format.h). */
static uint8_t *args(uint8_t *p, int op, uint64_t i)
{
	switch (op) {
	case OP_LAUNCH:
		return gt_varint_put(p, 1 + i % SHAPES);
	case OP_COPY:
		p = gt_varint_put(p, 4096 << (i % 8));
		p = gt_varint_put(p, 0x7f1200000000ull + (i % 64) * 4096);
		p = gt_varint_put(p, 0x7f3400000000ull);
		p = gt_varint_put(p, 1);
		p = gt_varint_put(p, GT_MEM_PINNED);
		return gt_varint_put(p, 0);
	case OP_SET:
		p = gt_varint_put(p, 1 << 20);
		return gt_varint_put(p, 0x7f3400000000ull);
	case OP_NCCL:           /* 1 Mi floats, comm, no peer, float, sum */
		p = gt_varint_put(p, 1 << 20);
		p = gt_varint_put(p, 4 << 20);
		p = gt_varint_put(p, COMM_ID);
		p = gt_varint_put(p, 0);
		p = gt_varint_put(p, 8);
		p = gt_varint_put(p, 1);
		return gt_varint_put(p, 0);
	default:
		p = gt_varint_put(p, 0x5500000000ull + 16);
		return gt_varint_put(p, 0);
	}
}

static void events(uint32_t tid, uint32_t buffer, uint64_t first, uint32_t n,
		   uint64_t *t)
{
	static uint8_t buf[CHUNK_EVENTS * 16 * GT_VARINT_MAX];
	struct gt_events_header h = { .tid = tid, .count = n, .base_ns = *t,
				      .buffer = buffer, .first_seq = first };
	uint8_t *p = buf;
	uint64_t prev = *t;

	for (uint32_t k = 0; k < n; k++) {
		uint64_t i = first + k, r = (i * 2654435761u) % 10;
		int op = r < 7 ? OP_LAUNCH : r == 7 ? OP_COPY : r == 8 ? OP_SET : OP_SYNC;

		if (ranked && tid == 1000 && i % NCCL_EVERY == NCCL_EVERY - 1)
			op = OP_NCCL;
		uint64_t dur = op == OP_SYNC ? 50000 + i % 1000 : 2000 + i % 700;

		p = gt_varint_put(p, (uint64_t)op);
		p = gt_varint_put(p, gt_zigzag((int64_t)(*t - prev)));
		p = gt_varint_put(p, dur);
		p = gt_varint_put(p, 0);
		p = gt_varint_put(p, op == OP_SYNC ? 1 : 1 + i % STREAMS);
		p = args(p, op, i);
		prev = *t;
		*t += dur + 500 + i % 300;
	}
	chunk(GT_CHUNK_EVENTS, &h, sizeof(h), buf, (size_t)(p - buf));
}

int main(int argc, char **argv)
{
	uint64_t total, done = 0, t[64], seq[64] = { 0 };
	unsigned threads;
	uint32_t rank = 0, ranks = 0;
	struct gt_end end = { 0 };

	if (argc != 3 && argc != 4 && argc != 6) {
		fprintf(stderr, "usage: make_big_dump OUT EVENTS [THREADS [RANK RANKS]]\n");
		return 2;
	}
	total = strtoull(argv[2], NULL, 10);
	threads = argc > 3 ? (unsigned)atoi(argv[3]) : 4;
	if (argc == 6) {
		ranked = 1;
		rank = (uint32_t)atoi(argv[4]);
		ranks = (uint32_t)atoi(argv[5]);
	}
	if (threads < 1 || threads > 64 || (ranked && rank >= ranks) ||
	    !(out = fopen(argv[1], "wb"))) {
		fprintf(stderr, "make_big_dump: bad arguments or cannot write '%s'\n", argv[1]);
		return 2;
	}
	header_and_tables(rank, ranks);
	for (unsigned k = 0; k < threads; k++)
		t[k] = 2000000000ull + k * 1000;
	while (done < total) {
		for (unsigned k = 0; k < threads && done < total; k++) {
			uint32_t n = total - done < CHUNK_EVENTS ? (uint32_t)(total - done)
								 : CHUNK_EVENTS;

			events(1000 + k, k + 1, seq[k], n, &t[k]);
			seq[k] += n;
			done += n;
		}
	}
	end.end_ns = t[0] + 1000;
	end.events = total;
	chunk(GT_CHUNK_END, &end, sizeof(end), NULL, 0);
	if (fclose(out)) {
		perror(argv[1]);
		return 1;
	}
	return 0;
}
