/* SPDX-License-Identifier: MIT */
/*
 * env_settings.c - the environment variables that change how CUDA, NCCL
 * or the math libraries behave (CUDA_LAUNCH_BLOCKING, NCCL_*...), as set
 * when the program started: GT_ENV_SETTINGS and GT_ENV_SETTING items.
 *
 * They are read from /proc/self/environ, the block the program was
 * started with, by the sampler thread: reading `environ` from that thread
 * would race with a setenv in the program's own threads.  A variable the
 * program sets for itself later is not seen.
 */
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "preload/base/own_fd.h"
#include "preload/env/env.h"
#include "preload/env/env_items.h"

#define MAX_SETTINGS 64
#define ENTRY_MAX 256               /* longer entries are cut */

struct found {
	char v[MAX_SETTINGS][ENTRY_MAX];
	unsigned n;
};

static const char *const watched[] = {
	"CUDA_LAUNCH_BLOCKING=", "CUDA_MODULE_LOADING=",
	"CUDA_DEVICE_MAX_CONNECTIONS=", "CUDA_VISIBLE_DEVICES=",
	"OMP_NUM_THREADS=", "MKL_NUM_THREADS=",
};

static int is_watched(const char *entry)
{
	if (!strncmp(entry, "NCCL_", 5) && strchr(entry, '='))
		return 1;
	for (size_t i = 0; i < sizeof(watched) / sizeof(*watched); i++)
		if (!strncmp(entry, watched[i], strlen(watched[i])))
			return 1;
	return 0;
}

static void take(struct found *f, const char *entry)
{
	if (f->n < MAX_SETTINGS && is_watched(entry))
		memcpy(f->v[f->n++], entry, ENTRY_MAX);
}

/* Split the NUL-separated block into entries as it is read. */
static void scan(int fd, struct found *f)
{
	char buf[4096], entry[ENTRY_MAX];
	size_t len = 0;
	ssize_t n;

	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		for (ssize_t i = 0; i < n; i++) {
			if (buf[i]) {
				if (len + 1 < sizeof(entry))
					entry[len++] = buf[i];
				continue;
			}
			memset(entry + len, 0, sizeof(entry) - len);
			take(f, entry);
			len = 0;
		}
	}
}

void gt_env_settings(struct gt_items *it)
{
	static struct found f;
	struct gt_own_fd o;

	if (gt_own_open(&o, "/proc/self/environ") < 0) {
		gt_items_fail(it, GT_ENV_SETTINGS, GT_INFO_FAILED, -1);
		return;
	}
	f.n = 0;
	scan(o.fd, &f);
	gt_own_close(&o);
	gt_items_num(it, GT_ENV_SETTINGS, f.n);
	for (unsigned i = 0; i < f.n; i++)
		gt_items_text(it, GT_ENV_SETTING, 0, f.v[i]);
}
