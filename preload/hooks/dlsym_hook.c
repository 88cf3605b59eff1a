/* SPDX-License-Identifier: MIT */
/*
 * dlsym_hook.c - interposed dlsym and dlvsym.
 *
 * cudart dlopens libcuda.so.1 and asks dlsym for cuGetProcAddress_v2 on
 * that handle; Triton asks for cuLaunchKernelEx the same way.  A preloaded
 * definition is never found by such a lookup, so we see the answer here and
 * swap it for our wrapper when the name is exactly one we trace and the
 * pointer is the real function.  Every other lookup passes through with the
 * caller's handle; RTLD_NEXT is resolved relative to the caller, not to us.
 */
#include <dlfcn.h>
#include <link.h>
#include <stdatomic.h>
#include <string.h>

#include "preload/base/dl.h"
#include "preload/hooks/hooks.h"
#include "preload/base/internal.h"
#include "preload/hooks/nccl_hooks.h"
#include "preload/hooks/procaddr.h"

typedef void *(*dlsym_fn)(void *, const char *);
typedef void *(*dlvsym_fn)(void *, const char *, const char *);

static _Atomic(dlsym_fn) real_dlsym;
static _Atomic(dlvsym_fn) real_dlvsym;
static __thread int in_hook __attribute__((tls_model("initial-exec")));

static void resolve_real(void)
{
	if (!atomic_load(&real_dlsym))
		atomic_store(&real_dlsym, (dlsym_fn)gt_elf_find_global("dlsym"));
	if (!atomic_load(&real_dlvsym))
		atomic_store(&real_dlvsym, (dlvsym_fn)gt_elf_find_global("dlvsym"));
}

static void *lookup_next(const char *name, const char *version, const void *caller);

/* What RTLD_NEXT found, unless another copy of this library defines it:
 * then the next definition after that copy (elf_lookup.c). */
static void *past_copies(void *p, const char *name, const char *version)
{
	while (p && gt_elf_in_copy(p))
		p = lookup_next(name, version, p);
	return p;
}

void *gt_real_dlsym(void *handle, const char *name)
{
	dlsym_fn f = atomic_load_explicit(&real_dlsym, memory_order_relaxed);
	void *p;

	if (unlikely(!f)) {
		resolve_real();
		f = atomic_load(&real_dlsym);
	}
	p = f ? f(handle, name) : NULL;
	return handle == RTLD_NEXT ? past_copies(p, name, NULL) : p;
}

void *gt_real_dlvsym(void *handle, const char *name, const char *version)
{
	dlvsym_fn f = atomic_load_explicit(&real_dlvsym, memory_order_relaxed);
	void *p;

	if (unlikely(!f)) {
		resolve_real();
		f = atomic_load(&real_dlvsym);
	}
	p = f ? f(handle, name, version) : NULL;
	return handle == RTLD_NEXT ? past_copies(p, name, version) : p;
}

void *gt_driver_symbol(const char *name)
{
	void *p = gt_real_dlsym(RTLD_NEXT, name), *h;

	if (p)
		return gt_driver_hold(p);
	h = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
	if (!h)
		return NULL;
	p = gt_real_dlsym(h, name);
	dlclose(h);
	return gt_driver_hold(p);
}

/* What a lookup found, swapped for our wrapper where it is ours to trace. */
static void *filter(const char *name, void *p)
{
	int op;

	if (!p || !name || in_hook ||
	    !((name[0] == 'c' && name[1] == 'u') || (name[0] == 'n' && name[1] == 'c')))
		return p;
	in_hook = 1;
	if (name[0] == 'n')
		p = gt_nccl_dlsym(name, p);
	else if (!strcmp(name, "cuGetProcAddress_v2") || !strcmp(name, "cuGetProcAddress"))
		p = gt_procaddr_dlsym(name, p);
	else if ((op = gt_op_by_symbol(name)) >= 0)
		p = gt_swap_dlsym(op, p);
	else if (name[2] == 'd' && name[3] == 'a')
		p = gt_runtime_dlsym(name, p);
	if (!p)                                 /* let dlerror() say why */
		gt_real_dlsym(RTLD_NEXT, name);
	in_hook = 0;
	return p;
}

/* `name` as defined by the object `l` itself, not by its dependencies. */
static void *lookup_in(struct link_map *l, const char *name, const char *version)
{
	struct link_map *owner = NULL;
	Dl_info info;
	void *h, *p;

	if (!l->l_name || !l->l_name[0])
		return NULL;
	h = dlopen(l->l_name, RTLD_LAZY | RTLD_NOLOAD);   /* a proper handle */
	if (!h)
		return NULL;
	p = version ? gt_real_dlvsym(h, name, version) : gt_real_dlsym(h, name);
	if (p && !(dladdr1(p, &info, (void **)&owner, RTLD_DL_LINKMAP) && owner == l))
		p = NULL;
	dlclose(h);
	return p;
}

/*
 * RTLD_NEXT for a caller that is not us: the first object after the
 * caller's in load order that itself defines the name.
 */
static void *lookup_next(const char *name, const char *version, const void *caller)
{
	struct link_map *self = NULL, *l;
	Dl_info info;
	void *p;

	if (!dladdr1(caller, &info, (void **)&self, RTLD_DL_LINKMAP) || !self)
		return version ? gt_real_dlvsym(RTLD_NEXT, name, version)
			       : gt_real_dlsym(RTLD_NEXT, name);
	for (l = self->l_next; l; l = l->l_next)
		if ((p = lookup_in(l, name, version)) != NULL)
			return p;
	/* not found: let glibc set dlerror() as it would have (the name is
	 * then usually nowhere, so this lookup fails too) */
	if (version)
		gt_real_dlvsym(RTLD_DEFAULT, name, version);
	else
		gt_real_dlsym(RTLD_DEFAULT, name);
	return NULL;
}

GT_EXPORT void *dlsym(void *handle, const char *name)
{
	const void *caller = __builtin_return_address(0);
	void *p;

	if (handle == RTLD_NEXT)
		p = lookup_next(name, NULL, caller);
	else
		p = gt_real_dlsym(handle, name);
	return gt_dl_leave_alone(caller, name) ? p : filter(name, p);
}

GT_EXPORT void *dlvsym(void *handle, const char *name, const char *version)
{
	const void *caller = __builtin_return_address(0);
	void *p;

	if (handle == RTLD_NEXT)
		p = lookup_next(name, version, caller);
	else
		p = gt_real_dlvsym(handle, name, version);
	return gt_dl_leave_alone(caller, name) ? p : filter(name, p);
}
