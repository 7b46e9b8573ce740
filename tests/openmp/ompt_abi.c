/*
 * ompt_abi.c - the OMPT declarations the recorder wrote from the OpenMP
 * specification (preload/api/ompt_abi.h) against LLVM's omp-tools.h
 * (libomp-14-dev).  Compiled by clang, which finds omp-tools.h; a
 * mismatch fails the compile.
 */
#include <omp-tools.h>
#include <stddef.h>
#include "ompt_abi.h"

#define SAME(a, b) _Static_assert((int)(a) == (int)(b), #a " != " #b)

SAME(SBT_OMPT_CB_PARALLEL_BEGIN, ompt_callback_parallel_begin);
SAME(SBT_OMPT_CB_PARALLEL_END, ompt_callback_parallel_end);
SAME(SBT_OMPT_CB_TASK_CREATE, ompt_callback_task_create);
SAME(SBT_OMPT_CB_TASK_SCHEDULE, ompt_callback_task_schedule);
SAME(SBT_OMPT_CB_IMPLICIT_TASK, ompt_callback_implicit_task);
SAME(SBT_OMPT_CB_SYNC_REGION_WAIT, ompt_callback_sync_region_wait);
SAME(SBT_OMPT_CB_WORK, ompt_callback_work);
SAME(SBT_OMPT_CB_SYNC_REGION, ompt_callback_sync_region);
SAME(SBT_OMPT_SET_ERROR, ompt_set_error);
SAME(SBT_OMPT_SET_NEVER, ompt_set_never);
SAME(SBT_OMPT_BEGIN, ompt_scope_begin);
SAME(SBT_OMPT_END, ompt_scope_end);
SAME(SBT_OMPT_BARRIER, ompt_sync_region_barrier);
SAME(SBT_OMPT_BARRIER_IMPLICIT, ompt_sync_region_barrier_implicit);
SAME(SBT_OMPT_BARRIER_EXPLICIT, ompt_sync_region_barrier_explicit);
SAME(SBT_OMPT_BARRIER_IMPLICIT_WORKSHARE,
     ompt_sync_region_barrier_implicit_workshare);
SAME(SBT_OMPT_BARRIER_IMPLICIT_PARALLEL,
     ompt_sync_region_barrier_implicit_parallel);
SAME(SBT_OMPT_TASK_INITIAL, ompt_task_initial);
SAME(SBT_OMPT_TASK_EXPLICIT, ompt_task_explicit);
SAME(SBT_OMPT_WORK_LOOP, ompt_work_loop);
SAME(SBT_OMPT_WORK_SECTIONS, ompt_work_sections);
SAME(SBT_OMPT_WORK_SINGLE_EXECUTOR, ompt_work_single_executor);

_Static_assert(sizeof(sbt_ompt_data) == sizeof(ompt_data_t), "data");
_Static_assert(sizeof(sbt_ompt_start_result) ==
	       sizeof(ompt_start_tool_result_t) &&
	       offsetof(sbt_ompt_start_result, finalize) ==
	       offsetof(ompt_start_tool_result_t, finalize) &&
	       offsetof(sbt_ompt_start_result, tool_data) ==
	       offsetof(ompt_start_tool_result_t, tool_data), "result");

int main(void)
{
	return 0;
}
