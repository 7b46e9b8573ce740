/*
 * test_hostile.c - the log reader against damaged and hostile files.
 *
 * A real log is recorded (rapp under the preload), then cut, zeroed,
 * bit-flipped and given absurd header and chunk fields.  For every variant
 * the reader (sbt_read_log, in this process - run it under ASan) must
 * return, must say what is wrong in one line when it gives up, must keep
 * what is valid (exact counts where they are computable), and must not
 * make up more samples than the file can hold.  sbt-analyze is run on a
 * few variants for its exit status and its one-line reason.
 *
 * A hang fails through alarm(); a crash fails by itself.
 *
 * usage: test_hostile RAPP            (SBT_LIB and SBT_ANALYZE from the env)
 */
#include "../common/harness.h"
#include "reader.h"
#include "sbtlog.h"

#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stddef.h>
#include <sys/stat.h>

static const char *lib, *analyze;
static char current[160];               /* the variant being read */

static void on_alarm(int sig)
{
	(void)sig;
	static const char m[] = "FAIL: reader hung on variant: ";
	(void)!write(2, m, sizeof m - 1);
	(void)!write(2, current, strlen(current));
	(void)!write(2, "\n", 1);
	_exit(1);
}

/* ---- the base log, parsed independently of reader.c ---------------------- */

static unsigned char *base;
static size_t bsize;

struct chunkinfo { size_t off, size, used; uint32_t type; long napp; };
static struct chunkinfo chunks[4096];
static int nchunks;
static long base_n;                     /* samples the reader should keep */

/* The base log's samples, paired here with a parser of our own: per
 * thread, a STOP closes the innermost open START of its site.  Each
 * sample notes the chunks holding its START and its STOP and where its
 * STOP event ends. */
struct pair { int kstart, kstop; size_t stop_end; };
static struct pair *pairs;
static long npairs;

static void parse_base(void)
{
	struct open { uint32_t thread, site; int k; int app; } open[4096];
	int nopen = 0;
	size_t off = SBT_HEADER_SIZE;

	pairs = calloc(bsize / 32 + 1, sizeof *pairs);
	while (off + sizeof(struct sbt_chunk) <= bsize) {
		struct sbt_chunk ch;
		memcpy(&ch, base + off, sizeof ch);
		if (ch.magic == 0) {
			off += 4096;
			continue;
		}
		if (ch.magic != SBT_CHUNK_MAGIC || nchunks == 4096 ||
		    ch.type == SBT_CHUNK_SAMPLES) {
			fprintf(stderr, "base log unparseable at %zu\n", off);
			exit(99);
		}
		int k = nchunks++;
		struct chunkinfo *c = &chunks[k];
		c->off = off, c->size = ch.size, c->used = ch.used;
		c->type = ch.type, c->napp = 0;
		for (size_t i = 0; ch.type == SBT_CHUNK_EVENTS &&
		     sizeof ch + 16 * (i + 1) <= ch.size; i++) {
			struct sbt_event e;
			memcpy(&e, base + off + sizeof ch + 16 * i, sizeof e);
			uint32_t kind = SBT_EV_KIND(e.word);
			if (!e.word)
				break;
			if (kind == SBT_EV_START && nopen < 4096) {
				open[nopen++] = (struct open){ ch.thread,
					SBT_EV_ID(e.word), k,
					!(SBT_EV_FLAGS(e.word) & SBT_RF_CALIB) };
			} else if (kind == SBT_EV_STOP) {
				int j = nopen;
				while (j > 0 && (open[j - 1].thread != ch.thread
				       || open[j - 1].site != SBT_EV_ID(e.word)))
					j--;
				if (j == 0)
					continue;
				struct open o = open[j - 1];
				memmove(&open[j - 1], &open[j],
					(size_t)(nopen - j) * sizeof o);
				nopen--;
				if (!o.app)
					continue;
				pairs[npairs++] = (struct pair){ o.k, k,
					off + sizeof ch + 16 * (i + 1) };
				chunks[o.k].napp++;
				if (o.k != k)
					c->napp++;
			}
		}
		off += ch.size;
	}
	base_n = npairs;
}

/* Samples with both events in chunk k. */
static long inner(const struct chunkinfo *c)
{
	long n = 0;

	for (long i = 0; i < npairs; i++)
		n += chunks + pairs[i].kstart == c && chunks + pairs[i].kstop == c;
	return n;
}

/* Samples whose events lie wholly inside the first x bytes. */
static long expect_prefix(size_t x)
{
	long n = 0;

	for (long i = 0; i < npairs; i++)
		n += pairs[i].stop_end <= x;
	return n;
}

/* ---- reading one variant ------------------------------------------------------ */

struct result { int rc; long n; size_t nregions; char err[256]; int trunc; };

static void write_variant(const char *path, const void *p, size_t n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || (n && write(fd, p, n) != (ssize_t)n) || close(fd) != 0) {
		perror(path);
		exit(99);
	}
}

static struct result read_variant(const char *path, size_t fsize)
{
	struct sbt_dataset ds = { 0 };
	struct result r = { 0 };

	alarm(20);
	r.rc = sbt_read_log(path, &ds, r.err, sizeof r.err);
	alarm(0);
	r.n = (long)ds.n;
	r.nregions = ds.nregions;
	r.trunc = ds.nsources ? ds.sources[0].truncated : 0;
	/* Invariants for every input whatever its content. */
	CHECK(r.rc >= -1 && r.rc <= 1, "%s: rc %d", current, r.rc);
	CHECK(r.rc != -1 || (r.err[0] && !strchr(r.err, '\n')), "%s: no one-"
	      "line reason: '%s'", current, r.err);
	CHECK(r.rc == -1 || ds.nsources == 1, "%s: %zu sources", current,
	      ds.nsources);
	CHECK((size_t)r.n * 2 * sizeof(struct sbt_event) <= fsize, "%s: %ld "
	      "samples from %zu bytes", current, r.n, fsize);
	CHECK(ds.nregions <= fsize / 16 + 1, "%s: %zu regions from %zu bytes",
	      current, ds.nregions, fsize);
	CHECK(r.rc != 1 || (ds.nsources && ds.sources[0].warning[0] &&
	      !strchr(ds.sources[0].warning, '\n')), "%s: damaged without a "
	      "one-line warning", current);
	sbt_ds_free(&ds);
	return r;
}

static struct result variant(const char *what, const void *p, size_t n)
{
	snprintf(current, sizeof current, "%s", what);
	write_variant("v.log", p, n);
	return read_variant("v.log", n);
}

/* ---- variants ------------------------------------------------------------------- */

static void t_truncated(void)
{
	size_t hsz = sizeof(struct sbt_file_header);
	long cases = 0;

	for (size_t x = 0; x < bsize; x += x < 4200 ? 7 : 1531, cases++) {
		char what[64];
		snprintf(what, sizeof what, "truncated at %zu", x);
		struct result r = variant(what, base, x);
		if (x < hsz) {
			CHECK(r.rc == -1, "%s: rc %d", what, r.rc);
			continue;
		}
		CHECK(r.rc == 1, "%s: rc %d, want 1 (cut short)", what, r.rc);
		CHECK(r.n == expect_prefix(x), "%s: %ld samples kept, %ld "
		      "were whole", what, r.n, expect_prefix(x));
	}
	/* exactly at and around every chunk boundary */
	for (int k = 0; k < nchunks; k++)
		for (int d = -1; d <= 64; d += d == 1 ? 63 : 1) {
			size_t x = chunks[k].off + (size_t)(long)d;
			char what[64];
			snprintf(what, sizeof what, "truncated at %zu (chunk %d"
				 "%+d)", x, k, d);
			struct result r = variant(what, base, x);
			CHECK(r.rc == 1 && r.n == expect_prefix(x), "%s: rc %d,"
			      " %ld samples, want 1, %ld", what, r.rc, r.n,
			      expect_prefix(x));
			cases++;
		}
	printf("truncated: %ld variants\n", cases);
}

static void t_zeroed(void)
{
	unsigned char *v = calloc(1, bsize);
	struct result r = variant("all zeros", v, bsize);

	CHECK(r.rc == -1, "all zeros: rc %d", r.rc);
	/* One page zeroed at a time: what lies outside its chunk survives. */
	for (size_t p = 0; p < bsize; p += 4096) {
		char what[64];
		long lost = 0;
		memcpy(v, base, bsize);
		memset(v + p, 0, bsize - p < 4096 ? bsize - p : 4096);
		for (int k = 0; k < nchunks; k++)
			if (p >= chunks[k].off &&
			    p < chunks[k].off + chunks[k].size)
				lost = chunks[k].napp;
		snprintf(what, sizeof what, "page at %zu zeroed", p);
		r = variant(what, v, bsize);
		if (p == 0) {
			CHECK(r.rc == -1, "%s: rc %d", what, r.rc);
			continue;
		}
		CHECK(r.rc >= 0 && r.n <= base_n && r.n >= base_n - lost,
		      "%s: rc %d, %ld samples of %ld (at most %ld lost)", what,
		      r.rc, r.n, base_n, lost);
	}
	free(v);
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t next(void)
{
	rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
	return rng;
}

static void t_bitflips(int seeds)
{
	unsigned char *v = malloc(bsize);

	for (int s = 0; s < seeds; s++) {
		char what[64];
		int flips = 1 + (int)(next() % 16);
		memcpy(v, base, bsize);
		for (int i = 0; i < flips; i++) {
			size_t at;
			/* Half in the places the parser trusts: the header
			 * and the chunk headers. */
			if (s % 2 == 0)
				at = next() % bsize;
			else if (s % 4 == 1)
				at = next() % sizeof(struct sbt_file_header);
			else {
				const struct chunkinfo *c =
					&chunks[next() % (uint64_t)nchunks];
				at = c->off + next() % 64;
			}
			v[at] ^= (unsigned char)(1u << (next() % 8));
		}
		snprintf(what, sizeof what, "bit flips, seed %d", s);
		variant(what, v, bsize);
	}
	free(v);
	printf("bit flips: %d variants\n", seeds);
}

static struct sbt_file_header *hdr(unsigned char *v)
{
	return (struct sbt_file_header *)v;
}

static struct sbt_chunk *chunk_of(unsigned char *v, uint32_t type)
{
	for (int k = 0; k < nchunks; k++)
		if (chunks[k].type == type)
			return (struct sbt_chunk *)(v + chunks[k].off);
	return NULL;
}

static void t_fields(void)
{
	unsigned char *v = malloc(bsize);
	struct result r;

#define FRESH() memcpy(v, base, bsize)
	FRESH(); hdr(v)->version = SBT_LOG_VERSION + 1;
	r = variant("version 3", v, bsize);
	CHECK(r.rc == -1 && strstr(r.err, "version"), "version: %d '%s'",
	      r.rc, r.err);
	FRESH(); hdr(v)->record_size = 64;
	r = variant("record size 64", v, bsize);
	CHECK(r.rc == -1, "record size: rc %d", r.rc);
	FRESH(); hdr(v)->header_size = 1u << 31;
	r = variant("header size 2^31", v, bsize);
	CHECK(r.rc == -1, "header size: rc %d", r.rc);
	FRESH(); hdr(v)->tick_hz = 0;
	r = variant("tick_hz 0", v, bsize);
	CHECK(r.rc == -1, "tick_hz 0: rc %d", r.rc);
	FRESH(); memset(hdr(v)->host, 'H', sizeof hdr(v)->host +
			sizeof hdr(v)->cpu_model + sizeof hdr(v)->exe);
	r = variant("unterminated strings", v, bsize);
	CHECK(r.rc == 0 && r.n == base_n, "strings: rc %d n %ld", r.rc, r.n);
	FRESH(); hdr(v)->start_ticks = UINT64_MAX;
	r = variant("start_ticks max", v, bsize);
	CHECK(r.rc >= 0 && r.n == base_n, "start_ticks: rc %d", r.rc);

	/* absurd chunk headers: the chunk is lost, nothing else */
	static const struct { const char *what; int field; uint64_t val; }
	ch[] = {
		{ "chunk size 2^63", 0, 1ull << 63 },
		{ "chunk size 0", 0, 0 },
		{ "chunk size 4097", 0, 4097 },
		{ "chunk size max aligned", 0, UINT64_MAX & ~4095ull },
		{ "chunk used max", 1, UINT64_MAX },
		{ "chunk used 2^40", 1, 1ull << 40 },
		{ "chunk type 99", 2, 99 },
		{ "chunk thread max", 3, UINT32_MAX },
		{ "chunk magic wrong", 4, 0x12345678 },
	};
	for (size_t i = 0; i < sizeof ch / sizeof ch[0]; i++)
		for (uint32_t type = SBT_CHUNK_META; type <= SBT_CHUNK_EVENTS;
		     type += SBT_CHUNK_EVENTS - SBT_CHUNK_META) {
			char what[80];
			FRESH();
			struct sbt_chunk *c = chunk_of(v, type);
			if (!c)
				continue;
			switch (ch[i].field) {
			case 0: c->size = ch[i].val; break;
			case 1: c->used = ch[i].val; break;
			case 2: c->type = (uint32_t)ch[i].val; break;
			case 3: c->thread = (uint32_t)ch[i].val; break;
			case 4: c->magic = (uint32_t)ch[i].val; break;
			}
			snprintf(what, sizeof what, "%s (%s chunk)", ch[i].what,
				 type == SBT_CHUNK_EVENTS ? "events" : "meta");
			r = variant(what, v, bsize);
			/* Only the damaged chunk's own samples may go, and
			 * the damage is reported (a thread number is not
			 * checkable). */
			long lost = 0;
			for (int k = 0; k < nchunks; k++)
				if ((unsigned char *)c == v + chunks[k].off)
					lost = chunks[k].napp;
			CHECK((r.rc == 1 || ch[i].field == 3) &&
			      r.n <= base_n && r.n >= base_n - lost,
			      "%s: rc %d, %ld samples of %ld (%ld may go)",
			      what, r.rc, r.n, base_n, lost);
		}

	/* absurd meta entries */
	struct sbt_chunk *mc = chunk_of(base, SBT_CHUNK_META);
	if (mc) {
		size_t moff = (size_t)((unsigned char *)mc - base) + sizeof *mc;
		static const uint32_t lens[] = { UINT32_MAX, 1u << 30, 0, 1,
						 15, 16, 17 };
		for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
			char what[64];
			FRESH();
			((struct sbt_meta *)(v + moff))->len = lens[i];
			snprintf(what, sizeof what, "meta len %u", lens[i]);
			r = variant(what, v, bsize);
			CHECK(r.rc >= 0 && r.n == base_n, "%s: rc %d n %ld",
			      what, r.rc, r.n);
		}
		/* every region entry gets an absurd id */
		FRESH();
		for (size_t pos = 0; pos + 8 <= mc->used; ) {
			struct sbt_meta *m = (void *)(v + moff + pos);
			if (m->type == SBT_META_REGION && m->len >= 16)
				((struct sbt_meta_region *)(m + 1))->id =
					0xffffffu;
			pos += (8 + m->len + 7) & ~7u;
		}
		r = variant("region ids 2^24-1", v, bsize);
		CHECK(r.rc >= 0 && r.n == base_n, "region ids: rc %d", r.rc);
	}
	/* every sample claims an absurd site id (START and STOP alike) */
	FRESH();
	for (int k = 0; k < nchunks; k++)
		for (size_t i = 0; chunks[k].type == SBT_CHUNK_EVENTS &&
		     64 + 16 * (i + 1) <= chunks[k].size; i++) {
			struct sbt_event *e = (void *)(v + chunks[k].off + 64 +
						       16 * i);
			uint32_t kind = SBT_EV_KIND(e->word);
			if (kind == SBT_EV_START || kind == SBT_EV_STOP)
				e->word = (e->word & ~0xffffffu) | (0xfffff0u +
					SBT_EV_ID(e->word) % 15);
		}
	r = variant("sample ids near 2^24", v, bsize);
	CHECK(r.rc == 1 && r.n > 0, "sample ids: rc %d n %ld", r.rc, r.n);
	free(v);
}

static void t_random(int seeds)
{
	unsigned char *v = malloc(65536 + 4096);

	for (int s = 0; s < seeds; s++) {
		char what[64];
		size_t n = next() % 65536;
		for (size_t i = 0; i < n + 4096; i++)
			v[i] = (unsigned char)next();
		snprintf(what, sizeof what, "random bytes, seed %d", s);
		struct result r = variant(what, v, n);
		CHECK(r.rc == -1, "%s: rc %d", what, r.rc);
		/* a valid header, then noise */
		memcpy(v, base, SBT_HEADER_SIZE);
		snprintf(what, sizeof what, "header + random, seed %d", s);
		variant(what, v, n + 4096);
	}
}

/* A sparse file: valid header, 8 GiB of hole, one chunk at the end.  The
 * reader must jump the hole, not read it. */
static void t_sparse(void)
{
	const off_t big = (off_t)8 << 30;
	const struct chunkinfo *c = NULL;
	int fd;

	for (int k = 0; k < nchunks && !c; k++)
		if (chunks[k].type == SBT_CHUNK_EVENTS && chunks[k].napp &&
		    chunks[k].size <= 1 << 20)
			c = &chunks[k];
	snprintf(current, sizeof current, "sparse 8 GiB");
	fd = open("sparse.log", O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || pwrite(fd, base, 4096, 0) != 4096 ||
	    (c && pwrite(fd, base + c->off, c->size, big) !=
	     (ssize_t)c->size) || ftruncate(fd, big + (off_t)(c ? c->size :
	     4096)) != 0) {
		printf("sparse: cannot make the file; skipped\n");
		if (fd >= 0)
			close(fd);
		unlink("sparse.log");
		return;
	}
	close(fd);
	struct result r = read_variant("sparse.log", (size_t)big);
	CHECK(c != NULL, "sparse: the base log has no events chunk to place");
	CHECK(r.rc >= 0 && (!c || r.n == inner(c)), "sparse: rc %d, %ld "
	      "samples, want %ld", r.rc, r.n, c ? inner(c) : 0);
	unlink("sparse.log");
}

static void t_not_files(void)
{
	struct sbt_dataset ds = { 0 };
	char err[256] = "";
	int rc;

	mkdir("adir", 0755);
	rc = sbt_read_log("adir", &ds, err, sizeof err);
	CHECK(rc == -1 && err[0], "directory: rc %d", rc);
	rc = sbt_read_log("/dev/null", &ds, err, sizeof err);
	CHECK(rc == -1 && err[0], "/dev/null: rc %d", rc);
	rc = sbt_read_log("does-not-exist", &ds, err, sizeof err);
	CHECK(rc == -1 && err[0], "missing: rc %d", rc);
	CHECK(ds.n == 0 && ds.nsources == 0, "sources from non-logs");
	sbt_ds_free(&ds);
}

/* ---- sbt-analyze ---------------------------------------------------------------- */

static char errs[4096];                 /* the last run's stderr */

static void analyze_one(const char *what, const void *p, size_t n, int want)
{
	int st;

	errs[0] = 0;
	if (p)
		write_variant("a.log", p, n);
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		alarm(60);
		if (!freopen("/dev/null", "w", stdout) ||
		    !freopen("a.err", "w", stderr))
			_exit(99);
		execl(analyze, analyze, "a.log", (char *)NULL);
		_exit(127);
	}
	waitpid(pid, &st, 0);
	FILE *f = fopen("a.err", "r");
	size_t k = f ? fread(errs, 1, sizeof errs - 1, f) : 0;
	errs[k] = 0;
	if (f)
		fclose(f);
	char *nl = strchr(errs, '\n');
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == want, "sbt-analyze %s: "
	      "status %#x, want exit %d", what, st, want);
	CHECK(!strncmp(errs, "sbt-analyze: ", 13) && nl && !nl[1],
	      "sbt-analyze %s: want one line of reason, got '%s'", what, errs);
}

static void t_analyze(void)
{
	unsigned char *v = malloc(bsize);

	analyze_one("truncated", base, bsize - 1000, 1);
	memcpy(v, base, bsize);
	hdr(v)->version = 7;
	analyze_one("version 7", v, bsize, 2);
	/* a development version before 5: refused by name */
	hdr(v)->version = 3;
	analyze_one("version 3", v, bsize, 2);
	CHECK(strstr(errs, "unsupported log format version 3 (this "
		     "sbt-analyze reads versions 5 to 6)") != NULL,
	      "version 3: '%s'", errs);
	/* 200 bits flipped past the header: damage told, exit 1 */
	memcpy(v, base, bsize);
	rng = 24;
	for (int i = 0; i < 200; i++) {
		size_t bit = SBT_HEADER_SIZE * 8 + next() %
			     ((bsize - SBT_HEADER_SIZE) * 8);
		v[bit / 8] ^= (unsigned char)(1u << (bit % 8));
	}
	analyze_one("200 bits flipped", v, bsize, 1);
	analyze_one("200 bits flipped, cut short", v, bsize / 2, 1);
	memset(v, 0, bsize);
	analyze_one("zero-filled", v, bsize, 2);
	for (size_t i = 0; i < bsize; i++)
		v[i] = (unsigned char)next();
	analyze_one("random", v, 5000, 2);
	memcpy(v, base, bsize);
	chunk_of(v, SBT_CHUNK_EVENTS)->size = 1ull << 62;
	analyze_one("absurd chunk size", v, bsize, 1);
	free(v);
}

/* ---------------------------------------------------------------------------------- */

int main(int argc, char **argv)
{
	char *rapp;
	int st;

	lib = getenv("SBT_LIB");
	analyze = getenv("SBT_ANALYZE");
	if (argc != 2 || !lib || !analyze)
		return 99;
	rapp = realpath(argv[1], NULL);
	lib = realpath(lib, NULL);
	analyze = realpath(analyze, NULL);
	if (!rapp || !lib || !analyze)
		return 99;
	const char *dir = h_tmpdir();
	signal(SIGALRM, on_alarm);

	/* The base: 3 threads, nesting, probes, a RESET-free closed log. */
	char *env[] = { "SBT_OUTPUT=base.log", "SBT_PROBE_PERIOD=7", NULL };
	char *app[] = { rapp, "threads", "3", "2000", NULL };
	fflush(NULL);
	st = h_run(lib, env, app);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		fprintf(stderr, "recording the base log failed\n");
		return 99;
	}
	int fd = open("base.log", O_RDONLY);
	struct stat sb;
	if (fd < 0 || fstat(fd, &sb) != 0)
		return 99;
	bsize = (size_t)sb.st_size;
	base = malloc(bsize);
	if (read(fd, base, bsize) != (ssize_t)bsize)
		return 99;
	close(fd);
	parse_base();
	printf("base log: %zu bytes, %d chunks, %ld samples\n", bsize,
	       nchunks, base_n);

	struct result r = variant("the base log", base, bsize);
	CHECK(r.rc == 0 && r.n == base_n, "base: rc %d (%s), %ld samples of "
	      "%ld", r.rc, r.err, r.n, base_n);
	t_truncated();
	t_zeroed();
	t_bitflips(1500);
	t_fields();
	t_random(200);
	t_sparse();
	t_not_files();
	t_analyze();

	char cmd[PATH_MAX + 16];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (chdir("/") != 0 || (!h_fail && system(cmd) != 0))
		fprintf(stderr, "cannot remove %s\n", dir);
	return h_done();
}
