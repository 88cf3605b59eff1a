/* SPDX-License-Identifier: MIT */
/*
 * gpu_internal.h - what the GPU timeline files share: the clock fit
 * (gpu_clock.c), the busy-time union (gpu_busy.c), the tables where host
 * events and GPU records wait for each other (gpu_pending.c), and the
 * statistics (gpu.c), read by the reports (gpu_report.c).
 */
#ifndef GPUTRACE_ANALYZER_GPU_INTERNAL_H
#define GPUTRACE_ANALYZER_GPU_INTERNAL_H

#include "analyzer/passes/gpu.h"
#include "analyzer/lib/hmap.h"

/* ---- gpu_clock.c: CUPTI's clock onto the host's ------------------------ */

struct gpu_clock {
	uint64_t pairs;
	struct gt_clock_pair first, last;
	double slope;               /* host ns per GPU ns, from first to last */
};

void gpu_clock_add(struct gpu_clock *c, const struct gt_clock_pair *p);
/* A CUPTI timestamp in host time; 0 when no pair was seen. */
uint64_t gpu_clock_map(const struct gpu_clock *c, uint64_t gpu_ns);
/* Host minus GPU clock at the last pair (ns), and the drift in ppm. */
double gpu_clock_offset(const struct gpu_clock *c);
double gpu_clock_drift_ppm(const struct gpu_clock *c);

/* ---- gpu_busy.c: the union of busy intervals ---------------------------- */

struct gpu_span {
	uint64_t start, end;
};

struct gpu_union {
	struct gpu_span *live;      /* sorted, disjoint, not yet final:
	                               live[off .. off + n) */
	size_t off, n, cap;
	uint64_t busy;              /* length of the retired intervals */
	uint64_t frontier;          /* nothing before it is added again */
	uint64_t max_start;
	uint64_t late;              /* intervals cut at the frontier */
	int keep;                   /* keep retired spans for queries */
	struct gpu_span *kept;      /* retired, sorted, disjoint (capped) */
	uint64_t *cum;              /* busy before kept[i] (gpu_union_end) */
	size_t nkept, capkept;
	int coarse;                 /* kept spans were merged to stay small */
};

void gpu_union_add(struct gpu_union *u, uint64_t start, uint64_t end);
/* Retire everything: busy is final; queries can be made. */
void gpu_union_end(struct gpu_union *u);
/* Busy time within [t0, t1] (after gpu_union_end, keep set). */
uint64_t gpu_union_between(const struct gpu_union *u, uint64_t t0, uint64_t t1);
void gpu_union_release(struct gpu_union *u);

/* ---- gpu_pending.c: id -> waiting item, bounded ------------------------- */

/* A GPU record kept until its host event comes (or a host event until
 * its GPU records come). */
struct gpu_item {
	uint64_t id;                /* the host event's id */
	uint32_t kind;              /* GPU records: enum gt_gpu_kind;
	                               host events: enum gt_kind */
	uint32_t name_str;          /* kernels */
	uint64_t start, end;        /* GPU records: CUPTI clock */
	uint64_t t1;                /* host events: when the call returned */
	uint64_t bytes;
	uint8_t src_kind, dst_kind, copy_kind;
	uint8_t multi;              /* host events: a batch of copies */
	struct row *row;            /* host events */
	const char *symbol;         /* host launches: the kernel's symbol */
};

struct gpu_pending {
	struct gpu_item *slot;      /* open addressing, cap slots */
	uint64_t *fifo;             /* ids in arrival order, for eviction */
	size_t cap, max, len, head, count;     /* cap grows up to max */
	uint64_t evicted;
};

void gpu_pending_init(struct gpu_pending *p, size_t cap);
/* The item for id, or NULL. */
struct gpu_item *gpu_pending_get(struct gpu_pending *p, uint64_t id);
/* Add (the oldest is evicted when full; *evicted gets a copy of it and
 * 1 is returned then, else 0). */
int gpu_pending_put(struct gpu_pending *p, const struct gpu_item *it,
		    struct gpu_item *evicted);
void gpu_pending_del(struct gpu_pending *p, uint64_t id);
/* Each item still there, then empty. */
void gpu_pending_drain(struct gpu_pending *p,
		       void (*fn)(struct gpu_item *it, void *arg), void *arg);
void gpu_pending_release(struct gpu_pending *p);

/* ---- gpu.c: the statistics ------------------------------------------------ */

#define GPU_WINDOWS_SHOWN 16
#define GPU_WINDOWS_RECENT 8
#define GPU_MAX_DEVICES 64

struct gpu_window_span {
	uint64_t start, end;        /* end 0: still open */
};

struct gpu_kernel_only {
	char *symbol;               /* CUPTI's name */
	int via_graph;              /* run by a graph launch */
	struct row_gpu g;
};

struct gpu_stats {
	struct gt_gpu_state state;
	int have_state;
	char *path, *holder;
	char *no_window;            /* the library's note: why none opened */
	struct gt_gpu_drops drops;
	struct gpu_clock clock;

	uint64_t windows, window_ns;    /* closed windows: count, time */
	struct gpu_window_span shown[GPU_WINDOWS_SHOWN];
	struct gpu_window_span recent[GPU_WINDOWS_RECENT];
	size_t nrecent;
	struct gpu_window_span open;

	uint64_t kernels, copies, sets, syncs, graphs, incomplete;
	uint64_t unjoined;          /* GPU records without a host id */
	uint64_t orphans;           /* with one no host event in the dump has */
	uint64_t name_mismatch;     /* joined kernels named otherwise */
	uint64_t no_clock;          /* records before any clock pair */
	uint64_t launches;          /* successful launches inside windows */
	uint64_t launches_joined;   /* ... that got their kernel record */
	uint64_t copies_in, copies_joined;  /* same for copies and sets */
	uint64_t negative_queue;    /* GPU start before the launch returned */
	uint64_t edge;              /* records of calls made just outside a
	                               window (as it opened or closed) */

	struct gpu_pending hosts;   /* host events waiting for GPU records */
	struct gpu_pending early;   /* GPU records waiting for host events */
	struct gpu_pending outside; /* recent calls outside windows: edges */
	struct gpu_union all;       /* host clock, all devices, kept */
	struct gpu_union dev[GPU_MAX_DEVICES];
	uint32_t ndev;              /* highest device + 1 */
	struct hmap only;           /* symbol -> struct gpu_kernel_only */
};

/* gpu_report.c */
const char *gpu_cupti_name(uint32_t state);
const char *gpu_mode_name(uint32_t mode);

#endif /* GPUTRACE_ANALYZER_GPU_INTERNAL_H */
