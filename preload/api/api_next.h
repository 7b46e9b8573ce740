/*
 * api_next.h - the library the app linked, behind an interposed entry
 * point.
 *
 * An interposed API's entry point records and passes the call on to the
 * next definition of its symbol (dlsym(RTLD_NEXT): liblikwid, libpapi,
 * libcaliper, whatever the app linked), so that the app's own tool still
 * sees every call, in order, with the same arguments, and its output and
 * the values it hands the program stay whole.  A START passes the call
 * on before it records (the library's work stays out of our window), a
 * STOP after (our clock is read first).  When nothing follows us, the
 * entry point alone answers.
 *
 *   SBT_NEXT(name)   a function pointer of name's own type, or NULL
 *   SBT_PASS(call)   make the call into the library
 *   SBT_PASSING()    1 while the calling thread is inside such a call:
 *                    the library's own calls of our entry points (a
 *                    Fortran wrapper calling the C one) are no calls of
 *                    the app, and are passed on only, never recorded
 *
 * A symbol is looked up once per process; the lookup's answer is kept in
 * a variable of the entry point's own (one load on every later call).
 */
#ifndef SBT_API_NEXT_H
#define SBT_API_NEXT_H

#include "diag.h"

#define SBT_NEXT_UNSET ((void *)1)

/* dlsym(RTLD_NEXT, name) into *cache (NULL: none), once. */
SBT_HIDDEN void *sbt_next_lookup(void **cache, const char *name);

static inline void *sbt_next(void **cache, const char *name)
{
	void *f = __atomic_load_n(cache, __ATOMIC_ACQUIRE);

	if (__builtin_expect(f == SBT_NEXT_UNSET, 0))
		f = sbt_next_lookup(cache, name);
	return f;
}

extern __thread unsigned sbt_next_depth
	__attribute__((tls_model("initial-exec"), visibility("hidden")));

#define SBT_PASS(call) do {                                                  \
		sbt_next_depth++;                                            \
		call;                                                        \
		sbt_next_depth--;                                            \
	} while (0)
#define SBT_PASSING() __builtin_expect(sbt_next_depth != 0, 0)

/* Inside the entry point `name` (declared by then). */
#define SBT_NEXT(name) ({                                                    \
		static void *sbt__next_ = SBT_NEXT_UNSET;                   \
		(__typeof__(&name))sbt_next(&sbt__next_, #name);            \
	})

#endif
