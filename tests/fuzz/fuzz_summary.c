/*
 * fuzz_summary.c - libFuzzer target for the summary reader
 * (analysis/read/summary.c).
 *
 * A summary is a gzip stream, and random bytes almost never pass its
 * CRC: fuzzing the file would test zlib.  So each input is the summary's
 * uncompressed content, wrapped here as a gzip stream of stored blocks
 * (no deflate: its 300 KB of state per input, page-faulted in and out,
 * was most of a run's time) into a memfd and read back through
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

/* RFC 1952 member holding RFC 1951 stored blocks: what gzip -0 writes */
static size_t gzip_stored(uint8_t *out, const uint8_t *data, size_t size)
{
	static const uint8_t head[10] = { 0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3 };
	uint8_t *p = out;
	size_t off = 0;
	uLong crc = crc32(0L, Z_NULL, 0);

	memcpy(p, head, sizeof head);
	p += sizeof head;
	do {
		size_t n = size - off > 65535 ? 65535 : size - off;
		*p++ = off + n == size;         /* BFINAL, BTYPE 00 */
		p[0] = n & 0xff, p[1] = n >> 8;
		p[2] = ~n & 0xff, p[3] = (~n >> 8) & 0xff;
		p += 4;
		memcpy(p, data + off, n);
		p += n;
		off += n;
	} while (off < size);
	crc = crc32(crc, data, (uInt)size);
	for (int i = 0; i < 4; i++)
		*p++ = (crc >> 8 * i) & 0xff;
	for (int i = 0; i < 4; i++)
		*p++ = (size >> 8 * i) & 0xff;
	return (size_t)(p - out);
}

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
	/* 18 bytes of gzip frame, 5 a stored block of <= 64 KiB - 1 */
	uint8_t *gz = malloc(18 + size + 5 * (size / 65535 + 1));
	size_t gzn;

	if (!gz)
		abort();
	gzn = gzip_stored(gz, data, size);
	if (ftruncate(fd, 0) != 0 || pwrite(fd, gz, gzn, 0) != (ssize_t)gzn)
		abort();
	free(gz);
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
