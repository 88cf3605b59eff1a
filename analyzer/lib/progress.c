/* SPDX-License-Identifier: MIT */
/*
 * progress.c - the progress bar (progress.h): "reading  [=====>    ]  42%
 * 1.2 GiB" redrawn in place with \r, at most 200 times, and erased at
 * the end.  On a terminal it shows once the work has taken a second
 * (PROGRESS_AFTER_NS): quick work draws nothing.  GPUTRACE_PROGRESS=1
 * forces it on from the start, 0 off; any other value is said once and
 * ignored.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "analyzer/lib/progress.h"
#include "analyzer/lib/units.h"
#include "analyzer/lib/util.h"

#define BAR_WIDTH 40
#define STEPS 200

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static struct {
	int forced;                 /* -1 decide, 0 off, 1 on */
	int on;                     /* wanted: forced, or on a terminal */
	int shown;                  /* drawn (from the start when forced) */
	const char *what;
	uint64_t total, next, step;
	uint64_t t0;                /* when the work began */
	uint64_t (*now)(void);
} pb = { -1, 0, 0, NULL, 0, 0, 0, 0, mono_ns };

/* A thread of several (ranks_load's readers): the bar is not its own. */
static __thread int muted;

void progress_mute_thread(int on)
{
	muted = on;
}

void progress_force(int on)
{
	pb.forced = on;
}

void progress_clock(uint64_t (*now)(void))
{
	pb.now = now ? now : mono_ns;
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

/* 0 off; 1 on a terminal, once the work has taken a second; 2 forced on
 * from the start. */
static int wanted(void)
{
	int env = setting();

	if (pb.forced >= 0)
		return pb.forced ? 2 : 0;
	if (env >= 0)
		return env ? 2 : 0;
	return isatty(STDERR_FILENO);
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
	int w;

	if (muted)
		return;
	w = wanted();

	pb.on = w > 0;
	pb.shown = w == 2;
	pb.what = what;
	pb.total = total;
	pb.step = total / STEPS ? total / STEPS : 1;
	pb.next = pb.step;
	pb.t0 = pb.now();
	if (pb.shown)
		draw(0);
}

/* At each 0.5% step: drawn once the work has taken PROGRESS_AFTER_NS. */
void progress_tick(uint64_t done)
{
	if (muted || done < pb.next || !pb.on)
		return;
	pb.next = done + pb.step;
	if (!pb.shown && pb.now() - pb.t0 < PROGRESS_AFTER_NS)
		return;
	pb.shown = 1;
	draw(done > pb.total ? pb.total : done);
}

void progress_end(void)
{
	if (muted)
		return;
	if (!pb.shown) {
		pb.on = 0;
		return;
	}
	draw(pb.total);
	fprintf(stderr, "\r%*s\r", BAR_WIDTH + 40, "");
	fflush(stderr);
	pb.on = pb.shown = 0;
}

int progress_shown(void)
{
	return !muted && pb.shown;
}

uint64_t progress_file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) ? (uint64_t)st.st_size
							   : 0;
}
