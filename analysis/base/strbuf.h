/*
 * strbuf.h - sentences built clause by clause into a fixed buffer.
 */
#ifndef SBT_STRBUF_H
#define SBT_STRBUF_H

#include <stddef.h>

/* buf of len bytes, used of them written; always NUL-terminated.  Text
 * past the end is cut, never overflowed. */
struct sbt_strbuf { char *buf; size_t len, used; };

/* Append printf-style text; nothing once the buffer is full. */
void sbt_put(struct sbt_strbuf *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
