/*
 * likwid_nest.c - LIKWID's marker API through every entry point, under the
 * sbtmark preload: nesting, GetRegion, Reset, misuse, and the Fortran
 * symbols called the way gfortran calls them (blank-padded, hidden
 * length, literal and writable buffers).
 *
 * Links no liblikwid (its symbols weak here, -DSBT_NO_LIB): the preload
 * alone answers every call, as it does when no library follows it (with
 * one it passes each call on: fwd_app.c).  Exits 0
 * when every return value the app sees is right; interpose_test.py then
 * checks the log.  Expected log (one thread):
 *   outer 5, inner 15, reset_me 2 (1 before the RESET, 2 after: the
 *   analyzer counts those after it), twice 1, f_region 4, f_var_a 2,
 *   no f_var_b (its one sample precedes its RESET); counters:
 *   stop_without_start 2, start_of_open_region 1, bad_name 2,
 *   after_close 1.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <likwid.h>
#include "../common/harness.h"

/* The Fortran entry points (likwid_f90_interface.c), as gfortran calls
 * them. */
void likwid_markerinit_(void);
void likwid_markerthreadinit_(void);
void likwid_markerregisterregion_(const char *tag, int len);
void likwid_markerstartregion_(const char *tag, int len);
void likwid_markerstopregion_(const char *tag, int len);
void likwid_markerresetregion_(const char *tag, int len);
void likwid_markergetregion_(const char *tag, int *nev, double *ev,
			     double *time, int *count, int len);

#ifdef SBT_NO_LIB
#pragma weak likwid_markerInit
#pragma weak likwid_markerThreadInit
#pragma weak likwid_markerRegisterRegion
#pragma weak likwid_markerStartRegion
#pragma weak likwid_markerStopRegion
#pragma weak likwid_markerResetRegion
#pragma weak likwid_markerGetRegion
#pragma weak likwid_markerClose
#pragma weak likwid_markerinit_
#pragma weak likwid_markerthreadinit_
#pragma weak likwid_markerregisterregion_
#pragma weak likwid_markerstartregion_
#pragma weak likwid_markerstopregion_
#pragma weak likwid_markerresetregion_
#pragma weak likwid_markergetregion_
#endif


static volatile double sink;

static void work(int n)
{
	for (int i = 0; i < n; i++)
		sink += i * 0.5;
}

int main(void)
{
	int nev, count;
	double ev[4], t;

	likwid_markerInit();
	likwid_markerThreadInit();
	CHECK_TRUE(likwid_markerRegisterRegion("outer") == 0);

	for (int i = 0; i < 5; i++) {
		CHECK_TRUE(likwid_markerStartRegion("outer") == 0);
		for (int j = 0; j < 3; j++) {
			CHECK_TRUE(likwid_markerStartRegion("inner") == 0);
			work(100);
			CHECK_TRUE(likwid_markerStopRegion("inner") == 0);
		}
		CHECK_TRUE(likwid_markerStopRegion("outer") == 0);
	}

	/* GetRegion answers from sbtmark's own totals; no events. */
	nev = 4; count = -1; t = -1;
	likwid_markerGetRegion("inner", &nev, ev, &t, &count);
	CHECK_TRUE(count == 15);
	CHECK_TRUE(nev == 0);
	CHECK_TRUE(t > 0 && t < 10);

	/* Reset: earlier samples no longer count for this thread. */
	CHECK_TRUE(likwid_markerStartRegion("reset_me") == 0);
	CHECK_TRUE(likwid_markerStopRegion("reset_me") == 0);
	CHECK_TRUE(likwid_markerResetRegion("reset_me") == 0);
	nev = 4; count = -1;
	likwid_markerGetRegion("reset_me", &nev, ev, &t, &count);
	CHECK_TRUE(count == 0);
	for (int i = 0; i < 2; i++) {
		CHECK_TRUE(likwid_markerStartRegion("reset_me") == 0);
		CHECK_TRUE(likwid_markerStopRegion("reset_me") == 0);
	}
	likwid_markerGetRegion("reset_me", &nev, ev, &t, &count);
	CHECK_TRUE(count == 2);

	/* Misuse: counted, -EFAULT like LIKWID, never fatal. */
	CHECK_TRUE(likwid_markerStopRegion("never_started") == -EFAULT);
	CHECK_TRUE(likwid_markerStartRegion("twice") == 0);
	CHECK_TRUE(likwid_markerStartRegion("twice") == -EFAULT);
	CHECK_TRUE(likwid_markerStopRegion("twice") == 0);
	CHECK_TRUE(likwid_markerStopRegion("twice") == -EFAULT);
	CHECK_TRUE(likwid_markerStartRegion(NULL) == -EFAULT);
	CHECK_TRUE(likwid_markerStartRegion("") == -EFAULT);
	count = 77;
	likwid_markerGetRegion("unknown_region", &nev, ev, &t, &count);
	CHECK_TRUE(count == 0);   /* unknown: no samples */

	/* Fortran: "f_region" padded with blanks, from a literal. */
	likwid_markerinit_();
	likwid_markerthreadinit_();
	likwid_markerregisterregion_("f_region    ", 12);
	for (int i = 0; i < 4; i++) {
		likwid_markerstartregion_("f_region    ", 12);
		work(10);
		likwid_markerstopregion_("f_region", 8);
	}
	nev = 4; count = -1;
	likwid_markergetregion_("f_region  ", &nev, ev, &t, &count, 10);
	CHECK_TRUE(count == 4);
	CHECK_TRUE(nev == 0);

	/* A CHARACTER variable: same pointer, changing contents. */
	char var[16];
	for (int i = 0; i < 3; i++) {
		memcpy(var, i < 2 ? "f_var_a         " : "f_var_b         ",
		       16);
		likwid_markerstartregion_(var, 16);
		work(10);
		likwid_markerstopregion_(var, 16);
	}
	likwid_markergetregion_("f_var_a", &nev, ev, &t, &count, 7);
	CHECK_TRUE(count == 2);
	likwid_markergetregion_("f_var_b", &nev, ev, &t, &count, 7);
	CHECK_TRUE(count == 1);
	likwid_markerresetregion_("f_var_b ", 8);
	likwid_markergetregion_("f_var_b", &nev, ev, &t, &count, 7);
	CHECK_TRUE(count == 0);

	likwid_markerClose();
	/* After CLOSE markers are ignored (and LIKWID says -EFAULT). */
	CHECK_TRUE(likwid_markerStartRegion("after_close") == -EFAULT);

	return h_status("likwid_nest");
}
