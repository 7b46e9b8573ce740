/*
 * likwid_standin.c - a stand-in for liblikwid's marker API (C and
 * gfortran's entry points), to see what reaches the library the app
 * linked: each call is logged with its arguments (standin_log.h) and
 * answered with values of its own that a test can tell from sbtmark's
 * (START/STOP/REGISTER/RESET: 100 + the name's length; GetRegion: count
 * 42, 1.5 s, one event of 3).
 */
#include <string.h>
#include "standin_log.h"

static int answer(const char *tag) { return tag ? 100 + (int)strlen(tag) : -1; }

void likwid_markerInit(void) { sl_log(__func__, ""); }
void likwid_markerThreadInit(void) { sl_log(__func__, ""); }
void likwid_markerNextGroup(void) { sl_log(__func__, ""); }
void likwid_markerClose(void) { sl_log(__func__, ""); }

#define TAGGED(f) int f(const char *tag)                                   \
	{ sl_log(__func__, " %s", SL_S(tag)); return answer(tag); }
TAGGED(likwid_markerRegisterRegion) TAGGED(likwid_markerStartRegion)
TAGGED(likwid_markerStopRegion) TAGGED(likwid_markerResetRegion)

void likwid_markerGetRegion(const char *tag, int *nr_events, double *events,
			    double *time, int *count)
{
	sl_log(__func__, " %s %d", SL_S(tag), nr_events ? *nr_events : -1);
	if (nr_events && *nr_events > 0 && events) {
		events[0] = 3;
		*nr_events = 1;
	}
	if (time)
		*time = 1.5;
	if (count)
		*count = 42;
}

/* gfortran: blank-padded names, their length last. */
void likwid_markerinit_(void) { sl_log(__func__, ""); }
void likwid_markerthreadinit_(void) { sl_log(__func__, ""); }
void likwid_markernextgroup_(void) { sl_log(__func__, ""); }
void likwid_markerclose_(void) { sl_log(__func__, ""); }

#define FTAGGED(f) void f(char *tag, int len)                              \
	{ sl_log(__func__, " [%.*s] %d", len, tag, len); }
FTAGGED(likwid_markerregisterregion_) FTAGGED(likwid_markerstartregion_)
FTAGGED(likwid_markerstopregion_) FTAGGED(likwid_markerresetregion_)

void likwid_markergetregion_(char *tag, int *nr_events, double *events,
			     double *time, int *count, int len)
{
	sl_log(__func__, " [%.*s] %d", len, tag, len);
	likwid_markerGetRegion("", nr_events, events, time, count);
}
