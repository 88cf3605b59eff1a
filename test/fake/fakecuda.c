/* SPDX-License-Identifier: MIT */
/*
 * fakecuda.c - the entry points of the fake libcuda.so.1 that the GPU-less
 * tests run the tracer against.  Each one is exported under the exact name
 * the real driver exports (nm -D .../stubs/libcuda.so), counts its calls,
 * checks its handles and spends the time FAKE_CUDA_* asks for.
 *
 * Every exported function sym has a static twin sym_in with the same
 * behaviour and counter.  cuGetProcAddress hands out the exported ones, or
 * the twins under FAKE_CUDA_PROCADDR_INTERNAL=1: the real driver makes no
 * promise that the two are the same address, and a tracer must not rely on
 * it.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h>
#include <cudaTypedefs.h>

#include "test/fake/fake.h"

/*
 * cuda.h renames these to newer versions; here each function is defined
 * under the name it is exported as, so the renames must go.
 */
#undef cuGetProcAddress
#undef cuMemcpyBatchAsync
#undef cuMemcpyHtoD

/* Define sym and sym_in: return impl args, counting the call and its time. */
#define FAKE_FN(sym, params, args, impl)                                   \
	FAKE_COUNTER(sym)                                                  \
	__attribute__((unused)) static CUresult CUDAAPI sym##_in params    \
	{                                                                  \
		uint64_t t0_ = fake_now();                                 \
		CUresult rc_;                                              \
		fake_tool_call(0, #sym);                                       \
		rc_ = impl args;                                           \
		fake_tool_call(1, #sym);                                       \
		fake_count(&sym##_ctr, t0_);                               \
		return rc_;                                                \
	}                                                                  \
	CUresult CUDAAPI sym params                                        \
	{                                                                  \
		uint64_t t0_ = fake_now();                                 \
		CUresult rc_;                                              \
		fake_tool_call(0, #sym);                                       \
		rc_ = impl args;                                           \
		fake_tool_call(1, #sym);                                       \
		fake_count(&sym##_ctr, t0_);                               \
		return rc_;                                                \
	}

/* A function and its per-thread-stream variant, same behaviour. */
#define FAKE_FN2(sym, pt, params, args, impl)                              \
	FAKE_FN(sym, params, args, impl)                                   \
	FAKE_FN(pt, params, args, impl)

#define SYNC 1
#define ASYNC 0
#define DEV(p, n) fake_dev((p), (n))
#define ARR(a, off, n) fake_arr((a), (off), (n))

/* ---- initialisation, devices, contexts, modules ------------------------ */

static pthread_mutex_t primary_lock = PTHREAD_MUTEX_INITIALIZER;
static struct fake_obj *primary_ctx;

static CUresult do_init(unsigned int flags)
{
	if (flags)
		return CUDA_ERROR_INVALID_VALUE;
	if (fake_cfg.no_device)
		return CUDA_ERROR_NO_DEVICE;
	fake_set_initialized();
	return CUDA_SUCCESS;
}

static CUresult do_driver_version(int *v)
{
	if (!v)
		return CUDA_ERROR_INVALID_VALUE;
	*v = CUDA_VERSION;
	return CUDA_SUCCESS;
}

static CUresult do_device_count(int *n)
{
	if (!n)
		return CUDA_ERROR_INVALID_VALUE;
	*n = 1;
	return CUDA_SUCCESS;
}

static CUresult do_device_get(CUdevice *d, int ordinal)
{
	if (!d)
		return CUDA_ERROR_INVALID_VALUE;
	if (ordinal != 0)
		return CUDA_ERROR_INVALID_DEVICE;
	*d = 0;
	return CUDA_SUCCESS;
}

static CUresult check_device(CUdevice dev)
{
	CUresult rc = fake_ready();

	if (rc == CUDA_ERROR_NOT_INITIALIZED)
		return rc;
	return dev == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}

static CUresult do_primary_retain(CUcontext *pctx, CUdevice dev)
{
	CUresult rc = check_device(dev);

	if (rc)
		return rc;
	if (!pctx)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&primary_lock);
	if (!primary_ctx)
		primary_ctx = fake_new(FK_CTX);
	*pctx = (CUcontext)primary_ctx;
	pthread_mutex_unlock(&primary_lock);
	return *pctx ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

static CUresult do_primary_release(CUdevice dev)
{
	return check_device(dev);
}

/* cuCtxCreate in all its versions: a new context, made current. */
static CUresult do_ctx_create(CUcontext *pctx, CUdevice dev)
{
	CUresult rc = check_device(dev);
	struct fake_obj *c;

	if (rc)
		return rc;
	if (!pctx)
		return CUDA_ERROR_INVALID_VALUE;
	c = fake_new(FK_CTX);
	if (!c)
		return CUDA_ERROR_OUT_OF_MEMORY;
	fake_set_current_ctx(c);
	*pctx = (CUcontext)c;
	return CUDA_SUCCESS;
}

static CUresult do_ctx_create_v2(CUcontext *pctx, unsigned int flags,
				 CUdevice dev)
{
	(void)flags;
	return do_ctx_create(pctx, dev);
}

static CUresult do_ctx_create_v3(CUcontext *pctx, CUexecAffinityParam *p,
				 int n, unsigned int flags, CUdevice dev)
{
	(void)p, (void)n, (void)flags;
	return do_ctx_create(pctx, dev);
}

static CUresult do_ctx_create_v4(CUcontext *pctx, CUctxCreateParams *p,
				 unsigned int flags, CUdevice dev)
{
	(void)p, (void)flags;
	return do_ctx_create(pctx, dev);
}

static CUresult do_ctx_destroy(CUcontext ctx)
{
	if (!ctx || (struct fake_obj *)ctx == primary_ctx)
		return CUDA_ERROR_INVALID_CONTEXT;
	if (fake_current_ctx() == (struct fake_obj *)ctx)
		fake_set_current_ctx(NULL);
	return fake_release(ctx, FK_CTX) ? CUDA_ERROR_INVALID_CONTEXT
					 : CUDA_SUCCESS;
}

static CUresult do_ctx_set_current(CUcontext ctx)
{
	struct fake_obj *c = NULL;
	CUresult rc = fake_ready();

	if (rc == CUDA_ERROR_NOT_INITIALIZED)
		return rc;
	if (ctx) {
		c = fake_find(ctx, FK_CTX);
		if (!c)
			return CUDA_ERROR_INVALID_CONTEXT;
	}
	fake_set_current_ctx(c);
	return CUDA_SUCCESS;
}

static CUresult do_ctx_get_current(CUcontext *pctx)
{
	CUresult rc = fake_ready();

	if (rc == CUDA_ERROR_NOT_INITIALIZED)
		return rc;
	if (!pctx)
		return CUDA_ERROR_INVALID_VALUE;
	*pctx = (CUcontext)fake_current_ctx();
	return CUDA_SUCCESS;
}

static CUresult do_module_load(CUmodule *mod, const void *image)
{
	CUresult rc = fake_ready();
	struct fake_obj *m;

	if (rc)
		return rc;
	if (!mod || !image)
		return CUDA_ERROR_INVALID_VALUE;
	m = fake_new(FK_MODULE);
	if (!m)
		return CUDA_ERROR_OUT_OF_MEMORY;
	*mod = (CUmodule)m;
	return CUDA_SUCCESS;
}

static pthread_mutex_t funcs_lock = PTHREAD_MUTEX_INITIALIZER;
static struct fake_obj *funcs[256];
static size_t nfuncs;

/* A kernel of a module unloaded (module NULL), whose handle a new kernel
 * takes, as a real driver may give a freed handle again; or NULL. */
static struct fake_obj *freed_func(void)
{
	for (size_t i = 0; i < nfuncs; i++)
		if (!funcs[i]->module)
			return funcs[i];
	return NULL;
}

/* Any name is a kernel of any module; asking twice gives the same handle. */
static CUresult do_module_get_function(CUfunction *f, CUmodule mod,
				       const char *name)
{
	const struct fake_obj *m;
	struct fake_obj *o = NULL;
	CUresult rc = fake_ready();
	size_t i;

	if (rc)
		return rc;
	if (!f || !name || strlen(name) >= sizeof(o->name))
		return CUDA_ERROR_INVALID_VALUE;
	m = fake_find(mod, FK_MODULE);
	if (!m)
		return CUDA_ERROR_INVALID_HANDLE;
	pthread_mutex_lock(&funcs_lock);
	for (i = 0; i < nfuncs && !o; i++)
		if (funcs[i]->module == m && !strcmp(funcs[i]->name, name))
			o = funcs[i];
	if (!o && (o = freed_func())) {
		o->module = m;
		strcpy(o->name, name);
	}
	if (!o && nfuncs < sizeof(funcs) / sizeof(funcs[0])) {
		o = fake_new(FK_FUNC);
		if (o) {
			o->module = m;
			strcpy(o->name, name);
			funcs[nfuncs++] = o;
		}
	}
	pthread_mutex_unlock(&funcs_lock);
	if (!o)
		return CUDA_ERROR_OUT_OF_MEMORY;
	*f = (CUfunction)o;
	return CUDA_SUCCESS;
}

/* The module's kernels are freed: their handles go to the next kernels
 * asked for (freed_func). */
static CUresult do_module_unload(CUmodule mod)
{
	const struct fake_obj *m = fake_find(mod, FK_MODULE);

	if (!m)
		return CUDA_ERROR_INVALID_HANDLE;
	pthread_mutex_lock(&funcs_lock);
	for (size_t i = 0; i < nfuncs; i++)
		if (funcs[i]->module == m)
			funcs[i]->module = NULL;
	pthread_mutex_unlock(&funcs_lock);
	return CUDA_SUCCESS;
}

static CUresult do_get_name(const char **name, const void *handle)
{
	const struct fake_obj *o;

	if (!name)
		return CUDA_ERROR_INVALID_VALUE;
	o = fake_func(handle);
	if (!o)
		return CUDA_ERROR_INVALID_HANDLE;
	*name = o->name;
	return CUDA_SUCCESS;
}

/* Every fake kernel takes FAKE_KERNEL_PARAMS (default 0) parameters of
 * 8 bytes: the launches' arguments are hashed only where a test asks; a
 * kernel whose name ends in _p<N> takes N. */
static CUresult do_param_info(CUfunction f, size_t i, size_t *off, size_t *size)
{
	const struct fake_obj *o = fake_func(f);
	const char *e = getenv("FAKE_KERNEL_PARAMS"), *p;

	if (!o)
		return CUDA_ERROR_INVALID_HANDLE;
	if ((p = strrchr(o->name, '_')) && p[1] == 'p' && p[2] >= '0' && p[2] <= '9')
		e = p + 2;
	if (!e || i >= strtoul(e, NULL, 10))
		return CUDA_ERROR_INVALID_VALUE;
	if (off)
		*off = 8 * i;
	if (size)
		*size = 8;
	return CUDA_SUCCESS;
}

FAKE_FN(cuFuncGetParamInfo, (CUfunction f, size_t i, size_t *off, size_t *size),
	(f, i, off, size), do_param_info)
FAKE_FN(cuInit, (unsigned int flags), (flags), do_init)
FAKE_FN(cuDriverGetVersion, (int *v), (v), do_driver_version)
FAKE_FN(cuDeviceGetCount, (int *n), (n), do_device_count)
FAKE_FN(cuDeviceGet, (CUdevice *d, int ordinal), (d, ordinal), do_device_get)
FAKE_FN(cuDevicePrimaryCtxRetain, (CUcontext *pctx, CUdevice dev),
	(pctx, dev), do_primary_retain)
FAKE_FN(cuDevicePrimaryCtxRelease_v2, (CUdevice dev), (dev),
	do_primary_release)
FAKE_FN(cuCtxCreate_v2, (CUcontext *pctx, unsigned int flags, CUdevice dev),
	(pctx, flags, dev), do_ctx_create_v2)
FAKE_FN(cuCtxCreate_v3, (CUcontext *pctx, CUexecAffinityParam *p, int n,
	unsigned int flags, CUdevice dev), (pctx, p, n, flags, dev),
	do_ctx_create_v3)
FAKE_FN(cuCtxCreate_v4, (CUcontext *pctx, CUctxCreateParams *p,
	unsigned int flags, CUdevice dev), (pctx, p, flags, dev),
	do_ctx_create_v4)
FAKE_FN(cuCtxDestroy_v2, (CUcontext ctx), (ctx), do_ctx_destroy)
FAKE_FN(cuCtxSetCurrent, (CUcontext ctx), (ctx), do_ctx_set_current)
FAKE_FN(cuCtxGetCurrent, (CUcontext *pctx), (pctx), do_ctx_get_current)
FAKE_FN(cuModuleLoadData, (CUmodule *mod, const void *image), (mod, image),
	do_module_load)
FAKE_FN(cuModuleGetFunction, (CUfunction *f, CUmodule mod, const char *name),
	(f, mod, name), do_module_get_function)
FAKE_FN(cuModuleUnload, (CUmodule mod), (mod), do_module_unload)
FAKE_FN(cuFuncGetName, (const char **name, CUfunction f), (name, f),
	do_get_name)
FAKE_FN(cuKernelGetName, (const char **name, CUkernel k), (name, k),
	do_get_name)

/* ---- memory, streams, events ----------------------------------------- */

static CUresult do_mem_alloc(CUdeviceptr *p, size_t n)
{
	CUresult rc = fake_ready();

	return rc ? rc : fake_malloc(p, n);
}

static CUresult do_mem_free(CUdeviceptr p)
{
	CUresult rc = fake_ready();

	if (rc)
		return rc;
	return fake_release((void *)(uintptr_t)p, FK_MEM) ?
		CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
}

static CUresult do_create(void **out, enum fake_kind kind)
{
	CUresult rc = fake_ready();
	struct fake_obj *o;

	if (rc)
		return rc;
	if (!out)
		return CUDA_ERROR_INVALID_VALUE;
	o = fake_new(kind);
	if (!o)
		return CUDA_ERROR_OUT_OF_MEMORY;
	*out = o;
	return CUDA_SUCCESS;
}

static CUresult do_stream_create(CUstream *s, unsigned int flags)
{
	(void)flags;
	return do_create((void **)s, FK_STREAM);
}

static CUresult do_event_create(CUevent *e, unsigned int flags)
{
	(void)flags;
	return do_create((void **)e, FK_EVENT);
}

static CUresult do_destroy(const void *h, enum fake_kind kind)
{
	CUresult rc = fake_ready();

	if (rc)
		return rc;
	return fake_release(h, kind) ? CUDA_ERROR_INVALID_HANDLE : CUDA_SUCCESS;
}

static CUresult do_event_record(CUevent e, CUstream s)
{
	CUresult rc = fake_ready();

	if (rc)
		return rc;
	if (!fake_find(e, FK_EVENT) || !fake_stream_ok(s))
		return CUDA_ERROR_INVALID_HANDLE;
	return CUDA_SUCCESS;
}

FAKE_FN(cuMemAlloc_v2, (CUdeviceptr *p, size_t n), (p, n), do_mem_alloc)

/* ---- pinned host memory, managed memory, pointer attributes ------------ */

/* Pinned host memory: allocated (FK_HOST) or the program's (FK_HOSTREG). */
static CUresult host_track(void *mem, size_t n, enum fake_kind kind)
{
	struct fake_obj *o = fake_new(kind);

	if (!o)
		return CUDA_ERROR_OUT_OF_MEMORY;
	o->mem = mem;
	o->size = n;
	return CUDA_SUCCESS;
}

/* Host memory the driver allocates (pinned or managed), tracked as kind. */
static CUresult alloc_tracked(void **pp, size_t n, enum fake_kind kind)
{
	CUresult rc = fake_ready();
	void *mem;

	if (rc)
		return rc;
	if (!pp || !n)
		return CUDA_ERROR_INVALID_VALUE;
	mem = calloc(1, n);
	if (!mem)
		return CUDA_ERROR_OUT_OF_MEMORY;
	rc = host_track(mem, n, kind);
	if (rc)
		free(mem);
	else
		*pp = mem;
	return rc;
}

static CUresult do_host_alloc(void **pp, size_t n, unsigned int flags)
{
	(void)flags;
	return alloc_tracked(pp, n, FK_HOST);
}

static CUresult do_alloc_host(void **pp, size_t n)
{
	return do_host_alloc(pp, n, 0);
}

static CUresult do_host_register(void *p, size_t n, unsigned int flags)
{
	CUresult rc = fake_ready();

	(void)flags;
	if (rc)
		return rc;
	if (!p || !n)
		return CUDA_ERROR_INVALID_VALUE;
	if (fake_mem_at((uint64_t)(uintptr_t)p))
		return CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED;
	return host_track(p, n, FK_HOSTREG);
}

static CUresult do_host_release(void *p, enum fake_kind kind)
{
	const struct fake_obj *o = fake_find(p, kind);
	CUresult rc = fake_ready();

	if (rc)
		return rc;
	if (!o)
		return kind == FK_HOSTREG ? CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED
					  : CUDA_ERROR_INVALID_VALUE;
	fake_release(p, kind);
	return CUDA_SUCCESS;
}

static CUresult do_host_unregister(void *p)
{
	return do_host_release(p, FK_HOSTREG);
}

static CUresult do_free_host(void *p)
{
	return do_host_release(p, FK_HOST);
}

static CUresult do_alloc_managed(CUdeviceptr *p, size_t n, unsigned int flags)
{
	void *mem = NULL;
	CUresult rc = alloc_tracked(p ? &mem : NULL, n, FK_MANAGED);

	(void)flags;
	if (rc == CUDA_SUCCESS)
		*p = (CUdeviceptr)(uintptr_t)mem;
	return rc;
}

/* Memory type and managed-ness as the real driver reports them; plain
 * host memory gets the default values (type 0) and CUDA_SUCCESS. */
static CUresult do_pointer_attrs(unsigned int n, CUpointer_attribute *attrs,
				 void **data, CUdeviceptr p)
{
	const struct fake_obj *o = fake_mem_at(p);
	unsigned int type = 0;
	int managed = 0;

	if (!attrs || !data)
		return CUDA_ERROR_INVALID_VALUE;
	if (o && (o->kind == FK_MEM || o->kind == FK_MANAGED))
		type = CU_MEMORYTYPE_DEVICE;
	else if (o)
		type = CU_MEMORYTYPE_HOST;
	managed = o && o->kind == FK_MANAGED;
	for (unsigned int i = 0; i < n; i++) {
		if (attrs[i] == CU_POINTER_ATTRIBUTE_MEMORY_TYPE)
			*(unsigned int *)data[i] = type;
		else if (attrs[i] == CU_POINTER_ATTRIBUTE_IS_MANAGED)
			*(int *)data[i] = managed;
		else
			return CUDA_ERROR_NOT_SUPPORTED;
	}
	return CUDA_SUCCESS;
}

FAKE_FN(cuMemHostAlloc, (void **pp, size_t n, unsigned int fl), (pp, n, fl),
	do_host_alloc)
FAKE_FN(cuMemAllocHost_v2, (void **pp, size_t n), (pp, n), do_alloc_host)
FAKE_FN(cuMemHostRegister_v2, (void *p, size_t n, unsigned int fl), (p, n, fl),
	do_host_register)
FAKE_FN(cuMemHostUnregister, (void *p), (p), do_host_unregister)
FAKE_FN(cuMemFreeHost, (void *p), (p), do_free_host)
FAKE_FN(cuMemAllocManaged, (CUdeviceptr *p, size_t n, unsigned int fl), (p, n, fl),
	do_alloc_managed)
/* The CUDA 4.0 version, which the tracer does not wrap: memory pinned
 * behind its back, found only through the pointer attributes. */
#undef cuMemHostRegister
FAKE_FN(cuMemHostRegister, (void *p, size_t n, unsigned int fl), (p, n, fl),
	do_host_register)

FAKE_FN(cuPointerGetAttributes, (unsigned int n, CUpointer_attribute *attrs,
	void **data, CUdeviceptr p), (n, attrs, data, p), do_pointer_attrs)
FAKE_FN(cuMemFree_v2, (CUdeviceptr p), (p), do_mem_free)
FAKE_FN(cuStreamCreate, (CUstream *s, unsigned int flags), (s, flags),
	do_stream_create)
FAKE_FN(cuStreamDestroy_v2, (CUstream s), (s, FK_STREAM), do_destroy)
FAKE_FN(cuEventCreate, (CUevent *e, unsigned int flags), (e, flags),
	do_event_create)
FAKE_FN(cuEventDestroy_v2, (CUevent e), (e, FK_EVENT), do_destroy)
FAKE_FN2(cuEventRecord, cuEventRecord_ptsz, (CUevent e, CUstream s), (e, s),
	 do_event_record)

/* ---- launches ---------------------------------------------------------- */

static CUresult do_launch(CUfunction f, unsigned int gx, unsigned int gy,
			  unsigned int gz, unsigned int bx, unsigned int by,
			  unsigned int bz, unsigned int shmem, CUstream s,
			  void **params, void **extra)
{
	(void)shmem, (void)params, (void)extra;
	return fake_launch(f, gx, gy, gz, bx, by, bz, s);
}

static CUresult do_launch_ex(const CUlaunchConfig *c, CUfunction f,
			     void **params, void **extra)
{
	if (!c)
		return fake_ready() ? fake_ready() : CUDA_ERROR_INVALID_VALUE;
	if (c->numAttrs && !c->attrs)
		return CUDA_ERROR_INVALID_VALUE;
	return do_launch(f, c->gridDimX, c->gridDimY, c->gridDimZ,
			 c->blockDimX, c->blockDimY, c->blockDimZ,
			 c->sharedMemBytes, c->hStream, params, extra);
}

static CUresult do_graph_launch(CUgraphExec g, CUstream s)
{
	CUresult rc = fake_ready();

	if (rc)
		return rc;
	if (!g)
		return CUDA_ERROR_INVALID_VALUE;
	if (!fake_stream_ok(s))
		return CUDA_ERROR_INVALID_HANDLE;
	fake_spin(fake_cfg.launch_ns);
	return CUDA_SUCCESS;
}

#define LAUNCH_PARAMS                                                      \
	(CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz,  \
	 unsigned int bx, unsigned int by, unsigned int bz,                \
	 unsigned int shmem, CUstream s, void **params, void **extra)
#define COOP_PARAMS                                                        \
	(CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz,  \
	 unsigned int bx, unsigned int by, unsigned int bz,                \
	 unsigned int shmem, CUstream s, void **params)

FAKE_FN2(cuLaunchKernel, cuLaunchKernel_ptsz, LAUNCH_PARAMS,
	 (f, gx, gy, gz, bx, by, bz, shmem, s, params, extra), do_launch)
FAKE_FN2(cuLaunchCooperativeKernel, cuLaunchCooperativeKernel_ptsz,
	 COOP_PARAMS, (f, gx, gy, gz, bx, by, bz, shmem, s, params, NULL),
	 do_launch)
FAKE_FN2(cuLaunchKernelEx, cuLaunchKernelEx_ptsz,
	 (const CUlaunchConfig *c, CUfunction f, void **params, void **extra),
	 (c, f, params, extra), do_launch_ex)
FAKE_FN2(cuGraphLaunch, cuGraphLaunch_ptsz, (CUgraphExec g, CUstream s),
	 (g, s), do_graph_launch)

/* ---- copies ------------------------------------------------------------- */

static CUresult do_peer(CUdeviceptr dst, CUcontext dctx, CUdeviceptr src,
			CUcontext sctx, size_t n, CUstream s, int sync)
{
	if (fake_ready())
		return fake_ready();
	if (!fake_find(dctx, FK_CTX) || !fake_find(sctx, FK_CTX))
		return CUDA_ERROR_INVALID_CONTEXT;
	return fake_copy(DEV(dst, n), DEV(src, n), n, s, sync);
}

static void span2d(struct fake_span *sp, CUmemorytype type, const void *host,
		   CUdeviceptr dev, CUarray array, size_t x, size_t y,
		   size_t pitch)
{
	*sp = (struct fake_span){ type, host, dev, array, x, y, 0, pitch, 0 };
}

static CUresult do_copy2d(const CUDA_MEMCPY2D *c, CUstream s, int sync)
{
	struct fake_span d, sp;

	if (!c)
		return fake_ready() ? fake_ready() : CUDA_ERROR_INVALID_VALUE;
	span2d(&d, c->dstMemoryType, c->dstHost, c->dstDevice, c->dstArray,
	       c->dstXInBytes, c->dstY, c->dstPitch);
	span2d(&sp, c->srcMemoryType, c->srcHost, c->srcDevice, c->srcArray,
	       c->srcXInBytes, c->srcY, c->srcPitch);
	return fake_copy3d(&d, &sp, c->WidthInBytes, c->Height, 1, s, sync);
}

static CUresult do_copy3d(const CUDA_MEMCPY3D *c, CUstream s, int sync)
{
	struct fake_span d, sp;

	if (!c)
		return fake_ready() ? fake_ready() : CUDA_ERROR_INVALID_VALUE;
	d = (struct fake_span){ c->dstMemoryType, c->dstHost, c->dstDevice,
		c->dstArray, c->dstXInBytes, c->dstY, c->dstZ, c->dstPitch,
		c->dstHeight };
	sp = (struct fake_span){ c->srcMemoryType, c->srcHost, c->srcDevice,
		c->srcArray, c->srcXInBytes, c->srcY, c->srcZ, c->srcPitch,
		c->srcHeight };
	return fake_copy3d(&d, &sp, c->WidthInBytes, c->Height, c->Depth, s,
			   sync);
}

static CUresult do_copy3d_peer(const CUDA_MEMCPY3D_PEER *c, CUstream s,
			       int sync)
{
	struct fake_span d, sp;

	if (!c)
		return fake_ready() ? fake_ready() : CUDA_ERROR_INVALID_VALUE;
	if ((c->dstMemoryType != CU_MEMORYTYPE_ARRAY &&
	     !fake_find(c->dstContext, FK_CTX)) ||
	    (c->srcMemoryType != CU_MEMORYTYPE_ARRAY &&
	     !fake_find(c->srcContext, FK_CTX)))
		return CUDA_ERROR_INVALID_CONTEXT;
	d = (struct fake_span){ c->dstMemoryType, c->dstHost, c->dstDevice,
		c->dstArray, c->dstXInBytes, c->dstY, c->dstZ, c->dstPitch,
		c->dstHeight };
	sp = (struct fake_span){ c->srcMemoryType, c->srcHost, c->srcDevice,
		c->srcArray, c->srcXInBytes, c->srcY, c->srcZ, c->srcPitch,
		c->srcHeight };
	return fake_copy3d(&d, &sp, c->WidthInBytes, c->Height, c->Depth, s,
			   sync);
}

/* cuMemcpyBatchAsync, both versions: failIdx is NULL for the 13.0 one. */
static CUresult do_batch(CUdeviceptr *dsts, CUdeviceptr *srcs, size_t *sizes,
			 size_t count, CUmemcpyAttributes *attrs,
			 size_t *attr_idxs, size_t nattrs, size_t *fail_idx,
			 CUstream s)
{
	CUresult rc = fake_ready();
	size_t i;

	if (rc)
		return rc;
	if (!count || !dsts || !srcs || !sizes || !attrs || !attr_idxs ||
	    !nattrs || nattrs > count || attr_idxs[0] != 0)
		return CUDA_ERROR_INVALID_VALUE;
	for (i = 0; i < count; i++) {
		rc = fake_copy(fake_any(dsts[i], sizes[i]),
			       fake_any(srcs[i], sizes[i]), sizes[i], s, ASYNC);
		if (rc) {
			if (fail_idx)
				*fail_idx = i;
			return rc;
		}
	}
	if (fail_idx)
		*fail_idx = SIZE_MAX;
	return CUDA_SUCCESS;
}

static CUresult do_batch_v2(CUdeviceptr *dsts, CUdeviceptr *srcs,
			    size_t *sizes, size_t count,
			    CUmemcpyAttributes *attrs, size_t *attr_idxs,
			    size_t nattrs, CUstream s)
{
	return do_batch(dsts, srcs, sizes, count, attrs, attr_idxs, nattrs, NULL,
			s);
}

/* The 32-bit cuMemcpyHtoD of CUDA 2.0, only to be told apart from _v2. */
static CUresult do_htod_v1(unsigned int dst, const void *src, unsigned int n)
{
	CUresult rc = fake_ready();

	if (rc)
		return rc;
	return dst && src && n ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

FAKE_FN(cuMemcpyHtoD, (unsigned int dst, const void *src, unsigned int n),
	(dst, src, n), do_htod_v1)

FAKE_FN2(cuMemcpy, cuMemcpy_ptds, (CUdeviceptr d, CUdeviceptr s, size_t n),
	 (fake_any(d, n), fake_any(s, n), n, NULL, SYNC), fake_copy)
FAKE_FN2(cuMemcpyAsync, cuMemcpyAsync_ptsz,
	 (CUdeviceptr d, CUdeviceptr s, size_t n, CUstream st),
	 (fake_any(d, n), fake_any(s, n), n, st, ASYNC), fake_copy)
FAKE_FN2(cuMemcpyPeer, cuMemcpyPeer_ptds,
	 (CUdeviceptr d, CUcontext dc, CUdeviceptr s, CUcontext sc, size_t n),
	 (d, dc, s, sc, n, NULL, SYNC), do_peer)
FAKE_FN2(cuMemcpyPeerAsync, cuMemcpyPeerAsync_ptsz,
	 (CUdeviceptr d, CUcontext dc, CUdeviceptr s, CUcontext sc, size_t n,
	  CUstream st), (d, dc, s, sc, n, st, ASYNC), do_peer)

FAKE_FN2(cuMemcpyHtoD_v2, cuMemcpyHtoD_v2_ptds,
	 (CUdeviceptr d, const void *s, size_t n),
	 (DEV(d, n), s, n, NULL, SYNC), fake_copy)
FAKE_FN2(cuMemcpyDtoH_v2, cuMemcpyDtoH_v2_ptds,
	 (void *d, CUdeviceptr s, size_t n),
	 (d, DEV(s, n), n, NULL, SYNC), fake_copy)
FAKE_FN2(cuMemcpyDtoD_v2, cuMemcpyDtoD_v2_ptds,
	 (CUdeviceptr d, CUdeviceptr s, size_t n),
	 (DEV(d, n), DEV(s, n), n, NULL, SYNC), fake_copy)
FAKE_FN2(cuMemcpyHtoA_v2, cuMemcpyHtoA_v2_ptds,
	 (CUarray d, size_t off, const void *s, size_t n),
	 (ARR(d, off, n), s, n, NULL, SYNC), fake_copy)
FAKE_FN2(cuMemcpyAtoH_v2, cuMemcpyAtoH_v2_ptds,
	 (void *d, CUarray s, size_t off, size_t n),
	 (d, ARR(s, off, n), n, NULL, SYNC), fake_copy)
FAKE_FN2(cuMemcpyDtoA_v2, cuMemcpyDtoA_v2_ptds,
	 (CUarray d, size_t off, CUdeviceptr s, size_t n),
	 (ARR(d, off, n), DEV(s, n), n, NULL, SYNC), fake_copy)
FAKE_FN2(cuMemcpyAtoD_v2, cuMemcpyAtoD_v2_ptds,
	 (CUdeviceptr d, CUarray s, size_t off, size_t n),
	 (DEV(d, n), ARR(s, off, n), n, NULL, SYNC), fake_copy)
FAKE_FN2(cuMemcpyAtoA_v2, cuMemcpyAtoA_v2_ptds,
	 (CUarray d, size_t doff, CUarray s, size_t soff, size_t n),
	 (ARR(d, doff, n), ARR(s, soff, n), n, NULL, SYNC), fake_copy)

FAKE_FN2(cuMemcpyHtoDAsync_v2, cuMemcpyHtoDAsync_v2_ptsz,
	 (CUdeviceptr d, const void *s, size_t n, CUstream st),
	 (DEV(d, n), s, n, st, ASYNC), fake_copy)
FAKE_FN2(cuMemcpyDtoHAsync_v2, cuMemcpyDtoHAsync_v2_ptsz,
	 (void *d, CUdeviceptr s, size_t n, CUstream st),
	 (d, DEV(s, n), n, st, ASYNC), fake_copy)
FAKE_FN2(cuMemcpyDtoDAsync_v2, cuMemcpyDtoDAsync_v2_ptsz,
	 (CUdeviceptr d, CUdeviceptr s, size_t n, CUstream st),
	 (DEV(d, n), DEV(s, n), n, st, ASYNC), fake_copy)
FAKE_FN2(cuMemcpyHtoAAsync_v2, cuMemcpyHtoAAsync_v2_ptsz,
	 (CUarray d, size_t off, const void *s, size_t n, CUstream st),
	 (ARR(d, off, n), s, n, st, ASYNC), fake_copy)
FAKE_FN2(cuMemcpyAtoHAsync_v2, cuMemcpyAtoHAsync_v2_ptsz,
	 (void *d, CUarray s, size_t off, size_t n, CUstream st),
	 (d, ARR(s, off, n), n, st, ASYNC), fake_copy)

FAKE_FN2(cuMemcpy2D_v2, cuMemcpy2D_v2_ptds, (const CUDA_MEMCPY2D *c),
	 (c, NULL, SYNC), do_copy2d)
FAKE_FN2(cuMemcpy2DUnaligned_v2, cuMemcpy2DUnaligned_v2_ptds,
	 (const CUDA_MEMCPY2D *c), (c, NULL, SYNC), do_copy2d)
FAKE_FN2(cuMemcpy2DAsync_v2, cuMemcpy2DAsync_v2_ptsz,
	 (const CUDA_MEMCPY2D *c, CUstream st), (c, st, ASYNC), do_copy2d)
FAKE_FN2(cuMemcpy3D_v2, cuMemcpy3D_v2_ptds, (const CUDA_MEMCPY3D *c),
	 (c, NULL, SYNC), do_copy3d)
FAKE_FN2(cuMemcpy3DAsync_v2, cuMemcpy3DAsync_v2_ptsz,
	 (const CUDA_MEMCPY3D *c, CUstream st), (c, st, ASYNC), do_copy3d)
FAKE_FN2(cuMemcpy3DPeer, cuMemcpy3DPeer_ptds, (const CUDA_MEMCPY3D_PEER *c),
	 (c, NULL, SYNC), do_copy3d_peer)
FAKE_FN2(cuMemcpy3DPeerAsync, cuMemcpy3DPeerAsync_ptsz,
	 (const CUDA_MEMCPY3D_PEER *c, CUstream st), (c, st, ASYNC),
	 do_copy3d_peer)

FAKE_FN2(cuMemcpyBatchAsync, cuMemcpyBatchAsync_ptsz,
	 (CUdeviceptr *d, CUdeviceptr *s, size_t *sz, size_t n,
	  CUmemcpyAttributes *a, size_t *ai, size_t na, size_t *fail,
	  CUstream st), (d, s, sz, n, a, ai, na, fail, st), do_batch)
FAKE_FN2(cuMemcpyBatchAsync_v2, cuMemcpyBatchAsync_v2_ptsz,
	 (CUdeviceptr *d, CUdeviceptr *s, size_t *sz, size_t n,
	  CUmemcpyAttributes *a, size_t *ai, size_t na, CUstream st),
	 (d, s, sz, n, a, ai, na, st), do_batch_v2)

/* ---- memsets ------------------------------------------------------------ */

FAKE_FN2(cuMemsetD8_v2, cuMemsetD8_v2_ptds,
	 (CUdeviceptr d, unsigned char v, size_t n), (d, 0, v, 1, n, 1, NULL),
	 fake_memset)
FAKE_FN2(cuMemsetD16_v2, cuMemsetD16_v2_ptds,
	 (CUdeviceptr d, unsigned short v, size_t n), (d, 0, v, 2, n, 1, NULL),
	 fake_memset)
FAKE_FN2(cuMemsetD32_v2, cuMemsetD32_v2_ptds,
	 (CUdeviceptr d, unsigned int v, size_t n), (d, 0, v, 4, n, 1, NULL),
	 fake_memset)
FAKE_FN2(cuMemsetD2D8_v2, cuMemsetD2D8_v2_ptds,
	 (CUdeviceptr d, size_t p, unsigned char v, size_t w, size_t h),
	 (d, p, v, 1, w, h, NULL), fake_memset)
FAKE_FN2(cuMemsetD2D16_v2, cuMemsetD2D16_v2_ptds,
	 (CUdeviceptr d, size_t p, unsigned short v, size_t w, size_t h),
	 (d, p, v, 2, w, h, NULL), fake_memset)
FAKE_FN2(cuMemsetD2D32_v2, cuMemsetD2D32_v2_ptds,
	 (CUdeviceptr d, size_t p, unsigned int v, size_t w, size_t h),
	 (d, p, v, 4, w, h, NULL), fake_memset)
FAKE_FN2(cuMemsetD8Async, cuMemsetD8Async_ptsz,
	 (CUdeviceptr d, unsigned char v, size_t n, CUstream s),
	 (d, 0, v, 1, n, 1, s), fake_memset)
FAKE_FN2(cuMemsetD16Async, cuMemsetD16Async_ptsz,
	 (CUdeviceptr d, unsigned short v, size_t n, CUstream s),
	 (d, 0, v, 2, n, 1, s), fake_memset)
FAKE_FN2(cuMemsetD32Async, cuMemsetD32Async_ptsz,
	 (CUdeviceptr d, unsigned int v, size_t n, CUstream s),
	 (d, 0, v, 4, n, 1, s), fake_memset)
FAKE_FN2(cuMemsetD2D8Async, cuMemsetD2D8Async_ptsz,
	 (CUdeviceptr d, size_t p, unsigned char v, size_t w, size_t h,
	  CUstream s), (d, p, v, 1, w, h, s), fake_memset)
FAKE_FN2(cuMemsetD2D16Async, cuMemsetD2D16Async_ptsz,
	 (CUdeviceptr d, size_t p, unsigned short v, size_t w, size_t h,
	  CUstream s), (d, p, v, 2, w, h, s), fake_memset)
FAKE_FN2(cuMemsetD2D32Async, cuMemsetD2D32Async_ptsz,
	 (CUdeviceptr d, size_t p, unsigned int v, size_t w, size_t h,
	  CUstream s), (d, p, v, 4, w, h, s), fake_memset)

/* ---- synchronisation ---------------------------------------------------- */

static CUresult do_ctx_sync(CUcontext ctx)
{
	CUresult rc = fake_ready();

	if (rc)
		return rc;
	if (ctx && !fake_find(ctx, FK_CTX))
		return CUDA_ERROR_INVALID_CONTEXT;
	fake_spin(fake_cfg.sync_ns);
	return CUDA_SUCCESS;
}

static CUresult do_ctx_sync_v1(void)
{
	return do_ctx_sync(NULL);
}

static CUresult do_stream_sync(CUstream s)
{
	CUresult rc = fake_ready();

	if (rc)
		return rc;
	if (!fake_stream_ok(s))
		return CUDA_ERROR_INVALID_HANDLE;
	fake_spin(fake_cfg.sync_ns);
	return CUDA_SUCCESS;
}

static CUresult do_event_sync(CUevent e)
{
	CUresult rc = fake_ready();

	if (rc)
		return rc;
	if (!fake_find(e, FK_EVENT))
		return CUDA_ERROR_INVALID_HANDLE;
	fake_spin(fake_cfg.sync_ns);
	return CUDA_SUCCESS;
}

/* The device waits, not the host: returns at once. */
static CUresult do_wait_event(CUstream s, CUevent e, unsigned int flags)
{
	CUresult rc = fake_ready();

	if (rc)
		return rc;
	if (!fake_stream_ok(s) || !fake_find(e, FK_EVENT))
		return CUDA_ERROR_INVALID_HANDLE;
	return flags & ~1u ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
}

static CUresult do_stream_query(CUstream s)
{
	CUresult rc = fake_ready();

	if (rc)
		return rc;
	if (!fake_stream_ok(s))
		return CUDA_ERROR_INVALID_HANDLE;
	return fake_cfg.not_ready ? CUDA_ERROR_NOT_READY : CUDA_SUCCESS;
}

static CUresult do_event_query(CUevent e)
{
	CUresult rc = fake_ready();

	if (rc)
		return rc;
	if (!fake_find(e, FK_EVENT))
		return CUDA_ERROR_INVALID_HANDLE;
	return fake_cfg.not_ready ? CUDA_ERROR_NOT_READY : CUDA_SUCCESS;
}

FAKE_FN(cuCtxSynchronize, (void), (), do_ctx_sync_v1)
FAKE_FN(cuCtxSynchronize_v2, (CUcontext ctx), (ctx), do_ctx_sync)
FAKE_FN2(cuStreamSynchronize, cuStreamSynchronize_ptsz, (CUstream s), (s),
	 do_stream_sync)
FAKE_FN(cuEventSynchronize, (CUevent e), (e), do_event_sync)
FAKE_FN2(cuStreamWaitEvent, cuStreamWaitEvent_ptsz,
	 (CUstream s, CUevent e, unsigned int flags), (s, e, flags),
	 do_wait_event)
FAKE_FN2(cuStreamQuery, cuStreamQuery_ptsz, (CUstream s), (s),
	 do_stream_query)
FAKE_FN(cuEventQuery, (CUevent e), (e), do_event_query)

/* ---- cuGetProcAddress --------------------------------------------------- */

struct proc_entry {
	const char *name;           /* what callers ask for: cuMemcpyHtoD */
	int version;                /* the oldest cudaVersion it answers */
	void *fn, *fn_in;           /* exported function and its twin */
	void *pt, *pt_in;           /* the per-thread variant, if any */
};

/* fn as a void *, and a warning if it does not have the type pfn. */
#define TYPED(pfn, fn) ((void *)(1 ? (fn) : (pfn)0))
#define P(name, ver, sym)                                                  \
	{ #name, ver, TYPED(PFN_##name##_v##ver, sym),                     \
	  TYPED(PFN_##name##_v##ver, sym##_in), NULL, NULL },
#define PT(name, ver, sym, ptver, pt, sfx)                                 \
	{ #name, ver, TYPED(PFN_##name##_v##ver, sym),                     \
	  TYPED(PFN_##name##_v##ver, sym##_in),                            \
	  TYPED(PFN_##name##_v##ptver##_##sfx, pt),                        \
	  TYPED(PFN_##name##_v##ptver##_##sfx, pt##_in) },

typedef CUresult (*PFN_cuMemcpyHtoD_v2000)(unsigned int, const void *,
					   unsigned int);

static const struct proc_entry procs[] = {
	P(cuInit, 2000, cuInit)
	P(cuDriverGetVersion, 2020, cuDriverGetVersion)
	P(cuDeviceGet, 2000, cuDeviceGet)
	P(cuDeviceGetCount, 2000, cuDeviceGetCount)
	P(cuDevicePrimaryCtxRetain, 7000, cuDevicePrimaryCtxRetain)
	P(cuCtxCreate, 3020, cuCtxCreate_v2)
	P(cuCtxCreate, 11040, cuCtxCreate_v3)
	P(cuCtxCreate, 12050, cuCtxCreate_v4)
	P(cuDevicePrimaryCtxRelease, 11000, cuDevicePrimaryCtxRelease_v2)
	P(cuCtxDestroy, 4000, cuCtxDestroy_v2)
	P(cuCtxSetCurrent, 4000, cuCtxSetCurrent)
	P(cuCtxGetCurrent, 4000, cuCtxGetCurrent)
	P(cuModuleLoadData, 2000, cuModuleLoadData)
	P(cuModuleGetFunction, 2000, cuModuleGetFunction)
	P(cuModuleUnload, 2000, cuModuleUnload)
	P(cuFuncGetName, 12030, cuFuncGetName)
	P(cuFuncGetParamInfo, 12040, cuFuncGetParamInfo)
	P(cuKernelGetName, 12030, cuKernelGetName)
	P(cuMemAlloc, 3020, cuMemAlloc_v2)
	P(cuMemFree, 3020, cuMemFree_v2)
	P(cuMemHostAlloc, 2020, cuMemHostAlloc)
	P(cuMemAllocHost, 3020, cuMemAllocHost_v2)
	P(cuMemHostRegister, 6050, cuMemHostRegister_v2)
	P(cuMemHostUnregister, 4000, cuMemHostUnregister)
	P(cuMemFreeHost, 2000, cuMemFreeHost)
	P(cuMemAllocManaged, 6000, cuMemAllocManaged)
	P(cuPointerGetAttributes, 7000, cuPointerGetAttributes)
	P(cuStreamCreate, 2000, cuStreamCreate)
	P(cuStreamDestroy, 4000, cuStreamDestroy_v2)
	P(cuEventCreate, 2000, cuEventCreate)
	P(cuEventDestroy, 4000, cuEventDestroy_v2)
	PT(cuEventRecord, 2000, cuEventRecord, 7000, cuEventRecord_ptsz, ptsz)

	PT(cuLaunchKernel, 4000, cuLaunchKernel, 7000, cuLaunchKernel_ptsz, ptsz)
	PT(cuLaunchKernelEx, 11060, cuLaunchKernelEx, 11060,
	   cuLaunchKernelEx_ptsz, ptsz)
	PT(cuLaunchCooperativeKernel, 9000, cuLaunchCooperativeKernel, 9000,
	   cuLaunchCooperativeKernel_ptsz, ptsz)
	PT(cuGraphLaunch, 10000, cuGraphLaunch, 10000, cuGraphLaunch_ptsz, ptsz)

	PT(cuMemcpy, 4000, cuMemcpy, 7000, cuMemcpy_ptds, ptds)
	PT(cuMemcpyAsync, 4000, cuMemcpyAsync, 7000, cuMemcpyAsync_ptsz, ptsz)
	PT(cuMemcpyPeer, 4000, cuMemcpyPeer, 7000, cuMemcpyPeer_ptds, ptds)
	PT(cuMemcpyPeerAsync, 4000, cuMemcpyPeerAsync, 7000,
	   cuMemcpyPeerAsync_ptsz, ptsz)
	P(cuMemcpyHtoD, 2000, cuMemcpyHtoD)
	PT(cuMemcpyHtoD, 3020, cuMemcpyHtoD_v2, 7000, cuMemcpyHtoD_v2_ptds, ptds)
	PT(cuMemcpyDtoH, 3020, cuMemcpyDtoH_v2, 7000, cuMemcpyDtoH_v2_ptds, ptds)
	PT(cuMemcpyDtoD, 3020, cuMemcpyDtoD_v2, 7000, cuMemcpyDtoD_v2_ptds, ptds)
	PT(cuMemcpyHtoA, 3020, cuMemcpyHtoA_v2, 7000, cuMemcpyHtoA_v2_ptds, ptds)
	PT(cuMemcpyAtoH, 3020, cuMemcpyAtoH_v2, 7000, cuMemcpyAtoH_v2_ptds, ptds)
	PT(cuMemcpyDtoA, 3020, cuMemcpyDtoA_v2, 7000, cuMemcpyDtoA_v2_ptds, ptds)
	PT(cuMemcpyAtoD, 3020, cuMemcpyAtoD_v2, 7000, cuMemcpyAtoD_v2_ptds, ptds)
	PT(cuMemcpyAtoA, 3020, cuMemcpyAtoA_v2, 7000, cuMemcpyAtoA_v2_ptds, ptds)
	PT(cuMemcpyHtoDAsync, 3020, cuMemcpyHtoDAsync_v2, 7000,
	   cuMemcpyHtoDAsync_v2_ptsz, ptsz)
	PT(cuMemcpyDtoHAsync, 3020, cuMemcpyDtoHAsync_v2, 7000,
	   cuMemcpyDtoHAsync_v2_ptsz, ptsz)
	PT(cuMemcpyDtoDAsync, 3020, cuMemcpyDtoDAsync_v2, 7000,
	   cuMemcpyDtoDAsync_v2_ptsz, ptsz)
	PT(cuMemcpyHtoAAsync, 3020, cuMemcpyHtoAAsync_v2, 7000,
	   cuMemcpyHtoAAsync_v2_ptsz, ptsz)
	PT(cuMemcpyAtoHAsync, 3020, cuMemcpyAtoHAsync_v2, 7000,
	   cuMemcpyAtoHAsync_v2_ptsz, ptsz)
	PT(cuMemcpy2D, 3020, cuMemcpy2D_v2, 7000, cuMemcpy2D_v2_ptds, ptds)
	PT(cuMemcpy2DUnaligned, 3020, cuMemcpy2DUnaligned_v2, 7000,
	   cuMemcpy2DUnaligned_v2_ptds, ptds)
	PT(cuMemcpy2DAsync, 3020, cuMemcpy2DAsync_v2, 7000,
	   cuMemcpy2DAsync_v2_ptsz, ptsz)
	PT(cuMemcpy3D, 3020, cuMemcpy3D_v2, 7000, cuMemcpy3D_v2_ptds, ptds)
	PT(cuMemcpy3DAsync, 3020, cuMemcpy3DAsync_v2, 7000,
	   cuMemcpy3DAsync_v2_ptsz, ptsz)
	PT(cuMemcpy3DPeer, 4000, cuMemcpy3DPeer, 7000, cuMemcpy3DPeer_ptds, ptds)
	PT(cuMemcpy3DPeerAsync, 4000, cuMemcpy3DPeerAsync, 7000,
	   cuMemcpy3DPeerAsync_ptsz, ptsz)
	PT(cuMemcpyBatchAsync, 12080, cuMemcpyBatchAsync, 12080,
	   cuMemcpyBatchAsync_ptsz, ptsz)
	PT(cuMemcpyBatchAsync, 13000, cuMemcpyBatchAsync_v2, 13000,
	   cuMemcpyBatchAsync_v2_ptsz, ptsz)

	PT(cuMemsetD8, 3020, cuMemsetD8_v2, 7000, cuMemsetD8_v2_ptds, ptds)
	PT(cuMemsetD16, 3020, cuMemsetD16_v2, 7000, cuMemsetD16_v2_ptds, ptds)
	PT(cuMemsetD32, 3020, cuMemsetD32_v2, 7000, cuMemsetD32_v2_ptds, ptds)
	PT(cuMemsetD2D8, 3020, cuMemsetD2D8_v2, 7000, cuMemsetD2D8_v2_ptds, ptds)
	PT(cuMemsetD2D16, 3020, cuMemsetD2D16_v2, 7000, cuMemsetD2D16_v2_ptds,
	   ptds)
	PT(cuMemsetD2D32, 3020, cuMemsetD2D32_v2, 7000, cuMemsetD2D32_v2_ptds,
	   ptds)
	PT(cuMemsetD8Async, 3020, cuMemsetD8Async, 7000, cuMemsetD8Async_ptsz,
	   ptsz)
	PT(cuMemsetD16Async, 3020, cuMemsetD16Async, 7000,
	   cuMemsetD16Async_ptsz, ptsz)
	PT(cuMemsetD32Async, 3020, cuMemsetD32Async, 7000,
	   cuMemsetD32Async_ptsz, ptsz)
	PT(cuMemsetD2D8Async, 3020, cuMemsetD2D8Async, 7000,
	   cuMemsetD2D8Async_ptsz, ptsz)
	PT(cuMemsetD2D16Async, 3020, cuMemsetD2D16Async, 7000,
	   cuMemsetD2D16Async_ptsz, ptsz)
	PT(cuMemsetD2D32Async, 3020, cuMemsetD2D32Async, 7000,
	   cuMemsetD2D32Async_ptsz, ptsz)

	P(cuCtxSynchronize, 2000, cuCtxSynchronize)
	P(cuCtxSynchronize, 13000, cuCtxSynchronize_v2)
	PT(cuStreamSynchronize, 2000, cuStreamSynchronize, 7000,
	   cuStreamSynchronize_ptsz, ptsz)
	P(cuEventSynchronize, 2000, cuEventSynchronize)
	PT(cuStreamWaitEvent, 3020, cuStreamWaitEvent, 7000,
	   cuStreamWaitEvent_ptsz, ptsz)
	PT(cuStreamQuery, 2000, cuStreamQuery, 7000, cuStreamQuery_ptsz, ptsz)
	P(cuEventQuery, 2000, cuEventQuery)
};

static CUresult do_get_proc(const char *symbol, void **pfn, int version,
			    cuuint64_t flags,
			    CUdriverProcAddressQueryResult *status);

static CUresult do_get_proc_v1(const char *symbol, void **pfn, int version,
			       cuuint64_t flags)
{
	return do_get_proc(symbol, pfn, version, flags, NULL);
}

/* Both work before cuInit, as the real ones do. */
FAKE_FN(cuGetProcAddress, (const char *symbol, void **pfn, int version,
	cuuint64_t flags), (symbol, pfn, version, flags), do_get_proc_v1)
FAKE_FN(cuGetProcAddress_v2, (const char *symbol, void **pfn, int version,
	cuuint64_t flags, CUdriverProcAddressQueryResult *status),
	(symbol, pfn, version, flags, status), do_get_proc)

/* cuGetProcAddress's own entries: asked for by cudart at 11030 and 12000. */
static const struct proc_entry self_procs[] = {
	P(cuGetProcAddress, 11030, cuGetProcAddress)
	P(cuGetProcAddress, 12000, cuGetProcAddress_v2)
};

/* The newest entry for name whose version is <= version, in tab[0..n). */
static const struct proc_entry *proc_pick(const struct proc_entry *tab,
					  size_t n, const char *name,
					  int version, int *known)
{
	const struct proc_entry *best = NULL;
	size_t i;

	for (i = 0; i < n; i++) {
		if (strcmp(tab[i].name, name))
			continue;
		*known = 1;
		if (tab[i].version <= version &&
		    (!best || tab[i].version > best->version))
			best = &tab[i];
	}
	return best;
}

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

static CUresult do_get_proc(const char *symbol, void **pfn, int version,
			    cuuint64_t flags,
			    CUdriverProcAddressQueryResult *status)
{
	const struct proc_entry *e;
	CUdriverProcAddressQueryResult st = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
	int known = 0, pt;

	if (status)
		*status = st;
	if (!symbol || !pfn)
		return CUDA_ERROR_INVALID_VALUE;
	*pfn = NULL;
	if (flags & ~(cuuint64_t)(CU_GET_PROC_ADDRESS_LEGACY_STREAM |
				  CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM))
		return CUDA_ERROR_INVALID_VALUE;
	e = proc_pick(procs, NELEM(procs), symbol, version, &known);
	if (!known)
		e = proc_pick(self_procs, NELEM(self_procs), symbol, version,
			      &known);
	if (!e) {
		if (known)
			st = CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT;
		if (status)
			*status = st;
		return CUDA_ERROR_NOT_FOUND;
	}
	pt = (flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) && e->pt;
	if (fake_cfg.internal)
		*pfn = pt ? e->pt_in : e->fn_in;
	else
		*pfn = pt ? e->pt : e->fn;
	if (status)
		*status = CU_GET_PROC_ADDRESS_SUCCESS;
	return CUDA_SUCCESS;
}

