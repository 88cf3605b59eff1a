/* SPDX-License-Identifier: MIT */
/*
 * writer.h - the background path: a thread that drains the rings every
 * GPUTRACE_FLUSH_MS into the dump file, and the final flush at exit.
 */
#ifndef GPUTRACE_PRELOAD_WRITER_H
#define GPUTRACE_PRELOAD_WRITER_H

/* Open the dump and start the writer thread, once per process. */
void gt_writer_start(void);

/* Stop the thread, drain everything, finish the dump, say where it is. */
void gt_writer_finish(void);

/* Fork child: the parent's writer thread and file are not ours. */
void gt_writer_forget(void);

#endif /* GPUTRACE_PRELOAD_WRITER_H */
