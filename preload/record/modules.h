/* SPDX-License-Identifier: MIT */
/*
 * modules.h - the map of loaded objects (path, load address, size, build
 * id) that the dump carries in GT_CHUNK_MODULES, so that the analyzer can
 * turn return addresses into functions offline.
 *
 * Only the paths that write new stacks and the writer thread use it: never
 * the steady state of a traced call.
 */
#ifndef GPUTRACE_PRELOAD_MODULES_H
#define GPUTRACE_PRELOAD_MODULES_H

#include <stdint.h>

/*
 * Write every object loaded now, and from then on, at each writer cycle,
 * those that appear (dl_iterate_phdr's add and remove counters).  Once
 * per dump, on a traced thread after the dump is open.
 */
void gt_modules_start(void);

/*
 * Before a new stack goes into the dump: if one of its return addresses
 * lies outside every object written so far, look again and write the new
 * ones, so that the map always comes before the stacks that need it.
 * Quiet (gt_side_quiet: a signal handler) it neither waits nor looks: the
 * writer thread looks at its next cycle.
 */
void gt_modules_cover(const uint64_t *pcs, int n);

/* Fork child: the objects went into the parent's dump, not ours. */
void gt_modules_forget(void);

/* Build id of an object from its notes in memory; bytes copied (<= max). */
struct dl_phdr_info;
int gt_modules_build_id(const struct dl_phdr_info *info, uint8_t *out,
			int max);

#endif /* GPUTRACE_PRELOAD_MODULES_H */
