/*
 * replay.c - the fuzz targets' checks on given files, without libFuzzer:
 * each file once through LLVMFuzzerTestOneInput (abort: a failed check).
 * Built with fuzz_reader.c by any compiler, so the seeds' checks - a log
 * read in segments by several threads equals its serial reading - run
 * in every build, the sanitizers' too.
 *
 *   replay FILE...
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv)
{
	setenv("SBT_FUZZ_FULL", "1", 1);        /* every check, every file */
	for (int i = 1; i < argc; i++) {
		FILE *f = fopen(argv[i], "rb");
		static uint8_t buf[1 << 20];
		size_t n;

		if (!f) {
			perror(argv[i]);
			return 1;
		}
		n = fread(buf, 1, sizeof buf, f);
		fclose(f);
		LLVMFuzzerTestOneInput(buf, n);
		printf("ok %s (%zu bytes)\n", argv[i], n);
	}
	return 0;
}
