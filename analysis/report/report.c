/*
 * report.c - the table of report formats, made by the build from
 * analysis/meson.build's report_formats (report_formats.h), and lookup
 * by name.
 */
#include "report.h"
#include "report_formats.h"

#include <string.h>

#define SBT_FORMAT(name) extern const struct sbt_report_format \
	sbt_format_##name;
SBT_REPORT_FORMATS
#undef SBT_FORMAT

#define SBT_FORMAT(name) &sbt_format_##name,
const struct sbt_report_format *const sbt_report_formats[] = {
	SBT_REPORT_FORMATS
	NULL
};
#undef SBT_FORMAT

const struct sbt_report_format *sbt_report_format(const char *name)
{
	for (size_t i = 0; sbt_report_formats[i]; i++)
		if (!strcmp(sbt_report_formats[i]->name, name))
			return sbt_report_formats[i];
	return NULL;
}

int sbt_report(FILE *f, const char *format, const struct sbt_report_in *in)
{
	const struct sbt_report_format *fmt = sbt_report_format(format);

	return fmt ? fmt->write(f, in) : -1;
}
