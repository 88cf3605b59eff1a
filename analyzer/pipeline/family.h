/* SPDX-License-Identifier: MIT */
/*
 * family.h - the processes among the dumps a command is given, each with
 * its DataLoader workers (family.c).  A DataLoader worker is a forked
 * child: the library gives it a dump of its own, which holds its host
 * samples and no CUDA call.  A dump is a worker's when its process's
 * parent is the process of another dump given, on the same host, of the
 * same run (the header's run id, 0 for both outside the gputrace
 * command), and it has no CUDA call; it is read here, and goes with its
 * parent's model (model.h: workers) rather than being a rank of its own.
 * A child that made CUDA calls stays a process of its own.
 */
#ifndef GPUTRACE_ANALYZER_FAMILY_H
#define GPUTRACE_ANALYZER_FAMILY_H

#include <stddef.h>

#include "analyzer/model/model.h"

struct family {
	const char *path;           /* the process's dump */
	struct model **workers;     /* its workers' models, read */
	size_t nworkers;
};

/*
 * The processes among paths (in the order given) with their workers: a
 * new array of *n, never empty when paths is not (loader_free_families).
 * A worker's dump that cannot be read is left out with a warning.
 */
struct family *loader_families(char **paths, size_t count, size_t *n);
/* Hand f's workers to m (before or after it is read): m releases them. */
void family_give_workers(struct family *f, struct model *m);
/* The array and the workers not handed over. */
void loader_free_families(struct family *f, size_t n);

#endif /* GPUTRACE_ANALYZER_FAMILY_H */
