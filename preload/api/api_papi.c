/*
 * api_papi.c - PAPI's high-level region API (PAPI >= 6), interposed.
 *
 * PAPI_hl_region_begin/end become START/STOP of a region of the same name.
 * Each call is then passed on to libpapi (api_next.h): PAPI-HL's own
 * output (papi_hl_output) is whole, and the app gets libpapi's return
 * values.  With no libpapi after us, we answer:
 *
 * Return values follow papi_hl.c: PAPI_OK, or PAPI_EMISC where PAPI
 * reports a region end it cannot match (we use it for every call the
 * recorder counts as misuse or ignores).  PAPI_hl_read (an intermediate
 * counter read inside a region) has nothing to record and returns
 * PAPI_OK: PAPI-HL gives a program no values back (they go into its
 * output files); under SBT_EVENTS the counts are in the log.  PAPI_hl_stop stops PAPI's counting for the thread; regions
 * begun afterwards are recorded again in PAPI too, so for us it is a
 * no-op returning PAPI_OK.
 *
 * The Fortran wrappers (papi_fwrappers.c) take (name, int *check, hidden
 * length).  Debian's libpapi exports each of them under four manglings
 * (plain, _, __, upper case); we define all four.
 */
#include <stdint.h>
#include "api.h"
#include "api_common.h"
#include "api_next.h"

/* From papi.h (not required to build sbtmark). */
#define PAPI_OK     0
#define PAPI_EMISC (-14)

#define RA() __builtin_return_address(0)

static inline int papi_ret(int r) { return r < 0 ? PAPI_EMISC : PAPI_OK; }

/* libpapi's answer to a call passed on, `ours` without libpapi. */
#define FWD(nx, ours, ...) ({                                                \
		int r_ = (ours);                                             \
		if (nx)                                                      \
			SBT_PASS(r_ = nx(__VA_ARGS__));                      \
		r_;                                                          \
	})

/* libpapi's begin first: its work stays out of our window.  Inside
 * libpapi's own call (its Fortran wrappers call this) pass on only. */
SBT_API int PAPI_hl_region_begin(const char *region)
{
	__typeof__(&PAPI_hl_region_begin) nx = SBT_NEXT(PAPI_hl_region_begin);
	int pr;

	if (SBT_PASSING())
		return FWD(nx, PAPI_EMISC, region);
	pr = FWD(nx, PAPI_OK, region);
	int r = papi_ret(sbt_hot_start(region, SBT_API_PAPI_HL, RA()));
	return nx ? pr : r;
}

/* Our clock first, then libpapi's end. */
SBT_API int PAPI_hl_region_end(const char *region)
{
	__typeof__(&PAPI_hl_region_end) nx = SBT_NEXT(PAPI_hl_region_end);

	if (SBT_PASSING())
		return FWD(nx, PAPI_EMISC, region);
	int r = papi_ret(sbt_hot_stop(region, SBT_API_PAPI_HL, RA()));
	return FWD(nx, r, region);
}

SBT_API int PAPI_hl_read(const char *region)
{
	__typeof__(&PAPI_hl_read) nx = SBT_NEXT(PAPI_hl_read);

	return FWD(nx, PAPI_OK, region);
}

SBT_API int PAPI_hl_stop(void)
{
	__typeof__(&PAPI_hl_stop) nx = SBT_NEXT(PAPI_hl_stop);

	return FWD(nx, PAPI_OK);
}

/* ---- Fortran ------------------------------------------------------------ */

/* Each mangling passes the call on to its own next definition: nx. */
static void f_begin(char *name, int *check, int len, const void *site,
		    void (*nx)(char *, int *, int))
{
	int r;

	if (nx)
		SBT_PASS(nx(name, check, len));
	if (SBT_PASSING())
		return;
	r = sbt_api_fstart(name, len, SBT_API_PAPI_HL, site);
	if (check && !nx)
		*check = papi_ret(r);
}

static void f_end(char *name, int *check, int len, const void *site,
		  void (*nx)(char *, int *, int))
{
	int r = SBT_PASSING() ? 0 :
		sbt_api_fstop(name, len, SBT_API_PAPI_HL, site);

	if (nx)
		SBT_PASS(nx(name, check, len));
	else if (check)
		*check = papi_ret(r);
}

static void f_read(char *name, int *check, int len,
		   void (*nx)(char *, int *, int))
{
	if (nx)
		SBT_PASS(nx(name, check, len));
	else if (check)
		*check = PAPI_OK;
}

static void f_stop(int *check, void (*nx)(int *))
{
	if (nx)
		SBT_PASS(nx(check));
	else if (check)
		*check = PAPI_OK;
}

#define PAPI_F(name, body)                                                  \
	SBT_API void name(char *n, int *check, int len)                     \
	{ body(n, check, len, RA(), SBT_NEXT(name)); }
#define PAPI_FR(name)                                                       \
	SBT_API void name(char *n, int *check, int len)                     \
	{ f_read(n, check, len, SBT_NEXT(name)); }
#define PAPI_F0(name)                                                       \
	SBT_API void name(int *check) { f_stop(check, SBT_NEXT(name)); }

PAPI_F(papif_hl_region_begin, f_begin)
PAPI_F(papif_hl_region_begin_, f_begin)
PAPI_F(papif_hl_region_begin__, f_begin)
PAPI_F(PAPIF_HL_REGION_BEGIN, f_begin)

PAPI_F(papif_hl_region_end, f_end)
PAPI_F(papif_hl_region_end_, f_end)
PAPI_F(papif_hl_region_end__, f_end)
PAPI_F(PAPIF_HL_REGION_END, f_end)

PAPI_FR(papif_hl_read)
PAPI_FR(papif_hl_read_)
PAPI_FR(papif_hl_read__)
PAPI_FR(PAPIF_HL_READ)

PAPI_F0(papif_hl_stop)
PAPI_F0(papif_hl_stop_)
PAPI_F0(papif_hl_stop__)
PAPI_F0(PAPIF_HL_STOP)

/* This API in the table (api.h, api/meson.build). */
const struct sbt_api_desc sbt_api_papi = {
	.id = SBT_API_PAPI_HL,
	.name = "papi-hl",
	.symbols = "PAPI_hl_",
	.env = "",
	.at_exit = NULL,
};
