/* SPDX-License-Identifier: MIT */
/*
 * cupti_api.h - the CUPTI functions libgputrace.so uses, reached through a
 * libcupti loaded at run time (cupti_load.c), so that the library loads
 * and traces the host side where there is no CUPTI.  The types are the
 * real ones of cupti.h.
 */
#ifndef GPUTRACE_PRELOAD_CUPTI_API_H
#define GPUTRACE_PRELOAD_CUPTI_API_H

#include <cupti.h>
#include <stddef.h>

/* X(name, return, params): every function we call; all are required. */
#define GT_CUPTI_FUNCS(X)                                                    \
	X(cuptiGetVersion, (uint32_t *v))                                    \
	X(cuptiGetResultString, (CUptiResult r, const char **s))             \
	X(cuptiSubscribe, (CUpti_SubscriberHandle *s, CUpti_CallbackFunc cb, \
			   void *user))                                      \
	X(cuptiUnsubscribe, (CUpti_SubscriberHandle s))                      \
	X(cuptiFinalize, (void))                                             \
	X(cuptiActivityRegisterCallbacks, (CUpti_BuffersCallbackRequestFunc rq, \
					   CUpti_BuffersCallbackCompleteFunc cp)) \
	X(cuptiActivityEnable, (CUpti_ActivityKind k))                       \
	X(cuptiActivityDisable, (CUpti_ActivityKind k))                      \
	X(cuptiActivityFlushAll, (uint32_t flag))                            \
	X(cuptiActivityGetNextRecord, (uint8_t *buf, size_t valid,           \
				       CUpti_Activity **rec))                \
	X(cuptiActivityGetNumDroppedRecords, (CUcontext c, uint32_t stream,  \
					      size_t *dropped))              \
	X(cuptiEnableDomain, (uint32_t on, CUpti_SubscriberHandle s,         \
			      CUpti_CallbackDomain d))                        \
	X(cuptiGetTimestamp, (uint64_t *ts))

/* Optional: newer than some CUPTI we accept; NULL when missing. */
#define GT_CUPTI_OPTIONAL(X)                                                 \
	X(cuptiActivityEnableLatencyTimestamps, (uint8_t enable))            \
	X(cuptiSubscribe_v2, (CUpti_SubscriberHandle *s, CUpti_CallbackFunc cb, \
			      void *user, CUpti_SubscriberParams *p))       \
	X(cuptiEnableCallback, (uint32_t on, CUpti_SubscriberHandle s,       \
				CUpti_CallbackDomain d, CUpti_CallbackId id)) \
	X(cuptiGetCallbackName, (CUpti_CallbackDomain d, uint32_t id,        \
				 const char **name))

struct gt_cupti_api {
#define X(name, params) CUptiResult (CUPTIAPI *name) params;
	GT_CUPTI_FUNCS(X)
	GT_CUPTI_OPTIONAL(X)
#undef X
	void *handle;
	char path[1024];            /* the file loaded */
};

/*
 * Find and load libcupti (cupti_load.c): GPUTRACE_CUPTI_LIB if set, else
 * one the process already has, else the one beside the program's cudart,
 * else the CUDA toolkit's, else the library path.  0, or -1 with why (a
 * static string) when none could be loaded or a function is missing.
 */
int gt_cupti_load(struct gt_cupti_api *api, const char **why);

#endif /* GPUTRACE_PRELOAD_CUPTI_API_H */
