/*
 * report_notes.h - what each log warns of, in the same lines for the text
 * report and the HTML page (report_notes.c).
 */
#ifndef SBT_REPORT_NOTES_H
#define SBT_REPORT_NOTES_H

#include "dataset.h"

#include <stdio.h>

/* What source i's reader and recorder warn of (misuse and loss counters,
 * OS events lost or unavailable, SBT_MAX_MB's thinning, counters left
 * out, damage), one line each, every line starting with `pre`.  The text
 * report and the HTML page print the same lines. */
void sbt_source_notes(FILE *f, const struct sbt_dataset *ds, size_t i,
		      const char *pre);

#endif
