/* SPDX-License-Identifier: MIT */
/*
 * progress.h - a progress bar on stderr while dumps are read, shown only
 * when stderr is a terminal and the reading has taken a second.
 *
 *	progress_begin("reading", total_bytes);
 *	while (dump_next(r, &rec) > 0)
 *		progress_tick(done_before + rec.offset);
 *	progress_end();
 *
 * One bar at a time (the analyzer reads one thing at a time); ticks are
 * cheap: a compare until the next 0.5% step.
 */
#ifndef GPUTRACE_ANALYZER_PROGRESS_H
#define GPUTRACE_ANALYZER_PROGRESS_H

#include <stdint.h>

#define PROGRESS_AFTER_NS 1000000000ull /* quicker work shows no bar */

/* Start a bar for total bytes, labelled what (a static string). */
void progress_begin(const char *what, uint64_t total);
/* done bytes of total are read. */
void progress_tick(uint64_t done);
/* Erase the bar. */
void progress_end(void);

/* Force the bar on (1) or off (0) whatever stderr is; -1: decide (tests). */
void progress_force(int on);
/* The clock the bar's second is measured on; NULL: CLOCK_MONOTONIC (tests). */
void progress_clock(uint64_t (*now)(void));
/* Whether the bar is drawn now. */
int progress_shown(void);
/* This thread is one of several reading at once (on 1, until 0): its
 * calls do nothing; the thread that started them moves the bar after. */
void progress_mute_thread(int on);

/* The size of the file at path, 0 if unknown. */
uint64_t progress_file_size(const char *path);

#endif /* GPUTRACE_ANALYZER_PROGRESS_H */
