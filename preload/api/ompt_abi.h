/*
 * ompt_abi.h - the part of the OMPT interface (OpenMP 5.1, section 4)
 * api_ompt.c uses, written from the specification under names of our
 * own (SBT_OMPT_*, sbt_ompt_*), so that tests/openmp/ompt_abi.c can hold
 * them against LLVM's omp-tools.h in one translation unit.
 */
#ifndef SBT_OMPT_ABI_H
#define SBT_OMPT_ABI_H

#include <stdint.h>

typedef union { uint64_t value; void *ptr; } sbt_ompt_data;
typedef void (*sbt_ompt_fn)(void);
typedef sbt_ompt_fn (*sbt_ompt_lookup)(const char *);
typedef int (*sbt_ompt_set_callback)(int event, sbt_ompt_fn cb);
typedef int (*sbt_ompt_initialize)(sbt_ompt_lookup, int, sbt_ompt_data *);
typedef void (*sbt_ompt_finalize)(sbt_ompt_data *);

typedef struct {                       /* ompt_start_tool_result_t */
	sbt_ompt_initialize initialize;
	sbt_ompt_finalize finalize;
	sbt_ompt_data tool_data;
} sbt_ompt_start_result;

enum {                                 /* ompt_callbacks_t */
	SBT_OMPT_CB_PARALLEL_BEGIN = 3, SBT_OMPT_CB_PARALLEL_END = 4,
	SBT_OMPT_CB_TASK_CREATE = 5, SBT_OMPT_CB_TASK_SCHEDULE = 6,
	SBT_OMPT_CB_IMPLICIT_TASK = 7, SBT_OMPT_CB_SYNC_REGION_WAIT = 16,
	SBT_OMPT_CB_WORK = 20, SBT_OMPT_CB_SYNC_REGION = 23,
};
enum { SBT_OMPT_SET_ERROR = 0, SBT_OMPT_SET_NEVER = 1 };  /* ompt_set_result_t */
enum { SBT_OMPT_BEGIN = 1, SBT_OMPT_END = 2 };  /* ompt_scope_endpoint_t */
enum {                                 /* ompt_sync_region_t */
	SBT_OMPT_BARRIER = 1,          /* deprecated in 5.1 */
	SBT_OMPT_BARRIER_IMPLICIT = 2, /* deprecated in 5.1 */
	SBT_OMPT_BARRIER_EXPLICIT = 3,
	SBT_OMPT_BARRIER_IMPLICIT_WORKSHARE = 8,
	SBT_OMPT_BARRIER_IMPLICIT_PARALLEL = 9,
};
enum { SBT_OMPT_TASK_INITIAL = 1, SBT_OMPT_TASK_EXPLICIT = 4 }; /* flags */
enum {                                 /* ompt_work_t */
	SBT_OMPT_WORK_LOOP = 1, SBT_OMPT_WORK_SECTIONS = 2,
	SBT_OMPT_WORK_SINGLE_EXECUTOR = 3,
};

#endif
