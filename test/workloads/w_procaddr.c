/* SPDX-License-Identifier: MIT */
/*
 * w_procaddr.c - asks cuGetProcAddress for entry points and prints what it
 * answered, one line per query:
 *
 *   NAME VERSION FLAGS rc=RC status=STATUS lib=LIB sym=SYM
 *
 * LIB is the basename of the object the pointer is in ("-" when NULL), SYM
 * the exported symbol at exactly that address, or "?" when none is (a
 * static function).  Queries are NAME:VERSION[:FLAGS] arguments.
 *
 *   w_procaddr [--init] [--via=VER] QUERY...
 *
 * By default it asks through dlsym(libcuda, "cuGetProcAddress_v2") before
 * cuInit.  --init calls cuInit first; --via=VER first asks that function
 * for "cuGetProcAddress" at VER and then asks through the answer, with 4
 * arguments when VER < 12000.  For cuDriverGetVersion it also calls what it
 * got and prints "value=V".
 */
#include "test/fake/workload.h"

static PFN_cuGetProcAddress_v12000 gpa;
static PFN_cuGetProcAddress_v11030 gpa1;

static void describe(const void *p, const char **lib, const char **sym)
{
	Dl_info info;
	const char *slash;

	*lib = "-";
	*sym = "-";
	if (!p)
		return;
	*lib = "?";
	*sym = "?";
	if (!dladdr(p, &info))
		return;
	if (info.dli_fname) {
		slash = strrchr(info.dli_fname, '/');
		*lib = slash ? slash + 1 : info.dli_fname;
	}
	if (info.dli_sname && info.dli_saddr == p)
		*sym = info.dli_sname;
}

static void query(const char *arg)
{
	char name[128];
	int version = 0;
	unsigned long long flags = 0;
	CUdriverProcAddressQueryResult st = (CUdriverProcAddressQueryResult)-1;
	const char *lib, *sym;
	void *p = NULL;
	CUresult rc;
	int v = 0;

	if (sscanf(arg, "%127[^:]:%d:%llu", name, &version, &flags) < 2) {
		if (arg[0] == ':') {
			name[0] = 0;
			sscanf(arg, ":%d:%llu", &version, &flags);
		} else {
			fprintf(stderr, "bad query '%s'\n", arg);
			exit(2);
		}
	}
	if (gpa1)
		rc = gpa1(name, &p, version, flags);
	else
		rc = gpa(name, &p, version, flags, &st);
	describe(p, &lib, &sym);
	printf("%s %d %llu rc=%d status=%d lib=%s sym=%s", name[0] ? name : "''",
	       version, flags, (int)rc, (int)st, lib, sym);
	if (p && !strcmp(name, "cuDriverGetVersion")) {
		((PFN_cuDriverGetVersion_v2020)p)(&v);
		printf(" value=%d", v);
	}
	printf("\n");
}

int main(int argc, char **argv)
{
	void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	long via = 0;
	void *p = NULL;
	CUdriverProcAddressQueryResult st;
	int i;

	if (!lib) {
		fprintf(stderr, "dlopen libcuda.so.1: %s\n", dlerror());
		return WL_EXIT_FAIL;
	}
	gpa = (PFN_cuGetProcAddress_v12000)dlsym(lib, "cuGetProcAddress_v2");
	if (!gpa)
		return WL_EXIT_FAIL;
	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--init")) {
			PFN_cuInit_v2000 init =
				(PFN_cuInit_v2000)dlsym(lib, "cuInit");

			WL_CK(init ? init(0) : CUDA_ERROR_NOT_FOUND);
		} else if (!wl_opt_int(argv[i], "--via", &via)) {
			fprintf(stderr, "unknown option '%s'\n", argv[i]);
			return 2;
		}
	}
	if (via) {
		WL_CK(gpa("cuGetProcAddress", &p, (int)via, 0, &st));
		if (via < 12000)
			gpa1 = (PFN_cuGetProcAddress_v11030)p;
		else
			gpa = (PFN_cuGetProcAddress_v12000)p;
	}
	for (; i < argc; i++)
		query(argv[i]);
	return 0;
}
