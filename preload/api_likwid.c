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
 * last RESET: count and accumulated seconds.  We measure no hardware
 * events, so *nr_events is set to 0 (LIKWID sets it to the number of
 * events it filled in).
 *
 * The Fortran entry points (likwid_f90_interface.c in LIKWID) pass
 * blank-padded strings plus a hidden length.  LIKWID mallocs a trimmed
 * copy per call; we must not.  sbt_api_name_id() below caches, per thread
 * and call site, (site, pointer, length) -> region id, so the hot path is
 * a table probe and sbt_rec_start_id/stop_id.  api_papi.c (Fortran) and
 * api_nvtx.c use it too.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hot.h"
#include "regions.h"

#define RA() __builtin_return_address(0)

/* ---- names the recorder's cache cannot serve: a per-thread id cache --- */

/*
 * Fortran character arguments are not NUL-terminated and carry trailing
 * blanks; NVTX ranges must be popped by id; NVTX/ITT names may get a
 * domain prefix.  The recorder's by-name cache returns no id and keys on
 * (site, pointer) only, so these paths use this cache instead:
 * (site, pointer, length, prefix) -> region id, per thread, direct-mapped
 * by call site.  Region identity is the name with trailing blanks removed
 * (len >= 0) or the C string (len < 0), after "prefix/" when prefix is
 * set.
 *
 * A literal lives in read-only memory: the same (pointer, length) always
 * means the same name.  A CHARACTER variable or a char buffer may change
 * under the same pointer; for those (verify != NULL) the entry keeps a
 * copy of the bytes and compares them on every call - the same policy as
 * the recorder's for C names in writable memory.
 *
 * Shared by api_likwid.c, api_papi.c (Fortran) and api_nvtx.c.
 */
#define NC_SLOTS 16          /* direct-mapped by call site               */
#define NC_MAXCOPY 1024      /* longer writable names are not cached     */

struct ncache {
	const void *site;
	const char *ptr;
	const char *prefix;
	char       *verify;      /* malloc'd copy of the bytes, or NULL      */
	int32_t     len;
	sbt_id      id;
};

struct names { struct ncache e[NC_SLOTS]; };

static void names_fini(void *p)
{
	struct names *n = p;
	for (int i = 0; i < NC_SLOTS; i++)
		free(n->e[i].verify);
}

static sbt_id intern_named(const char *prefix, const char *s, size_t n,
			   unsigned api, const void *site)
{
	char buf[1024];
	int k;

	if (!prefix || !s)
		return sbt_rec_intern(s, n, api, site);  /* counts bad names */
	k = snprintf(buf, sizeof buf, "%s/%.*s", prefix, (int)n, s);
	if (k < 0 || (size_t)k >= sizeof buf)
		return sbt_rec_intern(NULL, 0, api, site);
	return sbt_rec_intern(buf, (size_t)k, api, site);
}

/* Cold path: intern the name and refill the slot. */
static sbt_id name_miss(struct ncache *e, const char *s, int len,
			const char *prefix, unsigned api, const void *site)
{
	size_t bytes, n;
	char *copy = NULL;
	sbt_id id;

	if (!s)
		return sbt_rec_intern(NULL, 0, api, site);
	bytes = len < 0 ? strlen(s) + 1 : (size_t)len;
	n = len < 0 ? bytes - 1 : bytes;
	if (len >= 0)
		while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\0'))
			n--;
	if ((id = intern_named(prefix, s, n, api, site)) == 0)
		return 0;
	if (!sbt_regions_readonly(s, bytes)) {
		if (bytes > NC_MAXCOPY || !(copy = malloc(bytes)))
			return id;           /* correct, just not cached */
		memcpy(copy, s, bytes);
	}
	free(e->verify);
	e->site = site;
	e->ptr = s;
	e->prefix = prefix;
	e->len = len < 0 ? -1 : len;
	e->verify = copy;
	e->id = id;
	return id;
}

/* Region id of name s (len bytes blank-padded, or NUL-terminated when
 * len < 0), under "prefix/" when prefix != NULL (a stable pointer), for
 * a call at `site`.  0 for a bad name (counted).  Hot path: one slot
 * probe, plus a compare for names in writable memory. */
SBT_HIDDEN sbt_id sbt_api_name_id(const char *s, int len, const char *prefix,
				  unsigned api, const void *site)
{
	struct names *nc = sbt_rec_api_state(SBT_SLOT_NAMES, sizeof *nc,
					     names_fini);
	if (!nc)
		return 0;
	struct ncache *e = &nc->e[((uintptr_t)site >> 2) % NC_SLOTS];

	if (e->site == site && e->ptr == s && e->prefix == prefix &&
	    e->len == (len < 0 ? -1 : len) && s &&
	    (!e->verify || (len < 0 ? !strcmp(e->verify, s)
				    : !memcmp(e->verify, s, (size_t)len))))
		return e->id;
	return name_miss(e, s, len, prefix, api, site);
}

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
	uint64_t n;
	double s;

	(void)events;
	if (!id || sbt_rec_totals(id, &n, &s) < 0)
		return;
	if (count)
		*count = n > INT32_MAX ? INT32_MAX : (int)n;
	if (time)
		*time = s;
	if (nr_events)
		*nr_events = 0;
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
	const void *site = RA();
	sbt_id id = sbt_api_name_id(tag, len, NULL, SBT_API_LIKWID, site);
	if (id)
		(void)sbt_hot_start_id(id, site);
}

SBT_API void likwid_markerstopregion_(char *tag, int len)
{
	sbt_id id = sbt_api_name_id(tag, len, NULL, SBT_API_LIKWID, RA());
	if (id)
		(void)sbt_hot_stop_id(id);
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
