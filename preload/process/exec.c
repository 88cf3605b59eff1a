/* SPDX-License-Identifier: MIT */
/*
 * exec.c - the exec and spawn wrappers (see exec.h).
 *
 * Every wrapper ends in one of two helpers: run_exec (execve, execvpe or
 * fexecve underneath) and run_spawn (posix_spawn or posix_spawnp).  They
 * build the new environment on their own stack and take no lock before
 * the real call, because exec is also what a vfork child or the child of
 * a threaded program calls; such a child never ends the dump of its
 * parent (gt_writer_exec_end checks whose dump it is).
 */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "preload/base/dl.h"
#include "preload/process/exec.h"
#include "preload/base/exec_env.h"
#include "preload/base/internal.h"
#include "preload/base/output_path.h"
#include "preload/base/settings.h"
#include "preload/process/signals.h"
#include "preload/record/writer.h"
#include "preload/stack/hostsample.h"

#define ARGS_MAX (1 << 20)          /* execl & co: more is E2BIG */

extern char **environ;

typedef int (*exec_fn)(const char *, char *const[], char *const[]);
typedef int (*fexec_fn)(int, char *const[], char *const[]);
typedef int (*spawn_fn)(pid_t *, const char *, const posix_spawn_file_actions_t *,
			const posix_spawnattr_t *, char *const[], char *const[]);

/* The real functions underneath, by how they find the program. */
enum how { BY_PATH, BY_SEARCH, BY_FD, SPAWN, SPAWN_SEARCH, N_HOW };
static const char *const real_name[N_HOW] = {
	"execve", "execvpe", "fexecve", "posix_spawn", "posix_spawnp",
};
static _Atomic(void *) real[N_HOW];

static void *get_real(enum how how)
{
	void *f = atomic_load_explicit(&real[how], memory_order_relaxed);

	if (unlikely(!f)) {
		f = gt_real_dlsym(RTLD_NEXT, real_name[how]);
		atomic_store(&real[how], f);
	}
	return f;
}

/*
 * The first traced process (no GPUTRACE_RUN_PID) tells the programs it
 * starts that it is the main one, so that they name their dumps with their
 * pid (output_path.h).
 */
static void keep_main_pid(void)
{
	char entry[48];

	if (gt_setting_given(GT_S_RUN_PID))
		return;
	snprintf(entry, sizeof(entry), "GPUTRACE_RUN_PID=%d", (int)gt_output_main_pid);
	if (gt_exec_env_keep(entry))
		gt_debug("gputrace: cannot pass GPUTRACE_RUN_PID on\n");
}

void gt_exec_init(void)
{
	char path[PATH_MAX];
	Dl_info info;

	for (int how = 0; how < N_HOW; how++)
		get_real(how);
	if (!gt_cfg.enabled || !dladdr((void *)gt_exec_init, &info) ||
	    !info.dli_fname)
		return;
	if (gt_exec_env_init(realpath(info.dli_fname, path) ? path : info.dli_fname,
			     environ)) {
		gt_warn_once("gputrace: cannot tell where libgputrace.so is; "
			     "programs started by exec are not traced\n");
		return;
	}
	keep_main_pid();
}

/* The new environment is made in the caller's frame (no allocation). */
#define WITH_TRACE_ENV(env, envp)                                            \
	size_t need_ = gt_exec_env_need(envp);                               \
	const char *arr_[need_ ? need_ : 1];                                 \
	char buf_[need_ ? GT_EXEC_PRELOAD_MAX : 1];                          \
	char *const *env = need_ ? gt_exec_env_make(envp, arr_, need_, buf_) \
				 : (envp)

static int run_exec(enum how how, const char *file, int fd,
		    char *const argv[], char *const envp[])
{
	WITH_TRACE_ENV(env, envp);
	void *f = get_real(how);
	int ended, rc, err;

	if (!f) {
		errno = ENOSYS;
		return -1;
	}
	gt_hostsample_exec(0);              /* no tick inside the exec */
	gt_signals_exec(0);
	ended = gt_writer_exec_end();
	if (how == BY_FD)
		rc = ((fexec_fn)f)(fd, argv, env);
	else
		rc = ((exec_fn)f)(file, argv, env);
	err = errno;
	if (ended)
		gt_writer_exec_failed();
	gt_signals_exec(1);
	gt_hostsample_exec(1);
	errno = err;
	return rc;
}

static int run_spawn(enum how how, pid_t *pid, const char *file,
		     const posix_spawn_file_actions_t *fa,
		     const posix_spawnattr_t *attr, char *const argv[],
		     char *const envp[])
{
	WITH_TRACE_ENV(env, envp);
	spawn_fn f = (spawn_fn)get_real(how);

	return f ? f(pid, file, fa, attr, argv, env) : ENOSYS;
}

GT_EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
	return run_exec(BY_PATH, path, -1, argv, envp);
}

GT_EXPORT int execv(const char *path, char *const argv[])
{
	return run_exec(BY_PATH, path, -1, argv, environ);
}

GT_EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
	return run_exec(BY_SEARCH, file, -1, argv, envp);
}

GT_EXPORT int execvp(const char *file, char *const argv[])
{
	return run_exec(BY_SEARCH, file, -1, argv, environ);
}

GT_EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
	return run_exec(BY_FD, NULL, fd, argv, envp);
}

GT_EXPORT int posix_spawn(pid_t *pid, const char *path,
			  const posix_spawn_file_actions_t *fa,
			  const posix_spawnattr_t *attr, char *const argv[],
			  char *const envp[])
{
	return run_spawn(SPAWN, pid, path, fa, attr, argv, envp);
}

GT_EXPORT int posix_spawnp(pid_t *pid, const char *file,
			   const posix_spawn_file_actions_t *fa,
			   const posix_spawnattr_t *attr, char *const argv[],
			   char *const envp[])
{
	return run_spawn(SPAWN_SEARCH, pid, file, fa, attr, argv, envp);
}

/* ---- execl, execlp, execle: the list made into an argv on the stack ---- */

static size_t count_args(const char *arg0, va_list ap)
{
	size_t n = 1;

	if (!arg0)
		return 0;
	while (va_arg(ap, const char *) && n <= ARGS_MAX)
		n++;
	return n;
}

/* argv[0..n-1] from the list, NULL after; the list's NULL is consumed. */
static void take_args(char **argv, size_t n, const char *arg0, va_list *ap)
{
	argv[n] = NULL;
	if (!n)
		return;
	argv[0] = (char *)arg0;
	for (size_t i = 1; i <= n; i++)
		argv[i] = va_arg(*ap, char *);
}

#define EXEC_LIST(how, file, arg0, with_env)                               \
	do {                                                               \
		va_list ap_;                                               \
		size_t n_;                                                 \
		char *const *envp_ = environ;                              \
		va_start(ap_, arg0);                                       \
		n_ = count_args(arg0, ap_);                                \
		va_end(ap_);                                               \
		if (n_ > ARGS_MAX) {                                       \
			errno = E2BIG;                                     \
			return -1;                                         \
		}                                                          \
		char *argv_[n_ + 1];                                       \
		va_start(ap_, arg0);                                       \
		take_args(argv_, n_, arg0, &ap_);                          \
		if (with_env)                                              \
			envp_ = va_arg(ap_, char *const *);                \
		va_end(ap_);                                               \
		return run_exec(how, file, -1, argv_, envp_);              \
	} while (0)

GT_EXPORT int execl(const char *path, const char *arg, ...)
{
	EXEC_LIST(BY_PATH, path, arg, 0);
}

GT_EXPORT int execlp(const char *file, const char *arg, ...)
{
	EXEC_LIST(BY_SEARCH, file, arg, 0);
}

GT_EXPORT int execle(const char *path, const char *arg, ...)
{
	EXEC_LIST(BY_PATH, path, arg, 1);
}
