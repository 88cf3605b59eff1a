/* SPDX-License-Identifier: MIT */
/*
 * exec_env.c - the environment passed on by exec and spawn: the program's
 * own, with our library added to LD_PRELOAD and the GPUTRACE_* settings we
 * started with added where it lacks them (see exec_env.h).
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "preload/base/exec_env.h"

#define PRELOAD "LD_PRELOAD"
#define PRELOAD_LEN (sizeof(PRELOAD) - 1)

static char self_path[PATH_MAX];
static const char *self_base;           /* file name part of self_path */
static char preload_entry[sizeof(PRELOAD) + PATH_MAX];
static char *keep[GT_EXEC_KEEP_MAX];    /* "GPUTRACE...=value" */
static size_t n_keep;

static size_t name_len(const char *entry)
{
	const char *eq = strchr(entry, '=');

	return eq ? (size_t)(eq - entry) : strlen(entry);
}

int gt_exec_env_init(const char *self, char *const env[])
{
	const char *slash;

	if (!self || !*self || strlen(self) >= sizeof(self_path))
		return -1;
	strcpy(self_path, self);
	slash = strrchr(self_path, '/');
	self_base = slash ? slash + 1 : self_path;
	strcpy(preload_entry, PRELOAD "=");
	strcat(preload_entry, self_path);
	for (size_t i = 0; env && env[i]; i++) {
		size_t n = name_len(env[i]);

		if (n < 8 || strncmp(env[i], "GPUTRACE", 8) || !env[i][n] ||
		    (n > 8 && env[i][8] != '_'))
			continue;
		gt_exec_env_keep(env[i]);
	}
	return 0;
}

int gt_exec_env_keep(const char *entry)
{
	if (n_keep >= GT_EXEC_KEEP_MAX || !(keep[n_keep] = strdup(entry)))
		return -1;
	n_keep++;
	return 0;
}

void gt_exec_env_reset(void)
{
	for (size_t i = 0; i < n_keep; i++)
		free(keep[i]);
	n_keep = 0;
	self_base = NULL;
}

/* The entry NAME=... of env; the last one when `last` (as ld.so reads
 * LD_PRELOAD), else the first (as getenv). */
static const char *find(char *const env[], const char *name, size_t len,
			int last)
{
	const char *found = NULL;

	for (size_t i = 0; env[i]; i++) {
		if (strncmp(env[i], name, len) || env[i][len] != '=')
			continue;
		found = env[i];
		if (!last)
			break;
	}
	return found;
}

/* Whether a LD_PRELOAD value (entries split by ':' or ' ') names us. */
static int lists_self(const char *v)
{
	size_t base_len = strlen(self_base);

	while (*v) {
		size_t n = strcspn(v, ": ");
		const char *slash = memrchr(v, '/', n);
		const char *base = slash ? slash + 1 : v;

		if ((size_t)(v + n - base) == base_len && !memcmp(base, self_base, base_len))
			return 1;
		v += n;
		if (*v)
			v++;
	}
	return 0;
}

size_t gt_exec_env_need(char *const env[])
{
	static char *const empty[] = { NULL };
	size_t n = 0, add = 0;
	const char *pre;

	if (!self_base)
		return 0;
	if (!env)
		env = empty;
	while (env[n])
		if (++n > GT_EXEC_ENV_MAX)
			return 0;
	pre = find(env, PRELOAD, PRELOAD_LEN, 1);
	add += !pre;
	for (size_t i = 0; i < n_keep; i++)
		add += !find(env, keep[i], name_len(keep[i]), 0);
	if (!add && lists_self(pre + PRELOAD_LEN + 1))
		return 0;
	return n + add + 1;
}

/* "LD_PRELOAD=theirs:ours" in buf, or the entry as it was if too long. */
static const char *merge_preload(const char *entry, char *buf)
{
	const char *theirs = entry + PRELOAD_LEN + 1;
	size_t len = strlen(entry) + 1 + strlen(self_path);

	if (len >= GT_EXEC_PRELOAD_MAX)
		return entry;
	strcpy(buf, entry);
	if (*theirs)
		strcat(buf, ":");
	strcat(buf, self_path);
	return buf;
}

char *const *gt_exec_env_make(char *const env[], const char **out, size_t n,
			      char *buf)
{
	static char *const empty[] = { NULL };
	const char *pre;
	size_t k = 0;

	if (!env)
		env = empty;
	pre = find(env, PRELOAD, PRELOAD_LEN, 1);
	for (size_t i = 0; env[i] && k + 1 < n; i++)
		out[k++] = env[i] == pre && !lists_self(pre + PRELOAD_LEN + 1)
			   ? merge_preload(pre, buf) : env[i];
	if (!pre && k + 1 < n)
		out[k++] = preload_entry;
	for (size_t i = 0; i < n_keep && k + 1 < n; i++)
		if (!find(env, keep[i], name_len(keep[i]), 0))
			out[k++] = keep[i];
	out[k] = NULL;
	return (char *const *)out;
}
