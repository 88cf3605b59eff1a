/* SPDX-License-Identifier: MIT */
/*
 * fake.h - internals of the fake libcuda.so.1 (test/fake/): the object
 * registry standing in for device state, the simulated durations read from
 * FAKE_CUDA_* at load, and the per-symbol call counters.
 */
#ifndef GT_TEST_FAKE_H
#define GT_TEST_FAKE_H

#include <cuda.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define FAKE_HIDDEN __attribute__((visibility("hidden")))

enum fake_kind {
	FK_MEM = 1,     /* device memory: host memory that stands in for it */
	FK_CTX,
	FK_MODULE,
	FK_FUNC,        /* a kernel: CUfunction and CUkernel alike */
	FK_STREAM,
	FK_EVENT,
	FK_HOST,        /* pinned host memory the driver allocated */
	FK_HOSTREG,     /* host memory the program registered (pinned) */
	FK_MANAGED,     /* managed memory */
};

struct fake_obj {
	enum fake_kind kind;
	size_t size;                /* FK_MEM: bytes at mem */
	void *mem;                  /* FK_MEM: the memory; the handle is it */
	const struct fake_obj *module;  /* FK_FUNC: the module it came from */
	char name[256];             /* FK_FUNC: the kernel's symbol */
};

/* Read once, when the library is loaded (see fake_state.c). */
struct fake_settings {
	uint64_t sync_ns;           /* FAKE_CUDA_SYNC_NS: each host sync */
	uint64_t copy_ns;           /* FAKE_CUDA_COPY_NS: each sync copy */
	uint64_t launch_ns;         /* FAKE_CUDA_LAUNCH_NS: each launch */
	int internal;               /* FAKE_CUDA_PROCADDR_INTERNAL=1 */
	int not_ready;              /* FAKE_CUDA_QUERY_NOT_READY=1 */
	int no_device;              /* FAKE_CUDA_NO_DEVICE=1: cuInit fails
	                               as on a machine without a GPU */
};

extern struct fake_settings fake_cfg FAKE_HIDDEN;

/*
 * One counter per exported symbol: its calls and the wall time spent in
 * them.  FAKE_COUNTER puts a pointer to it in the "fake_counters" section,
 * so the exit report finds every counter without a hand-kept list.
 */
struct fake_counter {
	const char *name;
	atomic_ulong calls;
	atomic_ullong ns;
};

#define FAKE_COUNTER(sym)                                                  \
	static struct fake_counter sym##_ctr = { #sym, 0, 0 };             \
	static struct fake_counter *sym##_ctr_ref                          \
		__attribute__((used, section("fake_counters"))) = &sym##_ctr;

FAKE_HIDDEN uint64_t fake_now(void);

/*
 * A profiler's view of each driver call, as CUPTI has inside the real
 * driver: the fake CUPTI registers a hook through the exported
 * fake_driver_set_tool(), and every fake driver function calls it at its
 * entry (site 0) and exit (site 1), with its exported name.
 */
typedef void (*fake_tool_fn)(int site, const char *sym);
extern _Atomic(fake_tool_fn) fake_tool FAKE_HIDDEN;
static inline void fake_tool_call(int site, const char *sym)
{
	fake_tool_fn f = atomic_load_explicit(&fake_tool, memory_order_acquire);

	if (f)
		f(site, sym);
}

/* Count a call that started at t0 (fake_now()). */
static inline void fake_count(struct fake_counter *c, uint64_t t0)
{
	atomic_fetch_add_explicit(&c->calls, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&c->ns, fake_now() - t0,
				  memory_order_relaxed);
}

/* A 2D/3D copy operand, as CUDA_MEMCPY2D/3D/3D_PEER describe one. */
struct fake_span {
	CUmemorytype type;
	const void *host;
	CUdeviceptr dev;
	CUarray array;
	size_t x, y, z;             /* x in bytes */
	size_t pitch, height;
};

FAKE_HIDDEN void fake_spin(uint64_t ns);
FAKE_HIDDEN void fake_set_initialized(void);
FAKE_HIDDEN CUresult fake_ready(void);
FAKE_HIDDEN struct fake_obj *fake_current_ctx(void);
FAKE_HIDDEN void fake_set_current_ctx(struct fake_obj *ctx);

FAKE_HIDDEN struct fake_obj *fake_new(enum fake_kind kind);
FAKE_HIDDEN struct fake_obj *fake_find(const void *handle, enum fake_kind kind);
FAKE_HIDDEN int fake_release(const void *handle, enum fake_kind kind);
FAKE_HIDDEN CUresult fake_malloc(CUdeviceptr *p, size_t n);
FAKE_HIDDEN void *fake_dev(CUdeviceptr p, size_t n);
/* The registered object whose memory holds p (FK_MEM, FK_HOST...), or NULL. */
FAKE_HIDDEN const struct fake_obj *fake_mem_at(uint64_t p);
FAKE_HIDDEN void *fake_any(CUdeviceptr p, size_t n);
FAKE_HIDDEN void *fake_arr(CUarray a, size_t offset, size_t n);
FAKE_HIDDEN int fake_stream_ok(CUstream s);
FAKE_HIDDEN const struct fake_obj *fake_func(const void *handle);

FAKE_HIDDEN CUresult fake_copy(void *dst, const void *src, size_t n,
			       CUstream s, int sync);
FAKE_HIDDEN CUresult fake_copy3d(const struct fake_span *dst,
				 const struct fake_span *src, size_t width,
				 size_t height, size_t depth, CUstream s,
				 int sync);
FAKE_HIDDEN CUresult fake_memset(CUdeviceptr dst, size_t pitch,
				 unsigned int value, unsigned int elem,
				 size_t width, size_t height, CUstream s);
FAKE_HIDDEN CUresult fake_launch(const void *f, unsigned int gx,
				 unsigned int gy, unsigned int gz,
				 unsigned int bx, unsigned int by,
				 unsigned int bz, CUstream s);

#endif /* GT_TEST_FAKE_H */
