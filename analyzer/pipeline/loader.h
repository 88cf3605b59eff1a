/* SPDX-License-Identifier: MIT */
/*
 * loader.h - how every command reads dumps (loader.c): finding them (files,
 * folders of dumps, '-'), feeding their records to a sink, and reading one
 * into its model through the pipeline, with the progress bar.
 */
#ifndef GPUTRACE_ANALYZER_LOADER_H
#define GPUTRACE_ANALYZER_LOADER_H

#include <stddef.h>
#include <stdint.h>

#include "analyzer/reader/dump_reader.h"
#include "analyzer/model/model.h"

/* The file header of path into *h: 0, or -1 after saying why. */
int loader_header(const char *path, struct gt_file_header *h);

/* A record sink, fed every record of a dump in order. */
typedef void (*loader_fn)(void *ctx, const struct dump_reader *r,
			  const struct dump_record *rec);

/* Feed every record of path to fn, ticking the progress bar at base plus
 * the offset read (not at all with base LOADER_NO_PROGRESS: a thread of
 * several); 0, or -1 after saying why. */
#define LOADER_NO_PROGRESS UINT64_MAX
int loader_pass(const char *path, loader_fn fn, void *ctx, uint64_t base);
/* Read path into *m (model_init .. pipeline_finish), with the bar from base;
 * 0, or -1 after saying why (m is released then). */
int loader_model(const char *path, struct model *m, uint64_t base);
/* What a model may have besides the passes every report needs. */
#define LOADER_TIMELINE 1u      /* the HTML report's timeline (timeline.h) */
/* loader_model() with the parts of want too. */
int loader_model_with(const char *path, struct model *m, uint64_t base,
		      unsigned want);
/*
 * loader_model_with() into a model that has its DataLoader workers'
 * models already (m->workers, m->nworkers; all else of *m is set here):
 * they are part of it before its diagnosis finishes.  On failure they
 * are released with it.
 */
int loader_model_workers(const char *path, struct model *m, uint64_t base,
			 unsigned want);
/* The same as loader_model_workers(), what went wrong put in *why (to
 * free) instead of said (m's workers: NULL and 0 for none). */
int loader_try_model(const char *path, struct model *m, uint64_t base,
		     unsigned want, char **why);

/* The dump files among paths, folders opened (their dumps by name): a new
 * array of *count paths (loader_free_dumps), or NULL after saying why. */
char **loader_find_dumps(char **paths, int n, size_t *count);
void loader_free_dumps(char **v, size_t n);

#endif /* GPUTRACE_ANALYZER_LOADER_H */
