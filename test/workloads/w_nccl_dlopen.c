/* SPDX-License-Identifier: MIT */
/*
 * w_nccl_dlopen.c - a program that is not linked with NCCL: it first
 * probes for it (dlsym(RTLD_DEFAULT, "ncclAllReduce") must find nothing,
 * preloaded wrappers or not), then dlopens libnccl.so.2 with RTLD_LOCAL
 * and calls it through dlsym, as plugins and frameworks that load NCCL
 * at run time do.
 *
 *   w_nccl_dlopen [CALLS]
 */
#include <dlfcn.h>
#include <nccl.h>
#include <stdio.h>
#include <stdlib.h>

typedef ncclResult_t (*allreduce_fn)(const void *, void *, size_t, ncclDataType_t,
				     ncclRedOp_t, ncclComm_t, cudaStream_t);
typedef ncclResult_t (*init_fn)(ncclComm_t *, int, ncclUniqueId, int);
typedef ncclResult_t (*uid_fn)(ncclUniqueId *);
typedef ncclResult_t (*destroy_fn)(ncclComm_t);

#define SYM(lib, name, type) ((type)must(dlsym(lib, name), name))

static void *must(void *p, const char *what)
{
	if (!p) {
		fprintf(stderr, "w_nccl_dlopen: no %s: %s\n", what, dlerror());
		exit(90);
	}
	return p;
}

int main(int argc, char **argv)
{
	long calls = argc > 1 ? strtol(argv[1], NULL, 10) : 3;
	void *probe = dlsym(RTLD_DEFAULT, "ncclAllReduce");
	void *lib;
	ncclUniqueId id;
	ncclComm_t comm;

	printf("truth probe_found=%d\n", probe != NULL);
	lib = must(dlopen("libnccl.so.2", RTLD_NOW | RTLD_LOCAL), "libnccl.so.2");
	if (SYM(lib, "ncclGetUniqueId", uid_fn)(&id) ||
	    SYM(lib, "ncclCommInitRank", init_fn)(&comm, 2, id, 1))
		return 91;
	for (long i = 0; i < calls; i++)
		if (SYM(lib, "ncclAllReduce", allreduce_fn)(NULL, NULL, 128, ncclInt8,
							   ncclSum, comm, NULL))
			return 92;
	if (SYM(lib, "ncclCommDestroy", destroy_fn)(comm))
		return 93;
	printf("truth calls=%ld\n", calls);
	return 0;
}
