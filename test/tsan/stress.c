/* SPDX-License-Identifier: MIT */
/*
 * stress.c - the recording path under ThreadSanitizer (make test-tsan).
 *
 * The library's own code, built with -fsanitize=thread and linked into
 * this program (a preloaded library cannot bring TSan's runtime): threads
 * record events through gt_rec_begin/gt_rec_commit exactly as the
 * wrappers do, waves of short-lived threads leave their rings to be
 * drained and reused, another thread adds side chunks and strings and
 * registers cycle hooks while the writer runs them, and
 * the writer thread drains every millisecond (rings are small enough
 * that some events may be dropped).  Then the dump is ended and read back with the
 * analyzer: events + dropped must equal the records attempted.
 *
 * Environment (set before start, as the library reads it in its
 * constructor): GT_ANALYZER, the analyzer to read the dump with.
 * Exit status 0 when the counts agree; TSan makes it 66 on a race.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "include/gputrace/format.h"
#include "preload/hooks/fill.h"
#include "preload/hooks/hooks.h"
#include "preload/record/ring.h"
#include "preload/record/writer.h"
#include "test/tsan/standins.h"

#define THREADS 8
#define WAVES 4
#define EVENTS 20000                /* per thread and wave */

/* What the files left out of this program (libc interposers) provide
 * comes from standins.h; without signals.c SIGPROF is not kept, so the
 * host sampler is off (GPUTRACE_HOST_HZ=0, set in main: it says nothing) */

static _Atomic uint64_t attempted;
static atomic_int side_stop;
static atomic_int hook_runs;

static void count_cycle(int final)
{
	(void)final;
	atomic_fetch_add(&hook_runs, 1);
}

static void record_one(long i)
{
	struct gt_rec *r;
	static char funcs[4];

	atomic_fetch_add_explicit(&attempted, 1, memory_order_relaxed);
	r = gt_rec_begin();
	if (!r)
		return;
	if (i % 3 == 0) {
		gt_fill_launch(r, (CUfunction)&funcs[i % 4], 1, 1, 1, 32, 1, 1, 0,
			       (CUstream)(uintptr_t)(16 + i % 5), NULL, NULL);
		r->t0 = gt_now();
		r->t1 = gt_now();
		gt_rec_commit(r, GT_OP_cuLaunchKernel, 0);
	} else if (i % 3 == 1) {
		gt_fill_copy(r, 0x1000, 0x2000, 64 * (i % 7), NULL);
		r->t0 = gt_now();
		r->t1 = gt_now();
		gt_rec_commit(r, GT_OP_cuMemcpyHtoD_v2, 0);
	} else {
		gt_fill_obj(r, 0, NULL);
		r->t0 = gt_now();
		r->t1 = gt_now();
		gt_rec_commit(r, GT_OP_cuStreamSynchronize, 0);
	}
}

static void *recorder(void *arg)
{
	(void)arg;
	for (long i = 0; i < EVENTS; i++)
		record_one(i);
	return NULL;
}

static void *side_writer(void *arg)
{
	char text[64];
	uint32_t level = 1;

	(void)arg;
	for (int i = 0; !atomic_load(&side_stop); i++) {
		int n = snprintf(text, sizeof(text), "note %d", i);

		gt_writer_string(text, (size_t)n);
		gt_writer_side_chunk(GT_CHUNK_NOTE, &level, sizeof(level), text,
				     (size_t)n);
		if (i % 50 == 0 && i / 50 < 3)
			gt_writer_on_cycle(count_cycle);
		usleep(100);
	}
	return NULL;
}

/* The number after the first "key": in the analyzer's JSON output. */
static int json_number(const char *json, const char *key, unsigned long long *v)
{
	const char *p = strstr(json, key);

	if (!p)
		return -1;
	p += strlen(key);
	while (*p == ' ' || *p == ':')
		p++;
	*v = strtoull(p, NULL, 10);
	return 0;
}

/* events + dropped that the analyzer reads in the dump. */
static int read_back(const char *dump, unsigned long long *events,
		     unsigned long long *dropped)
{
	const char *analyzer = getenv("GT_ANALYZER");
	static char out[1 << 20];
	char cmd[8192];
	size_t n;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "'%s' --json '%s'", analyzer ? analyzer :
		 "build/gputrace-analyze", dump);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	n = fread(out, 1, sizeof(out) - 1, p);
	out[n] = 0;
	if (pclose(p) || json_number(out, "\"events\"", events) ||
	    json_number(out, "\"dropped\"", dropped))
		return -1;
	return 0;
}

int main(int argc, char **argv)
{
	char dir[] = "/tmp/gt-tsan-XXXXXX", dump[256];
	pthread_t t[THREADS], side;
	unsigned long long events = 0, dropped = 0;

	if (argc < 2) {     /* settings are read at start: run again with them */
		if (!mkdtemp(dir))
			return 2;
		snprintf(dump, sizeof(dump), "%s/stress.bin", dir);
		setenv("GPUTRACE_OUTPUT", dump, 1);
		setenv("GPUTRACE_FLUSH_MS", "1", 1);
		setenv("GPUTRACE_THREAD_BUFFER_KB", "1024", 1);
		setenv("GPUTRACE_HOST_HZ", "0", 1);
		execl("/proc/self/exe", argv[0], dump, (char *)NULL);
		return 2;
	}
	record_one(0);                  /* the dump is made: side data can go */
	pthread_create(&side, NULL, side_writer, NULL);
	for (int wave = 0; wave < WAVES; wave++) {
		for (int i = 0; i < THREADS; i++)
			pthread_create(&t[i], NULL, recorder, NULL);
		for (int i = 0; i < THREADS; i++)
			pthread_join(t[i], NULL);
	}
	atomic_store(&side_stop, 1);
	pthread_join(side, NULL);
	gt_writer_finish();
	if (read_back(argv[1], &events, &dropped)) {
		fprintf(stderr, "stress: cannot read back '%s'\n", argv[1]);
		return 1;
	}
	printf("stress: %llu attempted, %llu events + %llu dropped, %d hook runs\n",
	       (unsigned long long)attempted, events, dropped,
	       atomic_load(&hook_runs));
	unlink(argv[1]);
	*strrchr(argv[1], '/') = 0;
	rmdir(argv[1]);
	return events + dropped == attempted && atomic_load(&hook_runs) ? 0 : 1;
}
