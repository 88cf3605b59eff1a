/* SPDX-License-Identifier: MIT */
/*
 * launcher_find.c - where the gputrace command finds libgputrace.so and
 * gputrace-analyze: beside itself (the build folder: build/gputrace,
 * build/libgputrace.so), in ../lib/ (an installed tree: PREFIX/bin and
 * PREFIX/lib, wherever it was copied to), else under the prefix it was
 * built for (GT_PREFIX); and whether a file is a copy of the library
 * (include/gputrace/library.h).
 */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyzer/cmd/launcher.h"
#include "include/gputrace/library.h"

#ifndef GT_PREFIX
#define GT_PREFIX "/usr/local"
#endif

/* The folder of this program's file; 0 or -1. */
static int self_dir(char *dir, size_t size)
{
	ssize_t n = readlink("/proc/self/exe", dir, size - 1);
	char *slash;

	if (n <= 0)
		return -1;
	dir[n] = 0;
	slash = strrchr(dir, '/');
	if (!slash)
		return -1;
	*slash = 0;
	return 0;
}

/* The first of the candidates (NULL-terminated) that exists, made absolute. */
static int first_existing(const char *const *cand, char *out, size_t size)
{
	char real[PATH_MAX];

	for (; *cand; cand++) {
		if (access(*cand, R_OK) || !realpath(*cand, real))
			continue;
		if (strlen(real) >= size)
			return -1;
		strcpy(out, real);
		return 0;
	}
	return -1;
}

/* beside, then above (both relative to this program's folder), then prefixed. */
static int find_file(const char *beside, const char *above, const char *prefixed,
		     char *out, size_t size)
{
	char dir[PATH_MAX], a[PATH_MAX + 64], b[PATH_MAX + 64];
	const char *cand[] = { a, b, prefixed, NULL };

	if (self_dir(dir, sizeof(dir))) {
		cand[0] = prefixed;
		cand[1] = NULL;
	} else {
		snprintf(a, sizeof(a), "%s/%s", dir, beside);
		snprintf(b, sizeof(b), "%s/%s", dir, above);
	}
	return first_existing(cand, out, size);
}

int launcher_find_lib(char *out, size_t size)
{
	return find_file("libgputrace.so", "../lib/libgputrace.so",
			 GT_PREFIX "/lib/libgputrace.so", out, size);
}

int launcher_find_analyzer(char *out, size_t size)
{
	return find_file("gputrace-analyze", "gputrace-analyze",
			 GT_PREFIX "/bin/gputrace-analyze", out, size);
}

/* Whether the file at path holds the marker's name as a symbol name
 * (between two NULs, as in a symbol table's strings). */
static int holds_marker(const char *path)
{
	static const char mark[] = "\0" GT_LIB_MARKER "\0";
	struct stat st;
	void *map;
	int fd = open(path, O_RDONLY | O_CLOEXEC), found = 0;

	if (fd < 0)
		return 0;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
		map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (map != MAP_FAILED) {
			found = memmem(map, (size_t)st.st_size, mark, sizeof(mark) - 1) != NULL;
			munmap(map, (size_t)st.st_size);
		}
	}
	close(fd);
	return found;
}

int launcher_is_lib_copy(const char *path)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;

	if (!strncmp(base, GT_LIB_NAME, strlen(GT_LIB_NAME)) && strstr(base, ".so"))
		return 1;
	return strchr(path, '/') && holds_marker(path);
}
