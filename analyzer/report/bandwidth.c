/* SPDX-License-Identifier: MIT */
/*
 * bandwidth.c - copy bandwidth in the reports (report.h): bytes over the
 * time the GPU records say the copies ran, never over a call's host time
 * (an async call returns before its copy runs, a sync one waits for the
 * queue first); and a copy between host and device never said to go
 * faster than the PCIe link the dump records carries: that is a
 * measurement to doubt, said so, not a bandwidth.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/passes/env_internal.h"
#include "analyzer/passes/gpu.h"
#include "analyzer/report/report.h"

#define DEV_FACT(s, i, key) (&(s)->nvml[i].f[(key) - 32])

/* GB/s per lane and direction, by PCIe generation (encoding included). */
static const double lane_gbps[] = {
	0, 0.25, 0.5, 0.985, 1.969, 3.938, 7.563,
};

int report_link(const struct model *m, struct report_link *l)
{
	const struct env_stats *s = m->env;
	int i = s ? env_main_nvml(m) : -1;
	int64_t gen = 0, gen_max = 0, width = 0, width_max = 0;

	memset(l, 0, sizeof(*l));
	if (i < 0)
		return 0;
	env_fact_num(DEV_FACT(s, i, GT_ENV_PCIE_GEN), &gen);
	env_fact_num(DEV_FACT(s, i, GT_ENV_PCIE_GEN_MAX), &gen_max);
	env_fact_num(DEV_FACT(s, i, GT_ENV_PCIE_WIDTH), &width);
	env_fact_num(DEV_FACT(s, i, GT_ENV_PCIE_WIDTH_MAX), &width_max);
	gen = gen_max > gen ? gen_max : gen;    /* the link slows when idle */
	width = width > 0 ? width : width_max;
	if (gen <= 0 || gen >= (int64_t)(sizeof(lane_gbps) / sizeof(*lane_gbps)) ||
	    width <= 0 || width > 64)
		return 0;
	l->gbps = lane_gbps[gen] * (double)width;
	snprintf(l->name, sizeof(l->name), "PCIe gen%d x%d", (int)gen, (int)width);
	return 1;
}

static int crosses_link(uint8_t direction)
{
	return direction == GT_DIR_HTOD || direction == GT_DIR_DTOH;
}

enum bw_state report_bandwidth(const struct model *m, uint8_t direction,
			       uint64_t bytes, uint64_t gpu_ns, double *gbps)
{
	struct report_link l;

	*gbps = 0;
	if (!gpu_ns)
		return BW_NO_GPU;
	*gbps = (double)bytes / (double)gpu_ns;
	if (crosses_link(direction) && report_link(m, &l) && *gbps > l.gbps)
		return BW_ABOVE_LINK;
	return BW_OK;
}

const char *report_bandwidth_cell(char *buf, size_t size, enum bw_state st,
				  double gbps)
{
	if (st != BW_OK)
		return "-";
	if (gbps < 0.1)
		snprintf(buf, size, "%.2f MB/s", gbps * 1000);
	else
		snprintf(buf, size, "%.2f GB/s", gbps);
	return buf;
}

void report_bandwidth_notes(FILE *out, const struct model *m, unsigned seen)
{
	struct report_link l;

	if (seen & (1u << BW_NO_GPU))
		report_line(out, "  -: no GPU records of these copies; bandwidth is "
			    "bytes over GPU time, a call's host time is not its "
			    "copy's");
	if ((seen & (1u << BW_ABOVE_LINK)) && report_link(m, &l))
		report_line(out, "  -: the GPU records give these copies more than "
			    "the %s link carries (%.1f GB/s): a measurement to "
			    "doubt (records overlapping or cut), not shown", l.name,
			    l.gbps);
}

int report_class_gpu(const struct model *m, const struct row *cls,
		     uint64_t *bytes, uint64_t *ns)
{
	size_t n;
	struct row **rows = model_rows(m, ROW_COPY, &n);
	int any = 0;

	*bytes = *ns = 0;
	for (size_t i = 0; i < n; i++) {
		const struct row *r = rows[i];

		if (!r->gpu || !r->gpu->calls || r->direction != cls->direction ||
		    r->memory != cls->memory || !r->async != !cls->async)
			continue;
		*bytes += r->gpu->bytes;
		*ns += r->gpu->total_ns;
		any = 1;
	}
	free(rows);
	return any;
}
