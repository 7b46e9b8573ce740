/*
 * api_likwid.c - the LIKWID marker API (liblikwid 5.x), interposed.
 *
 * An app built with -DLIKWID_PERFMON calls likwid_marker*() in liblikwid;
 * with libsbtmark.so preloaded our definitions win symbol resolution, so
 * the same binary records into the sbtmark log.  Each call is then passed
 * on to liblikwid (api_next.h), so that under likwid-perfctr LIKWID's own
 * results are whole; the app gets liblikwid's return values (without
 * likwid-perfctr: -EFAULT, as without us).
 *
 * With no liblikwid after us (an app whose LIKWID symbols are weak, or a
 * library of ours standing in), we answer as LIKWID 5.2 would
 * (src/libperfctr.c): the int functions return 0 on success and -EFAULT
 * when LIKWID would (marker API not active, STOP of a region that is not
 * running, RESET of a region that is not stopped).  We return -EFAULT for
 * every call the recorder counts as misuse or ignores (recorder closed);
 * LIKWID's one laxer case, START of a region already running (a warning
 * and 0 there), also gets -EFAULT here because the recorder did not
 * restart it.
 *
 * likwid_markerGetRegion fills in our own per-thread totals since the
 * last RESET: count, accumulated seconds and, under SBT_EVENTS, the
 * events counted (in the order sbt-analyze lists them), like LIKWID: at
 * most *nr_events of them into events[], *nr_events set to the number
 * filled in (0 without SBT_EVENTS) - unless liblikwid's marker API is
 * active (under likwid-perfctr): then its values stand.
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
#include <stdlib.h>
#include "api.h"
#include "api_common.h"
#include "api_next.h"

#define RA() __builtin_return_address(0)

/* Pass the call on; `ours` is the answer when nothing follows us.
 * ONLY_PASS: inside liblikwid's own call (its Fortran wrappers call the C
 * entry points), pass on and record nothing. */
#define FWD_INT(name, ours, ...) ({                                          \
		__typeof__(&name) nx_ = SBT_NEXT(name);                     \
		int r_ = (ours);                                             \
		if (nx_)                                                     \
			SBT_PASS(r_ = nx_(__VA_ARGS__));                     \
		r_;                                                          \
	})
#define FWD_VOID(name, ...) do {                                             \
		__typeof__(&name) nx_ = SBT_NEXT(name);                     \
		if (nx_)                                                     \
			SBT_PASS(nx_(__VA_ARGS__));                          \
	} while (0)
#define ONLY_PASS_INT(name, ...)                                             \
	if (SBT_PASSING())                                                   \
		return FWD_INT(name, -EFAULT, __VA_ARGS__)
#define ONLY_PASS_VOID(name, ...)                                            \
	if (SBT_PASSING()) {                                                 \
		FWD_VOID(name, __VA_ARGS__);                                 \
		return;                                                      \
	}

/* ---- C entry points ---------------------------------------------------- */

/* LIKWID's "0 or -EFAULT" from the recorder's code. */
static inline int lk_ret(int r) { return r < 0 ? -EFAULT : 0; }

SBT_API void likwid_markerInit(void)
{
	ONLY_PASS_VOID(likwid_markerInit);
	(void)sbt_rec_init();
	FWD_VOID(likwid_markerInit);
}

SBT_API void likwid_markerThreadInit(void)
{
	ONLY_PASS_VOID(likwid_markerThreadInit);
	(void)sbt_rec_thread_init();
	FWD_VOID(likwid_markerThreadInit);
}

/* Groups are a hardware-counter notion; sbtmark has none to switch. */
SBT_API void likwid_markerNextGroup(void)
{
	FWD_VOID(likwid_markerNextGroup);
}

/* Finishes the log, like SBT_MARKER_CLOSE: later markers of any API are
 * ignored (LIKWID too stops recording after its Close). */
SBT_API void likwid_markerClose(void)
{
	ONLY_PASS_VOID(likwid_markerClose);
	(void)sbt_rec_close();
	FWD_VOID(likwid_markerClose);
}

SBT_API int likwid_markerRegisterRegion(const char *tag)
{
	ONLY_PASS_INT(likwid_markerRegisterRegion, tag);
	int r = sbt_rec_intern(tag, (size_t)-1, SBT_API_LIKWID, RA()) ? 0
								      : -EFAULT;
	return FWD_INT(likwid_markerRegisterRegion, r, tag);
}

/* LIKWID's START first: its work stays out of our window. */
SBT_API int likwid_markerStartRegion(const char *tag)
{
	ONLY_PASS_INT(likwid_markerStartRegion, tag);
	__typeof__(&likwid_markerStartRegion) nx =
		SBT_NEXT(likwid_markerStartRegion);
	int lr = 0;

	if (nx)
		SBT_PASS(lr = nx(tag));
	int r = lk_ret(sbt_hot_start(tag, SBT_API_LIKWID, RA()));
	return nx ? lr : r;
}

/* Our clock first, then LIKWID's STOP. */
SBT_API int likwid_markerStopRegion(const char *tag)
{
	ONLY_PASS_INT(likwid_markerStopRegion, tag);
	int r = lk_ret(sbt_hot_stop(tag, SBT_API_LIKWID, RA()));

	return FWD_INT(likwid_markerStopRegion, r, tag);
}

static int reset_id(sbt_id id) { return id ? lk_ret(sbt_rec_reset_id(id))
					   : -EFAULT; }

SBT_API int likwid_markerResetRegion(const char *tag)
{
	ONLY_PASS_INT(likwid_markerResetRegion, tag);
	int r = reset_id(sbt_rec_intern(tag, (size_t)-1, SBT_API_LIKWID,
					RA()));

	return FWD_INT(likwid_markerResetRegion, r, tag);
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

/* liblikwid answers GetRegion only with its marker API active: under
 * likwid-perfctr -m, which hands it these variables (LIKWID 5.2's
 * likwid_markerInit checks the same).  Otherwise it zeroes the outputs
 * (or leaves them), and ours stand - for as many events as the app
 * asked for. */
static int lk_active(void)
{
	static int active = -1;

	if (active < 0)
		active = getenv("LIKWID_MODE") && getenv("LIKWID_EVENTS") &&
			 getenv("LIKWID_THREADS") && getenv("LIKWID_FILEPATH");
	return active;
}

SBT_API void likwid_markerGetRegion(const char *tag, int *nr_events,
				    double *events, double *time, int *count)
{
	ONLY_PASS_VOID(likwid_markerGetRegion, tag, nr_events, events, time,
		       count);
	__typeof__(&likwid_markerGetRegion) nx =
		SBT_NEXT(likwid_markerGetRegion);

	int asked = nr_events ? *nr_events : 0;

	if (nx) {
		SBT_PASS(nx(tag, nr_events, events, time, count));
		if (lk_active())
			return;
		if (nr_events)
			*nr_events = asked;
	}
	get_id(sbt_rec_intern(tag, (size_t)-1, SBT_API_LIKWID, RA()),
	       nr_events, events, time, count);
}

/* Newer LIKWID (5.3+) exports this: liblikwid's file when there is one;
 * else results live in the sbtmark log, and there is no LIKWID file to
 * write.  Same checks as LIKWID's. */
SBT_API int likwid_markerWriteFile(const char *markerfile)
{
	__typeof__(&likwid_markerWriteFile) nx =
		SBT_NEXT(likwid_markerWriteFile);
	int r;

	if (nx) {
		SBT_PASS(r = nx(markerfile));
		return r;
	}
	if (!markerfile || !sbt_rec_active())
		return -EFAULT;
	sbt_warn("likwid_markerWriteFile(\"%s\"): no LIKWID result file "
		     "is written, results are in the sbtmark log", markerfile);
	return 0;
}

/* ---- Fortran entry points (gfortran: lower case, one underscore) ------- */

SBT_API void likwid_markerinit_(void)
{
	ONLY_PASS_VOID(likwid_markerinit_);
	(void)sbt_rec_init();
	FWD_VOID(likwid_markerinit_);
}

SBT_API void likwid_markerthreadinit_(void)
{
	ONLY_PASS_VOID(likwid_markerthreadinit_);
	(void)sbt_rec_thread_init();
	FWD_VOID(likwid_markerthreadinit_);
}

SBT_API void likwid_markernextgroup_(void)
{
	FWD_VOID(likwid_markernextgroup_);
}

SBT_API void likwid_markerclose_(void)
{
	ONLY_PASS_VOID(likwid_markerclose_);
	(void)sbt_rec_close();
	FWD_VOID(likwid_markerclose_);
}

SBT_API void likwid_markerregisterregion_(char *tag, int len)
{
	ONLY_PASS_VOID(likwid_markerregisterregion_, tag, len);
	(void)sbt_api_name_id(tag, len, NULL, SBT_API_LIKWID, RA());
	FWD_VOID(likwid_markerregisterregion_, tag, len);
}

SBT_API void likwid_markerstartregion_(char *tag, int len)
{
	ONLY_PASS_VOID(likwid_markerstartregion_, tag, len);
	FWD_VOID(likwid_markerstartregion_, tag, len);
	(void)sbt_api_fstart(tag, len, SBT_API_LIKWID, RA());
}

SBT_API void likwid_markerstopregion_(char *tag, int len)
{
	ONLY_PASS_VOID(likwid_markerstopregion_, tag, len);
	(void)sbt_api_fstop(tag, len, SBT_API_LIKWID, RA());
	FWD_VOID(likwid_markerstopregion_, tag, len);
}

SBT_API void likwid_markerresetregion_(char *tag, int len)
{
	ONLY_PASS_VOID(likwid_markerresetregion_, tag, len);
	(void)reset_id(sbt_api_name_id(tag, len, NULL, SBT_API_LIKWID, RA()));
	FWD_VOID(likwid_markerresetregion_, tag, len);
}

SBT_API void likwid_markergetregion_(char *tag, int *nr_events,
				     double *events, double *time, int *count,
				     int len)
{
	ONLY_PASS_VOID(likwid_markergetregion_, tag, nr_events, events, time,
		       count, len);
	__typeof__(&likwid_markergetregion_) nx =
		SBT_NEXT(likwid_markergetregion_);

	int asked = nr_events ? *nr_events : 0;

	if (nx) {
		SBT_PASS(nx(tag, nr_events, events, time, count, len));
		if (lk_active())
			return;
		if (nr_events)
			*nr_events = asked;
	}
	get_id(sbt_api_name_id(tag, len, NULL, SBT_API_LIKWID, RA()),
	       nr_events, events, time, count);
}

/* This API in the table (api.h, api/meson.build). */
const struct sbt_api_desc sbt_api_likwid = {
	.id = SBT_API_LIKWID,
	.name = "likwid",
	.symbols = "likwid_marker",
	.env = "LIKWID_MODE LIKWID_EVENTS LIKWID_THREADS LIKWID_FILEPATH",
	.at_exit = NULL,
};
