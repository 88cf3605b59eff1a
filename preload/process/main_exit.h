/* SPDX-License-Identifier: MIT */
/*
 * main_exit.h - a process whose main thread ended with pthread_exit ends
 * when the program's last thread does, the library's own aside.
 */
#ifndef GPUTRACE_PRELOAD_MAIN_EXIT_H
#define GPUTRACE_PRELOAD_MAIN_EXIT_H

/* Find the real pthread_exit; at start. */
void gt_main_exit_find_real(void);

/* Fork child: its main thread is the one that forked; no thread of the
 * library runs in it yet. */
void gt_main_exit_after_fork(void);

#endif /* GPUTRACE_PRELOAD_MAIN_EXIT_H */
