/* SPDX-License-Identifier: MIT */
/*
 * w_exec.c - a program that replaces itself, or starts another, through
 * each of the exec and spawn calls, mostly with an environment of its own
 * that lacks LD_PRELOAD and GPUTRACE_*.
 *
 *   w_exec MODE N
 *
 * N launches, then by MODE:
 *   execve, execle, execvpe, fexecve   exec itself with its own environment
 *                                      (LD_LIBRARY_PATH and PATH only)
 *   own-output                         the same, the environment also
 *                                      naming GPUTRACE_OUTPUT=$W_EXEC_OWN
 *   execv, execl, execvp, execlp       exec itself with environ, after
 *                                      unsetenv LD_PRELOAD and GPUTRACE_*
 *   spawn, spawnp                      posix_spawn(p) itself with its own
 *                                      environment, wait, then N launches
 *   spawn-first                        the same before its own first CUDA
 *                                      call (the child calls CUDA first),
 *                                      then 2N launches
 *   vfork, fork                        the same through vfork or fork and
 *                                      execve in the child
 *   fail                               execve a missing file, then N
 *                                      launches
 * The new image (w_exec --second N) makes N launches.  Every image prints
 * its truth line (launcher.h) with image=1 or image=2.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <spawn.h>
#include <sys/wait.h>

#include "test/workloads/launcher.h"

extern char **environ;

static struct launcher L;
static char self[4096], dir[4096], count[32];
static char env_lib[4200], env_path[4200], env_own[4200];

static void truth(int image)
{
	printf("image=%d ", image);
	ln_truth(&L);
}

static char *const *own_env(int with_output)
{
	static char *env[4];
	const char *lib = getenv("LD_LIBRARY_PATH");
	const char *own = getenv("W_EXEC_OWN");

	snprintf(env_lib, sizeof(env_lib), "LD_LIBRARY_PATH=%s", lib ? lib : "");
	snprintf(env_path, sizeof(env_path), "PATH=%s", dir);
	snprintf(env_own, sizeof(env_own), "GPUTRACE_OUTPUT=%s", own ? own : "");
	env[0] = env_lib;
	env[1] = env_path;
	env[2] = with_output ? env_own : NULL;
	env[3] = NULL;
	return env;
}

/* environ without LD_PRELOAD and GPUTRACE_* (the program took them out). */
static void strip_environ(void)
{
	char name[256];

	for (int again = 1; again;) {
		again = 0;
		for (char **e = environ; *e; e++) {
			size_t n = strcspn(*e, "=");

			if ((strncmp(*e, "GPUTRACE", 8) && strncmp(*e, "LD_PRELOAD=", 11)) ||
			    n >= sizeof(name))
				continue;
			memcpy(name, *e, n);
			name[n] = 0;
			unsetenv(name);
			again = 1;
			break;
		}
	}
}

static int spawn_self(int search)
{
	char *argv[] = { search ? "w_exec" : self, "--second", count, NULL };
	pid_t pid;
	int status, rc;

	fflush(NULL);
	rc = search ? posix_spawnp(&pid, "w_exec", NULL, NULL, argv, own_env(0))
		    : posix_spawn(&pid, self, NULL, NULL, argv, own_env(0));
	if (rc || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status)) {
		fprintf(stderr, "spawn failed: %d\n", rc);
		return WL_EXIT_FAIL;
	}
	return 0;
}

/* vfork or fork, then execve itself in the child; wait for it. */
static int fork_self(int use_vfork)
{
	char *argv[] = { self, "--second", count, NULL };
	char *const *env = own_env(0);
	pid_t pid;
	int status;

	fflush(NULL);
	pid = use_vfork ? vfork() : fork();
	if (pid == 0) {
		execve(self, argv, env);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		return WL_EXIT_FAIL;
	return 0;
}

/* Replace this image as MODE says; returns only if that failed. */
static void replace(const char *mode)
{
	char *argv[] = { self, "--second", count, NULL };
	char *const *env = own_env(!strcmp(mode, "own-output"));

	truth(1);
	if (!strcmp(mode, "execve") || !strcmp(mode, "own-output"))
		execve(self, argv, env);
	else if (!strcmp(mode, "execle"))
		execle(self, self, "--second", count, (char *)NULL, env);
	else if (!strcmp(mode, "execvpe"))
		execvpe("w_exec", argv, env);
	else if (!strcmp(mode, "fexecve"))
		fexecve(open(self, O_RDONLY), argv, env);
	strip_environ();
	if (!strcmp(mode, "execv"))
		execv(self, argv);
	else if (!strcmp(mode, "execl"))
		execl(self, self, "--second", count, (char *)NULL);
	else if (!strcmp(mode, "execvp"))
		execvp("w_exec", argv);
	else if (!strcmp(mode, "execlp"))
		execlp("w_exec", "w_exec", "--second", count, (char *)NULL);
	perror(mode);
	exit(WL_EXIT_FAIL);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	long n = argc > 2 ? atol(argv[2]) : 10;
	char *missing[] = { "/nonexistent/w_exec", NULL };

	if (readlink("/proc/self/exe", self, sizeof(self) - 1) < 0)
		return WL_EXIT_FAIL;
	strcpy(dir, self);
	strcpy(dir, dirname(dir));
	setenv("PATH", dir, 1);
	snprintf(count, sizeof(count), "%ld", n);
	if (!strcmp(mode, "spawn-first") && spawn_self(0))
		return WL_EXIT_FAIL;
	ln_open(&L);
	ln_run(&L, L.stream, n, 0);
	if (!strcmp(mode, "--second")) {
		truth(2);
		return 0;
	}
	if (!strcmp(mode, "spawn") || !strcmp(mode, "spawnp")) {
		if (spawn_self(!strcmp(mode, "spawnp")))
			return WL_EXIT_FAIL;
	} else if (!strcmp(mode, "vfork") || !strcmp(mode, "fork")) {
		if (fork_self(!strcmp(mode, "vfork")))
			return WL_EXIT_FAIL;
	} else if (!strcmp(mode, "spawn-first")) {
		/* the child ran already */
	} else if (!strcmp(mode, "fail")) {
		if (execve(missing[0], missing, environ) == 0 || errno != ENOENT)
			return WL_EXIT_FAIL;
	} else {
		replace(mode);
	}
	ln_run(&L, L.stream, n, 0);
	truth(1);
	return 0;
}
