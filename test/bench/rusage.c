/* SPDX-License-Identifier: MIT */
/*
 * rusage.c - run a command and say what it cost: the CPU time (user and
 * system) and the peak resident memory of the command, from wait4(), and
 * its wall time, as one line "user_s sys_s maxrss_kb status wall_s"
 * appended to a file (the command keeps stdout and stderr).  For
 * test/bench/bench_analyzer.sh.
 *
 *   rusage OUT CMD [ARG...]
 */
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct rusage ru;
	struct timespec t0, t1;
	int status = 0;
	pid_t pid;
	FILE *out;

	if (argc < 3 || !(out = fopen(argv[1], "a"))) {
		fprintf(stderr, "usage: rusage OUT CMD [ARG...]\n");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid = fork();
	if (pid == 0) {
		execvp(argv[2], argv + 2);
		perror(argv[2]);
		_exit(127);
	}
	if (pid < 0 || wait4(pid, &status, 0, &ru) < 0) {
		perror("rusage");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	fprintf(out, "%ld.%06ld %ld.%06ld %ld %d %.6f\n", (long)ru.ru_utime.tv_sec,
		(long)ru.ru_utime.tv_usec, (long)ru.ru_stime.tv_sec,
		(long)ru.ru_stime.tv_usec, ru.ru_maxrss,
		WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status),
		(double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	fclose(out);
	return 0;
}
