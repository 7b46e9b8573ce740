/*
 * api_papi.c - PAPI's high-level region API (PAPI >= 6), interposed.
 *
 * PAPI_hl_region_begin/end become START/STOP of a region of the same name.
 * libpapi itself is never entered, so its high-level layer never
 * initializes and never writes its papi_hl_output directory (that output
 * is produced at exit only when the layer was initialized), and no PMU is
 * needed.
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
#include "api_common.h"

/* From papi.h (not required to build sbtmark). */
#define PAPI_OK     0
#define PAPI_EMISC (-14)

#define RA() __builtin_return_address(0)

static inline int papi_ret(int r) { return r < 0 ? PAPI_EMISC : PAPI_OK; }

SBT_API int PAPI_hl_region_begin(const char *region)
{
	return papi_ret(sbt_hot_start(region, SBT_API_PAPI_HL, RA()));
}

SBT_API int PAPI_hl_region_end(const char *region)
{
	return papi_ret(sbt_hot_stop(region, SBT_API_PAPI_HL, RA()));
}

SBT_API int PAPI_hl_read(const char *region)
{
	(void)region;
	return PAPI_OK;
}

SBT_API int PAPI_hl_stop(void) { return PAPI_OK; }

/* ---- Fortran ------------------------------------------------------------ */

static void f_begin(char *name, int *check, int len, const void *site)
{
	int r = sbt_api_fstart(name, len, SBT_API_PAPI_HL, site);
	if (check)
		*check = papi_ret(r);
}

static void f_end(char *name, int *check, int len, const void *site)
{
	int r = sbt_api_fstop(name, len, SBT_API_PAPI_HL, site);
	if (check)
		*check = papi_ret(r);
}

static void f_ok(int *check)
{
	if (check)
		*check = PAPI_OK;
}

#define PAPI_F(name)                                                        \
	SBT_API void name(char *n, int *check, int len)
#define PAPI_F0(name) SBT_API void name(int *check)

PAPI_F(papif_hl_region_begin)   { f_begin(n, check, len, RA()); }
PAPI_F(papif_hl_region_begin_)  { f_begin(n, check, len, RA()); }
PAPI_F(papif_hl_region_begin__) { f_begin(n, check, len, RA()); }
PAPI_F(PAPIF_HL_REGION_BEGIN)   { f_begin(n, check, len, RA()); }

PAPI_F(papif_hl_region_end)     { f_end(n, check, len, RA()); }
PAPI_F(papif_hl_region_end_)    { f_end(n, check, len, RA()); }
PAPI_F(papif_hl_region_end__)   { f_end(n, check, len, RA()); }
PAPI_F(PAPIF_HL_REGION_END)     { f_end(n, check, len, RA()); }

PAPI_F(papif_hl_read)           { (void)n; (void)len; f_ok(check); }
PAPI_F(papif_hl_read_)          { (void)n; (void)len; f_ok(check); }
PAPI_F(papif_hl_read__)         { (void)n; (void)len; f_ok(check); }
PAPI_F(PAPIF_HL_READ)           { (void)n; (void)len; f_ok(check); }

PAPI_F0(papif_hl_stop)          { f_ok(check); }
PAPI_F0(papif_hl_stop_)         { f_ok(check); }
PAPI_F0(papif_hl_stop__)        { f_ok(check); }
PAPI_F0(PAPIF_HL_STOP)          { f_ok(check); }
