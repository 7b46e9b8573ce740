/*
 * drop.c - the table of drop filters (drop.h) and --filter's parser.
 */
#include "drop.h"

#include <stdio.h>
#include <string.h>

#define SBT_DROP(name) extern const struct sbt_drop_filter sbt_drop_##name;
SBT_DROP_FILTERS
#undef SBT_DROP

#define SBT_DROP(name) &sbt_drop_##name,
const struct sbt_drop_filter *const sbt_drop_filters[SBT_NDROP] = {
	SBT_DROP_FILTERS
};
#undef SBT_DROP

/* The bits of one name, or 0 (none) / -1 (unknown). */
static int bits_of(const char *p, size_t l)
{
	if (l == 4 && !strncmp(p, "none", 4))
		return SBT_F_NONE;
	if (l == 3 && !strncmp(p, "all", 3))
		return SBT_F_ALL;
	if (l == 4 && !strncmp(p, "cost", 4))
		return SBT_F_COST;
	for (int i = 0; i < SBT_NDROP; i++)
		if (strlen(sbt_drop_filters[i]->name) == l &&
		    !strncmp(sbt_drop_filters[i]->name, p, l))
			return (int)SBT_F_DROP(i);
	return -1;
}

int sbt_drop_parse(const char *list, char *bad, size_t badlen)
{
	int bits = 0;

	for (const char *p = list; ; ) {
		const char *e = strchr(p, ',');
		size_t l = e ? (size_t)(e - p) : strlen(p);
		int b = bits_of(p, l);
		if (b < 0) {
			snprintf(bad, badlen, "%.*s", (int)l, p);
			return -1;
		}
		bits |= b;
		if (!e)
			return bits;
		p = e + 1;
	}
}
