/*
 * fuzz_reader.c - libFuzzer target for the log reader (analysis/read/reader.c).
 *
 * sbt_read_log takes a path, so each input is put in a memfd and read
 * back through /proc/self/fd/N: no temporary files, no change to the
 * reader.  Besides "no crash, no hang, no leak, bounded memory" (the
 * sanitizers and libFuzzer's limits), the reader's promises are checked:
 * a return of -1, 0 or 1; a one-line reason when it gives up; never more
 * samples than the input can hold.
 *
 * Build (meson does this when clang has libFuzzer):
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -D_GNU_SOURCE \
 *     -Iformat -Ianalysis tests/fuzz/fuzz_reader.c analysis/read/reader.c \
 *     analysis/base/dataset.c -o fuzz-reader
 */
#include "reader.h"
#include "sbtlog.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	static char path[64];
	struct sbt_dataset ds = { 0 };
	char err[256] = "";
	int rc;

	if (fd < 0) {
		fd = memfd_create("sbt-fuzz", MFD_CLOEXEC);
		if (fd < 0)
			abort();
		snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) != 0 ||
	    (size && pwrite(fd, data, size, 0) != (ssize_t)size))
		abort();
	rc = sbt_read_log(path, &ds, err, sizeof err);
	if (rc < -1 || rc > 1)
		abort();
	if (rc == -1 && (!err[0] || strchr(err, '\n')))
		abort();
	if (rc >= 0 && ds.nsources != 1)
		abort();
	if (ds.n * 2 * sizeof(struct sbt_event) > size)
		abort();
	sbt_ds_free(&ds);
	return 0;
}
