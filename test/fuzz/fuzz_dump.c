/* SPDX-License-Identifier: MIT */
/*
 * fuzz_dump.c - a libFuzzer target (make fuzz): any bytes, read as a dump
 * by gputrace-analyze itself, the JSON and the text report both.
 *
 * analyzer/main.c is compiled with main renamed (-Dmain=gt_analyzer_main)
 * and run as the command would be, on a memory file holding the input, so
 * whatever the analyzer does with a dump is fuzzed, reports included.  A
 * crash, a sanitizer report, a leak, an allocation over -malloc_limit_mb
 * or an exit() (the analyzer must return 2, not die) fails the run.
 */
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

int gt_analyzer_main(int argc, char **argv);

static char path[64];
static int fd = -1;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char prog[] = "gputrace-analyze", json[] = "--json", top[] = "--top=0";
	char *with_json[] = { prog, json, path, NULL };
	char *text[] = { prog, top, path, NULL };

	if (fd < 0) {
		fd = memfd_create("dump", 0);
		if (fd < 0)
			abort();
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	optind = 0;                     /* getopt starts over */
	gt_analyzer_main(3, with_json);
	optind = 0;
	gt_analyzer_main(3, text);
	return 0;
}
