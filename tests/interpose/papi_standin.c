/*
 * papi_standin.c - a stand-in for libpapi's high-level regions (C and
 * gfortran's wrappers), to see what reaches the library the app linked:
 * each call is logged with its arguments (standin_log.h) and answered
 * with a value of its own (200 + the name's length; stop: 201).
 */
#include <string.h>
#include "standin_log.h"

static int answer(const char *s) { return s ? 200 + (int)strlen(s) : -1; }

#define NAMED(f) int f(const char *region)                                 \
	{ sl_log(__func__, " %s", SL_S(region)); return answer(region); }
NAMED(PAPI_hl_region_begin) NAMED(PAPI_hl_region_end) NAMED(PAPI_hl_read)

int PAPI_hl_stop(void) { sl_log(__func__, ""); return 201; }

#define FNAMED(f) void f(char *n, int *check, int len)                     \
	{ sl_log(__func__, " [%.*s] %d", len, n, len); *check = 300 + len; }
FNAMED(papif_hl_region_begin_) FNAMED(papif_hl_region_end_)
FNAMED(papif_hl_read_)

void papif_hl_stop_(int *check) { sl_log(__func__, ""); *check = 301; }
