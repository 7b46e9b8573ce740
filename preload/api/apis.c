/*
 * apis.c - the interposed APIs' table (api_table.h, made by the build
 * from api/meson.build's list), and the one place their needs reach the
 * recorder: the recorder names no API.
 */
#include "api.h"
#include "api_table.h"
#include "recorder.h"

#include <stddef.h>

#define SBT_API_ENTRY(name) extern const struct sbt_api_desc sbt_api_##name;
SBT_API_TABLE
#undef SBT_API_ENTRY

#define SBT_API_ENTRY(name) &sbt_api_##name,
static const struct sbt_api_desc *const table[] = { SBT_API_TABLE };
#undef SBT_API_ENTRY

/* Before main, as the APIs' own set-up: each exit hook registered. */
__attribute__((constructor)) static void apis_setup(void)
{
	for (size_t i = 0; i < sizeof table / sizeof *table; i++)
		if (table[i]->at_exit)
			sbt_rec_at_exit(table[i]->at_exit);
}
