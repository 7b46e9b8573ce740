/*
 * csvin.h - samples measured by any other tool, from a CSV file.
 *
 * The first line names the columns: `region` and `ns` are required,
 * `cycles` and `thread` optional, in any order; other columns are ignored.
 * Then one sample per line.  Fields may be double-quoted ("a,b", "say
 * ""hi"""); blank lines and lines starting with '#' are skipped.
 */
#ifndef SBT_CSVIN_H
#define SBT_CSVIN_H

#include <stddef.h>

#include "dataset.h"

/* Append the file's samples to ds as one new source (is_csv = 1).
 * Returns 0; 1 when read with a warning (in the source's `warning`);
 * -1 on error, with a one-line message ("line N: ...") in err and ds as
 * it was before the call (bar interned region names). */
int sbt_csv_read(const char *path, struct sbt_dataset *ds, char *err,
		 size_t errlen);

/* Does the file look like such a CSV (its header names 'region' and
 * 'ns'), whatever its name?  1 or 0. */
int sbt_csv_sniff(const char *path);

#endif
