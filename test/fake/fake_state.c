/* SPDX-License-Identifier: MIT */
/*
 * fake_state.c - the state behind the fake libcuda.so.1: settings read at
 * load, the registry of handles it gave out (so that a tracer passing a
 * wrong argument gets an error, as from a real driver), the copy, memset
 * and launch helpers, and the FAKE_CUDA_COUNTS report at exit.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "test/fake/fake.h"

struct fake_settings fake_cfg = {
	.sync_ns = 2000000,
	.copy_ns = 1000000,
	.launch_ns = 0,
};

#define FAKE_MAX_OBJS 4096

_Atomic(fake_tool_fn) fake_tool;

/* Exported for the fake libcupti (fake.h). */
__attribute__((visibility("default"))) void fake_driver_set_tool(fake_tool_fn f)
{
	atomic_store(&fake_tool, f);
}

static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static struct fake_obj *reg[FAKE_MAX_OBJS];
static size_t reg_n;
static atomic_int initialized;
static _Thread_local struct fake_obj *current_ctx;

extern struct fake_counter *__start_fake_counters[] FAKE_HIDDEN;
extern struct fake_counter *__stop_fake_counters[] FAKE_HIDDEN;

static uint64_t env_u64(const char *name, uint64_t def)
{
	const char *s = getenv(name);
	char *end;
	unsigned long long v;

	if (!s || !*s)
		return def;
	v = strtoull(s, &end, 10);
	return *end ? def : (uint64_t)v;
}

static int env_on(const char *name)
{
	const char *s = getenv(name);

	return s && strcmp(s, "1") == 0;
}

/* A forked child has one thread: a lock another thread held is free. */
static void fake_after_fork(void)
{
	pthread_mutex_init(&reg_lock, NULL);
}

__attribute__((constructor)) static void fake_load(void)
{
	pthread_atfork(NULL, NULL, fake_after_fork);
	fake_cfg.no_device = env_on("FAKE_CUDA_NO_DEVICE");
	fake_cfg.sync_ns = env_u64("FAKE_CUDA_SYNC_NS", fake_cfg.sync_ns);
	fake_cfg.copy_ns = env_u64("FAKE_CUDA_COPY_NS", fake_cfg.copy_ns);
	fake_cfg.launch_ns = env_u64("FAKE_CUDA_LAUNCH_NS", fake_cfg.launch_ns);
	fake_cfg.internal = env_on("FAKE_CUDA_PROCADDR_INTERNAL");
	fake_cfg.not_ready = env_on("FAKE_CUDA_QUERY_NOT_READY");
}

/*
 * Write "symbol calls ns" for every symbol called, ns being the wall time
 * spent inside it, if FAKE_CUDA_COUNTS says where.
 */
__attribute__((destructor)) static void fake_unload(void)
{
	const char *path = getenv("FAKE_CUDA_COUNTS");
	struct fake_counter **c;
	FILE *f;

	if (!path || !*path)
		return;
	f = fopen(path, "w");
	if (!f)
		return;
	for (c = __start_fake_counters; c < __stop_fake_counters; c++) {
		unsigned long n = atomic_load(&(*c)->calls);
		unsigned long long ns = atomic_load(&(*c)->ns);

		if (n)
			fprintf(f, "%s %lu %llu\n", (*c)->name, n, ns);
	}
	fclose(f);
}

uint64_t fake_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Busy-wait, so that the time is spent on the calling thread's CPU too. */
void fake_spin(uint64_t ns)
{
	uint64_t t0;

	if (!ns)
		return;
	t0 = fake_now();
	while (fake_now() - t0 < ns)
		;
}

void fake_set_initialized(void)
{
	atomic_store(&initialized, 1);
}

CUresult fake_ready(void)
{
	if (!atomic_load(&initialized))
		return CUDA_ERROR_NOT_INITIALIZED;
	if (!current_ctx)
		return CUDA_ERROR_INVALID_CONTEXT;
	return CUDA_SUCCESS;
}

struct fake_obj *fake_current_ctx(void)
{
	return current_ctx;
}

void fake_set_current_ctx(struct fake_obj *ctx)
{
	current_ctx = ctx;
}

struct fake_obj *fake_new(enum fake_kind kind)
{
	struct fake_obj *o = calloc(1, sizeof(*o));

	if (!o)
		return NULL;
	o->kind = kind;
	pthread_mutex_lock(&reg_lock);
	if (reg_n == FAKE_MAX_OBJS) {
		pthread_mutex_unlock(&reg_lock);
		free(o);
		return NULL;
	}
	reg[reg_n++] = o;
	pthread_mutex_unlock(&reg_lock);
	return o;
}

static const void *obj_handle(const struct fake_obj *o)
{
	return o->kind == FK_MEM || o->kind == FK_HOST || o->kind == FK_HOSTREG ||
	       o->kind == FK_MANAGED ? o->mem : (const void *)o;
}

struct fake_obj *fake_find(const void *handle, enum fake_kind kind)
{
	struct fake_obj *found = NULL;
	size_t i;

	if (!handle)
		return NULL;
	pthread_mutex_lock(&reg_lock);
	for (i = 0; i < reg_n && !found; i++)
		if (reg[i]->kind == kind && obj_handle(reg[i]) == handle)
			found = reg[i];
	pthread_mutex_unlock(&reg_lock);
	return found;
}

/* Forget a handle.  Returns 0, or -1 when it was not one of ours. */
int fake_release(const void *handle, enum fake_kind kind)
{
	struct fake_obj *o = NULL;
	size_t i;

	pthread_mutex_lock(&reg_lock);
	for (i = 0; i < reg_n; i++) {
		if (reg[i]->kind == kind && obj_handle(reg[i]) == handle) {
			o = reg[i];
			reg[i] = reg[--reg_n];
			break;
		}
	}
	pthread_mutex_unlock(&reg_lock);
	if (!o)
		return -1;
	if (o->kind != FK_HOSTREG)      /* registered memory is the program's */
		free(o->mem);
	free(o);
	return 0;
}

CUresult fake_malloc(CUdeviceptr *p, size_t n)
{
	struct fake_obj *o;

	if (!p || !n)
		return CUDA_ERROR_INVALID_VALUE;
	o = fake_new(FK_MEM);
	if (!o)
		return CUDA_ERROR_OUT_OF_MEMORY;
	o->mem = calloc(1, n);
	o->size = n;
	if (!o->mem) {
		fake_release(NULL, FK_MEM);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	*p = (CUdeviceptr)(uintptr_t)o->mem;
	return CUDA_SUCCESS;
}

/* [p, p + n) inside one allocation: its memory, else NULL. */
void *fake_dev(CUdeviceptr p, size_t n)
{
	void *found = NULL;
	size_t i;

	if (!p)
		return NULL;
	pthread_mutex_lock(&reg_lock);
	for (i = 0; i < reg_n && !found; i++) {
		uintptr_t base = (uintptr_t)reg[i]->mem;

		if (reg[i]->kind == FK_MEM && p >= base &&
		    p - base <= reg[i]->size && n <= reg[i]->size - (p - base))
			found = (void *)(uintptr_t)p;
	}
	pthread_mutex_unlock(&reg_lock);
	return found;
}

const struct fake_obj *fake_mem_at(uint64_t p)
{
	const struct fake_obj *found = NULL;
	size_t i;

	pthread_mutex_lock(&reg_lock);
	for (i = 0; i < reg_n && !found; i++) {
		uintptr_t base = (uintptr_t)reg[i]->mem;

		if (reg[i]->mem && p >= base && p - base < reg[i]->size)
			found = reg[i];
	}
	pthread_mutex_unlock(&reg_lock);
	return found;
}

/* A unified address: device memory if it is ours, host memory otherwise. */
void *fake_any(CUdeviceptr p, size_t n)
{
	void *d = fake_dev(p, n);

	return d ? d : (void *)(uintptr_t)p;
}

/* Arrays are plain allocations here: the CUarray is the memory's address. */
void *fake_arr(CUarray a, size_t offset, size_t n)
{
	if (!a)
		return NULL;
	return fake_dev((CUdeviceptr)(uintptr_t)a + offset, n);
}

int fake_stream_ok(CUstream s)
{
	return s == NULL || s == CU_STREAM_LEGACY || s == CU_STREAM_PER_THREAD ||
	       fake_find(s, FK_STREAM) != NULL;
}

const struct fake_obj *fake_func(const void *handle)
{
	return fake_find(handle, FK_FUNC);
}

CUresult fake_copy(void *dst, const void *src, size_t n, CUstream s, int sync)
{
	CUresult rc = fake_ready();

	if (rc)
		return rc;
	if (n && (!dst || !src))
		return CUDA_ERROR_INVALID_VALUE;
	if (!fake_stream_ok(s))
		return CUDA_ERROR_INVALID_HANDLE;
	if (n)
		memmove(dst, src, n);
	if (sync)
		fake_spin(fake_cfg.copy_ns);
	return CUDA_SUCCESS;
}

struct placed {
	char *p;
	size_t pitch, height;
};

/* Where a span's box of width x height x depth starts, checked. */
static int span_place(const struct fake_span *sp, size_t w, size_t h,
		      size_t d, struct placed *out)
{
	size_t off, ext;

	out->pitch = sp->pitch && sp->type != CU_MEMORYTYPE_ARRAY ? sp->pitch : w;
	out->height = sp->height && sp->type != CU_MEMORYTYPE_ARRAY ? sp->height : h;
	if ((h > 1 && out->pitch < w) || (d > 1 && out->height < h))
		return -1;
	off = (sp->z * out->height + sp->y) * out->pitch + sp->x;
	ext = ((d - 1) * out->height + (h - 1)) * out->pitch + w;
	switch (sp->type) {
	case CU_MEMORYTYPE_HOST:
		out->p = sp->host ? (char *)sp->host + off : NULL;
		break;
	case CU_MEMORYTYPE_DEVICE:
		out->p = fake_dev(sp->dev + off, ext);
		break;
	case CU_MEMORYTYPE_ARRAY:
		out->p = fake_arr(sp->array, off, ext);
		break;
	case CU_MEMORYTYPE_UNIFIED:
		out->p = sp->dev ? fake_any(sp->dev + off, ext) : NULL;
		break;
	default:
		out->p = NULL;
	}
	return out->p ? 0 : -1;
}

CUresult fake_copy3d(const struct fake_span *dst, const struct fake_span *src,
		     size_t width, size_t height, size_t depth, CUstream s,
		     int sync)
{
	struct placed pd, ps;
	CUresult rc = fake_ready();
	size_t y, z;

	if (rc)
		return rc;
	if (!fake_stream_ok(s))
		return CUDA_ERROR_INVALID_HANDLE;
	if (!width || !height || !depth)
		return CUDA_SUCCESS;
	if (span_place(dst, width, height, depth, &pd) ||
	    span_place(src, width, height, depth, &ps))
		return CUDA_ERROR_INVALID_VALUE;
	for (z = 0; z < depth; z++)
		for (y = 0; y < height; y++)
			memmove(pd.p + (z * pd.height + y) * pd.pitch,
				ps.p + (z * ps.height + y) * ps.pitch, width);
	if (sync)
		fake_spin(fake_cfg.copy_ns);
	return CUDA_SUCCESS;
}

/* cuMemsetD*: width elements of elem bytes on each of height rows. */
CUresult fake_memset(CUdeviceptr dst, size_t pitch, unsigned int value,
		     unsigned int elem, size_t width, size_t height, CUstream s)
{
	CUresult rc = fake_ready();
	size_t row = width * elem, x, y;
	char *p;

	if (rc)
		return rc;
	if (!fake_stream_ok(s))
		return CUDA_ERROR_INVALID_HANDLE;
	if (height > 1 && pitch < row)
		return CUDA_ERROR_INVALID_VALUE;
	if (!row || !height)
		return CUDA_SUCCESS;
	p = fake_dev(dst, (height - 1) * pitch + row);
	if (!p || dst % elem)
		return CUDA_ERROR_INVALID_VALUE;
	for (y = 0; y < height; y++, p += pitch)
		for (x = 0; x < width; x++)
			memcpy(p + x * elem, &value, elem);
	return CUDA_SUCCESS;
}

CUresult fake_launch(const void *f, unsigned int gx, unsigned int gy,
		     unsigned int gz, unsigned int bx, unsigned int by,
		     unsigned int bz, CUstream s)
{
	CUresult rc = fake_ready();

	if (rc)
		return rc;
	if (!fake_func(f) || !fake_stream_ok(s))
		return CUDA_ERROR_INVALID_HANDLE;
	if (!gx || !gy || !gz || !bx || !by || !bz || bx * by * bz > 1024)
		return CUDA_ERROR_INVALID_VALUE;
	fake_spin(fake_cfg.launch_ns);
	return CUDA_SUCCESS;
}
