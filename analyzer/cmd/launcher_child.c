/* SPDX-License-Identifier: MIT */
/*
 * launcher_child.c - run the recorded program as a child and end as it
 * ended.  The program gets a terminal's signals directly (it is in the
 * same process group); a SIGINT, SIGTERM, SIGHUP or SIGQUIT sent to the
 * gputrace process itself (kill, a batch system) is passed on to it, so
 * that it stops, and writes its dump, as it would without the launcher.
 * A signal the launcher was started with ignored stays ignored, for the
 * program too.  The program's dump goes to a folder made for it, and
 * takes the template's exact name (GPUTRACE_RUN_PID).
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "analyzer/cmd/launcher.h"
#include "preload/base/output_path.h"

static const int passed_on[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
#define N_PASSED (sizeof(passed_on) / sizeof(passed_on[0]))

static volatile sig_atomic_t child_pid;

/*
 * Sent by a process (kill, sigqueue, tgkill: si_code <= 0), not by the
 * terminal (SI_KERNEL), which sends it to the program as well.
 */
static void pass_on(int sig, siginfo_t *info, void *ctx)
{
	int saved = errno;

	(void)ctx;
	if (child_pid > 0 && info->si_code <= 0 && info->si_pid != child_pid)
		kill((pid_t)child_pid, sig);
	errno = saved;
}

/* Catch the signals to pass on, except those already ignored. */
static void catch_signals(void)
{
	struct sigaction sa, old;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = pass_on;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < N_PASSED; i++) {
		if (sigaction(passed_on[i], NULL, &old) == 0 &&
		    old.sa_handler == SIG_IGN)
			continue;
		sigaction(passed_on[i], &sa, NULL);
	}
}

/*
 * The folders of the dump the program will write, made as mkdir -p does:
 * the template as the library expands it in this process (its pid, rank
 * and host), whose folders the library does not make.
 */
static void make_folders(const char *tmpl)
{
	char path[PATH_MAX];

	if (gt_output_expand(tmpl, path, sizeof(path)))
		return;
	for (char *p = path + 1; (p = strchr(p, '/')); *p++ = '/') {
		*p = 0;
		if (mkdir(path, 0777) && errno != EEXIST) {
			launcher_msg("cannot make the folder '%s': %s", path,
				     strerror(errno));
			return;
		}
	}
}

/* The program to trace: its folder, and GPUTRACE_RUN_PID, its pid. */
static void prepare_traced(const char *tmpl)
{
	char pid[24];

	make_folders(tmpl);
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	if (setenv("GPUTRACE_RUN_PID", pid, 1))
		launcher_msg("cannot set GPUTRACE_RUN_PID: %s", strerror(errno));
}

static void exec_child(char **argv, const char *tmpl)
{
	if (tmpl)
		prepare_traced(tmpl);
	execvp(argv[0], argv);
	launcher_msg("cannot run '%s': %s", argv[0], strerror(errno));
	_exit(errno == ENOENT ? 127 : 126);
}

int launcher_run_child(char **argv, const char *tmpl)
{
	pid_t pid;
	int status;

	fflush(NULL);
	catch_signals();        /* the child's go back to the default at exec */
	pid = fork();
	if (pid < 0) {
		launcher_msg("cannot start '%s': %s", argv[0], strerror(errno));
		return -1;
	}
	if (pid == 0)
		exec_child(argv, tmpl);
	child_pid = pid;
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR)
			return -1;
	}
	child_pid = 0;
	return status;
}

void launcher_exit_like(int status)
{
	int sig;
	struct rlimit no_core = { 0, 0 };
	sigset_t none;

	if (status < 0)
		exit(LAUNCHER_EXIT_USAGE);
	if (WIFEXITED(status))
		exit(WEXITSTATUS(status));
	sig = WTERMSIG(status);
	fflush(NULL);
	setrlimit(RLIMIT_CORE, &no_core);   /* the program dumped core already */
	signal(sig, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	raise(sig);
	exit(128 + sig);
}
