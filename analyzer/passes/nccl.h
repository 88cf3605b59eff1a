/* SPDX-License-Identifier: MIT */
/*
 * nccl.h - NCCL in a dump: calls by op (host side, from the interposed
 * calls), GPU time and bandwidth by op (from the profiler plugin's
 * records), communicators, and calls by (op, communicator, root or peer,
 * datatype, reduction).  Memory grows with distinct ops, communicators and
 * such combinations, never with the number of calls.
 */
#ifndef GPUTRACE_ANALYZER_NCCL_H
#define GPUTRACE_ANALYZER_NCCL_H

#include <stdint.h>
#include <stdio.h>

#include "analyzer/reader/dump_reader.h"
#include "analyzer/model/model.h"

#define NCCL_ALGOS 8            /* algorithm/protocol pairs kept per op */

struct nccl_algo {
	char *name;             /* "Ring/LL" */
	uint64_t calls;
};

struct nccl_op {
	char *op;               /* "ncclAllReduce" */
	uint64_t calls;         /* host-side calls */
	uint64_t bytes;         /* their bytes (format.h, GT_ARGS_NCCL) */
	uint64_t count_total;   /* their count arguments: elements; for
	                           ncclGroupEnd the calls its groups held */
	uint64_t host_ns, host_max_ns;
	uint64_t plugin_calls;  /* profiler plugin records */
	uint64_t gpu_calls;     /* ... with GPU times */
	uint64_t gpu_ns;
	uint64_t bw_ns;         /* GPU time of the records with a known size */
	double alg_bytes;       /* nccl-tests algorithm bytes of those */
	double bus_bytes;       /* ... times the op's bus factor */
	struct nccl_algo algos[NCCL_ALGOS];
	size_t nalgos;
};

struct nccl_comm_row {
	struct gt_nccl_comm c;  /* merged over its chunks */
	char *name;             /* "" when NCCL gave none */
	uint64_t calls, bytes;
};

/* Calls of one (op, communicator, root/peer, datatype, reduction). */
struct nccl_detail {
	char *key;
	const char *op;         /* the nccl_op's name */
	uint32_t comm, peer, dtype, redop;      /* as GT_ARGS_NCCL */
	uint64_t calls, bytes;
};

/* Account for a record of the dump (model.c calls it for each). */
void nccl_add(struct model *m, const struct dump_reader *r,
	      const struct dump_record *rec);
void nccl_release(struct model *m);

/* Rows, most costly first; free() the arrays, not the rows. */
struct nccl_op **nccl_ops(const struct model *m, size_t *n);
struct nccl_comm_row **nccl_comms(const struct model *m, size_t *n);
struct nccl_detail **nccl_details(const struct model *m, size_t *n);
/* The NCCL version the dump names (e.g. 22809), 0 if none. */
uint32_t nccl_version(const struct model *m);

/* The element size of an NCCL datatype name ("ncclFloat32": 4), or 0. */
unsigned nccl_type_size(const char *name);
/* "ncclFloat32" for ncclDataType_t + 1 (GT_ARGS_NCCL), "-" for 0. */
const char *nccl_type_name(uint32_t dtype_plus1);
/* nccl-tests' bus bandwidth factor of an op on n ranks; 0 if unknown. */
double nccl_bus_factor(const char *op, int nranks);
/* Whether an op's nccl-tests size is count x type size x ranks. */
int nccl_size_per_rank(const char *op);

/* The report parts (nccl_report.c). */
struct json;
void nccl_report_text(FILE *out, const struct model *m, size_t top);
void nccl_report_json(struct json *j, const struct model *m);

#endif /* GPUTRACE_ANALYZER_NCCL_H */
