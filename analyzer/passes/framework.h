/* SPDX-License-Identifier: MIT */
/*
 * framework.h - which framework the program drives the GPU with (PyTorch,
 * JAX/XLA, TensorFlow, CuPy, or CUDA itself from a C/C++ binary) and
 * whether a PyTorch DataLoader feeds it, from what the dump shows: the
 * objects the process loaded (GT_CHUNK_MODULES), the code in the call
 * stacks of its CUDA calls (native frames in those objects, Python
 * files), its executable and command line, and its child processes (the
 * CPU samples).  The diagnosis and the findings word their advice for
 * what is seen here: DataLoader workers only where a DataLoader is seen,
 * torch's words only for PyTorch.
 */
#ifndef GPUTRACE_ANALYZER_FRAMEWORK_H
#define GPUTRACE_ANALYZER_FRAMEWORK_H

#include <stdint.h>
#include <stdio.h>

#include "analyzer/reader/dump_reader.h"
#include "analyzer/lib/json.h"
#include "analyzer/model/model.h"

enum fw_kind {
	FW_UNKNOWN,             /* none seen (a Python program using none of
				   these, or a dump that does not say) */
	FW_PYTORCH,
	FW_JAX,                 /* JAX or another XLA front end */
	FW_TENSORFLOW,
	FW_CUPY,
	FW_CUDA,                /* a native program with none of these:
				   CUDA from C or C++ */
	FW_KINDS,
};

#define FW_WHY 160              /* an evidence's text, at most */

/* What showed one framework. */
struct fw_seen {
	uint32_t modules;       /* its objects loaded */
	uint32_t stacks;        /* call stacks of CUDA calls it made */
	uint32_t frames;        /* call stacks with its Python files */
	char why[FW_WHY];       /* the first of those: "module libtorch_cuda.so" */
};

struct framework {
	struct fw_seen seen[FW_KINDS];
	enum fw_kind kind;      /* the one the program uses */
	int python;             /* a Python program */
	uint32_t loader_stacks; /* call stacks through torch/utils/data */
	int dataloader;         /* a PyTorch DataLoader is seen */
	char loader_why[FW_WHY];
	uint64_t workers;       /* worker processes alive at most (a
				   DataLoader's, or an input pipeline's:
				   busy child processes), 0 none */
	double worker_cores;    /* their CPU use, in cores */
};

/* Account for a record (process, modules, stacks). */
void framework_add(struct model *m, const struct dump_reader *r,
		   const struct dump_record *rec);
/* Decide, once the dump is read (the CPU samples complete). */
void framework_finish(struct model *m);
void framework_release(struct model *m);

/* The model's, or one that says nothing is known: never NULL. */
const struct framework *framework_of(const struct model *m);
/* "pytorch", "jax", "tensorflow", "cupy", "cuda", "unknown". */
const char *framework_name(enum fw_kind k);
/* "PyTorch", "JAX/XLA", ..., "CUDA C/C++", "unknown". */
const char *framework_title(enum fw_kind k);
/* Whether its input workers are a PyTorch DataLoader's. */
static inline int framework_dataloader(const struct framework *f)
{
	return f->kind == FW_PYTORCH && f->dataloader;
}

/* What advice is worded for (framework_words.c). */
enum fw_topic {
	FW_DATA_CHANGE,         /* no workers: the change (one %d: workers) */
	FW_DATA_ADVICE,         /* ... how (one %d) */
	FW_CPU_ADVICE,          /* preprocessing off the CPU */
	FW_PIN_CHANGE,          /* pageable uploads: the change */
	FW_PIN_ADVICE,
	FW_ASYNC_CHANGE,        /* pinned uploads waited for at once */
	FW_ASYNC_ADVICE,
	FW_READBACK,            /* what reads a value back: ".item(), .cpu()" */
	FW_SYNC_ADVICE,         /* per-step syncs */
	FW_NCCL_ADVICE,
	FW_GRAPH_CHANGE,        /* launch overhead */
	FW_GRAPH_ADVICE,
	FW_BATCH_OVERHEAD,      /* the end of the batch advice (" and ...") */
	FW_FUSE,                /* compute-bound: in the kernels */
	FW_PAGEABLE_FINDING,    /* the findings' changes */
	FW_SYNC_PINNED_FINDING,
	FW_ALLOC_FINDING,
	FW_TOPICS,
};

/* The words of topic t for f's framework (a static string; the data
 * topics hold one %d). */
const char *framework_words(const struct framework *f, enum fw_topic t);

/* "program: PyTorch (...); DataLoader ..." under the report's header. */
void framework_report_text(FILE *out, const struct model *m);
/* "framework": {...} */
void framework_report_json(struct json *j, const struct model *m);

#endif /* GPUTRACE_ANALYZER_FRAMEWORK_H */
