/* SPDX-License-Identifier: MIT */
/*
 * idle_samples_internal.h - what idle_samples.c shares with
 * idle_samples_profile.c: adding samples up by function (self and total,
 * idle_samples.h says how a sample names its functions), and the
 * profiles of the threads and of the workers over the steady steps.
 */
#ifndef GPUTRACE_ANALYZER_IDLE_SAMPLES_INTERNAL_H
#define GPUTRACE_ANALYZER_IDLE_SAMPLES_INTERNAL_H

#include "analyzer/diagnosis/diagnosis_internal.h"
#include "analyzer/diagnosis/idle_samples.h"
#include "analyzer/passes/hostsample.h"

/* Functions while samples are added up; zeroed to start. */
struct idle_acc {
	struct hmap fns;            /* key -> its function's counts */
	uint64_t serial;            /* samples added so far */
};

/* Sample s of model m (its stack's ids are m's) into a. */
void idle_acc_add(struct idle_acc *a, const struct model *m,
		  const struct hs_sample *s);
/* a's functions, named, most self time first, into *fn and *nfn (one
 * allocation, released with idle_fns_free); a is released. */
void idle_acc_take(struct idle_acc *a, struct idle_fn **fn, size_t *nfn);
void idle_fns_free(struct idle_fn *fn, size_t nfn);

/* idle_samples_profile.c: is->threads, is->wprof and their window. */
void idle_profiles_build(struct idle_samples *is, const struct model *m,
			 const struct diagnosis *d);
void idle_profiles_release(struct idle_samples *is);

#endif /* GPUTRACE_ANALYZER_IDLE_SAMPLES_INTERNAL_H */
