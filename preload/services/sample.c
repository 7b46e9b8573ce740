/*
 * sample.c - SBT_SAMPLE's rules (sparse recording), parsed when the
 * configuration is loaded (config.c) and read by the regions as they are
 * made (regions.c).
 */
#include "sample.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define SAMPLE_RULES 32
#define SAMPLE_MAX   (1L << 30)

/* Rules in the order given; the first whose name matches wins, and "*"
 * matches every name.  Set once by sbt_sample_setup() before any region
 * exists, read-only afterwards. */
static struct {
	int n, on;
	struct { char name[128]; uint32_t gap; } rule[SAMPLE_RULES];
} sample;

/* One "name:N" item of [s, end) into rule i; 0 or -1 when malformed. */
static int sample_item(const char *s, const char *end, int i)
{
	const char *colon = NULL;
	char num[24], *stop;
	long v;

	for (const char *p = s; p < end; p++)
		if (*p == ':')
			colon = p;      /* the last one: names may hold ':' */
	if (!colon || colon == s || end - colon - 1 <= 0 ||
	    end - colon - 1 >= (long)sizeof num ||
	    colon - s >= (long)sizeof sample.rule[i].name)
		return -1;
	memcpy(num, colon + 1, (size_t)(end - colon - 1));
	num[end - colon - 1] = 0;
	errno = 0;
	v = strtol(num, &stop, 10);
	if (errno || *stop || v < 1 || v > SAMPLE_MAX)
		return -1;
	memcpy(sample.rule[i].name, s, (size_t)(colon - s));
	sample.rule[i].name[colon - s] = 0;
	sample.rule[i].gap = (uint32_t)v;
	return 0;
}

int sbt_sample_setup(const char *s)
{
	const char *p;
	int n = 0, any = 0;

	if (!s || !*s)
		return 0;
	for (p = s; ; ) {
		const char *end = strchr(p, ',');
		if (!end)
			end = p + strlen(p);
		if (n == SAMPLE_RULES || sample_item(p, end, n) != 0) {
			sbt_warn("SBT_SAMPLE='%s': item %d is not 'region:N' "
				 "(N in 1..%ld, at most %d items); recording "
				 "every call", s, n + 1, SAMPLE_MAX,
				 SAMPLE_RULES);
			return 0;
		}
		any |= sample.rule[n++].gap > 1;
		if (!*end)
			break;
		p = end + 1;
	}
	sample.n = n;
	sample.on = any;
	return any;
}

int sbt_sample_on(void) { return sample.on; }

uint32_t sbt_sample_gap(const char *name, size_t len)
{
	for (int i = 0; i < sample.n; i++) {
		const char *r = sample.rule[i].name;
		if ((r[0] == '*' && !r[1]) ||
		    (strlen(r) == len && memcmp(r, name, len) == 0))
			return sample.rule[i].gap;
	}
	return 1;
}
