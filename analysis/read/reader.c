/*
 * reader.c - turn a log file into dataset samples, trusting nothing.
 *
 * The file is read with pread, never mapped: a log still being written (or
 * truncated under us) cannot fault the analyzer.  Every length and count
 * read from the file is checked against the file's size before use, so a
 * hostile file can make us read at most the file and allocate at most a
 * constant per sample it really contains.
 *
 * Damage is survived, not fatal: chunks are 4 KiB-aligned, so after a
 * corrupt or zeroed chunk header the reader moves on to the next 4 KiB
 * boundary and looks for a valid chunk there.
 *
 * Versions SBT_LOG_VERSION_MIN to SBT_LOG_VERSION of the format are read
 * (version 6 is version 5 plus JOIN and RELEASE events); older
 * development logs are refused by name.  Here:
 * the header, the meta data and the list of EVENTS chunks (one walk),
 * then the events, in segments of chunks parsed by up to -j threads and
 * merged in file order (segment.c, logread.h), then the raw ids mapped to
 * regions and sites.  A log holds each thread's START and STOP events,
 * paired per thread with the open-region stack the recorder kept: a STOP
 * closes the innermost open START of its site.  STARTs left open (in
 * flight at a crash, open at thread exit) are no samples; a STOP with no
 * START is damage.  SKIP events (sparse recording) count calls left out,
 * which go to the last held sample of their site (sample.skipped); COUNT
 * events (SBT_EVENTS) are handed to counters.c.  Under SBT_MAX_MB the
 * recorder thinned more as the log filled (THIN meta entries); the reader
 * evens that out, so every call is held alike.
 */
#include "reader.h"
#include "bigmem.h"
#include "counters.h"
#include "jobs.h"
#include "logread.h"
#include "names.h"
#include "osevents.h"
#include "thin.h"
#include "threads.h"
#include "sbtlog.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define ALIGN   4096u
#define BUFSZ   (1u << 20)
#define MISSED  3               /* live: read again, counted first */

#define warn sbt_log_warn

static int read_at(struct ctx *c, uint64_t off, void *p, size_t n)
{
	return sbt_log_read_at(c->fd, off, p, n);
}

int sbt_is_log(const char *path)
{
	char m[8];
	int fd = open(path, O_RDONLY | O_CLOEXEC), ok;

	if (fd < 0)
		return 0;
	ok = read(fd, m, 8) == 8 && memcmp(m, SBT_LOG_MAGIC, 8) == 0;
	close(fd);
	return ok;
}

/* ---- header -------------------------------------------------------------- */

static int check_header(struct ctx *c, char *err, size_t errlen)
{
	struct sbt_file_header *h = &c->h;

	if (c->fsize < sizeof *h || read_at(c, 0, h, sizeof *h) != 0) {
		snprintf(err, errlen, "too short to be an sbtmark log");
		return -1;
	}
	if (memcmp(h->magic, SBT_LOG_MAGIC, 8) != 0) {
		snprintf(err, errlen, "not an sbtmark log (bad magic)");
		return -1;
	}
	if (h->version < SBT_LOG_VERSION_MIN || h->version > SBT_LOG_VERSION) {
		snprintf(err, errlen, "unsupported log format version %u (this "
			 "sbt-analyze reads versions %u to %u)", h->version,
			 SBT_LOG_VERSION_MIN, SBT_LOG_VERSION);
		return -1;
	}
	if (h->header_size != SBT_HEADER_SIZE ||
	    h->record_size != sizeof(struct sbt_event)) {
		snprintf(err, errlen, "corrupt header (header size %u, record "
			 "size %u)", h->header_size, h->record_size);
		return -1;
	}
	if (h->tick_hz < 1000 || h->tick_hz > 100000000000ull) {
		snprintf(err, errlen, "corrupt header (clock %llu Hz)",
			 (unsigned long long)h->tick_hz);
		return -1;
	}
	return 0;
}

static void copy_str(char *dst, size_t n, const char *src, size_t srcn)
{
	size_t k = strnlen(src, srcn < n - 1 ? srcn : n - 1);
	memcpy(dst, src, k);
	dst[k] = 0;
}

static void fill_source(struct ctx *c)
{
	struct sbt_source *s = c->src;
	struct sbt_file_header *h = &c->h;
	double tns = 1e9 / (double)h->tick_hz;

	s->tick_ns = tns;
	s->quantum_ns = h->tick_quantum * tns;
	s->te_ns = h->te_min_ticks * tns;
	s->te_p50_ns = h->te_p50_ticks * tns;
	s->te_p999_ns = h->te_p999_ticks * tns;
	s->te_cycles = (double)h->te_min_cycles;
	s->kernel_entry_ns = h->kernel_entry_ns;
	s->has_cycles = !!(h->clocks & SBT_CLOCK_CYCLES);
	s->pid = h->pid;
	s->rank = h->rank;
	s->start_unix_ns = h->start_unix_ns;
	s->probe_period = h->probe_period;
	copy_str(s->host, sizeof s->host, h->host, sizeof h->host);
	copy_str(s->exe, sizeof s->exe, h->exe, sizeof h->exe);
	copy_str(s->cpu_model, sizeof s->cpu_model, h->cpu_model,
		 sizeof h->cpu_model);
	memcpy(s->counters, h->counters, sizeof s->counters);
	s->truncated = !(h->flags & SBT_HF_CLOSED);
	s->os_state = h->os_events <= SBT_OS_UNAVAILABLE ? h->os_events
							 : SBT_OS_NONE;
	copy_str(s->os_note, sizeof s->os_note, h->os_note,
		 sizeof h->os_note);
	s->os_pages = h->os_pages;
	s->max_mb = h->max_mb;
	s->cpu_from = h->cpu_from, s->clock_read = h->clock_read;
	s->ncpus = h->ncpus;
	s->fault_ns = h->fault_ns;
	s->fault_record_ns = h->fault_record_ns;
	s->fault_rate_max = h->fault_rate_max;
	s->log_wait_ns = h->log_wait_ns, s->log_late_bytes = h->log_late_bytes;
	s->thin_level = h->thin_level < SBT_THIN_MAX ? h->thin_level
						     : SBT_THIN_MAX;
	for (uint32_t k = 1; k <= SBT_THIN_MAX; k++)
		s->thin_at_ns[k] = -1;          /* no THIN entry (yet) */
}

/* ---- meta ----------------------------------------------------------------- */

/* A THIN entry: the recorder's thinning level rose to `level` at `t`. */
/* The log's names section is cut short: left out, as the note says. */
static void names_cut(struct ctx *c)
{
	snprintf(c->src->names_note, sizeof c->src->names_note, "has a names "
		 "section cut short: left out, names from the binaries");
}

static void meta_thin(struct ctx *c, const char *p, uint32_t len)
{
	struct sbt_meta_thin m;
	struct sbt_source *s = c->src;

	if (len < sizeof m)
		return;
	memcpy(&m, p, sizeof m);
	if (m.level < 1 || m.level > SBT_THIN_MAX) {
		warn(c, "a THIN entry of level %u (damaged log)", m.level);
		return;
	}
	double t = m.t >= c->h.start_ticks ?
		   (double)(m.t - c->h.start_ticks) * s->tick_ns : 0;
	if (s->thin_at_ns[m.level] < 0 || t < s->thin_at_ns[m.level])
		s->thin_at_ns[m.level] = t;
	if (m.level > s->thin_level)
		s->thin_level = m.level;
}

/* After the meta pass: a level with no entry (its META chunk could not
 * be had, or a crash between the level and its entry) began no later
 * than the next; the final level's is unknown: its few samples are held
 * as the level before's. */
static void thin_finish(struct ctx *c)
{
	struct sbt_source *s = c->src;

	s->thin_at_ns[0] = 0;
	for (uint32_t k = s->thin_level; k >= 1; k--)
		if (s->thin_at_ns[k] < 0)
			s->thin_at_ns[k] = k == s->thin_level ? 1e300 :
					   s->thin_at_ns[k + 1];
	c->thin |= s->thin_level > 0;
}

static void meta_region(struct ctx *c, const char *p, uint32_t len)
{
	struct sbt_meta_region mr;
	long r;

	if (len <= sizeof mr) {
		warn(c, "corrupt region entry");
		return;
	}
	memcpy(&mr, p, sizeof mr);
	if (mr.id == 0 || mr.id >= (1u << SBT_EV_ID_BITS) ||
	    mr.id >= c->max_id ||
	    mr.api >= SBT_API__N) {
		warn(c, "corrupt region entry (id %u)", mr.id);
		return;
	}
	r = sbt_ds_region(c->ds, p + sizeof mr, len - sizeof mr, mr.api);
	if (r < 0 || sbt_log_map_set(&c->map, mr.id, r) != 0)
		return;
	if (!c->ds->regions[r].site) {
		c->ds->regions[r].site = mr.site;
		c->ds->regions[r].source = c->srci;
	}
}

static void meta_module(struct ctx *c, const char *p, uint32_t len)
{
	struct sbt_meta_module mm;
	struct sbt_source *s = c->src;

	if (len <= sizeof mm)
		return;
	memcpy(&mm, p, sizeof mm);
	/* doubling: a damaged log can list a module per few dozen bytes */
	if ((s->nmodules & (s->nmodules - 1)) == 0) {
		size_t cap = s->nmodules ? 2 * s->nmodules : 1;
		void *n = realloc(s->modules, cap * sizeof *s->modules);
		if (!n)
			return;
		s->modules = n;
	}
	struct sbt_module *m = &s->modules[s->nmodules];
	m->base = mm.base, m->lo = mm.lo, m->hi = mm.hi;
	m->build_id_len = 0;
	if ((m->path = malloc(len - sizeof mm + 1))) {
		memcpy(m->path, p + sizeof mm, len - sizeof mm);
		m->path[len - sizeof mm] = 0;
		s->nmodules++;
	}
}

/* Site `key` (its id in the log) with its frames, unless it has them
 * already.  Its dataset index, or -1. */
static long add_site(struct ctx *c, uint32_t key, const char *frames,
		     uint32_t depth)
{
	long i;

	if (key < c->sitemap.n && c->sitemap.ds[key] >= 0)
		return -1;
	i = sbt_ds_site(c->ds, c->srci, (const uint64_t *)(const void *)frames,
			depth);
	return i >= 0 && sbt_log_map_set(&c->sitemap, key, i) == 0 ? i : -1;
}

/* One SITE2 entry per (region, call site). */
static void meta_site2(struct ctx *c, const char *p, uint32_t len)
{
	struct sbt_meta_site2 ms;

	if (len < sizeof ms)
		return;
	memcpy(&ms, p, sizeof ms);
	if (ms.depth > (len - sizeof ms) / sizeof(uint64_t) || ms.id == 0 ||
	    ms.id >= c->max_id || ms.region == 0 || ms.region >= c->max_id) {
		warn(c, "corrupt call-site entry");
		return;
	}
	/* a site described again (a fork child's log) keeps the first */
	if (add_site(c, ms.id, p + sizeof ms, ms.depth) >= 0)
		(void)sbt_log_map_set(&c->siteregion, ms.id, ms.region);
}

/* The build-id of the module described just before (same lo). */
static void meta_buildid(struct ctx *c, const char *p, uint32_t len)
{
	struct sbt_meta_buildid mb;
	struct sbt_source *s = c->src;

	if (len < sizeof mb)
		return;
	memcpy(&mb, p, sizeof mb);
	if (mb.len == 0 || mb.len > SBT_BUILDID_MAX ||
	    mb.len > len - sizeof mb)
		return;
	/* the recorder writes it right after its module: no search */
	if (s->nmodules && s->modules[s->nmodules - 1].lo == mb.lo) {
		struct sbt_module *m = &s->modules[s->nmodules - 1];
		memcpy(m->build_id, p + sizeof mb, mb.len);
		m->build_id_len = mb.len;
	}
}

/* A run of one thread's OS events; kept for the join after pairing. */
static void meta_os(struct ctx *c, const char *p, uint32_t len)
{
	struct sbt_meta_os mo;
	const double tns = c->src->tick_ns;

	if (len < sizeof mo)
		return;
	memcpy(&mo, p, sizeof mo);
	if (mo.n > (len - sizeof mo) / sizeof(struct sbt_os_event)) {
		warn(c, "corrupt OS events entry (damaged meta data)");
		return;
	}
	if (c->ncov == c->cap_cov) {
		size_t cap = c->cap_cov ? 2 * c->cap_cov : 64;
		void *n = realloc(c->cov, cap * sizeof *c->cov);
		if (!n) {
			warn(c, "out of memory for OS events: left out");
			return;
		}
		c->cov = n, c->cap_cov = cap;
	}
	c->cov[c->ncov++] = (struct sbt_os_cover){
		mo.until >= c->h.start_ticks ?
		(double)(mo.until - c->h.start_ticks) * tns : 0, mo.thread };
	if (c->nos + mo.n > c->cap_os) {
		size_t cap = c->cap_os ? 2 * c->cap_os : 1024;
		while (cap < c->nos + mo.n)
			cap *= 2;
		void *n = realloc(c->os, cap * sizeof *c->os);
		if (!n) {
			warn(c, "out of memory for OS events: left out");
			return;
		}
		c->os = n, c->cap_os = cap;
	}
	for (uint32_t i = 0; i < mo.n; i++) {
		struct sbt_os_event e;
		memcpy(&e, p + sizeof mo + i * sizeof e, sizeof e);
		if (e.kind < SBT_OS_SWITCH_OUT || e.kind > SBT_OS_LOST)
			continue;       /* newer kinds */
		if (e.kind == SBT_OS_LOST)    /* 0: at least one */
			c->src->os_lost += e.count ? e.count : 1;
		if (e.kind == SBT_OS_FAULT && e.count > 1) {  /* a storm */
			c->src->os_faults_sampled += e.count;
			if (e.count > c->src->os_fault_k)
				c->src->os_fault_k = e.count;
		}
		c->os[c->nos++] = (struct sbt_os_rec){
			.t_ns = e.t >= c->h.start_ticks ?
				(double)(e.t - c->h.start_ticks) * tns : 0,
			.thread = mo.thread, .kind = e.kind,
			.count = e.count };
	}
}

/* The speed probes' workload and cadence (version 5). */
static void meta_speed(struct ctx *c, const void *p, uint32_t len)
{
	struct sbt_meta_speed m;

	if (len < sizeof m)
		return;
	memcpy(&m, p, sizeof m);
	c->src->speed_ops = m.ops;
	c->src->speed_cadence_us = m.cadence_us;
}

/* A run of one thread's memory-latency probes (META MEMLAT): the
 * dataset's second probe axis, its cpus read as the events' are. */
static void meta_memlat(struct ctx *c, const char *p, uint32_t len)
{
	struct sbt_meta_memlat m;
	const double tns = c->src->tick_ns;

	if (len < sizeof m)
		return;
	memcpy(&m, p, sizeof m);
	if (m.n > (len - sizeof m) / sizeof(struct sbt_memlat)) {
		warn(c, "corrupt memory-latency entry (damaged meta data)");
		return;
	}
	for (uint32_t i = 0; i < m.n; i++) {
		struct sbt_memlat e;
		memcpy(&e, p + sizeof m + i * sizeof e, sizeof e);
		uint32_t cpu = SBT_AUX_CPU(e.aux);
		struct sbt_probe q = {
			.t_ns = e.t >= c->h.start_ticks ?
				(double)(e.t - c->h.start_ticks) * tns : 0,
			.ns = (double)e.ticks * tns, .thread = m.thread,
			.source = c->srci,
			.cpu = (uint16_t)(!(c->h.flags & SBT_HF_CPU_AUX) ||
				e.aux == SBT_AUX_UNKNOWN || (c->h.ncpus &&
				cpu >= c->h.ncpus) ? SBT_CPU_UNKNOWN : cpu) };
		if (sbt_ds_mprobe(c->ds, &q) != 0) {
			warn(c, "out of memory for memory-latency probes: "
			     "left out");
			return;
		}
	}
}

/* The names section (appended after the run): a later valid one
 * replaces an earlier one; a damaged one is left out with a note, the
 * log itself being whole. */
static void meta_names(struct ctx *c, const char *p, uint32_t len)
{
	struct sbt_source *s = c->src;
	struct sbt_names *n;
	char why[96];

	if (sbt_names_parse(s, p, len, &n, why, sizeof why) != 0) {
		snprintf(s->names_note, sizeof s->names_note, "has a names "
			 "section %s: left out, names from the binaries", why);
		return;
	}
	free(s->names);
	s->names = n;
	s->names_note[0] = 0;
}

/* A window of a META chunk's payload in c->buf: [*wpos, *wpos + *wlen).
 * Makes it hold [pos, pos + n), reading as much of the payload from pos
 * on as the buffer takes: a chunk of small entries costs one read, not
 * two per entry.  0 when the file does not hold it (cut short). */
static int meta_window(struct ctx *c, uint64_t off, uint64_t used, uint64_t pos,
		       uint64_t n, uint64_t *wpos, uint64_t *wlen)
{
	if (pos >= *wpos && pos + n <= *wpos + *wlen)
		return 1;
	uint64_t want = used - pos < c->bufsz ? used - pos : c->bufsz;
	if (want < n || read_at(c, off + pos, c->buf, (size_t)want) != 0)
		return 0;
	*wpos = pos, *wlen = want;
	return 1;
}

/* names: the names chunk, whose damage is the section's, not the log's */
static void read_meta(struct ctx *c, uint64_t off, uint64_t used, int names)
{
	uint64_t pos = 0, wpos = 0, wlen = 0;

	while (pos + sizeof(struct sbt_meta) <= used) {
		struct sbt_meta m;
		uint64_t at = pos;

		if (!meta_window(c, off, used, at, sizeof m, &wpos, &wlen))
			return;
		memcpy(&m, c->buf + (at - wpos), sizeof m);
		pos += sizeof m;
		if (m.len > used - pos || m.len > BUFSZ) {
			if (names)
				names_cut(c);
			else
				warn(c, "corrupt meta entry at offset %llu",
				     (unsigned long long)(off + at));
			return;
		}
		if (!meta_window(c, off, used, at, sizeof m + m.len, &wpos,
				 &wlen))
			return;
		const char *p = c->buf + (pos - wpos);
		switch (m.type) {
		case SBT_META_REGION: meta_region(c, p, m.len); break;
		case SBT_META_MODULE: meta_module(c, p, m.len); break;
		case SBT_META_BUILDID: meta_buildid(c, p, m.len); break;
		case SBT_META_SITE2:  meta_site2(c, p, m.len); break;
		case SBT_META_OS:     meta_os(c, p, m.len); break;
		case SBT_META_THIN:   meta_thin(c, p, m.len); break;
		case SBT_META_THREAD:
			if (sbt_threads_note(c->src, p, m.len) != 0)
				warn(c, "a THREAD entry left out (damaged "
				     "log or out of memory)");
			break;
		case SBT_META_SPEED:  meta_speed(c, p, m.len); break;
		case SBT_META_NAMES:  meta_names(c, p, m.len); break;
		case SBT_META_MEMLAT: meta_memlat(c, p, m.len); break;
		case SBT_META_COUNTER:  /* out of memory: not shown */
			(void)sbt_cnt_meta(c->ds, c->srci, p, m.len);
			break;
		default: break;         /* newer kinds: skip */
		}
		pos = (pos + m.len + 7) & ~7ull;
	}
}

/* ---- chunks -------------------------------------------------------------------- */

/* Bytes of the event stream in [off, off + room) up to its first zero
 * word: where a chunk whose size is damaged really ends. */
static uint64_t stream_len(struct ctx *c, uint64_t off, uint64_t room)
{
	uint64_t pos = 0;

	while (pos < room) {
		size_t n = room - pos > BUFSZ ? BUFSZ : (size_t)(room - pos);
		n -= n % sizeof(struct sbt_event);
		if (n == 0 || read_at(c, off + pos, c->buf, n) != 0)
			return pos;
		const struct sbt_event *e = (const void *)c->buf;
		for (size_t i = 0; i < n / sizeof *e; i++)
			if (e[i].word == 0)
				return pos + i * sizeof *e;
		pos += n;
	}
	return pos;
}

static int add_chunk(struct ctx *c, uint64_t off, uint64_t used,
		     uint32_t thread)
{
	if (c->nchunks == c->cap_chunks) {
		size_t cap = c->cap_chunks ? 2 * c->cap_chunks : 256;
		void *n = realloc(c->chunks, cap * sizeof *c->chunks);
		if (!n)
			return -1;
		c->chunks = n, c->cap_chunks = cap;
	}
	c->chunks[c->nchunks++] = (struct chunk_at){ off, used, thread };
	if (thread + 1 > c->src->nthreads)
		c->src->nthreads = thread + 1;
	return 0;
}

/* Walk the chunks: read the meta data (names must be known before the
 * events) and list the EVENTS chunks, in file order. */
static int walk(struct ctx *c)
{
	uint64_t off = SBT_HEADER_SIZE, zero_run = 0;

	while (off + sizeof(struct sbt_chunk) <= c->fsize) {
		struct sbt_chunk ch;

		if (read_at(c, off, &ch, sizeof ch) != 0)
			break;
		if (ch.magic == 0) {            /* hole or preallocated tail */
			/* Jump over sparse holes at once: a hostile sparse
			 * file must not keep us reading zeros for hours. */
			off_t d = lseek(c->fd, (off_t)(off + ALIGN), SEEK_DATA);
			uint64_t next = d > 0 ? ((uint64_t)d & ~(uint64_t)
				(ALIGN - 1)) : c->fsize;
			if (d < 0 && errno != ENXIO)
				next = off + ALIGN;
			if (next <= off)
				next = off + ALIGN;
			zero_run += next - off;
			off = next;
			continue;
		}
		/* A thread number drives per-thread tables here and in
		 * scoring: one beyond any the file could hold is damage. */
		if (ch.magic != SBT_CHUNK_MAGIC || ch.size < ALIGN ||
		    ch.size % ALIGN || ch.thread >= c->max_id ||
		    (ch.type != SBT_CHUNK_META &&
		    ch.type != SBT_CHUNK_PAD && ch.type != SBT_CHUNK_EVENTS)) {
			c->bad_chunks++;
			warn(c, "corrupt chunk at offset %llu; skipped to the "
			     "next valid one", (unsigned long long)off);
			off += ALIGN;
			continue;
		}
		/* the names chunk is appended after the file's zero tail */
		if (zero_run && !(ch.type == SBT_CHUNK_META &&
				  ch.reserved[0] == SBT_NAMES_TAG))
			c->holes++;
		zero_run = 0;
		int names = ch.type == SBT_CHUNK_META &&
			    ch.reserved[0] == SBT_NAMES_TAG;
		if (off + ch.size > c->end)
			c->end = off + ch.size;
		uint64_t room = ch.size - sizeof ch;
		uint64_t avail = c->fsize - off - sizeof ch;
		uint64_t used = ch.type == SBT_CHUNK_EVENTS ? room : ch.used;
		if (ch.type == SBT_CHUNK_EVENTS && ch.used)
			warn(c, "events chunk at offset %llu claims a length",
			     (unsigned long long)off);
		if (used > room) {
			warn(c, "chunk at offset %llu claims %llu bytes in %llu",
			     (unsigned long long)off, (unsigned long long)used,
			     (unsigned long long)room);
			used = room;
		}
		if (used > avail) {
			c->cut |= !names;
			if (names)
				names_cut(c);
			else
				warn(c, "file cut short inside a chunk at "
				     "offset %llu", (unsigned long long)off);
			used = avail;
		}
		if (ch.type == SBT_CHUNK_EVENTS) {
			if (add_chunk(c, off + sizeof ch, used, ch.thread) != 0)
				return -1;
		} else if (ch.type == SBT_CHUNK_META) {
			read_meta(c, off + sizeof ch, used, names);
		}
		if (ch.size <= c->fsize - off) {
			off += ch.size;
		} else {
			/* The recorder never writes a chunk past the file's
			 * end: the size is damaged (or the file cut).  Resume
			 * after the bytes it holds, not at the end of file. */
			c->cut |= !names;
			if (!names)
				warn(c, "chunk at offset %llu runs past the "
				     "end of the file", (unsigned long long)off);
			if (ch.type == SBT_CHUNK_EVENTS)
				used = stream_len(c, off + sizeof ch, used);
			off += (sizeof ch + used + ALIGN - 1) &
			       ~(uint64_t)(ALIGN - 1);
		}
	}
	return 0;
}

/* ---- events ---------------------------------------------------------------------- */

/* Live: sh (a plan's shares, or NULL) kept until the log is closed, as
 * segments may still hold at it.  0, or -1 out of memory. */
static int keep_shares(struct ctx *c, double *sh)
{
	double **n = sh ? realloc(c->shares, (c->nshares + 1) * sizeof *n)
			: NULL;

	if (!n) {
		free(sh);
		return -1;
	}
	c->shares = n;
	c->shares[c->nshares++] = sh;
	return 0;
}

/* What each call site id means to the event pass (logread.h), when it
 * counts or thins: its region's share and hash, or the placeholder
 * sbt_log_region would make for it.  The last entry: a site with no
 * SITE2 entry. */
static int site_infos(struct ctx *c)
{
	struct sbt_dataset *ds = c->ds;

	c->site0 = ds->nsites;
	for (uint32_t id = 0; id < c->sitemap.n; id++)
		if (c->sitemap.ds[id] >= 0 && (size_t)c->sitemap.ds[id] <
		    c->site0)
			c->site0 = (size_t)c->sitemap.ds[id];
	c->ninfo = ds->nsites - c->site0 + 1;
	if (!(c->info = calloc(c->ninfo, sizeof *c->info)))
		return -1;
	for (size_t k = 0; k < c->ninfo; k++)
		c->info[k].raw = UINT32_MAX;
	for (uint32_t id = 0; id < c->siteregion.n; id++)
		if (c->siteregion.ds[id] >= 0 && c->sitemap.ds[id] >= 0)
			c->info[c->sitemap.ds[id] - (int64_t)c->site0].raw =
				(uint32_t)c->siteregion.ds[id];
	for (size_t k = 0; k < c->ninfo; k++) {
		struct site_info *in = &c->info[k];
		char name[32];
		long r = -1;
		if (in->raw < c->map.n && c->map.ds[in->raw] >= 0) {
			r = c->map.ds[in->raw];
			in->named = 1;
		} else {
			if (in->raw >= c->max_id)
				snprintf(name, sizeof name, "<bad region id>");
			else
				snprintf(name, sizeof name, "<region %u>",
					 in->raw);
			r = sbt_ds_find(ds, name, SBT_API_SBTMARK);
		}
		in->keep = r >= 0 ? ds->regions[r].keep : 1;
		in->key = r >= 0 ? sbt_thin_key_base(c->src,
						     ds->regions[r].name,
						     ds->regions[r].api) :
			  sbt_thin_key_base(c->src, name, SBT_API_SBTMARK);
	}
	if ((c->counting || c->live) &&
	    !(c->counts = calloc(c->ninfo, sizeof *c->counts)))
		return -1;
	if (c->live) {                  /* all held until the budget */
		if (keep_shares(c, c->share = sbt_hold_plan(c, 0)) != 0)
			return -1;
	}
	return 0;
}

/* Segments read at once by `jobs` threads (the ordered pool, jobs.h),
 * merged in file order.  Their sample arrays are handed on from merged
 * segments to new ones: fresh pages cost a fault and zeroing each, and
 * freed ones linger in the threads' malloc arenas. */
#define SPARES (SBT_JOBS_MAX + 2)

struct segs {
	struct ctx *c;
	struct seg *g;
	pthread_mutex_t mu;             /* all below, and c->share         */
	struct spare { struct sbt_sample *s; uint8_t *dead; size_t cap; }
		spare[SPARES];
	int nspare;
	/* The dataset's samples as the merge last left them, and what the
	 * parsed, unmerged segments will add: the merge writes no further
	 * than tail + pending, and its fresh pages up to there are faulted
	 * in by the parsing threads (filled: so far), not by the merge,
	 * which all of them wait for. */
	struct sbt_sample *s;
	size_t cap, tail, pending, filled;
	size_t *kept;                   /* per segment, in pending         */
	int jobs;
};

/* The samples segment g holds for the dataset. */
static size_t seg_kept(const struct seg *g)
{
	size_t kept = 0;

	for (size_t i = 0; i < g->n; i++)
		kept += !g->dead[i];
	return kept;
}

/* The dataset's pages that segment i's merge may write, faulted in
 * here.  The array may move meanwhile (a merge's reserve): populating
 * the old one writes nothing, it only costs the time. */
static void fill_ahead(struct segs *p, size_t i)
{
	size_t kept = p->g[i].oom ? 0 : seg_kept(&p->g[i]), lo, hi;
	struct sbt_sample *s;

	pthread_mutex_lock(&p->mu);
	p->kept[i] = kept;
	p->pending += kept;
	s = p->s, lo = p->filled;
	hi = p->tail + p->pending < p->cap ? p->tail + p->pending : p->cap;
	if (hi > lo)
		p->filled = hi;
	pthread_mutex_unlock(&p->mu);
	if (hi > lo)
		big_populate(s + lo, (hi - lo) * sizeof *s);
}

/* After a merge: where the dataset's array now ends, and holds. */
static void fill_merged(struct segs *p, size_t i)
{
	struct sbt_dataset *ds = p->c->ds;

	pthread_mutex_lock(&p->mu);
	p->pending -= p->kept[i];
	p->tail = ds->n;
	if (p->s != ds->s)              /* moved: its copy is touched */
		p->filled = ds->n;
	p->s = ds->s, p->cap = ds->cap;
	pthread_mutex_unlock(&p->mu);
}

static void seg_work(void *arg, size_t i)
{
	struct segs *p = arg;
	struct seg *g = &p->g[i];

	pthread_mutex_lock(&p->mu);
	if (p->nspare) {
		struct spare *x = &p->spare[--p->nspare];
		g->s = x->s, g->dead = x->dead, g->cap = x->cap;
	}
	g->share = p->c->share;
	pthread_mutex_unlock(&p->mu);
	if (g->dead)
		memset(g->dead, 0, g->cap);
	(void)sbt_seg_parse(p->c, g);   /* g->oom tells */
	fill_ahead(p, i);
}

/* Live: past c->hold_max samples, and once a 32nd of the log is read
 * (the first guess: fewer held, fewer pages touched), the plan of the
 * counts so far, and the held samples compacted to it (hold.c).  0, or
 * -1 out of memory. */
static int hold(struct segs *p)
{
	struct ctx *c = p->c;

	if (!c->live || (c->ds->n - c->first <= c->hold_max &&
			 (c->guessed || c->bytes_done < c->bytes_total / 32)))
		return 0;
	c->guessed = 1;
	double *sh = sbt_hold_plan(c, 0);
	if (keep_shares(c, sh) != 0)
		return -1;
	pthread_mutex_lock(&p->mu);     /* segments parsed from now on */
	c->share = sh;
	pthread_mutex_unlock(&p->mu);
	sbt_hold_compact(c, p->jobs);
	return 0;
}

static int seg_merge(void *arg, size_t i)
{
	struct segs *p = arg;
	struct seg *g = &p->g[i];

	for (size_t k = g->c0; k < g->c1; k++)
		p->c->bytes_done += p->c->chunks[k].used;
	int rc = g->oom || sbt_seg_merge(p->c, g) != 0 || hold(p) != 0;

	fill_merged(p, i);
	pthread_mutex_lock(&p->mu);
	if (g->s && p->nspare < SPARES) {
		p->spare[p->nspare++] = (struct spare){ g->s, g->dead, g->cap };
		g->s = NULL, g->dead = NULL, g->cap = 0;
	}
	pthread_mutex_unlock(&p->mu);
	sbt_seg_free(g);
	return rc ? -1 : 0;
}

/* Segments of about `bytes` of events each, whole chunks. */
static size_t cut(struct ctx *c, struct seg **out, uint64_t bytes)
{
	size_t n = 0, cap = 0;
	struct seg *g = NULL;

	for (size_t i = 0; i < c->nchunks; ) {
		uint64_t sum = 0;
		size_t j = i;
		while (j < c->nchunks && (j == i || sum + c->chunks[j].used <=
					  bytes))
			sum += c->chunks[j++].used;
		if (n == cap) {
			cap = cap ? 2 * cap : 16;
			void *p = realloc(g, cap * sizeof *g);
			if (!p) {
				free(g);
				return 0;
			}
			g = p;
		}
		memset(&g[n], 0, sizeof g[n]);
		g[n].c0 = i, g[n].c1 = j, g[n].first = n == 0;
		n++;
		i = j;
	}
	*out = g;
	return n;
}

/* Live, after the last segment: the final plan and the held samples
 * compacted to it; the array's room beyond them given back.  0, -1 out
 * of memory, or MISSED: a share was guessed below the final one. */
static int hold_final(struct ctx *c, int jobs)
{
	if (keep_shares(c, c->share = sbt_hold_plan(c, 1)) != 0)
		return -1;
	if (sbt_hold_missed(c))
		return MISSED;
	sbt_hold_compact(c, jobs);
	struct sbt_dataset *ds = c->ds;
	if (ds->cap > ds->n + ds->n / 8 + 4096) {
		void *s = realloc(ds->s, (ds->n + 4096) * sizeof *ds->s);
		if (s)
			ds->s = s, ds->cap = ds->n + 4096;
	}
	return 0;
}

/* The events of every chunk, in segments read by up to `jobs` threads
 * at once.  0, or -1 when out of memory. */
static int events(struct ctx *c, int jobs)
{
	uint64_t total = 0;
	struct seg one = { .c0 = 0, .c1 = c->nchunks, .first = 1,
			   .direct = 1 };

	if ((c->counting || c->thin) && site_infos(c) != 0)
		return -1;
	for (size_t i = 0; i < c->nchunks; i++)
		total += c->chunks[i].used;
	c->bytes_total = total;
	/* A segment of 1-4 MB: a few per thread, their samples held at
	 * once only while they wait for the merge. */
	uint64_t bytes = c->seg_bytes ? c->seg_bytes :
			 total / (4 * (uint64_t)(jobs > 0 ? jobs : 1));
	if (!c->seg_bytes)
		bytes = bytes < (1u << 20) ? 1u << 20 : bytes > (4u << 20) ?
			4u << 20 : bytes;
	/* COUNT readings follow their STARTs across chunks: one piece.
	 * One thread reads in segments only when they are asked for (a
	 * test of the merge), or live (compacted between them): in turn,
	 * here. */
	if (!c->live && ((jobs <= 1 && !c->seg_bytes) || c->cnt_on ||
			 total <= bytes)) {
		int rc = sbt_seg_parse(c, &one) || sbt_seg_merge(c, &one);
		sbt_seg_free(&one);
		return rc ? -1 : 0;
	}
	struct segs p = { .c = c, .s = c->ds->s, .cap = c->ds->cap,
			  .tail = c->ds->n, .filled = c->ds->n, .jobs = jobs };
	size_t n = cut(c, &p.g, bytes);
	if (!n && c->nchunks)
		return -1;
	if (!n)                         /* live, and no events */
		return hold_final(c, jobs);
	if (!(p.kept = calloc(n, sizeof *p.kept))) {
		for (size_t i = 0; i < n; i++)
			sbt_seg_free(&p.g[i]);
		free(p.g);
		return -1;
	}
	pthread_mutex_init(&p.mu, NULL);
	int rc = sbt_jobs_ordered(n, jobs, jobs > 1 ? 2 * (size_t)jobs : 1,
				  seg_work, seg_merge, &p);
	for (size_t i = 0; i < n; i++)
		sbt_seg_free(&p.g[i]);
	for (int i = 0; i < p.nspare; i++)
		free(p.spare[i].s), free(p.spare[i].dead);
	free(p.g), free(p.kept);
	pthread_mutex_destroy(&p.mu);
	if (rc == 0 && c->live)
		rc = hold_final(c, jobs);
	/* what the segments freed stays in the heap (main.c): the
	 * analysis's scratch (bigmem.h) takes it instead of fresh pages */
	return rc;
}

static int cmp_reset(const void *a, const void *b)
{
	const struct reset *x = a, *y = b;
	if (x->id != y->id) return x->id < y->id ? -1 : 1;
	if (x->thread != y->thread) return x->thread < y->thread ? -1 : 1;
	return (x->t_ns > y->t_ns) - (x->t_ns < y->t_ns);
}

/* Does a RESET of raw region id (latest per thread wins) discard s? */
static int before_reset(const struct ctx *c, uint32_t id,
			const struct sbt_sample *s)
{
	struct reset key = { id, s->thread, 1e300 }, *lo = c->resets,
		     *hi = c->resets + c->nresets;

	/* last reset of (id, thread): upper bound search */
	while (lo < hi) {
		struct reset *mid = lo + (hi - lo) / 2;
		if (cmp_reset(mid, &key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > c->resets && lo[-1].id == id &&
	       lo[-1].thread == s->thread && s->t_ns < lo[-1].t_ns;
}

/* Sample s's raw site id mapped to its region and site, which may make
 * the region (a damaged log's).  0, or -1 out of memory. */
static int map_one(struct ctx *c, struct sbt_sample *s)
{
	uint32_t id = s->region;
	int64_t site = -1;

	/* id is a site: its region */
	if (id < c->siteregion.n && c->siteregion.ds[id] >= 0)
		site = c->sitemap.ds[id];
	id = site >= 0 ? (uint32_t)c->siteregion.ds[id] : UINT32_MAX;
	if (c->nresets && before_reset(c, id, s))
		s->flags |= SBT_SF_BEFORE_RESET;
	int64_t r = sbt_log_region(c, id);
	if (r < 0)
		return -1;
	s->region = (uint32_t)r;
	s->site = SBT_SITE_NONE;
	if (site >= 0) {
		s->site = (uint32_t)site;
		struct sbt_site *st = &c->ds->sites[s->site];
		st->region = s->region;
		st->count++;
	}
	return 0;
}

/* The mapping in fixed blocks on -j threads, from a table of each raw
 * site id whose region and site are made already (tab; region -1: not
 * so).  A block stops at its first sample the table cannot map (stop[b])
 * and the rest of it is mapped after, in turn and in order, by map_one:
 * regions are made in the order of the samples that need them, as one
 * walk makes them.  Each site's samples counted per block (cnt[b][id])
 * and added after. */
struct idtab { int64_t region, site; uint32_t raw; };

struct maps {
	const struct ctx *c;
	const struct idtab *tab;
	size_t ntab, nb, n;
	uint32_t *cnt;                /* [nb][ntab]                      */
	size_t *stop;                 /* [nb]                            */
};

static size_t map_lo(const struct maps *m, size_t b)
{
	return m->c->first + (size_t)((unsigned __int128)b * m->n / m->nb);
}

static void map_block(void *arg, size_t b, int w)
{
	struct maps *m = arg;
	const struct ctx *c = m->c;
	uint32_t *cnt = m->cnt + b * m->ntab;
	size_t i, hi = map_lo(m, b + 1);

	(void)w;
	for (i = map_lo(m, b); i < hi; i++) {
		struct sbt_sample *s = &c->ds->s[i];
		uint32_t id = s->region;
		if (id >= m->ntab || m->tab[id].region < 0)
			break;
		if (c->nresets && before_reset(c, m->tab[id].raw, s))
			s->flags |= SBT_SF_BEFORE_RESET;
		s->region = (uint32_t)m->tab[id].region;
		s->site = (uint32_t)m->tab[id].site;
		cnt[id]++;
	}
	m->stop[b] = i;
}

/* The table: a site id whose region is in the log's map. */
static struct idtab *id_table(const struct ctx *c, size_t *n)
{
	struct idtab *tab = malloc((c->siteregion.n + 1) * sizeof *tab);

	*n = c->siteregion.n;
	for (size_t id = 0; tab && id < *n; id++) {
		int64_t raw = c->siteregion.ds[id];
		tab[id].region = -1;
		if (raw < 0)
			continue;
		tab[id].raw = (uint32_t)raw;
		tab[id].site = c->sitemap.ds[id];
		if (tab[id].site >= 0 && (uint64_t)raw < c->map.n &&
		    c->map.ds[raw] >= 0)
			tab[id].region = c->map.ds[raw];
	}
	return tab;
}

/* Map raw ids to regions; apply RESET events (latest per thread wins). */
static int finish(struct ctx *c, int jobs)
{
	struct maps m = { .c = c, .n = c->ds->n - c->first };
	struct idtab *tab = NULL;
	int rc = -1;

	if (sbt_seg_joins(c, jobs) != 0)
		return -1;
	if (c->nunreleased)
		sbt_log_warn(c, "%zu OpenMP barrier waits whose team's release "
			     "is not in the log (cut short?): their own end "
			     "kept", c->nunreleased);
	if (c->nresets)
		qsort(c->resets, c->nresets, sizeof *c->resets, cmp_reset);
	if (!(tab = id_table(c, &m.ntab)))
		return -1;
	m.tab = tab;
	m.nb = sbt_jobs_blocks(m.n, ((size_t)1 << 20) / (m.ntab + 1));
	if (!(m.cnt = calloc(m.nb * m.ntab + 1, sizeof *m.cnt)) ||
	    !(m.stop = malloc(m.nb * sizeof *m.stop)))
		goto out;
	sbt_jobs_each(m.nb, jobs, map_block, &m);
	for (size_t id = 0; id < m.ntab; id++) {
		uint64_t n = 0;
		for (size_t b = 0; b < m.nb; b++)
			n += m.cnt[b * m.ntab + id];
		if (n) {
			struct sbt_site *st = &c->ds->sites[tab[id].site];
			st->region = (uint32_t)tab[id].region;
			st->count += n;
		}
	}
	for (size_t b = 0; b < m.nb; b++)
		for (size_t i = m.stop[b], hi = map_lo(&m, b + 1);
		     i < hi; i++)
			if (map_one(c, &c->ds->s[i]) != 0)
				goto out;
	rc = 0;
out:
	free(tab), free(m.cnt), free(m.stop);
	return rc;
}

/* Open the log at path, check its header, and make it a new source of
 * c->ds.  0, or -1 with err set. */
static int open_log(struct ctx *c, const char *path, struct stat *st,
		    char *err, size_t errlen)
{
	c->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (c->fd < 0) {
		snprintf(err, errlen, "%s", strerror(errno));
		return -1;
	}
	if (fstat(c->fd, st) != 0 || !S_ISREG(st->st_mode)) {
		snprintf(err, errlen, "not a regular file");
		return -1;
	}
	c->fsize = (uint64_t)st->st_size;
	c->max_id = c->fsize / 16 + 4096;
	c->stray = -1;
	if (check_header(c, err, errlen) != 0)
		return -1;
	/* Every read into buf is at most bufsz and within the file; a META
	 * entry (at most BUFSZ) fits with its header. */
	c->bufsz = c->fsize < BUFSZ + 64 ? c->fsize : BUFSZ + 64;
	if (!(c->buf = malloc(c->bufsz ? c->bufsz : 1)) ||
	    !(c->src = sbt_ds_source(c->ds, path))) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	c->srci = (uint32_t)(c->ds->nsources - 1);
	c->first = c->ds->n;
	fill_source(c);
	c->tick_ns = c->src->tick_ns;
	c->start_ticks = c->h.start_ticks;
	return 0;
}

static void close_log(struct ctx *c)
{
	free(c->buf);
	free(c->map.ds);
	free(c->sitemap.ds);
	free(c->siteregion.ds);
	sbt_seg_threads_free(c);
	free(c->resets);
	free(c->rel);
	free(c->os);
	free(c->cov);
	free(c->chunks);
	free(c->info);
	free(c->counts);
	for (size_t i = 0; i < c->nshares; i++)
		free(c->shares[i]);
	free(c->shares);
	free(c->min_share);
	if (c->fd >= 0)
		close(c->fd);
}

int sbt_count_log_jobs(const char *path, struct sbt_dataset *ds, int jobs,
		       size_t seg_bytes, char *err, size_t errlen)
{
	struct sbt_dataset tmp = { 0 };
	struct ctx c;
	struct stat st;
	int rc = -1;

	memset(&c, 0, sizeof c);
	c.ds = &tmp;
	c.counting = 1;
	c.seg_bytes = seg_bytes;
	if (open_log(&c, path, &st, err, errlen) != 0)
		goto out;
	if (walk(&c) != 0 || events(&c, jobs) != 0 || sbt_log_totals(&c) != 0) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	rc = 0;
	for (size_t r = 0; r < tmp.nregions && rc == 0; r++) {
		const struct sbt_region *t = &tmp.regions[r];
		long g = sbt_ds_region(ds, t->name, strlen(t->name), t->api);
		if (g < 0) {
			snprintf(err, errlen, "out of memory");
			rc = -1;
		} else {
			ds->regions[g].total += t->total;
		}
	}
out:
	close_log(&c);
	sbt_ds_free(&tmp);
	return rc;
}

int sbt_count_log(const char *path, struct sbt_dataset *ds, char *err,
		  size_t errlen)
{
	return sbt_count_log_jobs(path, ds, 1, 0, err, errlen);
}


/* One reading of the log into ds; live: counted and thinned as read
 * (hold.c).  0, 1 damaged, -1 unreadable (err), or MISSED: live could
 * not hold what planning first holds (ds to be dropped). */
static int read_once(const char *path, struct sbt_dataset *ds, int jobs,
		     size_t seg_bytes, uint64_t live, char *err,
		     size_t errlen)
{
	struct ctx c;
	struct stat st;
	int rc = -1;

	memset(&c, 0, sizeof c);
	c.ds = ds;
	c.seg_bytes = seg_bytes;
	c.live = live;
	for (size_t r = 0; r < ds->nregions; r++)
		c.thin |= ds->regions[r].keep < 1;
	if (open_log(&c, path, &st, err, errlen) != 0)
		goto out;
	/* A finished log is exactly end_offset bytes long (the recorder
	 * truncates it there): a shorter file was cut after the fact. */
	if ((c.h.flags & SBT_HF_CLOSED) && c.h.end_offset > c.fsize) {
		c.src->truncated = 1;
		warn(&c, "cut short: the file has %llu of its %llu bytes",
		     (unsigned long long)c.fsize,
		     (unsigned long long)c.h.end_offset);
	}
	/* One allocation for all samples: at most one per START and STOP
	 * the file really holds (st_blocks: a sparse file reserves nothing).
	 * When thinning, the caller reserved what the plan holds. */
	const uint64_t pair = 2 * sizeof(struct sbt_event);
	uint64_t most = (uint64_t)st.st_blocks * 512 / pair;
	if (most > c.fsize / pair)
		most = c.fsize / pair;
	if (!c.thin && !c.live)
		(void)sbt_ds_reserve(ds, (size_t)most);  /* a hint */
	if (walk(&c) != 0) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	thin_finish(&c);
	/* COUNT events are read where the log names its counters */
	c.cnt_on = ds->cnt && c.srci < ds->cnt->nsrc &&
		   ds->cnt->src[c.srci].named;
	if (c.live && c.cnt_on) {       /* in one piece: not compacted */
		rc = MISSED;
		goto out;
	}
	if (c.live) {                   /* hold.c */
		c.thin = 1;
		c.hold_max = (size_t)(c.live + c.live / 4);
		(void)sbt_ds_reserve(ds, c.hold_max + c.hold_max / 16);
	}
	int ev = events(&c, jobs);
	if (ev == MISSED) {
		rc = MISSED;
		goto out;
	}
	if (ev != 0 || finish(&c, jobs) != 0) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	if (c.src->os_state == SBT_OS_ON) {
		sbt_os_join(ds, c.first, ds->n, c.os, c.nos, c.cov, c.ncov,
			    jobs);
		sbt_os_join_probes(ds, c.srci, c.os, c.nos);
	}
	/* A finished log has holes only where chunk space could not be
	 * allocated, and then it counted drops: any other hole is damage. */
	if (c.holes && (c.h.flags & SBT_HF_CLOSED) &&
	    !c.h.counters[SBT_CNT_DROPPED])
		warn(&c, "%llu zeroed chunk%s inside a finished log (damaged)",
		     (unsigned long long)c.holes, c.holes == 1 ? "" : "s");
	if (c.src->truncated && !c.src->warning[0])
		snprintf(c.src->warning, sizeof c.src->warning,
			 "cut short: the process did not finish the log "
			 "(killed, crashed, _exit or still running)");
	rc = c.damaged || c.src->truncated ? 1 : 0;
out:
	close_log(&c);
	return rc;
}

int sbt_read_log_meta(const char *path, struct sbt_dataset *ds, int *cut,
		      uint64_t *end, char *err, size_t errlen)
{
	struct ctx c;
	struct stat st;
	int rc = -1;

	memset(&c, 0, sizeof c);
	c.ds = ds;
	if (open_log(&c, path, &st, err, errlen) != 0)
		goto out;
	if (walk(&c) != 0) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	*cut = c.cut;
	*end = c.end > c.fsize ? c.end : c.fsize;
	rc = 0;
out:
	close_log(&c);
	return rc;
}

/* Counted first, and the plan made, as sbt_inputs_plan makes it. */
static int plan_first(const char *path, struct sbt_dataset *ds, int jobs,
		      size_t seg_bytes, uint64_t budget, char *err,
		      size_t errlen)
{
	if (sbt_count_log_jobs(path, ds, jobs, seg_bytes, err, errlen) != 0)
		return -1;
	uint64_t held = sbt_thin_plan(ds, budget);
	if (sbt_ds_reserve(ds, (size_t)(held + held / 64 + 4096)) != 0) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}

int sbt_read_log_jobs(const char *path, struct sbt_dataset *ds, int jobs,
		      size_t seg_bytes, char *err, size_t errlen)
{
	uint64_t live = ds->hold_budget;  /* asked for this log alone */
	int rc;

	ds->hold_budget = 0;
	/* live reading starts from nothing (dropped when it misses) */
	if (live && (ds->n || ds->nsources || ds->nregions || ds->nsites ||
		     ds->nprobes || ds->cnt)) {
		if (plan_first(path, ds, jobs, seg_bytes, live, err,
			       errlen) != 0)
			return -1;
		live = 0;
	}
	rc = read_once(path, ds, jobs, seg_bytes, live, err, errlen);
	if (rc == MISSED) {
		sbt_ds_free(ds);
		if (plan_first(path, ds, jobs, seg_bytes, live, err,
			       errlen) != 0)
			return -1;
		rc = read_once(path, ds, jobs, seg_bytes, 0, err, errlen);
	}
	/* segments and threads interleave; the analysis reads them sorted */
	sbt_ds_sort_probes(ds);
	return rc;
}

int sbt_read_log(const char *path, struct sbt_dataset *ds, char *err,
		 size_t errlen)
{
	return sbt_read_log_jobs(path, ds, 1, 0, err, errlen);
}
