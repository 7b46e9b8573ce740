/*
 * standin_log.h - what a stand-in library (cali_standin.c,
 * likwid_standin.c, papi_standin.c) was called with: with STANDIN_LOG
 * set, one line per call, "T<k> <entry point> <arguments>", k the calling
 * thread's number in the order threads first called (so a driver can
 * compare each thread's calls, in order, between two runs).
 */
#ifndef STANDIN_LOG_H
#define STANDIN_LOG_H

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_mutex_t sl_lock = PTHREAD_MUTEX_INITIALIZER;
static FILE *sl_file;
static int sl_threads;
static __thread int sl_me;

static void sl_log(const char *fn, const char *fmt, ...)
{
	va_list ap;
	const char *path = getenv("STANDIN_LOG");

	if (!path)
		return;
	pthread_mutex_lock(&sl_lock);
	if (!sl_file)
		sl_file = fopen(path, "a");
	if (!sl_me)
		sl_me = ++sl_threads;
	if (sl_file) {
		fprintf(sl_file, "T%d %s", sl_me, fn);
		va_start(ap, fmt);
		vfprintf(sl_file, fmt, ap);
		va_end(ap);
		fputc('\n', sl_file);
		fflush(sl_file);
	}
	pthread_mutex_unlock(&sl_lock);
}

/* A string argument as it came (NULL as such; Fortran's with its length). */
#define SL_S(s) ((s) ? (s) : "(null)")

#endif
