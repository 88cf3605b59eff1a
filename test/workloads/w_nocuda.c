/* SPDX-License-Identifier: MIT */
/*
 * w_nocuda.c - a program that never touches CUDA: a thread, some memory,
 * a line on stdout.  Under the tracer it must run as it does without it.
 *
 *   w_nocuda [EXIT_CODE]
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *work(void *p)
{
	size_t i, sum = 0;
	char *buf = malloc(1 << 20);

	if (!buf)
		return NULL;
	memset(buf, 1, 1 << 20);
	for (i = 0; i < (1 << 20); i++)
		sum += (size_t)buf[i];
	free(buf);
	*(size_t *)p = sum;
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;
	size_t sum = 0;

	if (pthread_create(&t, NULL, work, &sum))
		return 90;
	pthread_join(t, NULL);
	printf("w_nocuda ok %zu\n", sum);
	return argc > 1 ? atoi(argv[1]) : 0;
}
