/*
 * csvin.c - CSV input: one struct sbt_source and its samples.
 *
 * The file is untrusted: every line is split in place, every number is
 * checked to be complete and finite, and any problem stops the read with
 * "line N: what" and leaves the dataset's samples and sources as they
 * were.  Lines are read with getline, so no length limit truncates a
 * field silently; lines over CSV_MAX_LINE are refused instead.
 */
#include "csvin.h"
#include "sbtlog.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define CSV_MAX_LINE   (1u << 20)
#define CSV_MAX_FIELDS 256

/* t_ns (start time, ns) orders samples in time for phases and machine
 * events; without it, the file's order is the time order. */
enum { COL_REGION, COL_NS, COL_CYCLES, COL_THREAD, COL_T_NS, COL_CPU,
       NCOL };
static const char *const col_name[NCOL] = { "region", "ns", "cycles",
					     "thread", "t_ns", "cpu" };

struct field { char *p; size_t len; };

static void fail(char *err, size_t errlen, unsigned long line,
		 const char *fmt, ...)
{
	char msg[200];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (errlen)
		snprintf(err, errlen, "line %lu: %s", line, msg);
}

static int is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* Split line[0..len) at commas, in place: quoted fields are unescaped,
 * unquoted ones trimmed; each field ends up NUL-terminated.  Returns the
 * number of fields, -1 for a bad quote, -2 for too many fields. */
static int split(char *line, size_t len, struct field *f)
{
	size_t i = 0;
	int nf = 0;
	for (;;) {
		if (nf == CSV_MAX_FIELDS)
			return -2;
		while (i < len && is_blank(line[i]))
			i++;
		char *out = line + i;
		size_t n = 0;
		if (i < len && line[i] == '"') {
			for (i++;; i++) {
				if (i == len)
					return -1;       /* unterminated */
				if (line[i] == '"') {
					if (i + 1 < len && line[i + 1] == '"')
						i++;
					else
						break;
				}
				out[n++] = line[i];
			}
			for (i++; i < len && is_blank(line[i]); i++)
				;
			if (i < len && line[i] != ',')
				return -1;       /* text after the quote */
		} else {
			while (i < len && line[i] != ',') {
				if (line[i] == '"')
					return -1;   /* quote inside a field */
				i++;
			}
			n = (size_t)(line + i - out);
			while (n && is_blank(out[n - 1]))
				n--;
		}
		f[nf++] = (struct field){ out, n };
		if (i >= len) {
			out[n] = 0;
			return nf;
		}
		out[n] = 0;              /* overwrites the quote or the comma */
		i++;                     /* past the comma */
	}
}

static int parse_double(const struct field *f, double *v)
{
	char *end;
	if (f->len == 0)
		return -1;
	errno = 0;
	*v = strtod(f->p, &end);
	return end == f->p + f->len && isfinite(*v) ? 0 : -1;
}

static int parse_u32(const struct field *f, uint32_t *v)
{
	unsigned long long x = 0;
	if (f->len == 0 || f->len > 10)
		return -1;
	for (size_t i = 0; i < f->len; i++) {
		if (f->p[i] < '0' || f->p[i] > '9')
			return -1;
		x = x * 10 + (unsigned)(f->p[i] - '0');
	}
	if (x > UINT32_MAX)
		return -1;
	*v = (uint32_t)x;
	return 0;
}

/* Map the header's columns; col[k] = field index of column k or -1. */
static int header(char *line, size_t len, unsigned long ln, int *col,
		  char *err, size_t errlen)
{
	struct field f[CSV_MAX_FIELDS];
	int nf = split(line, len, f);
	if (nf < 0) {
		fail(err, errlen, ln, nf == -1 ? "bad quoting in the header" :
		     "more than %d columns", CSV_MAX_FIELDS);
		return -1;
	}
	for (int k = 0; k < NCOL; k++)
		col[k] = -1;
	for (int i = 0; i < nf; i++)
		for (int k = 0; k < NCOL; k++)
			if (!strcasecmp(f[i].p, col_name[k])) {
				if (col[k] >= 0) {
					fail(err, errlen, ln, "column '%s' twice",
					     col_name[k]);
					return -1;
				}
				col[k] = i;
			}
	if (col[COL_REGION] < 0 || col[COL_NS] < 0) {
		fail(err, errlen, ln, "header must name the columns 'region' "
		     "and 'ns' (optional: cycles, thread, t_ns, cpu)");
		return -1;
	}
	return 0;
}

/* One data line into one sample; region lookups cached by name. */
static int row(struct sbt_dataset *ds, uint32_t source, const int *col,
	       char *line, size_t len, unsigned long ln, char **last,
	       size_t *lastcap, long *lastreg, uint32_t *maxthread,
	       char *err, size_t errlen)
{
	struct field f[CSV_MAX_FIELDS];
	int nf = split(line, len, f), need = 0;
	if (nf < 0) {
		fail(err, errlen, ln, nf == -1 ? "bad quoting" :
		     "more than %d columns", CSV_MAX_FIELDS);
		return -1;
	}
	for (int k = 0; k < NCOL; k++)
		if (col[k] + 1 > need)
			need = col[k] + 1;
	if (nf < need) {
		fail(err, errlen, ln, "%d fields, the header needs %d", nf,
		     need);
		return -1;
	}
	const struct field *name = &f[col[COL_REGION]];
	if (name->len == 0) {
		fail(err, errlen, ln, "empty region name");
		return -1;
	}
	double ns, cycles = 0, t_ns = 0;
	uint32_t thread = 0, cpu = SBT_CPU_UNKNOWN;
	if (parse_double(&f[col[COL_NS]], &ns)) {
		fail(err, errlen, ln, "ns '%.40s' is not a finite number",
		     f[col[COL_NS]].p);
		return -1;
	}
	if (col[COL_CYCLES] >= 0 && parse_double(&f[col[COL_CYCLES]], &cycles)) {
		fail(err, errlen, ln, "cycles '%.40s' is not a finite number",
		     f[col[COL_CYCLES]].p);
		return -1;
	}
	if (col[COL_THREAD] >= 0 && parse_u32(&f[col[COL_THREAD]], &thread)) {
		fail(err, errlen, ln, "thread '%.40s' is not an integer in "
		     "[0, 2^32)", f[col[COL_THREAD]].p);
		return -1;
	}
	if (col[COL_T_NS] >= 0 && (parse_double(&f[col[COL_T_NS]], &t_ns) ||
				   t_ns < 0)) {
		fail(err, errlen, ln, "t_ns '%.40s' is not a finite number "
		     ">= 0", f[col[COL_T_NS]].p);
		return -1;
	}
	if (col[COL_CPU] >= 0 && (parse_u32(&f[col[COL_CPU]], &cpu) ||
				  cpu >= SBT_CPU_UNKNOWN)) {
		fail(err, errlen, ln, "cpu '%.40s' is not an integer in "
		     "[0, %u)", f[col[COL_CPU]].p, SBT_CPU_UNKNOWN);
		return -1;
	}
	if (*lastreg < 0 || strcmp(*last, name->p) != 0) {
		*lastreg = sbt_ds_region(ds, name->p, name->len,
					 SBT_API_SBTMARK);
		if (*lastreg >= 0 && name->len + 1 > *lastcap) {
			char *n = realloc(*last, name->len + 1);
			if (!n)
				*lastreg = -1;
			else
				*last = n, *lastcap = name->len + 1;
		}
		if (*lastreg < 0) {
			fail(err, errlen, ln, "out of memory");
			return -1;
		}
		memcpy(*last, name->p, name->len + 1);
	}
	struct sbt_sample *s = sbt_ds_push(ds);
	if (!s) {
		fail(err, errlen, ln, "out of memory");
		return -1;
	}
	s->region = (uint32_t)*lastreg;
	s->source = source;
	s->ns = ns;
	s->cycles = cycles;
	s->thread = thread;
	s->t_ns = t_ns;
	s->cpu_start = s->cpu_stop = (uint16_t)cpu;
	if (thread > *maxthread)
		*maxthread = thread;
	return 0;
}

int sbt_csv_read(const char *path, struct sbt_dataset *ds, char *err,
		 size_t errlen)
{
	size_t n0 = ds->n, ns0 = ds->nsources, cap = 0, lastcap = 0;
	char *line = NULL, *last = NULL;
	unsigned long ln = 0;
	long lastreg = -1;
	uint32_t maxthread = 0;
	int col[NCOL], have_header = 0, rc = -1;
	FILE *fp = fopen(path, "r");
	if (!fp) {
		if (errlen)
			snprintf(err, errlen, "%s", strerror(errno));
		return -1;
	}
	struct sbt_source *src = sbt_ds_source(ds, path);
	if (!src) {
		fail(err, errlen, 0, "out of memory");
		goto out;
	}
	uint32_t source = (uint32_t)(ds->nsources - 1);
	src->is_csv = 1;
	ssize_t got;
	while ((got = getline(&line, &cap, fp)) >= 0) {
		size_t len = (size_t)got;
		ln++;
		if (len > CSV_MAX_LINE) {
			fail(err, errlen, ln, "line longer than %u bytes",
			     CSV_MAX_LINE);
			goto out;
		}
		if (memchr(line, 0, len)) {
			fail(err, errlen, ln, "NUL byte (not a text file?)");
			goto out;
		}
		while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			len--;
		char *p = line;
		if (ln == 1 && len >= 3 && !memcmp(p, "\xef\xbb\xbf", 3))
			p += 3, len -= 3;            /* UTF-8 byte order mark */
		size_t b = 0;
		while (b < len && is_blank(p[b]))
			b++;
		if (b == len || p[b] == '#')
			continue;
		if (!have_header) {
			if (header(p, len, ln, col, err, errlen) != 0)
				goto out;
			have_header = 1;
			continue;
		}
		if (row(ds, source, col, p, len, ln, &last, &lastcap,
			&lastreg, &maxthread, err, errlen) != 0)
			goto out;
	}
	if (ferror(fp)) {
		fail(err, errlen, ln + 1, "read error: %s", strerror(errno));
		goto out;
	}
	if (!have_header) {
		fail(err, errlen, ln ? ln : 1, "no header line (empty file)");
		goto out;
	}
	src = &ds->sources[source];
	src->has_cycles = col[COL_CYCLES] >= 0;
	src->nthreads = ds->n > n0 ? maxthread + 1 : 0;
	rc = 0;
	if (ds->n == n0) {
		snprintf(src->warning, sizeof src->warning,
			 "no samples after the header");
		rc = 1;
	}
out:
	if (rc < 0) {
		ds->n = n0;
		if (ds->nsources > ns0) {
			free(ds->sources[ns0].path);
			ds->nsources = ns0;
		}
	}
	free(line);
	free(last);
	fclose(fp);
	return rc;
}

int sbt_csv_sniff(const char *path)
{
	char buf[CSV_MAX_LINE + 1], *line;
	int col[NCOL], found = 0;
	unsigned long ln = 0;
	FILE *fp = fopen(path, "r");

	if (!fp)
		return 0;
	/* the first line that is not blank or a comment: the header */
	while (!found && (line = fgets(buf, sizeof buf, fp)) && ++ln < 1000) {
		size_t len = strlen(line);
		if (memchr(line, 0, len) != NULL || len == sizeof buf - 1)
			break;              /* binary, or not a line at all */
		while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			len--;
		if (ln == 1 && len >= 3 && !memcmp(line, "\xef\xbb\xbf", 3))
			line += 3, len -= 3;
		size_t b = 0;
		while (b < len && is_blank(line[b]))
			b++;
		if (b == len || line[b] == '#')
			continue;
		line[len] = 0;
		found = header(line, len, ln, col, NULL, 0) == 0 ? 1 : -1;
	}
	fclose(fp);
	return found == 1;
}
