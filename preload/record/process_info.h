/* SPDX-License-Identifier: MIT */
/*
 * process_info.h - the dump's GT_CHUNK_PROCESS: who was traced.
 */
#ifndef GPUTRACE_PRELOAD_PROCESS_INFO_H
#define GPUTRACE_PRELOAD_PROCESS_INFO_H

#include "preload/record/dump_out.h"

/* pid, parent, rank, host name, executable and command line. */
void gt_put_process_info(struct gt_dump_out *o);

#endif /* GPUTRACE_PRELOAD_PROCESS_INFO_H */
