/*
 * papi_nest.c - PAPI's high-level regions under the sbtmark preload.
 *
 * Links no libpapi (its symbols weak here, -DSBT_NO_LIB): the preload
 * alone answers every call, as it does when no library follows it (with
 * one it passes each call on: fwd_app.c); every call must succeed and
 * nothing may create PAPI's papi_hl_output directory (interpose_test.py
 * runs us in an empty directory and checks).  Also calls the Fortran
 * wrappers the way gfortran does.  Expected log, one thread: compute 4,
 * step 12, io 4, f_region 3; counters: stop_without_start 1.
 */
#include <stdio.h>
#include <papi.h>
#include "../common/harness.h"

void papif_hl_region_begin_(const char *name, int *check, int len);
void papif_hl_region_end_(const char *name, int *check, int len);
void papif_hl_read_(const char *name, int *check, int len);
void papif_hl_stop_(int *check);

#ifdef SBT_NO_LIB
#pragma weak PAPI_hl_region_begin
#pragma weak PAPI_hl_region_end
#pragma weak PAPI_hl_read
#pragma weak PAPI_hl_stop
#pragma weak papif_hl_region_begin_
#pragma weak papif_hl_region_end_
#pragma weak papif_hl_read_
#pragma weak papif_hl_stop_
#endif


static volatile double sink;

int main(void)
{
	int check;

	for (int i = 0; i < 4; i++) {
		CHECK_TRUE(PAPI_hl_region_begin("compute") == PAPI_OK);
		for (int j = 0; j < 3; j++) {
			CHECK_TRUE(PAPI_hl_region_begin("step") == PAPI_OK);
			sink += j;
			CHECK_TRUE(PAPI_hl_read("step") == PAPI_OK);
			CHECK_TRUE(PAPI_hl_region_end("step") == PAPI_OK);
		}
		CHECK_TRUE(PAPI_hl_region_end("compute") == PAPI_OK);
		CHECK_TRUE(PAPI_hl_region_begin("io") == PAPI_OK);
		CHECK_TRUE(PAPI_hl_region_end("io") == PAPI_OK);
	}
	/* An end without a begin: PAPI_EMISC, as in papi_hl.c. */
	CHECK_TRUE(PAPI_hl_region_end("nothing") == PAPI_EMISC);

	for (int i = 0; i < 3; i++) {
		check = -99;
		papif_hl_region_begin_("f_region   ", &check, 11);
		CHECK_TRUE(check == PAPI_OK);
		papif_hl_read_("f_region   ", &check, 11);
		CHECK_TRUE(check == PAPI_OK);
		papif_hl_region_end_("f_region", &check, 8);
		CHECK_TRUE(check == PAPI_OK);
	}
	papif_hl_stop_(&check);
	CHECK_TRUE(check == PAPI_OK);
	CHECK_TRUE(PAPI_hl_stop() == PAPI_OK);

	return h_status("papi_nest");
}
