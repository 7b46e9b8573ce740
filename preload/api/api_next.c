/*
 * api_next.c - looking up the next definition of an interposed symbol.
 */
#include "api_next.h"

#include <dlfcn.h>

__thread unsigned sbt_next_depth;

void *sbt_next_lookup(void **cache, const char *name)
{
	void *f = dlsym(RTLD_NEXT, name);

	/* every thread finds the same: racing stores agree */
	__atomic_store_n(cache, f, __ATOMIC_RELEASE);
	return f;
}
