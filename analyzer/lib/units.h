/* SPDX-License-Identifier: MIT */
/*
 * units.h - numbers for people: times and sizes with a unit.
 */
#ifndef GPUTRACE_ANALYZER_UNITS_H
#define GPUTRACE_ANALYZER_UNITS_H

#include <stddef.h>
#include <stdint.h>

#define UNITS_BUF 32            /* enough for any result */

/* "950 ns", "4.20 us", "12.35 ms", "3.10 s" */
const char *fmt_ns(char *buf, size_t size, uint64_t ns);
/* "512 B", "1.50 KiB", "3.00 GiB" */
const char *fmt_bytes(char *buf, size_t size, uint64_t bytes);
/* part of whole as "4.3%" ("0.0%" when whole is 0) */
const char *fmt_share(char *buf, size_t size, uint64_t part, uint64_t whole);

#endif /* GPUTRACE_ANALYZER_UNITS_H */
