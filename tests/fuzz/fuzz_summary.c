/*
 * fuzz_summary.c - libFuzzer target for the summary reader
 * (analysis/read/summary.c).
 *
 * A summary is a gzip stream, and random bytes almost never pass its
 * CRC: fuzzing the file would test zlib.  So each input is the summary's
 * uncompressed content, gzipped here into a memfd and read back through
 * /proc/self/fd/N - every mutation reaches the parser.  Checked: a
 * return of 0 or -1, a one-line reason on -1, nothing of a refused
 * summary left in the dataset, no more samples than the input holds,
 * and every sample's region, source and site inside their tables.
 */
#include "summary.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	static char path[64];
	struct sbt_dataset ds = { 0 };
	char err[256] = "";
	int rc;

	if (fd < 0) {
		fd = memfd_create("sbt-fuzz-sbts", MFD_CLOEXEC);
		if (fd < 0)
			abort();
		snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	}
	/* the dup shares the offset: write from the start again */
	if (ftruncate(fd, 0) != 0 || lseek(fd, 0, SEEK_SET) != 0)
		abort();
	gzFile f = gzdopen(dup(fd), "wb1");
	if (!f || (size && gzwrite(f, data, (unsigned)size) != (int)size) ||
	    gzclose(f) != Z_OK)
		abort();
	rc = sbt_summary_read(path, &ds, err, sizeof err);
	if (rc != 0 && rc != -1)
		abort();
	if (rc == -1 && (!err[0] || strchr(err, '\n') || ds.nsources ||
			 ds.n || ds.nsites))
		abort();
	if (rc == 0 && ds.nsources != 1)
		abort();
	if (ds.n * 8 > size)     /* each sample is >= 8 bytes a column */
		abort();
	for (size_t i = 0; i < ds.n; i++)
		if (ds.s[i].region >= ds.nregions || ds.s[i].source != 0 ||
		    (ds.s[i].site != SBT_SITE_NONE &&
		     ds.s[i].site >= ds.nsites))
			abort();
	sbt_ds_free(&ds);
	return 0;
}
