/* SPDX-License-Identifier: MIT */
/*
 * progress.c - the progress bar (progress.h): "reading  [=====>    ]  42%
 * 1.2 GiB" redrawn in place with \r, at most 200 times, and erased at
 * the end.  GPUTRACE_PROGRESS=1 forces it on, 0 off; any other value is
 * said once and ignored.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyzer/progress.h"
#include "analyzer/units.h"
#include "analyzer/util.h"

#define BAR_WIDTH 40
#define STEPS 200

static struct {
	int forced;                 /* -1 decide, 0 off, 1 on */
	int on;
	const char *what;
	uint64_t total, next, step;
} pb = { -1, 0, NULL, 0, 0, 0 };

void progress_force(int on)
{
	pb.forced = on;
}

/* GPUTRACE_PROGRESS: 0 or 1, else -1 (said once). */
static int setting(void)
{
	static int warned;
	const char *env = getenv("GPUTRACE_PROGRESS");

	if (!env || !*env)
		return -1;
	if (!strcmp(env, "0") || !strcmp(env, "1"))
		return *env == '1';
	if (!warned++)
		warning_msg("GPUTRACE_PROGRESS='%s' is not 0 or 1: ignored", env);
	return -1;
}

static int wanted(uint64_t total)
{
	int env = setting();

	if (pb.forced >= 0)
		return pb.forced;
	if (env >= 0)
		return env;
	return total >= PROGRESS_MIN_BYTES && isatty(STDERR_FILENO);
}

static void draw(uint64_t done)
{
	char bar[BAR_WIDTH + 1], size[UNITS_BUF];
	unsigned pct = pb.total ? (unsigned)(done * 100 / pb.total) : 100;
	unsigned fill = pct * BAR_WIDTH / 100, i;

	for (i = 0; i < BAR_WIDTH; i++)
		bar[i] = i < fill ? '=' : i == fill ? '>' : ' ';
	bar[BAR_WIDTH] = '\0';
	fprintf(stderr, "\r%s [%s] %3u%% of %s", pb.what, bar, pct,
		fmt_bytes(size, sizeof(size), pb.total));
	fflush(stderr);
}

void progress_begin(const char *what, uint64_t total)
{
	pb.on = wanted(total);
	pb.what = what;
	pb.total = total;
	pb.step = total / STEPS ? total / STEPS : 1;
	pb.next = pb.step;
	if (pb.on)
		draw(0);
}

void progress_tick(uint64_t done)
{
	if (done < pb.next || !pb.on)
		return;
	pb.next = done + pb.step;
	draw(done > pb.total ? pb.total : done);
}

void progress_end(void)
{
	if (!pb.on)
		return;
	draw(pb.total);
	fprintf(stderr, "\r%*s\r", BAR_WIDTH + 40, "");
	fflush(stderr);
	pb.on = 0;
}

uint64_t progress_file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) ? (uint64_t)st.st_size
							   : 0;
}
