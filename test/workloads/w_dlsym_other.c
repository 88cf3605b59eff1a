/* SPDX-License-Identifier: MIT */
/*
 * w_dlsym_other.c - dlsym of names that look like CUDA but are not the
 * driver's must behave as without the tracer: names that exist nowhere
 * give NULL (and a dlerror), RTLD_NEXT still finds libc's puts, and
 * lookups on the driver's handle of names it lacks give NULL.
 *
 * Prints one "ok ..." or "FAIL ..." line per check; exits 1 if any failed.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

static int failed;

static void check(int cond, const char *what)
{
	printf("%s %s\n", cond ? "ok" : "FAIL", what);
	failed |= !cond;
}

static void absent(void *handle, const char *hname, const char *name)
{
	char what[256];
	void *p;

	dlerror();
	p = dlsym(handle, name);
	snprintf(what, sizeof(what), "dlsym(%s, %s) is NULL", hname, name);
	check(p == NULL, what);
	snprintf(what, sizeof(what), "dlsym(%s, %s) sets dlerror", hname, name);
	check(dlerror() != NULL, what);
}

/* The driver's handle: names it lacks are NULL, names it has still work. */
static void check_cuda(void *cuda)
{
	int (*count)(int *);
	int n = 0;

	absent(cuda, "libcuda", "cuLaunchKernelFoo");
	absent(cuda, "libcuda", "cudnnCreate");
	absent(cuda, "libcuda", "cuGetProcAddress_v3");
	count = (int (*)(int *))dlsym(cuda, "cuDeviceGetCount");
	check(count != NULL, "dlsym(libcuda, cuDeviceGetCount) found");
	check(count && count(&n) == 0 && n == 1,
	      "cuDeviceGetCount through it works");
}

int main(void)
{
	static const char *const fake_names[] = {
		"cudnnCreate", "cublasCreate_v2", "cuLaunchKernelFoo",
		"cuMemcpyHtoD_v3", "cuGetProcAddress_v2", "cuLaunchKernel",
		"cuInit", "nvtxRangePushA", "cu", "",
	};
	void *libc = dlopen("libc.so.6", RTLD_NOW);
	void *cuda;
	size_t i;

	check(libc != NULL, "dlopen(libc.so.6)");
	if (!libc)
		return 1;
	for (i = 0; i < sizeof(fake_names) / sizeof(fake_names[0]); i++)
		absent(libc, "libc", fake_names[i]);
	check(dlsym(RTLD_NEXT, "puts") == dlsym(libc, "puts"),
	      "dlsym(RTLD_NEXT, puts) is libc's puts");
	check(dlsym(RTLD_DEFAULT, "puts") == dlsym(libc, "puts"),
	      "dlsym(RTLD_DEFAULT, puts) is libc's puts");
	absent(RTLD_NEXT, "RTLD_NEXT", "cudnnCreate");
	absent(RTLD_DEFAULT, "RTLD_DEFAULT", "cuLaunchKernelFoo");

	cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	check(cuda != NULL, "dlopen(libcuda.so.1)");
	if (cuda)
		check_cuda(cuda);
	fflush(stdout);
	return failed;
}
