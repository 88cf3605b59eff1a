/* SPDX-License-Identifier: MIT */
/*
 * report.h - turn a model into a text report or a JSON document.
 */
#ifndef GPUTRACE_ANALYZER_REPORT_H
#define GPUTRACE_ANALYZER_REPORT_H

#include <stdio.h>

#include "analyzer/model/model.h"

#define REPORT_WIDTH 100        /* prose wraps here at the most; tables fit
				   this width when the terminal's is not
				   known (a file, a pipe) */

struct report_opts {
	size_t top;             /* rows per table, 0 = all */
};

void report_text(FILE *out, const struct model *m,
		 const struct report_opts *opts);
/* One JSON object with every row (top does not apply). */
void report_json(FILE *out, const struct model *m);

/*
 * The width of the text report (report_lines.c).  Tables fit in it,
 * kernel names shortened by structure (shortname.h), other names cut
 * with "..." when they must; prose wraps at it, or at REPORT_WIDTH if
 * that is less, and is never cut.  0 (--wide) sets no limit: kernels
 * under their whole demangled names.
 */
void report_set_width(size_t columns);
/* The width set, SIZE_MAX for no limit. */
size_t report_width(void);
/* The width stdout asks for: a terminal's columns (TIOCGWINSZ), else
 * COLUMNS, else REPORT_WIDTH (a file or a pipe). */
size_t report_terminal_width(void);

/* ---- copy bandwidth (bandwidth.c) ---------------------------------------- */

/* The PCIe link of the GPU the program used, at its top rate: its
 * generation's most (the link slows down when idle) at its width. */
struct report_link {
	double gbps;                /* per direction */
	char name[32];              /* "PCIe gen5 x16" */
};
/* 1 and *l when the dump records the link, else 0. */
int report_link(const struct model *m, struct report_link *l);

enum bw_state {
	BW_OK,
	BW_NO_GPU,                  /* no GPU time: not known */
	BW_ABOVE_LINK,              /* above what the link carries: doubtful */
};
/* Bytes over GPU time (GB/s) for a copy in direction (GT_DIR_*). */
enum bw_state report_bandwidth(const struct model *m, uint8_t direction,
			       uint64_t bytes, uint64_t gpu_ns, double *gbps);
/* "14.27 GB/s", "2.35 MB/s", or "-" unless BW_OK. */
const char *report_bandwidth_cell(char *buf, size_t size, enum bw_state st,
				  double gbps);
/* Under a table: what its "-" mean, for each state set in seen (bits of
 * 1 << BW_*). */
void report_bandwidth_notes(FILE *out, const struct model *m, unsigned seen);
/* The GPU records of a copy class's copies (ROW_COPY rows of its
 * direction, host memory and mode): 1 and their bytes and time, or 0. */
int report_class_gpu(const struct model *m, const struct row *cls,
		     uint64_t *bytes, uint64_t *ns);

/* ---- host samples by idle cause (hostsample_report.c) ----------------- */

struct json;
/* The section of the text report: each outside-CUDA cause's top
 * functions (5, fewer when top is less; top 0: all). */
void hostsample_report_text(FILE *out, const struct model *m, size_t top);
/* "host_samples" of the JSON report (null without samples). */
void hostsample_report_json(struct json *j, const struct model *m);
/* The section of the HTML report. */
void hostsample_report_html(FILE *out, const struct model *m);

/* One line, made printable and wrapped at word boundaries, each further
 * line indented 4 more than the first. */
void report_line(FILE *out, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Text made printable and wrapped: first before its first line, rest
 * before the others. */
void report_wrap(FILE *out, const char *first, const char *rest, const char *s);

#endif /* GPUTRACE_ANALYZER_REPORT_H */
