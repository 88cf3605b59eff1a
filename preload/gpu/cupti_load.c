/* SPDX-License-Identifier: MIT */
/*
 * cupti_load.c - find the libcupti that belongs to the program and load
 * it.  Two copies of CUPTI in one process would fight over the driver's
 * callbacks, so the choice matters:
 *
 *   1. GPUTRACE_CUPTI_LIB, when set (and only it);
 *   2. a libcupti the process has loaded already (PyTorch loads its own);
 *   3. the one beside the program's libcudart (pip wheels:
 *      site-packages/nvidia/cu13/lib, or nvidia/cuda_cupti/lib for cu12);
 *   4. the CUDA toolkit's: $CUDA_HOME/extras/CUPTI/lib64, lib64;
 *   5. libcupti.so.13, .12, libcupti.so on the library path.
 */
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "preload/gpu/cupti_api.h"
#include "preload/base/dl.h"
#include "preload/base/internal.h"
#include "preload/base/settings.h"

static const char *const sonames[] = {
	"libcupti.so.13", "libcupti.so.12", "libcupti.so",
};

struct find {
	const char *needle;
	char path[1024];
};

static int find_loaded(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct find *f = arg;
	const char *name = info->dlpi_name, *slash;

	(void)size;
	if (!name || !*name)
		return 0;
	slash = strrchr(name, '/');
	if (strncmp(slash ? slash + 1 : name, f->needle, strlen(f->needle)))
		return 0;
	snprintf(f->path, sizeof(f->path), "%s", name);
	return 1;
}

/* The path of a loaded object whose file name starts with needle, or "". */
static void loaded_path(const char *needle, char *out, size_t n)
{
	struct find f = { .needle = needle };

	gt_dl_iterate(find_loaded, &f);
	snprintf(out, n, "%s", f.path);
}

/* CUPTI's constructors and, later, its code find driver functions
 * untouched (dl.h). */
static void *try_open(struct gt_cupti_api *api, const char *path)
{
	void *h;

	gt_dl_untouched(1);
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	gt_dl_untouched(0);

	gt_debug("gputrace: cupti: %s %s\n", path, h ? "loaded" : "not there");
	if (h)
		snprintf(api->path, sizeof(api->path), "%s", path);
	return h;
}

/* Each soname in dir (dir "" = the library path). */
static void *open_in(struct gt_cupti_api *api, const char *dir)
{
	char path[1024];
	void *h = NULL;

	for (size_t i = 0; !h && i < sizeof(sonames) / sizeof(sonames[0]); i++) {
		if (*dir)
			snprintf(path, sizeof(path), "%s/%s", dir, sonames[i]);
		else
			snprintf(path, sizeof(path), "%s", sonames[i]);
		h = try_open(api, path);
	}
	return h;
}

/* Beside the loaded libcudart: its folder, and a cu12 wheel's sibling. */
static void *open_beside_cudart(struct gt_cupti_api *api)
{
	char dir[1024], sib[1100];
	char *slash;
	void *h;

	loaded_path("libcudart.so", dir, sizeof(dir));
	slash = strrchr(dir, '/');
	if (!slash)
		return NULL;
	*slash = '\0';
	h = open_in(api, dir);
	if (h)
		return h;
	snprintf(sib, sizeof(sib), "%s/../../cuda_cupti/lib", dir);
	return open_in(api, sib);
}

static void *open_toolkit(struct gt_cupti_api *api)
{
	const char *home = getenv("CUDA_HOME");
	char dir[1100];
	void *h = NULL;

	if (home && *home) {
		snprintf(dir, sizeof(dir), "%s/extras/CUPTI/lib64", home);
		h = open_in(api, dir);
		snprintf(dir, sizeof(dir), "%s/lib64", home);
		if (!h)
			h = open_in(api, dir);
	}
	if (!h)
		h = open_in(api, "/usr/local/cuda/extras/CUPTI/lib64");
	if (!h)
		h = open_in(api, "/usr/local/cuda/lib64");
	return h;
}

static void *open_cupti(struct gt_cupti_api *api)
{
	const char *lib = gt_setting_text(GT_S_CUPTI_LIB);
	char path[1024];
	void *h;

	if (lib)
		return try_open(api, lib);
	loaded_path("libcupti.so", path, sizeof(path));
	if (*path)
		return try_open(api, path);
	h = open_beside_cudart(api);
	if (!h)
		h = open_toolkit(api);
	return h ? h : open_in(api, "");
}

int gt_cupti_load(struct gt_cupti_api *api, const char **why)
{
	memset(api, 0, sizeof(*api));
	api->handle = open_cupti(api);
	if (!api->handle) {
		*why = "no libcupti could be loaded";
		return -1;
	}
#define X(name, params)                                                      \
	api->name = (CUptiResult (CUPTIAPI *) params)gt_real_dlsym(api->handle, #name); \
	if (!api->name) {                                                    \
		*why = "libcupti lacks " #name;                              \
		return -1;                                                   \
	}
	GT_CUPTI_FUNCS(X)
#undef X
#define X(name, params)                                                      \
	api->name = (CUptiResult (CUPTIAPI *) params)gt_real_dlsym(api->handle, #name);
	GT_CUPTI_OPTIONAL(X)
#undef X
	gt_dl_note_object((const void *)api->cuptiGetVersion);
	return 0;
}
