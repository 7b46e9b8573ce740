/*
 * test_logfile.c - the log's space readied ahead (preload/services/logfile.c's
 * sbt_log_prepare, the preparer thread's step), driven by hand so that
 * nothing depends on when a thread runs:
 *   - the first MiB is readied when the log opens: a chunk there costs
 *     its taker nothing;
 *   - a chunk past what was readied is faulted in by its taker (counted
 *     late, and in the header: the bytes and the time it took); one taken
 *     inside readied space costs it nothing;
 *   - readied space is allocated and mapped (the pages present in our page
 *     tables before anyone touched them), and reads as zeros;
 *   - the preparer is called for when less than half of its lead is left;
 *   - never past the reserve (SBT_LOG_MAX_MB / SBT_MAX_MB), and nothing
 *     after the log is finished, whose file ends at its last chunk.
 */
#include "logfile.h"
#include "../common/harness.h"

#include <fcntl.h>
#include <stdint.h>
#include <sys/stat.h>

/* Is the page at p present in our page tables? -1: cannot tell. */
static int present(const void *p)
{
	uint64_t e;
	int fd = open("/proc/self/pagemap", O_RDONLY);
	int r = fd >= 0 && pread(fd, &e, 8, (off_t)((uintptr_t)p / 4096 * 8))
		== 8 ? (int)(e >> 63) : -1;

	if (fd >= 0)
		close(fd);
	return r;
}

static off_t file_size(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 ? st.st_size : -1;
}

static int lows;
static void low(void) { lows++; }

static int all_zero(const void *p, size_t n)
{
	const unsigned char *c = p;
	for (size_t i = 0; i < n; i++)
		if (c[i])
			return 0;
	return 1;
}

int main(void)
{
	const char *dir = h_tmpdir();
	struct sbt_logfile *lf = sbt_log_create("a.log", 64u << 20);
	struct sbt_chunk *c;
	int steps = 0;

	(void)dir;
	CHECK(lf != NULL, "cannot create a.log");
	if (!lf)
		return h_done();
	sbt_log_on_low(lf, low);

	struct sbt_file_header *h = sbt_log_header(lf);

	/* the first MiB readied at open: mapped, and free to its taker */
	CHECK(present((char *)h + (512u << 10)) == 1,
	      "the first MiB not readied at open");
	c = sbt_log_chunk(lf, SBT_CHUNK_EVENTS, 64u << 10, 0, 1);
	CHECK(c && sbt_log_late(lf) == 0 && h->log_wait_ns == 0 &&
	      h->log_late_bytes == 0, "a chunk in the first MiB: %llu late "
	      "bytes, header %llu ns %llu bytes, want 0",
	      (unsigned long long)sbt_log_late(lf),
	      (unsigned long long)h->log_wait_ns,
	      (unsigned long long)h->log_late_bytes);
	CHECK(lows == 0, "the preparer was called %d times, want 0", lows);

	/* past it, nothing readied: the taker faults in the 68 KiB beyond
	 * the first MiB, counted (bytes, time), and calls */
	c = sbt_log_chunk(lf, SBT_CHUNK_EVENTS, 1u << 20, 0, 1);
	CHECK(c && sbt_log_late(lf) == 68u << 10 &&
	      h->log_late_bytes == 68u << 10 && h->log_wait_ns > 0,
	      "unprepared chunk: %llu late bytes, header %llu ns %llu bytes, "
	      "want 69632", (unsigned long long)sbt_log_late(lf),
	      (unsigned long long)h->log_wait_ns,
	      (unsigned long long)h->log_late_bytes);
	CHECK(lows == 1, "the preparer was called %d times, want 1", lows);

	while (sbt_log_prepare(lf))
		steps++;
	CHECK(steps >= 1, "sbt_log_prepare readied nothing");
	/* readied: mapped before any write, zeros */
	char *next = (char *)c + (1u << 20);
	CHECK(present(next) == 1 && present(next + (512u << 10)) == 1,
	      "readied pages not mapped (%d %d)", present(next),
	      present(next + (512u << 10)));
	c = sbt_log_chunk(lf, SBT_CHUNK_EVENTS, 256u << 10, 0, 1);
	CHECK(c && (char *)c == next, "chunks not contiguous");
	CHECK(sbt_log_late(lf) == 68u << 10 && h->log_late_bytes == 68u << 10,
	      "a readied chunk's taker faulted %llu bytes in",
	      (unsigned long long)sbt_log_late(lf) - (68u << 10));
	CHECK(c && all_zero(c + 1, (256u << 10) - sizeof *c),
	      "readied chunk not zero");
	/* lead readied to 2180 KiB from 1092: 1348 taken, over half left */
	CHECK(lows == 1, "preparer called with its lead over half left");
	c = sbt_log_chunk(lf, SBT_CHUNK_EVENTS, 512u << 10, 0, 1);
	CHECK(c && sbt_log_late(lf) == 68u << 10 && lows == 2,
	      "under half left: late %llu, calls %d (want 69632, 2)",
	      (unsigned long long)sbt_log_late(lf), lows);
	while (sbt_log_prepare(lf))
		;

	/* finished: no more preparing, the file ends at its last chunk */
	sbt_log_finish(lf);
	CHECK(sbt_log_prepare(lf) == 0, "prepared after finish");
	off_t want = 4096 + (64 << 10) + (1 << 20) + (256 << 10) + (512 << 10);
	CHECK(file_size("a.log") == want, "finished a.log: %lld bytes, "
	      "want %lld", (long long)file_size("a.log"), (long long)want);
	sbt_log_abandon(lf);

	/* never past the reserve */
	lf = sbt_log_create("b.log", 2u << 20);
	CHECK(lf != NULL, "cannot create b.log");
	if (lf) {
		while (sbt_log_prepare(lf))
			;
		CHECK(file_size("b.log") <= 2 << 20, "b.log readied to %lld "
		      "bytes, reserve 2 MiB", (long long)file_size("b.log"));
		sbt_log_abandon(lf);
	}
	unlink("a.log"), unlink("b.log");
	if (chdir("/") == 0)
		rmdir(dir);
	return h_done();
}
