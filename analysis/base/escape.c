/*
 * escape.c - JSON and CSV escaping (escape.h).
 */
#include "escape.h"

#include <math.h>
#include <string.h>

void sbt_json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

void sbt_json_num(FILE *f, const char *k, double v, int last)
{
	fprintf(f, "\"%s\": ", k);
	if (isfinite(v))
		fprintf(f, "%.10g", v);
	else
		fputs("null", f);
	fputs(last ? "" : ", ", f);
}

void sbt_csv_str(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\n\r")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}
