/*
 * test_csv.c - CSV input: good files, every error path, hostile bytes.
 *
 * Files are written to a private temporary directory.  The hostile-input
 * loop writes deterministic random byte soups and only asks that the
 * reader returns (ASan/UBSan builds check the "never crash" part).
 */
#include "csvin.h"
#include "../common/gen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "../common/harness.h"

static char path[4096];


static void put(const char *text, size_t len)
{
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(text, 1, len, f) != len || fclose(f)) {
		perror(path);
		exit(1);
	}
}

/* Read text; returns rc, fills err. */
static int rd(const char *text, struct sbt_dataset *ds, char *err)
{
	put(text, strlen(text));
	err[0] = 0;
	return sbt_csv_read(path, ds, err, 256);
}

static void good(void)
{
	struct sbt_dataset ds = { 0 };
	char err[256];
	int rc = rd("\xef\xbb\xbf" "# produced by hand\r\n"
		    "thread, ns ,REGION,note,cycles\r\n"
		    "0,120.5,\"a,b\",x,400\r\n"
		    "\r\n"
		    "3,1e3,plain,\"say \"\"hi\"\"\",3800\r\n"
		    "  # a comment\n"
		    "1, 99 , \"a,b\" ,,250\n"
		    "2,7,plain,,1e1", &ds, err);
	CHECK(rc == 0, "rc %d err %s", rc, err);
	CHECK(ds.n == 4 && ds.nregions == 2 && ds.nsources == 1,
	      "n %zu regions %zu", ds.n, ds.nregions);
	if (ds.n == 4 && ds.nregions == 2) {
		CHECK(!strcmp(ds.regions[0].name, "a,b") &&
		      !strcmp(ds.regions[1].name, "plain"), "names");
		CHECK(ds.s[0].ns == 120.5 && ds.s[0].cycles == 400 &&
		      ds.s[0].thread == 0 && ds.s[0].region == 0, "row 1");
		CHECK(ds.s[1].ns == 1000 && ds.s[1].thread == 3 &&
		      ds.s[1].region == 1, "row 2");
		CHECK(ds.s[2].ns == 99 && ds.s[2].region == 0, "row 3");
		CHECK(ds.s[3].cycles == 10 && ds.s[3].source == 0, "row 4");
		const struct sbt_source *s = &ds.sources[0];
		CHECK(s->is_csv && s->has_cycles && s->nthreads == 4 &&
		      s->quantum_ns == 0 && s->te_ns == 0, "source");
	}
	/* A second file appends a second source. */
	rc = rd("region,ns\nplain,5\nnew,6\n", &ds, err);
	CHECK(rc == 0 && ds.n == 6 && ds.nsources == 2 && ds.nregions == 3 &&
	      !ds.sources[1].has_cycles && ds.s[4].source == 1 &&
	      ds.s[4].region == 1, "second file: rc %d n %zu", rc, ds.n);
	/* Header only: a warning, not an error. */
	rc = rd("region,ns\n", &ds, err);
	CHECK(rc == 1 && ds.nsources == 3 &&
	      strstr(ds.sources[2].warning, "no samples"), "rc %d", rc);
	sbt_ds_free(&ds);
}

/* Each malformed input: rc -1, the expected line number in err, and the
 * dataset untouched. */
static void bad(void)
{
	static const struct { const char *text, *want; } t[] = {
		{ "", "line 1: no header" },
		{ "# only a comment\n", "line 1: no header" },
		{ "region,cycles\na,1\n", "line 1: header must name" },
		{ "ns,ns,region\n", "line 1: column 'ns' twice" },
		{ "region,\"ns\n", "line 1: bad quoting" },
		{ "region,ns\na,12x\n", "line 2: ns '12x'" },
		{ "region,ns\na,\n", "line 2: ns ''" },
		{ "region,ns\na,nan\n", "line 2: ns 'nan'" },
		{ "region,ns\na,1e999\n", "line 2: ns '1e999'" },
		{ "region,ns\n\na,-inf\n", "line 3: ns '-inf'" },
		{ "region,ns,cycles\na,1,x\n", "line 2: cycles 'x'" },
		{ "region,ns,thread\na,1,-1\n", "line 2: thread '-1'" },
		{ "region,ns,thread\na,1,4294967296\n", "line 2: thread" },
		{ "region,ns,thread\na,1,1.5\n", "line 2: thread" },
		{ "region,ns\na,1\nb\n", "line 3: 1 fields, the header needs 2" },
		{ "region,ns\n,1\n", "line 2: empty region" },
		{ "region,ns\n\"a,1\n", "line 2: bad quoting" },
		{ "region,ns\n\"a\"x,1\n", "line 2: bad quoting" },
		{ "region,ns\na\"b,1\n", "line 2: bad quoting" },
	};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		struct sbt_dataset ds = { 0 };
		char err[256];
		int rc = rd(t[i].text, &ds, err);
		CHECK(rc == -1 && strstr(err, t[i].want) && ds.n == 0 &&
		      ds.nsources == 0, "case %zu: rc %d err '%s' want '%s'",
		      i, rc, err, t[i].want);
		sbt_ds_free(&ds);
	}
	/* A NUL byte, a missing file, too many columns, an over-long line. */
	struct sbt_dataset ds = { 0 };
	char err[256];
	put("region,ns\na\0b,1\n", 16);
	CHECK(sbt_csv_read(path, &ds, err, sizeof err) == -1 &&
	      strstr(err, "line 2: NUL"), "nul: %s", err);
	CHECK(sbt_csv_read("/nonexistent/x.csv", &ds, err, sizeof err) == -1,
	      "missing file");
	size_t big = (1u << 20) + 100;
	char *s = malloc(big + 1);
	memcpy(s, "region,ns\n", 10);
	for (size_t i = 10; i < big; i++)
		s[i] = i % 2 ? ',' : 'a';
	s[big] = 0;
	CHECK(rd(s, &ds, err) == -1 && strstr(err, "line 2: line longer"),
	      "long: %s", err);
	s[1000] = '\n';
	s[1001] = 0;
	CHECK(rd(s, &ds, err) == -1 && strstr(err, "line 2: more than"),
	      "columns: %s", err);
	free(s);
	CHECK(ds.n == 0 && ds.nsources == 0, "dataset touched");
	sbt_ds_free(&ds);
}

/* Random byte soups built from CSV's special characters. */
static void hostile(void)
{
	static const char alpha[] = ",\"\n\r #a1.e-+\t\0x9,\n";
	struct gen g = { 2024 };
	char buf[512];
	int ok = 0;
	for (int it = 0; it < 3000; it++) {
		size_t len = (size_t)(gen_u64(&g) % sizeof buf);
		size_t start = 0;
		if (it % 2) {            /* half start with a valid header */
			memcpy(buf, "region,ns,cycles,thread\n", 24);
			start = 24;
		}
		for (size_t i = start; i < len; i++)
			buf[i] = alpha[gen_u64(&g) % (sizeof alpha - 1)];
		if (len < start)
			len = start;
		put(buf, len);
		struct sbt_dataset ds = { 0 };
		char err[256] = "";
		int rc = sbt_csv_read(path, &ds, err, sizeof err);
		CHECK(rc >= -1 && rc <= 1, "rc %d", rc);
		CHECK(rc != -1 || (err[0] && ds.n == 0), "error without "
		      "message, or samples left behind");
		ok += rc >= 0;
		sbt_ds_free(&ds);
	}
	printf("hostile: 3000 inputs, %d accepted\n", ok);
}

int main(void)
{
	char dir[] = "/tmp/sbt-csv-XXXXXX";
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(path, sizeof path, "%s/in.csv", dir);
	good();
	bad();
	hostile();
	unlink(path);
	rmdir(dir);
	return h_done();
}
