/* SPDX-License-Identifier: MIT */
/*
 * nvml_api.h - the part of NVML (libnvidia-ml.so.1) that gputrace calls,
 * declared here because nvml.h is not part of every CUDA install.  The
 * names and numbers are NVML's; the layouts are NVML's stable ABI and are
 * checked against nvml.h at compile time wherever it is installed.
 *
 * GT_NVML_FUNCS lists every function with its parameters: nvml.c resolves
 * them by name, the fake NVML of the tests defines them.
 */
#ifndef GPUTRACE_PRELOAD_NVML_API_H
#define GPUTRACE_PRELOAD_NVML_API_H

typedef int gt_nvml_ret;                    /* nvmlReturn_t */
typedef struct gt_nvml_dev *gt_nvml_dev;    /* nvmlDevice_t */

enum {
	GT_NVML_SUCCESS = 0,
	GT_NVML_ERROR_UNINITIALIZED = 1,
	GT_NVML_ERROR_INVALID_ARGUMENT = 2,
	GT_NVML_ERROR_NOT_SUPPORTED = 3,
	GT_NVML_ERROR_NO_PERMISSION = 4,
	GT_NVML_ERROR_NOT_FOUND = 6,
	GT_NVML_ERROR_INSUFFICIENT_SIZE = 7,
	GT_NVML_ERROR_DRIVER_NOT_LOADED = 9,
	GT_NVML_ERROR_FUNCTION_NOT_FOUND = 13,
	GT_NVML_ERROR_GPU_IS_LOST = 15,
	GT_NVML_ERROR_UNKNOWN = 999,
};

enum {                                      /* nvmlClockType_t */
	GT_NVML_CLOCK_GRAPHICS = 0,
	GT_NVML_CLOCK_SM = 1,
	GT_NVML_CLOCK_MEM = 2,
};

#define GT_NVML_TEMPERATURE_GPU 0
#define GT_NVML_NVLINK_MAX_LINKS 18
#define GT_NVML_NAME_SIZE 96                /* NVML_DEVICE_NAME_V2_BUFFER_SIZE */
#define GT_NVML_UUID_SIZE 96
#define GT_NVML_VERSION_SIZE 80             /* ..._DRIVER_VERSION_BUFFER_SIZE */

struct gt_nvml_utilization {                /* nvmlUtilization_t */
	unsigned int gpu;                   /* % of time a kernel ran */
	unsigned int memory;
};

struct gt_nvml_memory {                     /* nvmlMemory_t (v1) */
	unsigned long long total;
	unsigned long long free;
	unsigned long long used;
};

struct gt_nvml_pci {                        /* nvmlPciInfo_t */
	char bus_id_legacy[16];
	unsigned int domain;
	unsigned int bus;
	unsigned int device;
	unsigned int pci_device_id;
	unsigned int pci_subsystem_id;
	char bus_id[32];
};

struct gt_nvml_process {                    /* nvmlProcessInfo_t (v2) */
	unsigned int pid;
	unsigned long long used_gpu_memory;
	unsigned int gpu_instance_id;
	unsigned int compute_instance_id;
};

/* X(name, parameters) */
#define GT_NVML_FUNCS(X)                                                     \
	X(nvmlInit_v2, (void))                                               \
	X(nvmlSystemGetDriverVersion, (char *version, unsigned int len))     \
	X(nvmlSystemGetCudaDriverVersion_v2, (int *version))                 \
	X(nvmlDeviceGetCount_v2, (unsigned int *count))                      \
	X(nvmlDeviceGetHandleByIndex_v2, (unsigned int i, gt_nvml_dev *dev)) \
	X(nvmlDeviceGetName, (gt_nvml_dev d, char *name, unsigned int len))  \
	X(nvmlDeviceGetUUID, (gt_nvml_dev d, char *uuid, unsigned int len))  \
	X(nvmlDeviceGetPciInfo_v3, (gt_nvml_dev d, struct gt_nvml_pci *pci)) \
	X(nvmlDeviceGetMemoryInfo, (gt_nvml_dev d, struct gt_nvml_memory *m)) \
	X(nvmlDeviceGetCudaComputeCapability, (gt_nvml_dev d, int *major,    \
					       int *minor))                  \
	X(nvmlDeviceGetCurrPcieLinkGeneration, (gt_nvml_dev d, unsigned int *v)) \
	X(nvmlDeviceGetMaxPcieLinkGeneration, (gt_nvml_dev d, unsigned int *v)) \
	X(nvmlDeviceGetCurrPcieLinkWidth, (gt_nvml_dev d, unsigned int *v))  \
	X(nvmlDeviceGetMaxPcieLinkWidth, (gt_nvml_dev d, unsigned int *v))   \
	X(nvmlDeviceGetNvLinkState, (gt_nvml_dev d, unsigned int link,       \
				     int *active))                           \
	X(nvmlDeviceGetTopologyCommonAncestor, (gt_nvml_dev a, gt_nvml_dev b, \
						int *level))                 \
	X(nvmlDeviceGetEccMode, (gt_nvml_dev d, int *current, int *pending)) \
	X(nvmlDeviceGetPersistenceMode, (gt_nvml_dev d, int *mode))          \
	X(nvmlDeviceGetComputeMode, (gt_nvml_dev d, int *mode))              \
	X(nvmlDeviceGetMigMode, (gt_nvml_dev d, unsigned int *current,       \
				 unsigned int *pending))                     \
	X(nvmlDeviceGetMaxClockInfo, (gt_nvml_dev d, int type, unsigned int *mhz)) \
	X(nvmlDeviceGetEnforcedPowerLimit, (gt_nvml_dev d, unsigned int *mw)) \
	X(nvmlDeviceGetUtilizationRates, (gt_nvml_dev d,                     \
					  struct gt_nvml_utilization *u))    \
	X(nvmlDeviceGetClockInfo, (gt_nvml_dev d, int type, unsigned int *mhz)) \
	X(nvmlDeviceGetCurrentClocksEventReasons, (gt_nvml_dev d,            \
						   unsigned long long *r))   \
	X(nvmlDeviceGetCurrentClocksThrottleReasons, (gt_nvml_dev d,         \
						      unsigned long long *r)) \
	X(nvmlDeviceGetTemperature, (gt_nvml_dev d, int sensor, unsigned int *c)) \
	X(nvmlDeviceGetPowerUsage, (gt_nvml_dev d, unsigned int *mw))        \
	X(nvmlDeviceGetComputeRunningProcesses_v3, (gt_nvml_dev d,           \
		unsigned int *count, struct gt_nvml_process *infos))         \
	X(nvmlDeviceGetComputeRunningProcesses_v2, (gt_nvml_dev d,           \
		unsigned int *count, struct gt_nvml_process *infos))

/* The functions, NULL where the library lacks one. */
struct gt_nvml_fns {
#define GT_NVML_PTR(name, params) gt_nvml_ret (*name) params;
	GT_NVML_FUNCS(GT_NVML_PTR)
#undef GT_NVML_PTR
};

#endif /* GPUTRACE_PRELOAD_NVML_API_H */
