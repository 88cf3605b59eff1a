/* SPDX-License-Identifier: MIT */
/*
 * diagnosis.h - what the GPU was waiting for, and what to change.
 *
 * While the dump streams by, the diagnosis keeps a compact timeline: what
 * each host thread was doing (runs of launches, waits, copies, NCCL
 * calls), what each GPU ran (compute kernels, NCCL kernels, copies, work
 * queued but not started: CUPTI records), the CPU samples, and the
 * candidates for training steps (NVTX ranges, the period of the launch
 * sequence).  At the end it finds the steps, attributes every interval in
 * which a GPU ran no compute kernel to what the host was doing, scores
 * the six bottleneck classes (data supply, CPU preprocessing, memory and
 * batch, communication and sync, kernel efficiency, environment; plus
 * "healthy") and
 * estimates what each change would gain.  Memory is bounded by caps on
 * the kept spans (DIAG_MAX_*), never by the number of events beyond them.
 */
#ifndef GPUTRACE_ANALYZER_DIAGNOSIS_H
#define GPUTRACE_ANALYZER_DIAGNOSIS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analyzer/reader/dump_reader.h"
#include "analyzer/lib/json.h"
#include "analyzer/model/model.h"

/* Account for a record of the dump (model.c calls it for each record,
 * after the GPU timeline part, whose clock fit it uses). */
void diagnosis_add(struct model *m, const struct dump_reader *r,
		   const struct dump_record *rec);
/* Steps, idle attribution, verdict (after gpu_finish). */
void diagnosis_finish(struct model *m);
void diagnosis_release(struct model *m);

/* The steps the diagnosis found: boundaries (*t)[0..n), step i being
 * [t[i], t[i + 1]), the first *warmup of them warm-up, *capped when the
 * run had more; n is returned, 0 when it found none. */
size_t diagnosis_steps(const struct model *m, const uint64_t **t, size_t *warmup,
		       int *capped);

/* The 3 to 6 lines that open the text report. */
void diagnosis_report_head(FILE *out, const struct model *m);
/* The Diagnosis section: steps, idle time by cause, each class with its
 * evidence, advice and estimated gain. */
void diagnosis_report_text(FILE *out, const struct model *m, size_t top);
/* The what-if by replay as an HTML section, with its SVG (replay_svg.c). */
void diagnosis_report_html(FILE *out, const struct model *m);
/* "steps", "idle", "verdict" and "diagnosis" of the JSON report. */
void diagnosis_report_json(struct json *j, const struct model *m);

#endif /* GPUTRACE_ANALYZER_DIAGNOSIS_H */
