/*
 * status.c - the status line: carriage return, the text, erase to the
 * end of the line.  Nothing is written when stderr is not a TTY, so logs
 * and pipes see only real messages.
 */
#include "status.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

/* Workers (inputs.c, --summary) report too: one line at a time. */
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static int on, shown;

void sbt_status_init(int quiet)
{
	on = !quiet && isatty(2);
}

void sbt_status(const char *fmt, ...)
{
	va_list ap;

	if (!on)
		return;
	pthread_mutex_lock(&mu);
	fputs("\r\033[K", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fflush(stderr);
	shown = 1;
	pthread_mutex_unlock(&mu);
}

void sbt_status_done(void)
{
	if (!on)
		return;
	pthread_mutex_lock(&mu);
	if (shown)
		fputs("\r\033[K", stderr);
	shown = 0;
	pthread_mutex_unlock(&mu);
}
