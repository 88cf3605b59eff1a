/* SPDX-License-Identifier: MIT */
/*
 * make_worst_dump.c - synthetic dumps of the shapes that make an analyzer
 * quadratic: many names rather than many events (test/t/860-scale.t).
 *
 *   make_worst_dump OUT redefine N   N shapes of 64 kernels, each launched;
 *                                    then kernel 1 defined again N times,
 *                                    a launch of it after each; then every
 *                                    shape launched again
 *   make_worst_dump OUT kernels N    N distinct kernels (a string, a
 *                                    function and a shape each), defined
 *                                    and launched 1000 at a time
 *   make_worst_dump OUT nvtx N       N distinct NVTX range names, each
 *                                    range pushed and popped once around a
 *                                    launch
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "include/gputrace/format.h"
#include "include/gputrace/varint.h"
#include "test/bench/dump_writer.h"

#define BATCH 1000                  /* events per chunk */

enum { OP_LAUNCH, OP_PUSH, OP_POP, N_OPS };

static uint64_t now = 2000000000ull, chunk_t0, seq;
static uint8_t evbuf[BATCH * 12 * GT_VARINT_MAX];
static uint8_t *evp = evbuf;
static uint32_t nev;

static void flush_events(void)
{
	struct gt_events_header h = { .tid = 1000, .count = nev,
				      .base_ns = chunk_t0, .buffer = 1,
				      .first_seq = seq };

	if (!nev)
		return;
	chunk(GT_CHUNK_EVENTS, &h, sizeof(h), evbuf, (size_t)(evp - evbuf));
	seq += nev;
	nev = 0;
	evp = evbuf;
}

/* One event: op, 1 us after the previous one, 500 ns long, then args. */
static void event(int op, uint64_t a0, uint64_t a1)
{
	if (nev == BATCH)
		flush_events();
	if (!nev)
		chunk_t0 = now;
	evp = gt_varint_put(evp, (uint64_t)op);
	evp = gt_varint_put(evp, gt_zigzag(nev ? 1000 : 0));
	evp = gt_varint_put(evp, op == OP_LAUNCH ? 500 : 0);
	evp = gt_varint_put(evp, 0);
	evp = gt_varint_put(evp, op == OP_LAUNCH ? 1 : 0);
	evp = gt_varint_put(evp, a0);
	if (op != OP_LAUNCH) {
		evp = gt_varint_put(evp, 0);        /* domain */
		evp = gt_varint_put(evp, 0);        /* range */
		evp = gt_varint_put(evp, a1);       /* category */
	}
	nev++;
	now += 1000;
}

static void ops(void)
{
	static const struct { const char *api; uint8_t kind, dir, nargs; } o[N_OPS] = {
		[OP_LAUNCH] = { "cuLaunchKernel", GT_KIND_LAUNCH, 0, 1 },
		[OP_PUSH] = { "nvtxRangePushA", GT_KIND_NVTX, GT_NVTX_PUSH, 4 },
		[OP_POP] = { "nvtxRangePop", GT_KIND_NVTX, GT_NVTX_POP, 4 },
	};
	struct gt_stream st = { .id = 1, .handle = 0x5500000010ull };

	for (int i = 0; i < N_OPS; i++) {
		struct gt_op_info info = { .op = (uint16_t)i, .kind = o[i].kind,
					   .direction = o[i].dir,
					   .nargs = o[i].nargs };

		info.api_str = info.symbol_str = string(o[i].api);
		chunk(GT_CHUNK_OP, &info, sizeof(info), NULL, 0);
	}
	chunk(GT_CHUNK_STREAM, &st, sizeof(st), NULL, 0);
}

static void function(uint32_t id, const char *base)
{
	struct gt_function f = { .id = id, .handle = 0x7f0000000000ull + id * 64 };
	char name[96];

	snprintf(name, sizeof(name), "_Z%zu%sPfi", strlen(base), base);
	f.name_str = string(name);
	chunk(GT_CHUNK_FUNCTION, &f, sizeof(f), NULL, 0);
}

static void shape(uint32_t id, uint32_t fn)
{
	struct gt_shape sh = { .id = id, .function = fn,
			       .grid = { 1 + id % 1024, 1, 1 },
			       .block = { 128, 1, 1 } };

	chunk(GT_CHUNK_SHAPE, &sh, sizeof(sh), NULL, 0);
}

static void redefine(uint32_t n)
{
	char base[32];

	for (uint32_t k = 1; k <= 64; k++) {
		snprintf(base, sizeof(base), "kernel%u", k);
		function(k, base);
	}
	for (uint32_t s = 1; s <= n; s++)
		shape(s, 1 + (s - 1) % 64);
	for (uint32_t s = 1; s <= n; s++)
		event(OP_LAUNCH, s, 0);
	for (uint32_t i = 0; i < n; i++) {
		flush_events();
		snprintf(base, sizeof(base), "kernel1_v%u", i);
		function(1, base);
		event(OP_LAUNCH, 1, 0);
	}
	for (uint32_t s = 1; s <= n; s++)
		event(OP_LAUNCH, s, 0);
}

static void kernels(uint32_t n)
{
	char base[32];

	for (uint32_t k = 1; k <= n; k++) {
		snprintf(base, sizeof(base), "distinct_kernel_%u", k);
		function(k, base);
		shape(k, k);
		if (k % BATCH == 0 || k == n) {
			for (uint32_t s = k - (k - 1) % BATCH; s <= k; s++)
				event(OP_LAUNCH, s, 0);
			flush_events();
		}
	}
}

static void nvtx(uint32_t n)
{
	char name[32];

	function(1, "step_kernel");
	shape(1, 1);
	for (uint32_t i = 1; i <= n; i++) {
		snprintf(name, sizeof(name), "range_%u", i);
		event(OP_PUSH, string(name), 0);
		event(OP_LAUNCH, 1, 0);
		event(OP_POP, 0, 0);
		if (nev >= BATCH - 3)
			flush_events();
	}
}

int main(int argc, char **argv)
{
	struct gt_end end = { 0 };
	uint32_t n = argc > 3 ? (uint32_t)strtoul(argv[3], NULL, 10) : 0;

	if (argc != 4 || !n || !(out = fopen(argv[1], "wb"))) {
		fprintf(stderr, "usage: make_worst_dump OUT redefine|kernels|nvtx N\n");
		return 2;
	}
	header_and_process_of(4242, 0);
	ops();
	if (!strcmp(argv[2], "redefine"))
		redefine(n);
	else if (!strcmp(argv[2], "kernels"))
		kernels(n);
	else if (!strcmp(argv[2], "nvtx"))
		nvtx(n);
	else
		return fprintf(stderr, "make_worst_dump: no case '%s'\n", argv[2]), 2;
	flush_events();
	end.end_ns = now + 1000;
	end.events = seq;
	chunk(GT_CHUNK_END, &end, sizeof(end), NULL, 0);
	if (fclose(out)) {
		perror(argv[1]);
		return 1;
	}
	return 0;
}
