/*
 * escape.h - writing strings and numbers into JSON and CSV, for every
 * tool that writes them (sbt-analyze's reports, sbt-calibrate).
 */
#ifndef SBT_ESCAPE_H
#define SBT_ESCAPE_H

#include <stdio.h>

/* s as a JSON string, quotes included. */
void sbt_json_str(FILE *f, const char *s);
/* "k": v, (or "k": null for NAN/inf); no comma when last. */
void sbt_json_num(FILE *f, const char *k, double v, int last);
/* s as a CSV field: quoted only when it must be. */
void sbt_csv_str(FILE *f, const char *s);

#endif
