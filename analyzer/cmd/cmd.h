/* SPDX-License-Identifier: MIT */
/*
 * cmd.h - the commands of gputrace-analyze, one file each (cmd_*.c), as
 * main.c dispatches them: each takes the parsed options and the dumps, and
 * returns the exit status.
 */
#ifndef GPUTRACE_ANALYZER_CMD_H
#define GPUTRACE_ANALYZER_CMD_H

#include <stddef.h>

#include "analyzer/export/export.h"
#include "analyzer/pipeline/family.h"

/* The text or JSON report of one process (its dump, its workers':
 * family.h) (cmd_report.c). */
int cmd_report(const struct export_opts *o, struct family *f);
/* One process's timeline, database, HTML report or collapsed stacks
 * (cmd_export.c). */
int cmd_export(const struct export_opts *o, struct family *f);
/* Several processes: the ranks report, or their exports (cmd_ranks.c). */
int cmd_ranks(const struct export_opts *o, struct family *f, size_t n);
/* Two runs compared (cmd_diff.c). */
int cmd_diff(const struct export_opts *o, const char *before, const char *after);

#endif /* GPUTRACE_ANALYZER_CMD_H */
