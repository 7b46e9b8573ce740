/*
 * embed.c - write a log's names into it (embed.h).
 *
 * The addresses are those the analysis symbolizes: every frame of every
 * call site (the first FRAMES_MAX of each) and every region's first
 * site.  Each is resolved by the analysis's own symbolizer, the log's
 * existing section first, so the section holds exactly the answers the
 * analysis would get; an address whose module is missing or was rebuilt
 * since the run is left out (no answer worth carrying: the analysis asks
 * the binaries for it, and says why).
 *
 * Bounded: at most ADDR_MAX addresses and SBT_NAMES_ZMAX bytes
 * compressed; past that the deepest frames are left out first.
 *
 * Appended safely: the log is locked (flock) against another embedder,
 * refused while its writer still runs here, and the chunk goes past
 * every chunk and the file's end, written as the recorder writes its
 * meta chunks - header with nothing committed, then the entry, then
 * `used` - so that a crash at any point leaves a log read as before.
 */
#include "embed.h"
#include "names.h"
#include "reader.h"
#include "symbolize.h"
#include "sbtlog.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>
#include <zlib.h>

#define FRAMES_MAX 32          /* as callsites.c reads a site          */
#define ADDR_MAX   (1u << 16)  /* addresses embedded at most           */
#define ALIGN      4096u

/* An address to name: `prio` the least depth it was met at. */
struct want { uint64_t addr; uint32_t prio; };

static int by_addr(const void *x, const void *y)
{
	const struct want *a = x, *b = y;

	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	return (a->prio > b->prio) - (a->prio < b->prio);
}

static int by_prio(const void *x, const void *y)
{
	const struct want *a = x, *b = y;

	if (a->prio != b->prio)
		return a->prio < b->prio ? -1 : 1;
	return (a->addr > b->addr) - (a->addr < b->addr);
}

/* The distinct addresses of source 0 of ds, shallowest first, at most
 * ADDR_MAX; *n of them.  NULL out of memory. */
static struct want *wanted(const struct sbt_dataset *ds, size_t *n)
{
	size_t k = 0, cap = ds->nregions + 1;
	struct want *w;

	for (size_t i = 0; i < ds->nsites; i++)
		cap += ds->sites[i].depth < FRAMES_MAX ? ds->sites[i].depth :
		       FRAMES_MAX;
	if (!(w = malloc(cap * sizeof *w)))
		return NULL;
	for (size_t i = 0; i < ds->nsites; i++)
		for (uint32_t d = 0; d < ds->sites[i].depth && d < FRAMES_MAX;
		     d++)
			if (ds->sites[i].frames[d])
				w[k++] = (struct want){ ds->sites[i].frames[d],
							d };
	for (size_t r = 0; r < ds->nregions; r++)
		if (ds->regions[r].site && ds->regions[r].source == 0)
			w[k++] = (struct want){ ds->regions[r].site, 0 };
	qsort(w, k, sizeof *w, by_addr);
	size_t u = 0;
	for (size_t i = 0; i < k; i++)
		if (!u || w[u - 1].addr != w[i].addr)
			w[u++] = w[i];
	qsort(w, u, sizeof *w, by_prio);
	*n = u < ADDR_MAX ? u : ADDR_MAX;
	return w;
}

/* The table being built, and its strings interned. */
struct table {
	struct sbt_names_mod *mod; uint32_t nmod;
	int32_t *modix;                 /* log module -> table module, -1 */
	struct sbt_names_addr *addr; size_t naddr;
	struct sbt_names_frame *frame; size_t nframe, capframe;
	char *str; size_t nstr, capstr;
	uint32_t *hash; size_t caphash; /* string offset + 1, 0 free      */
	size_t nhashed;                 /* strings in it                  */
};

static uint64_t fnv(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return h;
}

static int rehash(struct table *t);

/* Offset of string s in t->str, added if new; UINT32_MAX out of memory. */
static uint32_t intern(struct table *t, const char *s)
{
	size_t len = strlen(s) + 1;

	if ((t->nhashed + 1) * 2 > t->caphash && rehash(t) != 0)
		return UINT32_MAX;
	size_t mask = t->caphash - 1, i = fnv(s) & mask;
	for (; t->hash[i]; i = (i + 1) & mask)
		if (!strcmp(t->str + t->hash[i] - 1, s))
			return t->hash[i] - 1;
	if (t->nstr + len > t->capstr) {
		size_t cap = t->capstr ? 2 * t->capstr : 4096;
		while (cap < t->nstr + len)
			cap *= 2;
		char *p = realloc(t->str, cap);
		if (!p)
			return UINT32_MAX;
		t->str = p, t->capstr = cap;
	}
	memcpy(t->str + t->nstr, s, len);
	t->hash[i] = (uint32_t)t->nstr + 1;
	t->nstr += len;
	t->nhashed++;
	return (uint32_t)(t->nstr - len);
}

/* A hash table twice as big, the strings so far in it. */
static int rehash(struct table *t)
{
	size_t cap = t->caphash ? 2 * t->caphash : 1024;
	uint32_t *h = calloc(cap, sizeof *h);

	if (!h)
		return -1;
	for (size_t off = 0; off < t->nstr; off += strlen(t->str + off) + 1) {
		size_t i = fnv(t->str + off) & (cap - 1);
		while (h[i])
			i = (i + 1) & (cap - 1);
		h[i] = (uint32_t)off + 1;
	}
	free(t->hash);
	t->hash = h, t->caphash = cap;
	return 0;
}

/* Answer a of address w into t.  0, or -1 out of memory. */
static int put(struct table *t, const struct want *w,
	       const struct sbt_symaddr *a, const struct sbt_source *src,
	       uint32_t flags)
{
	long m = a->module_no;

	if (t->modix[m] < 0) {
		t->mod[t->nmod] = (struct sbt_names_mod){
			.lo = src->modules[m].lo, .index = (uint32_t)m,
			.state = a->module_state == SBT_MOD_NODEBUG ? 3 : 0 };
		t->modix[m] = (int32_t)t->nmod++;
	}
	if (t->nframe + SBT_SYM_INLINE > t->capframe) {
		size_t cap = t->capframe ? 2 * t->capframe : 256;
		void *p = realloc(t->frame, cap * sizeof *t->frame);
		if (!p)
			return -1;
		t->frame = p, t->capframe = cap;
	}
	t->addr[t->naddr++] = (struct sbt_names_addr){ .addr = w->addr,
		.mod = (uint32_t)t->modix[m], .frame0 = (uint32_t)t->nframe,
		.nframes = (uint32_t)a->nframes, .flags = flags };
	for (int k = 0; k < a->nframes; k++) {
		uint32_t fn = intern(t, a->f[k].function);
		uint32_t fi = intern(t, a->f[k].file);
		if (fn == UINT32_MAX || fi == UINT32_MAX)
			return -1;
		t->frame[t->nframe++] = (struct sbt_names_frame){ fn, fi,
			a->f[k].line, (uint32_t)(a->f[k].inlined != 0) };
	}
	return 0;
}

/* Resolve the wanted addresses into t: *fresh those the log's section
 * did not have.  The first note of a module left out in *why.  0, or -1
 * out of memory. */
static int resolve(const struct sbt_source *src, const struct want *w,
		   size_t n, struct table *t, size_t *fresh, char *why,
		   size_t whylen)
{
	struct sbt_symsess *ss = sbt_symsess_open(src);
	struct sbt_symaddr a;
	int rc = -1;

	*fresh = 0;
	t->mod = calloc(src->nmodules + 1, sizeof *t->mod);
	t->modix = malloc((src->nmodules + 1) * sizeof *t->modix);
	t->addr = malloc((n + 1) * sizeof *t->addr);
	if (!ss || !t->mod || !t->modix || !t->addr ||
	    rehash(t) != 0)
		goto out;
	memset(t->modix, 0xff, (src->nmodules + 1) * sizeof *t->modix);
	for (size_t i = 0; i < n; i++) {
		/* an outlined OpenMP body's entry is named as the report
		 * names it (omp_names.c), a return address as a site */
		uint32_t flags = SBT_NAMES_ENTRY;
		if (sbt_symbolize_entry(ss, w[i].addr, &a) != 0) {
			flags = 0;
			sbt_symbolize_addr(ss, w[i].addr, &a);
		}
		if (a.module_no < 0 || (size_t)a.module_no >= src->nmodules)
			continue;       /* in no module: nothing to carry */
		if (a.module_state != SBT_MOD_OK &&
		    a.module_state != SBT_MOD_NODEBUG) {
			if (!why[0])
				snprintf(why, whylen, "%s %s", a.module,
					 sbt_symbolize_note(ss, a.module_no));
			continue;
		}
		*fresh += !sbt_names_find(src->names, w[i].addr);
		if (put(t, &w[i], &a, src, flags) != 0)
			goto out;
	}
	rc = 0;
out:
	sbt_symsess_close(ss);
	return rc;
}

static int addr_cmp(const void *x, const void *y)
{
	const struct sbt_names_addr *a = x, *b = y;

	return (a->addr > b->addr) - (a->addr < b->addr);
}

/* The table's first n addresses as the NAMES entry's
 * payload: struct sbt_meta_names and the zlib stream, in *out (malloc'd),
 * *outlen bytes.  0; 1 too big compressed; -1 out of memory. */
static int pack(const struct table *t, size_t n, unsigned char **out,
		size_t *outlen)
{
	struct sbt_names_head h = { .nmod = t->nmod, .naddr = (uint32_t)n,
				    .nframe = (uint32_t)t->nframe,
				    .nstr = (uint32_t)t->nstr };
	size_t raw = sizeof h + t->nmod * sizeof *t->mod +
		     n * sizeof *t->addr + t->nframe * sizeof *t->frame +
		     t->nstr;
	unsigned char *r = malloc(raw), *z = NULL;
	int rc = -1;

	if (!r)
		return -1;
	if (raw > SBT_NAMES_RAWMAX) {
		free(r);
		return 1;
	}
	unsigned char *p = r;
	memcpy(p, &h, sizeof h), p += sizeof h;
	memcpy(p, t->mod, t->nmod * sizeof *t->mod), p += t->nmod *
							  sizeof *t->mod;
	struct sbt_names_addr *a = (void *)p;
	memcpy(p, t->addr, n * sizeof *t->addr), p += n * sizeof *t->addr;
	qsort(a, n, sizeof *a, addr_cmp);
	memcpy(p, t->frame, t->nframe * sizeof *t->frame);
	p += t->nframe * sizeof *t->frame;
	memcpy(p, t->str, t->nstr);
	uLongf zlen = compressBound(raw);
	struct sbt_meta_names m = { .version = SBT_NAMES_VERSION,
				    .raw_len = (uint32_t)raw,
				    .crc = (uint32_t)crc32(0L, r, (uInt)raw) };
	if (!(z = malloc(sizeof m + zlen)))
		goto done;
	if (compress2(z + sizeof m, &zlen, r, raw, 9) != Z_OK)
		goto done;
	if (zlen > SBT_NAMES_ZMAX) {
		rc = 1;
		goto done;
	}
	m.zlen = (uint32_t)zlen;
	memcpy(z, &m, sizeof m);
	*out = z, *outlen = sizeof m + zlen;
	z = NULL;
	rc = 0;
done:
	free(r), free(z);
	return rc;
}

static void table_free(struct table *t)
{
	free(t->mod), free(t->modix), free(t->addr);
	free(t->frame), free(t->str), free(t->hash);
	memset(t, 0, sizeof *t);
}

static int write_all(int fd, const void *p, size_t n, uint64_t off)
{
	while (n) {
		ssize_t w = pwrite(fd, p, n, (off_t)off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p = (const char *)p + w, n -= (size_t)w, off += (uint64_t)w;
	}
	return 0;
}

/* Bytes [off, off + n) of fd on the disk before anything written after:
 * these only, not the rest of the log (fdatasync would write back every
 * page the recorder left dirty, seconds for a large log just written).
 * The file's new size may still be lost with a power cut: then so is the
 * whole chunk, and the log reads as before. */
static int settle(int fd, uint64_t off, uint64_t n)
{
	return sync_file_range(fd, (off_t)off, (off_t)n,
			       SYNC_FILE_RANGE_WAIT_BEFORE |
			       SYNC_FILE_RANGE_WRITE |
			       SYNC_FILE_RANGE_WAIT_AFTER);
}

/* The entry in a META chunk of its own at `off`: header with nothing
 * committed, the entry, then `used`.  0, or -1 (errno). */
static int append(int fd, uint64_t off, const unsigned char *entry,
		  size_t len)
{
	struct sbt_meta m = { .type = SBT_META_NAMES, .len = (uint32_t)len };
	size_t used = (sizeof m + len + 7) & ~(size_t)7;
	uint64_t size = (sizeof(struct sbt_chunk) + used + ALIGN - 1) &
			~(uint64_t)(ALIGN - 1);
	struct sbt_chunk ch = { .magic = SBT_CHUNK_MAGIC,
				.type = SBT_CHUNK_META, .size = size,
				.reserved = { SBT_NAMES_TAG } };
	uint64_t u = used;

	if (ftruncate(fd, (off_t)(off + size)) != 0 ||
	    write_all(fd, &ch, sizeof ch, off) != 0 ||
	    write_all(fd, &m, sizeof m, off + sizeof ch) != 0 ||
	    write_all(fd, entry, len, off + sizeof ch + sizeof m) != 0 ||
	    settle(fd, off, size) != 0 ||
	    write_all(fd, &u, sizeof u, off + offsetof(struct sbt_chunk,
						       used)) != 0 ||
	    settle(fd, off, sizeof ch) != 0)
		return -1;
	return 0;
}

/* Is the log's writer still running here?  Its chunks would then grow
 * past where ours goes. */
static int writer_running(const struct sbt_file_header *h)
{
	char host[256] = "";

	if (h->flags & SBT_HF_CLOSED || h->pid <= 0 ||
	    gethostname(host, sizeof host - 1) != 0 ||
	    strncmp(host, h->host, sizeof h->host) != 0)
		return 0;
	return kill(h->pid, 0) == 0 || errno == EPERM;
}

/* The log's names resolved and packed: 0 and *entry, 1 nothing to add
 * (msg), -1 (msg). */
static int names_of(const char *path, unsigned char **entry, size_t *elen,
		    size_t *naddr, uint32_t *nmod, uint64_t *end, char *msg,
		    size_t len)
{
	struct sbt_dataset ds = { 0 };
	struct table t = { 0 };
	struct want *w = NULL;
	char err[256], why[400] = "";
	size_t n = 0, fresh = 0;
	int cut = 0, rc = -1;

	if (sbt_read_log_meta(path, &ds, &cut, end, err, sizeof err) != 0) {
		snprintf(msg, len, "%s", err);
		goto out;
	}
	if (cut) {
		snprintf(msg, len, "cut short inside a chunk: a chunk added "
			 "would be read as that chunk's bytes; names not "
			 "embedded");
		goto out;
	}
	if (!(w = wanted(&ds, &n))) {
		snprintf(msg, len, "out of memory");
		goto out;
	}
	/* too big: the deepest frames left out first */
	for (;;) {
		if (resolve(&ds.sources[0], w, n, &t, &fresh, why,
			    sizeof why) != 0) {
			snprintf(msg, len, "out of memory");
			goto out;
		}
		if (!fresh || (rc = pack(&t, t.naddr, entry, elen)) != 1 ||
		    n < 2)
			break;
		table_free(&t);
		n /= 2;
	}
	if (!fresh) {
		rc = 1;
		if (ds.sources[0].names)
			snprintf(msg, len, "its names section holds every "
				 "name the binaries give: nothing to add");
		else
			snprintf(msg, len, "no name could be had here%s%s",
				 why[0] ? ": " : "", why);
		goto out;
	}
	if (rc != 0) {
		snprintf(msg, len, rc < 0 ? "out of memory" : "names too big "
			 "to embed");
		rc = -1;
		goto out;
	}
	*naddr = t.naddr, *nmod = t.nmod;
out:
	table_free(&t);
	free(w);
	sbt_ds_free(&ds);
	return rc;
}

int sbt_embed_names(const char *path, char *msg, size_t len)
{
	struct sbt_file_header h;
	unsigned char *entry = NULL;
	size_t elen = 0, naddr = 0;
	uint32_t nmod = 0;
	uint64_t end = 0;
	int fd = open(path, O_RDWR | O_CLOEXEC), rc = -1;

	if (fd < 0) {
		snprintf(msg, len, "%s", strerror(errno));
		return -1;
	}
#ifndef SBT_HAVE_LIBDW
	/* module + offset is all it could say: no names worth carrying */
	snprintf(msg, len, "this sbt-analyze was built without libdw: it "
		 "has no names to embed");
	close(fd);
	return -1;
#endif
	if (flock(fd, LOCK_EX) != 0 ||
	    pread(fd, &h, sizeof h, 0) != (ssize_t)sizeof h ||
	    memcmp(h.magic, SBT_LOG_MAGIC, 8) != 0) {
		snprintf(msg, len, "not an sbtmark log");
		goto out;
	}
	if (writer_running(&h)) {
		snprintf(msg, len, "its writer (pid %d) still runs here: "
			 "names not embedded", h.pid);
		goto out;
	}
	rc = names_of(path, &entry, &elen, &naddr, &nmod, &end, msg, len);
	if (rc != 0)
		goto out;
	end = (end + ALIGN - 1) & ~(uint64_t)(ALIGN - 1);
	if (append(fd, end, entry, elen) != 0) {
		snprintf(msg, len, "cannot write the names: %s",
			 strerror(errno));
		rc = -1;
		goto out;
	}
	snprintf(msg, len, "names of %zu addresses in %u modules embedded "
		 "(%zu bytes)", naddr, nmod, elen);
out:
	free(entry);
	close(fd);
	return rc;
}
