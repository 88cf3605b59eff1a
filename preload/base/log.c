/* SPDX-License-Identifier: MIT */
/*
 * log.c - one line on stderr, formatted on the stack and written with one
 * write(2), errno preserved: usable from any thread at any time.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#include "preload/base/internal.h"

void gt_log(const char *fmt, ...)
{
	char buf[512];
	int saved = errno, n;
	va_list ap;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(buf) - 1)
		n = sizeof(buf) - 1;
	if (n > 0 && write(STDERR_FILENO, buf, (size_t)n) < 0)
		(void)0;
	errno = saved;
}
