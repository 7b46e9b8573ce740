/*
 * strbuf.c - see strbuf.h.
 */
#include "strbuf.h"

#include <stdarg.h>
#include <stdio.h>

void sbt_put(struct sbt_strbuf *o, const char *fmt, ...)
{
	va_list ap;
	int w;

	if (o->used + 1 >= o->len)
		return;
	va_start(ap, fmt);
	w = vsnprintf(o->buf + o->used, o->len - o->used, fmt, ap);
	va_end(ap);
	if (w > 0)
		o->used += (size_t)w < o->len - o->used ? (size_t)w :
			   o->len - o->used - 1;
}
