/* SPDX-License-Identifier: MIT */
/*
 * nvtx_inject.c - becoming the NVTX injection library.
 *
 * At load, when NVTX_INJECTION64_PATH is unset, it is set to this
 * library's own path: each NVTX-using library reads it at its first NVTX
 * call, dlopens that path (which finds us, already loaded) and calls
 * InitializeInjectionNvtx2 with its own export table.  That happens once
 * per library, from any thread, possibly from several at once.
 */
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define NVTX_NO_IMPL
#include <nvtx3/nvToolsExt.h>

#include "preload/base/internal.h"
#include "preload/nvtx/nvtx.h"

#define ENV_NAME "NVTX_INJECTION64_PATH"

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int usable;              /* tables made, tracing on, preloaded */
static int preloaded;           /* LD_PRELOAD named us when we were loaded */
static char self[PATH_MAX];     /* our own path, resolved */

static void tables_once(void)
{
	gt_init();
	usable = gt_cfg.enabled && preloaded && gt_nvtx_tables_init() == 0;
	if (!usable)
		gt_debug("gputrace: NVTX injection declined (%s)\n",
			 !gt_cfg.enabled ? "tracing off" :
			 !preloaded ? "not preloaded" : "out of memory");
}

/* Whether path names this library (after resolving links). */
static int is_self(const char *path)
{
	char buf[PATH_MAX];

	return realpath(path, buf) && !strcmp(buf, self);
}

/* Whether LD_PRELOAD, as it was when we were loaded, names us. */
static int named_in_preload(void)
{
	const char *pre = getenv("LD_PRELOAD");
	const char *base = strrchr(self, '/');

	base = base ? base + 1 : self;
	return pre && *base && strstr(pre, base);
}

__attribute__((constructor)) static void gt_nvtx_setup(void)
{
	Dl_info info;
	const char *cur;

	gt_init();
	if (!dladdr((void *)gt_nvtx_setup, &info) || !info.dli_fname ||
	    !realpath(info.dli_fname, self))
		return;
	preloaded = named_in_preload();
	if (!gt_cfg.enabled || !preloaded)
		return;
	cur = getenv(ENV_NAME);
	if (!cur || !*cur)
		setenv(ENV_NAME, self, 1);
	else if (!is_self(cur))
		gt_log("gputrace: %s names '%s': NVTX ranges go to that tool, "
		       "not to gputrace\n", ENV_NAME, cur);
}

static void set_version(NvtxGetExportTableFunc_t get)
{
	const NvtxExportTableVersionInfo *v = get(NVTX_ETID_VERSIONINFO);

	if (v && v->struct_size >= sizeof(*v) && v->SetInjectionNvtxVersion)
		v->SetInjectionNvtxVersion(NVTX_VERSION);
}

GT_EXPORT int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get)
{
	const NvtxExportTableCallbacks *cb;
	NvtxFunctionTable table = NULL;
	unsigned int size = 0;
	int n;

	pthread_once(&once, tables_once);
	if (!usable || !get)
		return 0;
	cb = get(NVTX_ETID_CALLBACKS);
	if (!cb || cb->struct_size < sizeof(*cb) || !cb->GetModuleFunctionTable)
		return 0;
	if (!cb->GetModuleFunctionTable(NVTX_CB_MODULE_CORE, &table, &size) ||
	    !table)
		return 0;
	n = gt_nvtx_fill_core(table, size);
	table = NULL;
	size = 0;
	if (cb->GetModuleFunctionTable(NVTX_CB_MODULE_CORE2, &table, &size) &&
	    table)
		n += gt_nvtx_fill_core2(table, size);
	set_version(get);
	gt_debug("gputrace: NVTX injection: %d handlers installed\n", n);
	return 1;
}
