/*
 * api_likwid.c - the LIKWID marker API (liblikwid 5.x), interposed.
 *
 * An app built with -DLIKWID_PERFMON calls likwid_marker*() in liblikwid;
 * with libsbtmark.so preloaded our definitions win symbol resolution, so
 * the same binary records into the sbtmark log.  No likwid-perfctr, no
 * LIKWID_* environment variables: liblikwid itself is never entered.
 *
 * Return conventions follow LIKWID 5.2 (src/libperfctr.c): the int
 * functions return 0 on success and -EFAULT when LIKWID would (marker API
 * not active, STOP of a region that is not running, RESET of a region
 * that is not stopped).  We return -EFAULT for every call the recorder
 * counts as misuse or ignores (recorder closed); LIKWID's one laxer case,
 * START of a region already running (a warning and 0 there), also gets
 * -EFAULT here because the recorder did not restart it.
 *
 * likwid_markerGetRegion answers from our own per-thread totals since the
 * last RESET: count, accumulated seconds and, under SBT_EVENTS, the
 * events counted (in the order sbt-analyze lists them), like LIKWID: at
 * most *nr_events of them into events[], *nr_events set to the number
 * filled in (0 without SBT_EVENTS).
 *
 * The Fortran entry points (likwid_f90_interface.c in LIKWID) pass
 * blank-padded strings plus a hidden length.  LIKWID mallocs a trimmed
 * copy per call; we must not: a name in read-only memory is a key of
 * the thread's name cache with its length (api_common.h: sbt_api_fstart),
 * so the hot path is one probe and the inline markers' fast path; other
 * names go through sbt_api_name_id()'s (site, pointer, length) cache
 * and the recorder's by-id entry points.
 */
#include <errno.h>
#include <stdint.h>
#include "api_common.h"

#define RA() __builtin_return_address(0)

/* ---- C entry points ---------------------------------------------------- */

/* LIKWID's "0 or -EFAULT" from the recorder's code. */
static inline int lk_ret(int r) { return r < 0 ? -EFAULT : 0; }

SBT_API void likwid_markerInit(void) { (void)sbt_rec_init(); }

SBT_API void likwid_markerThreadInit(void) { (void)sbt_rec_thread_init(); }

/* Groups are a hardware-counter notion; sbtmark has none to switch. */
SBT_API void likwid_markerNextGroup(void) { }

/* Finishes the log, like SBT_MARKER_CLOSE: later markers of any API are
 * ignored (LIKWID too stops recording after its Close). */
SBT_API void likwid_markerClose(void) { (void)sbt_rec_close(); }

SBT_API int likwid_markerRegisterRegion(const char *tag)
{
	return sbt_rec_intern(tag, (size_t)-1, SBT_API_LIKWID, RA()) ? 0
								      : -EFAULT;
}

SBT_API int likwid_markerStartRegion(const char *tag)
{
	return lk_ret(sbt_hot_start(tag, SBT_API_LIKWID, RA()));
}

SBT_API int likwid_markerStopRegion(const char *tag)
{
	return lk_ret(sbt_hot_stop(tag, SBT_API_LIKWID, RA()));
}

static int reset_id(sbt_id id) { return id ? lk_ret(sbt_rec_reset_id(id))
					   : -EFAULT; }

SBT_API int likwid_markerResetRegion(const char *tag)
{
	return reset_id(sbt_rec_intern(tag, (size_t)-1, SBT_API_LIKWID, RA()));
}

/* Like LIKWID: outputs are left alone when the region is unknown on this
 * thread (LIKWID returns early there too). */
static void get_id(sbt_id id, int *nr_events, double *events, double *time,
		   int *count)
{
	double s, ev[SBT_COUNT_MAX];
	uint32_t nev;
	uint64_t n;

	if (!id || sbt_rec_totals(id, &n, &s, ev, &nev) < 0)
		return;
	if (count)
		*count = n > INT32_MAX ? INT32_MAX : (int)n;
	if (time)
		*time = s;
	if (nr_events && events && *nr_events > 0) {
		int k = (int)nev < *nr_events ? (int)nev : *nr_events;
		for (int i = 0; i < k; i++)
			events[i] = ev[i];
		*nr_events = k;
	} else if (nr_events) {
		*nr_events = 0;
	}
}

SBT_API void likwid_markerGetRegion(const char *tag, int *nr_events,
				    double *events, double *time, int *count)
{
	get_id(sbt_rec_intern(tag, (size_t)-1, SBT_API_LIKWID, RA()),
	       nr_events, events, time, count);
}

/* Newer LIKWID (5.3+) exports this; results live in the sbtmark log, so
 * there is no LIKWID file to write.  Same checks as LIKWID's. */
SBT_API int likwid_markerWriteFile(const char *markerfile)
{
	if (!markerfile || !sbt_rec_active())
		return -EFAULT;
	sbt_warn("likwid_markerWriteFile(\"%s\"): no LIKWID result file "
		     "is written, results are in the sbtmark log", markerfile);
	return 0;
}

/* ---- Fortran entry points (gfortran: lower case, one underscore) ------- */

SBT_API void likwid_markerinit_(void) { (void)sbt_rec_init(); }
SBT_API void likwid_markerthreadinit_(void) { (void)sbt_rec_thread_init(); }
SBT_API void likwid_markernextgroup_(void) { }
SBT_API void likwid_markerclose_(void) { (void)sbt_rec_close(); }

SBT_API void likwid_markerregisterregion_(char *tag, int len)
{
	(void)sbt_api_name_id(tag, len, NULL, SBT_API_LIKWID, RA());
}

SBT_API void likwid_markerstartregion_(char *tag, int len)
{
	(void)sbt_api_fstart(tag, len, SBT_API_LIKWID, RA());
}

SBT_API void likwid_markerstopregion_(char *tag, int len)
{
	(void)sbt_api_fstop(tag, len, SBT_API_LIKWID, RA());
}

SBT_API void likwid_markerresetregion_(char *tag, int len)
{
	(void)reset_id(sbt_api_name_id(tag, len, NULL, SBT_API_LIKWID, RA()));
}

SBT_API void likwid_markergetregion_(char *tag, int *nr_events,
				     double *events, double *time, int *count,
				     int len)
{
	get_id(sbt_api_name_id(tag, len, NULL, SBT_API_LIKWID, RA()),
	       nr_events, events, time, count);
}
