/* SPDX-License-Identifier: MIT */
/*
 * pipeline.h - what every command does with a dump's records: the passes,
 * in their order (pipeline.c).
 *
 *	model_init(&m, dump_header(r));
 *	while (dump_next(r, &rec) > 0)
 *		pipeline_add(&m, r, &rec);
 *	pipeline_finish(&m, dump_ends_early(r));
 *	... report, export ...
 *	pipeline_release(&m);
 */
#ifndef GPUTRACE_ANALYZER_PIPELINE_H
#define GPUTRACE_ANALYZER_PIPELINE_H

#include "analyzer/reader/dump_reader.h"
#include "analyzer/model/model.h"

/* One record through every pass; r resolves string ids. */
void pipeline_add(struct model *m, const struct dump_reader *r,
		  const struct dump_record *rec);
/* The model's totals, then every pass's, in order. */
void pipeline_finish(struct model *m, int ends_early);
/* Everything the model and its passes hold, its workers' models too. */
void pipeline_release(struct model *m);
/* Only its workers' models (m->workers), released and freed. */
void pipeline_release_workers(struct model *m);

#endif /* GPUTRACE_ANALYZER_PIPELINE_H */
