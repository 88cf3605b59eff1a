/* SPDX-License-Identifier: MIT */
/*
 * units.c - numbers for people.  Values are printed with two decimals in
 * the largest unit that keeps them under 1000 (1024 for sizes) after
 * rounding, so 999999 ns is "1.00 ms", not "1000.00 us".
 */
#include <stdio.h>

#include "analyzer/lib/units.h"

/* Print v / scale[i] with the first unit in which it rounds below step. */
static const char *fmt_scaled(char *buf, size_t size, uint64_t v,
			      double step, const char *const *units,
			      size_t nunits)
{
	double x = (double)v;
	size_t i = 0;

	if (x < step) {
		snprintf(buf, size, "%llu %s", (unsigned long long)v, units[0]);
		return buf;
	}
	x /= step;
	for (i = 1; i + 1 < nunits && x >= step - 0.005; i++)
		x /= step;
	snprintf(buf, size, "%.2f %s", x, units[i]);
	return buf;
}

const char *fmt_ns(char *buf, size_t size, uint64_t ns)
{
	static const char *const units[] = { "ns", "us", "ms", "s" };

	return fmt_scaled(buf, size, ns, 1000, units, 4);
}

const char *fmt_bytes(char *buf, size_t size, uint64_t bytes)
{
	static const char *const units[] = {
		"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB",
	};

	return fmt_scaled(buf, size, bytes, 1024, units, 7);
}

const char *fmt_share(char *buf, size_t size, uint64_t part, uint64_t whole)
{
	snprintf(buf, size, "%.1f%%", whole ? 100.0 * (double)part / (double)whole : 0);
	return buf;
}
