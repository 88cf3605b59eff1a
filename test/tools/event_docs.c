/* SPDX-License-Identifier: MIT */
/*
 * event_docs.c - prints docs/format.md's table of event kinds and their
 * arguments from format.h's declaration (GT_EVENT_KINDS, GT_ARGS_<KIND>),
 * the same one the writer's encoder and the reader's indices come from.
 * test/t/198-format-docs.t checks that the document holds this output;
 * `make format-docs` puts it there.
 */
#include <stdio.h>

#include "include/gputrace/format.h"

#define ARG_(k, a, what) printf("%s%d `%s` %s", sep, i++, #a, what), sep = "; ";
#define KIND_(k, v, what)                                                    \
	do {                                                                 \
		const char *sep = "";                                        \
		int i = 0;                                                   \
		printf("| `GT_KIND_%s` | %d | %s | ", #k, v, what);          \
		GT_ARGS_##k(ARG_)                                            \
		printf(" |\n");                                              \
	} while (0);

int main(void)
{
	printf("| kind | value | what | arguments, in order: index `GT_ARG_<KIND>_<ARG>` what it holds |\n");
	printf("| --- | --- | --- | --- |\n");
	GT_EVENT_KINDS(KIND_)
	return 0;
}
