/* SPDX-License-Identifier: MIT */
/*
 * symbol_path.c - where the analyzer looks for the files of the modules a
 * dump names (symbol_path.h): the directories of --symbols, then those of
 * GPUTRACE_SYMBOL_PATH ("/" when it is not set).  In each, the recorded
 * path under it, the file named by its build id under .build-id/, then
 * the recorded file name; symtab_open takes a file only when its build id
 * is the recorded one, so a wrong candidate is never used.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/lib/symbol_path.h"
#include "analyzer/lib/symbolize.h"
#include "analyzer/lib/util.h"

#define SYMBOL_ID_MAX 64         /* build id bytes, as symtab_open reads */

static char **dirs;
static size_t ndirs;
static int chosen;          /* symbol_path_init ran */

static void add_dir(const char *dir, size_t len)
{
	while (len > 0 && dir[len - 1] == '/')
		len--;              /* "/" becomes "": the recorded path itself */
	dirs = xrealloc(dirs, (ndirs + 1) * sizeof(*dirs));
	dirs[ndirs++] = xmemdupz(dir, len);
}

void symbol_path_init(char *const *first, size_t nfirst, const char *list)
{
	symbol_path_release();
	for (size_t i = 0; i < nfirst; i++)
		add_dir(first[i], strlen(first[i]));
	if (!list)
		list = "/";
	while (*list) {
		size_t n = strcspn(list, ":");

		if (n)
			add_dir(list, n);
		list += n + (list[n] == ':');
	}
	chosen = 1;
}

void symbol_path_release(void)
{
	for (size_t i = 0; i < ndirs; i++)
		free(dirs[i]);
	free(dirs);
	dirs = NULL;
	ndirs = 0;
	chosen = 0;
}

/* symtab_open of path, which is freed. */
static struct symtab *try_file(char *path, const uint8_t *id, size_t id_len)
{
	const char *why;
	struct symtab *t = symtab_open(path, id, id_len, &why);

	free(path);
	return t;
}

/* The module's file in dir ("" for the root), or NULL. */
static struct symtab *in_dir(const char *dir, const char *recorded,
			     const uint8_t *id, size_t id_len)
{
	const char *slash = strrchr(recorded, '/');
	const char *name = slash ? slash + 1 : recorded;
	char hex[2 * SYMBOL_ID_MAX + 1];
	struct symtab *t = NULL;

	if (*recorded == '/')
		t = try_file(xasprintf("%s%s", dir, recorded), id, id_len);
	if (t || id_len < 2)            /* no build id: by its path only */
		return t;
	for (size_t i = 0; i < id_len; i++)
		snprintf(hex + 2 * i, 3, "%02x", id[i]);
	t = try_file(xasprintf("%s/.build-id/%.2s/%s.debug", dir, hex, hex + 2),
		     id, id_len);
	if (!t)
		t = try_file(xasprintf("%s/.build-id/%.2s/%s", dir, hex, hex + 2),
			     id, id_len);
	if (!t && *name)
		t = try_file(xasprintf("%s/%s", dir, name), id, id_len);
	return t;
}

struct symtab *symbol_find(const char *recorded, const uint8_t *id,
			   size_t id_len)
{
	static char root[] = "";
	static char *const by_default[] = { root };
	char *const *v = chosen ? dirs : by_default;
	size_t n = chosen ? ndirs : 1;

	if (!*recorded || id_len > SYMBOL_ID_MAX)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		struct symtab *t = in_dir(v[i], recorded, id, id_len);

		if (t)
			return t;
	}
	return NULL;
}
