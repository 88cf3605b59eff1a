/* SPDX-License-Identifier: MIT */
/*
 * nccl_plugin_env.c - point NCCL at this library as its profiler plugin.
 *
 * NCCL (2.23 and later) dlopens the library NCCL_PROFILER_PLUGIN names
 * when it makes its first communicator.  At start, unless the user set
 * that variable (their choice wins) or GPUTRACE_NCCL_PLUGIN=0, it is set
 * to the absolute path of libgputrace.so; dlopen then hands NCCL the
 * instance already loaded.  Processes the program starts inherit it, with
 * LD_PRELOAD.  An older NCCL ignores it.
 *
 * A process that inherited the variable but not LD_PRELOAD loads the
 * library only as NCCL's plugin: then the plugin stays silent (no events
 * asked for, no dump), since that process is not being traced.
 */
#include <dlfcn.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "preload/base/internal.h"
#include "preload/nccl/nccl_comm.h"

static int preloaded;

int gt_nccl_plugin_allowed(void)
{
	return preloaded;
}

/* Whether one of LD_PRELOAD's entries is the file at path (a bare name,
 * which the loader searched for, matches by name). */
static int in_preload(const char *path)
{
	const char *list = getenv("LD_PRELOAD");
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	char entry[PATH_MAX], real[PATH_MAX];

	while (list && *list) {
		size_t n = strcspn(list, ": ");

		if (n && n < sizeof(entry)) {
			memcpy(entry, list, n);
			entry[n] = 0;
			if (strchr(entry, '/') ? realpath(entry, real) && !strcmp(real, path)
					       : !strcmp(entry, base))
				return 1;
		}
		list += n + (list[n] != 0);
	}
	return 0;
}

__attribute__((constructor)) static void gt_nccl_plugin_env(void)
{
	char path[PATH_MAX];
	Dl_info info;

	gt_init();
	if (!dladdr((void *)gt_nccl_plugin_env, &info) || !info.dli_fname ||
	    !realpath(info.dli_fname, path)) {
		gt_debug("gputrace: cannot tell where libgputrace.so is; NCCL's "
			 "profiler plugin stays off\n");
		return;
	}
	preloaded = in_preload(path);
	if (!gt_cfg.enabled || !gt_cfg.nccl_plugin || !preloaded ||
	    getenv("NCCL_PROFILER_PLUGIN"))
		return;
	setenv("NCCL_PROFILER_PLUGIN", path, 0);
	gt_debug("gputrace: NCCL_PROFILER_PLUGIN=%s\n", path);
}
