/*
 * summary.c - write and read .sbts summaries (summary.h, format/SUMMARY.md).
 *
 * A summary is one gzip stream: zlib's CRC-32 and length trailer make any
 * damage or cut show on reading, and samples stored column by column
 * (all durations, then all start times, ...) compress to a few bytes
 * each.  Reading trusts nothing: every count is checked against what a
 * file of its size can hold before anything is allocated for it, and a
 * summary is added to the dataset only once it has been read whole.
 */
#include "summary.h"
#include "names.h"
#include "threads.h"
#include "counters.h"
#include "thin.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

static const char magic[8] = "SBTSUMS";
static const char endmark[8] = "SBTEND";
#define ORDER   0x01020304u        /* the writer's byte order */
#define STR_MAX 4096u
#define BLOCK   65536u             /* column elements per read or write */

/* ---- writing -------------------------------------------------------------- */

struct out {
	gzFile f;
	int bad;
};

static void put(struct out *o, const void *p, size_t n)
{
	if (!o->bad && n && gzwrite(o->f, p, (unsigned)n) != (int)n)
		o->bad = 1;
}

static void put_u32(struct out *o, uint32_t v) { put(o, &v, sizeof v); }
static void put_u64(struct out *o, uint64_t v) { put(o, &v, sizeof v); }
static void put_f64(struct out *o, double v) { put(o, &v, sizeof v); }

/* A string of at most `max` bytes (its array's size, or STR_MAX). */
static void put_strn(struct out *o, const char *s, size_t max)
{
	size_t n = s ? strnlen(s, max < STR_MAX ? max : STR_MAX) : 0;
	put_u32(o, (uint32_t)n);
	put(o, s, n);
}

static void put_str(struct out *o, const char *s)
{
	put_strn(o, s, STR_MAX);
}

/* A char array member: bounded by its size, as the compiler checks. */
#define put_arr(o, a) put_strn(o, a, sizeof(a))

static void put_source(struct out *o, const struct sbt_source *s)
{
	put_str(o, s->path), put_arr(o, s->host), put_arr(o, s->exe);
	put_arr(o, s->cpu_model), put_arr(o, s->warning);
	put_arr(o, s->os_note);
	put_u32(o, (uint32_t)s->pid), put_u32(o, (uint32_t)s->rank);
	put_u32(o, (uint32_t)s->is_csv), put_u32(o, (uint32_t)s->truncated);
	put_u32(o, (uint32_t)s->has_cycles), put_u32(o, s->probe_period);
	put_u32(o, s->nthreads), put_u32(o, s->os_state);
	put_f64(o, s->tick_ns), put_f64(o, s->quantum_ns);
	put_f64(o, s->te_ns), put_f64(o, s->te_cycles);
	put_f64(o, s->te_p50_ns), put_f64(o, s->te_p999_ns);
	put_f64(o, s->kernel_entry_ns);
	put_u64(o, s->os_lost);
	put_u32(o, s->max_mb), put_u32(o, s->thin_level);
	for (unsigned k = 0; k <= SBT_THIN_MAX; k++)
		put_f64(o, s->thin_at_ns[k]);
	put_u32(o, SBT_CNT__N);
	for (int i = 0; i < SBT_CNT__N; i++)
		put_u64(o, s->counters[i]);
	put_u32(o, (uint32_t)s->nmodules);
	for (size_t i = 0; i < s->nmodules; i++) {
		const struct sbt_module *m = &s->modules[i];
		put_u64(o, m->base), put_u64(o, m->lo), put_u64(o, m->hi);
		put_str(o, m->path);
		put_u32(o, m->build_id_len);
		put(o, m->build_id, m->build_id_len);
	}
}

/* SBT_EVENTS' counts (counters.h): the source's events, then a column of
 * counts per event and one of running shares; a u32 0 when none. */
/* The log's META THREAD entries, as the reader kept them (version 3):
 * what reports call its threads by. */
static int by_thread(const void *a, const void *b)
{
	const struct sbt_thread_info *x = *(const struct sbt_thread_info *
					    const *)a;
	const struct sbt_thread_info *y = *(const struct sbt_thread_info *
					    const *)b;

	return (x->thread > y->thread) - (x->thread < y->thread);
}

static void put_threads(struct out *o, const struct sbt_source *s)
{
	const struct sbt_thread_info **by = malloc((s->nthr + 1) * sizeof *by);

	if (!by) {                      /* the names are lost, not the data */
		put_u32(o, 0);
		return;
	}
	for (uint32_t i = 0; i < s->nthr; i++)
		by[i] = &s->thr[i];
	qsort(by, s->nthr, sizeof *by, by_thread);   /* in thread order */
	put_u32(o, s->nthr);
	for (uint32_t i = 0; i < s->nthr; i++) {
		const struct sbt_thread_info *t = by[i];
		put_u32(o, t->thread), put_u32(o, (uint32_t)t->tid);
		put_u32(o, (uint32_t)t->omp_thread), put_u32(o, t->omp_level);
		put_u32(o, t->flags);
		put_arr(o, t->name);
	}
	free(by);
}

static void put_counters(struct out *o, const struct sbt_dataset *ds,
			 uint32_t src)
{
	const struct sbt_counters *c = ds->cnt;
	const struct sbt_cnt_src *cs = c && src < c->nsrc ? &c->src[src] : NULL;

	put_u32(o, cs ? 1 : 0);
	if (!cs)
		return;
	put_u32(o, c->ncol);
	for (uint32_t k = 0; k < c->ncol; k++)
		put_arr(o, c->name[k]);
	for (unsigned j = 0; j < SBT_COUNT_MAX; j++) {
		put_u32(o, (uint32_t)cs->col[j]);
		put_u32(o, cs->scaled[j] | (uint32_t)cs->user[j] << 1);
		put_f64(o, cs->empty[j]);
	}
	put_u32(o, cs->n), put_u32(o, (uint32_t)cs->named);
	put_arr(o, cs->off);
	for (uint32_t k = 0; k < c->ncol; k++)
		for (size_t i = 0; i < ds->n; i++)
			put_f64(o, sbt_cnt_get(ds, i, k));
	for (size_t i = 0; i < ds->n; i++)
		put_f64(o, sbt_cnt_share(ds, i));
}

/* One column: field F of every sample, as type T. */
#define PUT_COLUMN(o, ds, T, F) do {                                       \
	T buf_[BLOCK];                                                     \
	for (size_t a_ = 0; a_ < (ds)->n; a_ += BLOCK) {                   \
		size_t n_ = (ds)->n - a_ < BLOCK ? (ds)->n - a_ : BLOCK;   \
		for (size_t i_ = 0; i_ < n_; i_++)                         \
			buf_[i_] = (T)(ds)->s[a_ + i_].F;                  \
		put(o, buf_, n_ * sizeof(T));                              \
	}                                                                  \
} while (0)

/* What a sample's flags say about the sample itself; the rest is the
 * analysis's own marking, made again when summaries are analyzed. */
#define KEPT_FLAGS (SBT_SF_PROBE | SBT_SF_CALIB | SBT_SF_CROSSED |        \
		    SBT_SF_MIGRATED | SBT_SF_BEFORE_RESET |                \
		    SBT_SF_PREEMPTED | SBT_SF_OS_LOST | SBT_SF_DETOUR |        \
		    SBT_SF_TEAM_PREEMPTED)

/* Version 2: the source's speed probes, all of them (a few per ms of
 * the run at most), column by column. */
static void put_speed(struct out *o, const struct sbt_dataset *ds,
		      uint32_t src)
{
	uint64_t n = 0;

	put_u32(o, ds->sources[src].speed_ops);
	put_u32(o, ds->sources[src].speed_cadence_us);
	for (size_t i = 0; i < ds->nprobes; i++)
		n += ds->probes[i].source == src;
	put_u64(o, n);
	for (size_t i = 0; i < ds->nprobes; i++)
		if (ds->probes[i].source == src)
			put_f64(o, ds->probes[i].t_ns);
	for (size_t i = 0; i < ds->nprobes; i++)
		if (ds->probes[i].source == src)
			put_f64(o, ds->probes[i].ns);
	for (size_t i = 0; i < ds->nprobes; i++)
		if (ds->probes[i].source == src)
			put_u32(o, ds->probes[i].thread);
	for (size_t i = 0; i < ds->nprobes; i++)
		if (ds->probes[i].source == src) {
			uint16_t cpu = ds->probes[i].cpu;
			put(o, &cpu, sizeof cpu);
		}
}

/* Version 4: the recorder's detours taken out of each sample's time
 * (SBT_SF_DETOUR, reader.c), a column of n f32; nearly all 0. */
static void put_detours(struct out *o, const struct sbt_dataset *ds)
{
	PUT_COLUMN(o, ds, float, detour_ns);
}

/* Version 5: where the recorder took the source's threads aside (its
 * SPEED SPAN events: one a tick at most, as many as the probes), column
 * by column. */
static void put_detour_places(struct out *o, const struct sbt_dataset *ds,
			      uint32_t src)
{
	uint64_t n = 0;

	for (size_t i = 0; i < ds->ndetours; i++)
		n += ds->detours[i].source == src;
	put_u64(o, n);
	for (size_t i = 0; i < ds->ndetours; i++)
		if (ds->detours[i].source == src)
			put_f64(o, ds->detours[i].t_ns);
	for (size_t i = 0; i < ds->ndetours; i++)
		if (ds->detours[i].source == src)
			put_f64(o, ds->detours[i].ns);
	for (size_t i = 0; i < ds->ndetours; i++)
		if (ds->detours[i].source == src)
			put_u32(o, ds->detours[i].thread);
}

/* Version 6: how the recorder read the machine (sbt_source). */
/* Version 8: which of the source's speed probes (put_speed's order) held
 * a switch-out of their thread (the kernel's record), a byte each. */
/* Version 9: per speed probe of the source, in the speed part's order,
 * u8 1 when its thread was switched out inside it (the OS's, not the
 * processor's). */
/* Version 10: the source's memory-latency probes (META MEMLAT), as
 * put_speed puts the speed probes. */
static void put_memory(struct out *o, const struct sbt_dataset *ds,
		       uint32_t src)
{
	uint64_t n = 0;

	for (size_t i = 0; i < ds->nmprobes; i++)
		n += ds->mprobes[i].source == src;
	put_u64(o, n);
	for (size_t i = 0; i < ds->nmprobes; i++)
		if (ds->mprobes[i].source == src)
			put_f64(o, ds->mprobes[i].t_ns);
	for (size_t i = 0; i < ds->nmprobes; i++)
		if (ds->mprobes[i].source == src)
			put_f64(o, ds->mprobes[i].ns);
	for (size_t i = 0; i < ds->nmprobes; i++)
		if (ds->mprobes[i].source == src)
			put_u32(o, ds->mprobes[i].thread);
	for (size_t i = 0; i < ds->nmprobes; i++)
		if (ds->mprobes[i].source == src) {
			uint16_t cpu = ds->mprobes[i].cpu;
			put(o, &cpu, sizeof cpu);
		}
}

static void put_probes_switched(struct out *o, const struct sbt_dataset *ds,
				uint32_t src)
{
	for (size_t i = 0; i < ds->nprobes; i++)
		if (ds->probes[i].source == src) {
			uint8_t sw = ds->probes[i].switched != 0;
			put(o, &sw, sizeof sw);
		}
}

static void put_recorder(struct out *o, const struct sbt_source *s)
{
	put_u32(o, s->cpu_from), put_u32(o, s->clock_read);
	put_u32(o, s->ncpus);
	put_u64(o, s->log_wait_ns), put_u64(o, s->log_late_bytes);
	put_f64(o, s->fault_ns);
	put_u32(o, s->fault_record_ns), put_u32(o, s->fault_rate_max);
	put_u32(o, s->os_fault_k), put_u64(o, s->os_faults_sampled);
}

/* Version 8: the log's names section, inflated (names.h); 0: none. */
static void put_names(struct out *o, const struct sbt_source *s)
{
	const void *raw = NULL;
	size_t len = s->names ? sbt_names_raw(s->names, &raw) : 0;

	put_u32(o, (uint32_t)len);
	put(o, raw, len);
}

int sbt_summary_write(const char *path, const struct sbt_dataset *ds,
		      uint32_t src, char *err, size_t errlen)
{
	char tmp[4096];
	struct out o = { 0 };

	if (src >= ds->nsources) {
		snprintf(err, errlen, "nothing to summarize");
		return -1;
	}
	for (size_t i = 0; i < ds->n; i++)
		if (ds->s[i].source != src) {
			snprintf(err, errlen, "a summary holds one log");
			return -1;
		}
	/* Written aside and renamed: a cut write never has the name. */
	if ((size_t)snprintf(tmp, sizeof tmp, "%s.tmp%ld", path,
			     (long)getpid()) >= sizeof tmp ||
	    !(o.f = gzopen(tmp, "wb6"))) {
		snprintf(err, errlen, "cannot write: %s", strerror(errno));
		return -1;
	}
	gzbuffer(o.f, 1u << 18);
	put(&o, magic, sizeof magic);
	put_u32(&o, SBT_SUMMARY_VERSION), put_u32(&o, ORDER);
	put_source(&o, &ds->sources[src]);
	put_u32(&o, (uint32_t)ds->nregions);
	for (size_t r = 0; r < ds->nregions; r++) {
		const struct sbt_region *g = &ds->regions[r];
		put_str(&o, g->name);
		put_u32(&o, g->api), put_u64(&o, g->site);
		put_u64(&o, g->total), put_f64(&o, g->keep);
	}
	put_u32(&o, (uint32_t)ds->nsites);
	for (size_t i = 0; i < ds->nsites; i++) {
		const struct sbt_site *st = &ds->sites[i];
		put_u32(&o, st->region), put_u32(&o, st->depth);
		put(&o, st->frames, st->depth * sizeof *st->frames);
	}
	put_u64(&o, ds->n);
	PUT_COLUMN(&o, ds, double, ns);
	PUT_COLUMN(&o, ds, double, cycles);
	PUT_COLUMN(&o, ds, double, t_ns);
	PUT_COLUMN(&o, ds, uint32_t, region);
	PUT_COLUMN(&o, ds, uint32_t, thread);
	PUT_COLUMN(&o, ds, uint16_t, cpu_start);
	PUT_COLUMN(&o, ds, uint16_t, cpu_stop);
	PUT_COLUMN(&o, ds, uint32_t, flags & KEPT_FLAGS);
	PUT_COLUMN(&o, ds, uint32_t, site);
	PUT_COLUMN(&o, ds, uint16_t, switches);
	PUT_COLUMN(&o, ds, uint16_t, faults);
	PUT_COLUMN(&o, ds, uint32_t, skipped);
	put_counters(&o, ds, src);
	put_speed(&o, ds, src);
	put_threads(&o, &ds->sources[src]);
	put_detours(&o, ds);
	put_detour_places(&o, ds, src);
	put_recorder(&o, &ds->sources[src]);
	put_names(&o, &ds->sources[src]);
	put_probes_switched(&o, ds, src);
	put_memory(&o, ds, src);
	put(&o, endmark, sizeof endmark);
	put_u64(&o, ds->n);
	int rc = gzclose(o.f);
	if (o.bad || rc != Z_OK || rename(tmp, path) != 0) {
		snprintf(err, errlen, "cannot write: %s",
			 errno ? strerror(errno) : "compression failed");
		unlink(tmp);
		return -1;
	}
	return 0;
}

/* ---- reading -------------------------------------------------------------- */

struct in {
	gzFile f;
	uint32_t version;               /* of the summary being read */
	uint64_t fsize;                 /* compressed bytes on disk */
	const char *why;                /* first problem met        */
};

static int get(struct in *in, void *p, size_t n)
{
	if (in->why)
		return -1;
	if (n && gzread(in->f, p, (unsigned)n) != (int)n) {
		int e;
		const char *m = gzerror(in->f, &e);
		in->why = e == Z_OK || e == Z_BUF_ERROR ? "cut short" :
			  e == Z_DATA_ERROR ? "damaged (checksum or data)" :
			  e == Z_ERRNO ? strerror(errno) : m;
		return -1;
	}
	return 0;
}

static uint32_t get_u32(struct in *in)
{
	uint32_t v = 0;
	get(in, &v, sizeof v);
	return v;
}

static uint64_t get_u64(struct in *in)
{
	uint64_t v = 0;
	get(in, &v, sizeof v);
	return v;
}

static double get_f64(struct in *in)
{
	double v = 0;
	get(in, &v, sizeof v);
	return v;
}

/* A string into dst (NUL-terminated, cut to n - 1), or malloc'd when
 * dst is NULL (*owned).  -1 on damage or no memory. */
static int get_str(struct in *in, char *dst, size_t n, char **owned)
{
	uint32_t len = get_u32(in);
	char buf[STR_MAX + 1];

	if (in->why || len > STR_MAX) {
		if (!in->why)
			in->why = "damaged (a string too long)";
		return -1;
	}
	if (get(in, buf, len) != 0)
		return -1;
	buf[len] = 0;
	if (owned)
		return (*owned = strdup(buf)) ? 0 : -1;
	if (len >= n)
		len = (uint32_t)n - 1;
	memcpy(dst, buf, len);
	dst[len] = 0;
	return 0;
}

/* Could a file of this size hold n items of at least `each` bytes?
 * Deflate shrinks at most 1032:1. */
static int plausible(const struct in *in, uint64_t n, size_t each)
{
	return n <= (in->fsize + 4096) * 1032 / each;
}

static int get_source(struct in *in, struct sbt_source *s)
{
	char *path = NULL;

	get_str(in, NULL, 0, &path);
	if (path) {
		free(s->path);
		s->path = path;
	}
	get_str(in, s->host, sizeof s->host, NULL);
	get_str(in, s->exe, sizeof s->exe, NULL);
	get_str(in, s->cpu_model, sizeof s->cpu_model, NULL);
	get_str(in, s->warning, sizeof s->warning, NULL);
	get_str(in, s->os_note, sizeof s->os_note, NULL);
	s->pid = (int32_t)get_u32(in), s->rank = (int32_t)get_u32(in);
	s->is_csv = (int)get_u32(in), s->truncated = (int)get_u32(in);
	s->has_cycles = (int)get_u32(in), s->probe_period = get_u32(in);
	s->nthreads = get_u32(in), s->os_state = get_u32(in);
	s->tick_ns = get_f64(in), s->quantum_ns = get_f64(in);
	s->te_ns = get_f64(in), s->te_cycles = get_f64(in);
	s->te_p50_ns = get_f64(in), s->te_p999_ns = get_f64(in);
	s->kernel_entry_ns = get_f64(in);
	s->os_lost = get_u64(in);
	s->max_mb = get_u32(in), s->thin_level = get_u32(in);
	for (unsigned k = 0; k <= SBT_THIN_MAX; k++)
		s->thin_at_ns[k] = get_f64(in);
	if (s->thin_level > SBT_THIN_MAX)
		return in->why = "damaged (thinning level)", -1;
	for (unsigned k = 1; k <= s->thin_level; k++)
		if (!(s->thin_at_ns[k] >= s->thin_at_ns[k - 1]))
			return in->why = "damaged (thinning times)", -1;
	uint32_t nc = get_u32(in);
	if (nc > 1024)
		return in->why = "damaged (counters)", -1;
	for (uint32_t i = 0; i < nc; i++) {
		uint64_t v = get_u64(in);
		if (i < SBT_CNT__N)   /* newer counters: not known here */
			s->counters[i] = v;
	}
	uint32_t nm = get_u32(in);
	if (in->why || !plausible(in, nm, 32))
		return in->why = in->why ? in->why : "damaged (modules)", -1;
	if (nm && !(s->modules = calloc(nm, sizeof *s->modules)))
		return in->why = "out of memory", -1;
	for (uint32_t i = 0; i < nm && !in->why; i++) {
		struct sbt_module *m = &s->modules[i];
		m->base = get_u64(in), m->lo = get_u64(in), m->hi = get_u64(in);
		if (get_str(in, NULL, 0, &m->path) != 0)
			break;
		s->nmodules++;
		m->build_id_len = get_u32(in);
		if (m->build_id_len > SBT_BUILDID_MAX)
			return in->why = "damaged (build-id)", -1;
		get(in, m->build_id, m->build_id_len);
	}
	if (!in->why && (!(s->tick_ns > 0) || s->nthreads > (1u << 24)))
		in->why = "damaged (source facts)";
	return in->why ? -1 : 0;
}

/* The summary's regions, mapped to ds's: map[i] is ds's index of the
 * summary's region i.  With `count`, their sample counts are added to
 * the totals and the keep lowered to the summary's. */
static int get_regions(struct in *in, struct sbt_dataset *ds, uint32_t srci,
		       uint32_t **map, uint32_t *n, int count)
{
	*n = get_u32(in);
	if (in->why || !plausible(in, *n, 32))
		return in->why = in->why ? in->why : "damaged (regions)", -1;
	if (!(*map = malloc((*n ? *n : 1) * sizeof **map)))
		return in->why = "out of memory", -1;
	for (uint32_t i = 0; i < *n; i++) {
		char *name = NULL;
		if (get_str(in, NULL, 0, &name) != 0)
			return in->why = in->why ? in->why : "out of memory", -1;
		uint32_t api = get_u32(in);
		uint64_t site = get_u64(in), total = get_u64(in);
		double keep = get_f64(in);
		long r = -1;
		if (!in->why && api < SBT_API__N && keep > 0 && keep <= 1)
			r = sbt_ds_region(ds, name, strlen(name), api);
		free(name);
		if (r < 0)
			return in->why = in->why ? in->why : "damaged (region)",
			       -1;
		struct sbt_region *g = &ds->regions[r];
		(*map)[i] = (uint32_t)r;
		if (count) {
			g->total += total;
			if (keep < g->keep)
				g->keep = keep;
		} else if (!g->site) {
			g->site = site;
			g->source = srci;
		}
	}
	return 0;
}

static int open_in(struct in *in, const char *path, char *err, size_t errlen)
{
	struct stat st;
	char m[8];

	memset(in, 0, sizeof *in);
	if (stat(path, &st) != 0 || !(in->f = gzopen(path, "rb"))) {
		snprintf(err, errlen, "%s", strerror(errno ? errno : EIO));
		return -1;
	}
	in->fsize = (uint64_t)st.st_size;
	/* 256 KiB for big files; a small one needs no more than its size
	 * (zlib allocates three times this, each open) */
	gzbuffer(in->f, in->fsize < (1u << 18) ?
		 (unsigned)(in->fsize < 8192 ? 8192 : in->fsize) : 1u << 18);
	if (gzdirect(in->f) || get(in, m, sizeof m) != 0 ||
	    memcmp(m, magic, sizeof m) != 0) {
		snprintf(err, errlen, "not an sbtmark summary");
		return -1;
	}
	uint32_t v = get_u32(in), order = get_u32(in);
	if (in->why || order != ORDER) {
		snprintf(err, errlen, "summary %s", in->why ? in->why :
			 order == __builtin_bswap32(ORDER) ?
			 "written on a machine of another byte order" :
			 "damaged (header)");
		return -1;
	}
	if (v < 1 || v > SBT_SUMMARY_VERSION) {
		snprintf(err, errlen, "summary format version %u; this "
			 "sbt-analyze reads versions 1 to %u", v,
			 SBT_SUMMARY_VERSION);
		return -1;
	}
	in->version = v;
	return 0;
}

int sbt_is_summary(const char *path)
{
	struct in in;
	char err[8];
	int ok = open_in(&in, path, err, sizeof err) == 0;

	if (in.f)
		gzclose(in.f);
	return ok;
}

int sbt_summary_count(const char *path, struct sbt_dataset *ds, char *err,
		      size_t errlen)
{
	struct sbt_source src = { 0 };
	struct in in;
	uint32_t *map = NULL, n;
	int rc = -1;

	if (open_in(&in, path, err, errlen) == 0) {
		rc = get_source(&in, &src) == 0 &&
		     get_regions(&in, ds, 0, &map, &n, 1) == 0 ? 0 : -1;
		if (rc)
			snprintf(err, errlen, "summary %s", in.why);
	}
	for (size_t i = 0; i < src.nmodules; i++)
		free(src.modules[i].path);
	free(src.modules), free(src.path), free(map);
	if (in.f)
		gzclose(in.f);
	return rc;
}

/* One column into field F of samples [first, first + n), as type T,
 * checked by `ok` (an expression of v). */
#define GET_COLUMN(in, ds, first, n, T, F, ok) do {                        \
	T buf_[BLOCK];                                                     \
	for (size_t a_ = 0; a_ < (n) && !(in)->why; a_ += BLOCK) {         \
		size_t n_ = (n) - a_ < BLOCK ? (n) - a_ : BLOCK;           \
		if (get(in, buf_, n_ * sizeof(T)) != 0)                    \
			break;                                             \
		for (size_t i_ = 0; i_ < n_; i_++) {                       \
			T v = buf_[i_];                                    \
			if (!(ok)) {                                       \
				(in)->why = "damaged (a sample's " #F ")";  \
				break;                                     \
			}                                                  \
			(ds)->s[(first) + a_ + i_].F = v;                  \
		}                                                          \
	}                                                                  \
} while (0)

/* The last held sample of each (thread, site) of one summary, for
 * folding the ones left out into (thin.h).  Open addressing. */
struct lastmap {
	uint64_t *key;                  /* thread << 32 | site, + 1     */
	size_t *at, cap, n;
};

static size_t *last_at(struct lastmap *m, uint64_t key)
{
	if (2 * (m->n + 1) > m->cap) {
		struct lastmap g = { 0 };
		g.cap = m->cap ? 2 * m->cap : 256;
		g.key = calloc(g.cap, sizeof *g.key);
		g.at = malloc(g.cap * sizeof *g.at);
		if (!g.key || !g.at) {
			free(g.key), free(g.at);
			return NULL;
		}
		for (size_t i = 0; i < m->cap; i++)
			if (m->key[i])
				*last_at(&g, m->key[i] - 1) = m->at[i];
		free(m->key), free(m->at);
		*m = g;
	}
	size_t i = (key * 0x9e3779b97f4a7c15ull >> 20) & (m->cap - 1);
	while (m->key[i] && m->key[i] != key + 1)
		i = (i + 1) & (m->cap - 1);
	if (!m->key[i]) {
		m->key[i] = key + 1;
		m->at[i] = SIZE_MAX;
		m->n++;
	}
	return &m->at[i];
}

/* Keep the samples [first, n) their regions' keep allows, in place;
 * those left out fold into the last held one of their (thread, site).
 * 0, or -1 when out of memory. */
static int thin(struct sbt_dataset *ds, size_t first)
{
	struct lastmap m = { 0 };
	size_t k = first;
	int rc = 0;

	for (size_t i = first; i < ds->n && rc == 0; i++) {
		struct sbt_sample s = ds->s[i];
		const struct sbt_region *g = &ds->regions[s.region];
		int probe = (s.flags & SBT_SF_PROBE) != 0;
		size_t *last = NULL;
		if (!probe) {
			last = last_at(&m, (uint64_t)s.thread << 32 |
				       (s.site == SBT_SITE_NONE ? 0xffffffffu -
					s.region : s.site));
			if (!last) {
				rc = -1;
				break;
			}
		}
		if (sbt_thin_held(&ds->sources[s.source], g, s.thread,
				  s.t_ns) ||
		    (!probe && *last == SIZE_MAX)) {
			if (last)
				*last = k;
			sbt_cnt_move(ds, k, i);
			ds->s[k++] = s;
		} else if (!probe) {
			sbt_thin_fold(&ds->s[*last], s.skipped);
		}
	}
	ds->n = k;
	free(m.key), free(m.at);
	return rc;
}

/* SBT_EVENTS' counts of the summary's n samples into ds (put_counters). */
static int get_counters(struct in *in, struct sbt_dataset *ds, size_t n)
{
	char names[SBT_CNT_COLS][SBT_CNT_NAME];
	struct sbt_cnt_src cs;

	if (!get_u32(in))
		return in->why ? -1 : 0;
	uint32_t ncol = get_u32(in);
	if (in->why || ncol > SBT_CNT_COLS)
		return in->why = in->why ? in->why : "damaged (events)", -1;
	for (uint32_t k = 0; k < ncol; k++)
		if (get_str(in, names[k], sizeof names[k], NULL) != 0)
			return -1;
	memset(&cs, 0, sizeof cs);
	for (unsigned j = 0; j < SBT_COUNT_MAX; j++) {
		cs.col[j] = (int32_t)get_u32(in);
		uint32_t f = get_u32(in);
		cs.scaled[j] = f & 1, cs.user[j] = (f >> 1) & 1;
		cs.empty[j] = get_f64(in);
		if (cs.col[j] < -1 || cs.col[j] >= (int)ncol)
			return in->why = "damaged (an event's column)", -1;
	}
	cs.n = get_u32(in), cs.named = (int)get_u32(in);
	if (get_str(in, cs.off, sizeof cs.off, NULL) != 0 ||
	    cs.n > SBT_COUNT_MAX)
		return in->why = in->why ? in->why : "damaged (events)", -1;
	/* names are unique and columns follow them (counters.c) */
	if (sbt_cnt_prepare(ds, (const char (*)[SBT_CNT_NAME])names, ncol,
			    n) != 0 || ds->cnt->ncol != ncol)
		return in->why = "damaged or out of memory (events)", -1;
	struct sbt_cnt_src *d = sbt_cnt_source(ds, 0);
	if (!d)
		return in->why = "out of memory", -1;
	*d = cs;
	struct sbt_counters *c = ds->cnt;
	for (uint32_t k = 0; k < ncol; k++)
		for (size_t i = 0; i < n && !in->why; i++)
			c->v[i * ncol + k] = get_f64(in);
	for (size_t i = 0; i < n && !in->why; i++)
		c->share[i] = (float)get_f64(in);
	return in->why ? -1 : 0;
}

/* The threads part into src: each entry as the log's META THREAD said
 * it (threads.c keeps them), its flags as the reader left them. */
static int get_threads(struct in *in, struct sbt_source *src)
{
	uint32_t n = get_u32(in);

	if (in->why || !plausible(in, n, 24))
		return in->why = in->why ? in->why : "damaged (threads)", -1;
	for (uint32_t i = 0; i < n && !in->why; i++) {
		struct {
			struct sbt_meta_thread m;
			char name[sizeof src->thr->name];
		} e = { { 0 }, "" };
		e.m.thread = get_u32(in);
		e.m.tid = (int32_t)get_u32(in);
		e.m.omp_thread = (int32_t)get_u32(in);
		e.m.omp_level = get_u32(in);
		uint32_t flags = get_u32(in);
		if (get_str(in, e.name, sizeof e.name, NULL) != 0 || in->why)
			break;
		if (e.m.tid == 0 || sbt_threads_note(src, &e, (uint32_t)(
		    sizeof e.m + strlen(e.name))) != 0)
			return in->why = "damaged (a thread)", -1;
		((struct sbt_thread_info *)sbt_threads_find(src, e.m.thread))
			->flags = flags & SBT_TI_OMP_VARIES;
	}
	return in->why ? -1 : 0;
}

/* Version 4: the detours column (put_detours). */
static int get_detours(struct in *in, struct sbt_dataset *part)
{
	GET_COLUMN(in, part, 0, part->n, float, detour_ns,
		   v >= 0 && v < 1e30f);
	/* a detour only where the flag says one was taken out */
	for (size_t i = 0; i < part->n && !in->why; i++)
		if (part->s[i].detour_ns > 0 &&
		    !(part->s[i].flags & SBT_SF_DETOUR))
			in->why = "damaged (a detour)";
	return in->why ? -1 : 0;
}

/* Version 9: put_probes_switched, after the probes (get_speed). */
static int get_probes_switched(struct in *in, struct sbt_dataset *part)
{
	for (size_t i = 0; i < part->nprobes && !in->why; i++) {
		uint8_t sw = 0;
		if (get(in, &sw, sizeof sw) == 0 && sw > 1)
			in->why = "damaged (a probe's switch-out)";
		part->probes[i].switched = sw;
	}
	return in->why ? -1 : 0;
}

/* Version 10: put_memory, the memory-latency probes of the summary's
 * one source (0). */
static int get_memory(struct in *in, struct sbt_dataset *part)
{
	uint64_t n = get_u64(in);

	if (in->why || !plausible(in, n, 8) || n > SIZE_MAX / 64)
		return in->why = in->why ? in->why : "damaged (memory probes)",
		       -1;
	if (n && !(part->mprobes = calloc((size_t)n, sizeof *part->mprobes)))
		return in->why = "out of memory", -1;
	part->nmprobes = part->cap_mprobes = (size_t)n;
	for (size_t i = 0; i < n && !in->why; i++)
		part->mprobes[i].t_ns = get_f64(in);
	for (size_t i = 0; i < n && !in->why; i++)
		part->mprobes[i].ns = get_f64(in);
	for (size_t i = 0; i < n && !in->why; i++)
		part->mprobes[i].thread = get_u32(in);
	for (size_t i = 0; i < n && !in->why; i++)
		get(in, &part->mprobes[i].cpu, sizeof part->mprobes[i].cpu);
	for (size_t i = 0; i < n && !in->why; i++) {
		const struct sbt_probe *p = &part->mprobes[i];
		if (!(p->t_ns >= 0 && p->t_ns < 1e300 && p->ns >= 0 &&
		      p->ns < 1e300) || p->thread >= (1u << 24))
			in->why = "damaged (a memory probe)";
	}
	return in->why ? -1 : 0;
}

/* Version 6: put_recorder; 7 added its fault cost, 11 fault storms. */
static int get_recorder(struct in *in, struct sbt_source *s)
{
	s->cpu_from = get_u32(in), s->clock_read = get_u32(in);
	s->ncpus = get_u32(in);
	s->log_wait_ns = get_u64(in), s->log_late_bytes = get_u64(in);
	s->fault_ns = in->version >= 7 ? get_f64(in) : 0;
	if (!in->why && !(s->fault_ns >= 0 && s->fault_ns < 1e10))
		in->why = "damaged (fault cost)";
	if (in->version >= 11) {
		s->fault_record_ns = get_u32(in);
		s->fault_rate_max = get_u32(in);
		s->os_fault_k = get_u32(in);
		s->os_faults_sampled = get_u64(in);
	}
	return in->why ? -1 : 0;
}

/* Version 8: put_names, checked as a log's section is. */
static int get_names(struct in *in, struct sbt_source *s)
{
	uint32_t len = get_u32(in);
	char why[96];
	void *raw;

	if (in->why || !len)
		return in->why ? -1 : 0;
	if (len > SBT_NAMES_RAWMAX || !plausible(in, len, 1)) {
		in->why = "damaged (names)";
		return -1;
	}
	if (!(raw = malloc(len))) {
		in->why = "out of memory";
		return -1;
	}
	if (get(in, raw, len) == 0 &&
	    sbt_names_from_raw(s, raw, len, &s->names, why, sizeof why) != 0)
		in->why = "damaged (names)";
	free(raw);
	return in->why ? -1 : 0;
}

/* Version 5: the detours' places (put_detour_places). */
static int get_detour_places(struct in *in, struct sbt_dataset *part)
{
	uint64_t n = get_u64(in);

	if (in->why || !plausible(in, n, 8) || n > SIZE_MAX / 64)
		return in->why = in->why ? in->why : "damaged (detours)", -1;
	if (n && !(part->detours = calloc((size_t)n, sizeof *part->detours)))
		return in->why = "out of memory", -1;
	part->ndetours = part->cap_detours = (size_t)n;
	for (size_t i = 0; i < n && !in->why; i++)
		part->detours[i].t_ns = get_f64(in);
	for (size_t i = 0; i < n && !in->why; i++)
		part->detours[i].ns = get_f64(in);
	for (size_t i = 0; i < n && !in->why; i++) {
		part->detours[i].thread = get_u32(in);
		part->detours[i].cpu = 0xffff;
	}
	for (size_t i = 0; i < n && !in->why; i++) {
		const struct sbt_probe *p = &part->detours[i];
		if (!(p->t_ns >= 0 && p->t_ns < 1e300 && p->ns >= 0 &&
		      p->ns < 1e300) || p->thread >= (1u << 24))
			in->why = "damaged (a detour's place)";
	}
	return in->why ? -1 : 0;
}

/* The summary at path read whole into `part`, a dataset of its own.
 * 0, or -1 with in->why set. */
/* Version 2: the speed probes of the summary's one source (0). */
static int get_speed(struct in *in, struct sbt_dataset *part)
{
	struct sbt_source *src = &part->sources[0];
	uint64_t n;

	src->speed_ops = get_u32(in);
	src->speed_cadence_us = get_u32(in);
	n = get_u64(in);
	if (in->why || !plausible(in, n, 8) || n > SIZE_MAX / 64)
		return in->why = in->why ? in->why : "damaged (speed probes)",
		       -1;
	if (n && !(part->probes = calloc((size_t)n, sizeof *part->probes)))
		return in->why = "out of memory", -1;
	part->nprobes = part->cap_probes = (size_t)n;
	for (size_t i = 0; i < n && !in->why; i++)
		part->probes[i].t_ns = get_f64(in);
	for (size_t i = 0; i < n && !in->why; i++)
		part->probes[i].ns = get_f64(in);
	for (size_t i = 0; i < n && !in->why; i++)
		part->probes[i].thread = get_u32(in);
	for (size_t i = 0; i < n && !in->why; i++)
		get(in, &part->probes[i].cpu, sizeof part->probes[i].cpu);
	for (size_t i = 0; i < n && !in->why; i++) {
		const struct sbt_probe *p = &part->probes[i];
		if (!(p->t_ns >= 0 && p->t_ns < 1e300 && p->ns >= 0 &&
		      p->ns < 1e300) || p->thread >= (1u << 24))
			in->why = "damaged (a speed probe)";
	}
	return in->why ? -1 : 0;
}

/* The samples' first column (ns), their room made as its values arrive:
 * a damaged count is found out by the data, before it sizes anything. */
static int get_first_column(struct in *in, struct sbt_dataset *part, size_t n)
{
	double buf[BLOCK / 8];

	for (size_t a = 0; a < n && !in->why; a += BLOCK / 8) {
		size_t k = n - a < BLOCK / 8 ? n - a : BLOCK / 8;
		if (get(in, buf, k * sizeof *buf) != 0)
			break;
		/* doubling up to the count: never more room than it says */
		size_t want = part->n + k, cap = 2 * part->cap;
		if (want > part->cap &&
		    sbt_ds_room(part, cap < want ? want : cap > n ? n : cap)) {
			in->why = "out of memory";
			break;
		}
		memset(part->s + part->n, 0, k * sizeof *part->s);
		for (size_t i = 0; i < k; i++) {
			if (!(buf[i] >= 0 && buf[i] < 1e300)) {
				in->why = "damaged (a sample's ns)";
				break;
			}
			part->s[part->n + i].ns = buf[i];
		}
		part->n += k;
	}
	return in->why ? -1 : 0;
}

static int read_part(struct in *in, struct sbt_dataset *part)
{
	struct sbt_source *src = sbt_ds_source(part, NULL);
	uint32_t *rmap = NULL, nr = 0, ns = 0, *smap = NULL;
	uint64_t n = 0;
	int rc = -1;

	if (!src)
		return in->why = "out of memory", -1;
	if (get_source(in, src) != 0 ||
	    get_regions(in, part, 0, &rmap, &nr, 0) != 0)
		goto out;
	ns = get_u32(in);
	if (in->why || !plausible(in, ns, 8) ||
	    !(smap = malloc((ns ? ns : 1) * sizeof *smap))) {
		in->why = in->why ? in->why : "damaged (call sites)";
		goto out;
	}
	for (uint32_t i = 0; i < ns && !in->why; i++) {
		uint32_t region = get_u32(in), depth = get_u32(in);
		uint64_t fr[256];
		if (in->why || region >= nr || depth > 256) {
			in->why = in->why ? in->why : "damaged (a call site)";
			break;
		}
		if (get(in, fr, depth * sizeof *fr) != 0)
			break;
		long s = sbt_ds_site(part, 0, fr, depth);
		if (s < 0) {
			in->why = "out of memory";
			break;
		}
		part->sites[s].region = rmap[region];
		smap[i] = (uint32_t)s;
	}
	n = get_u64(in);
	if (in->why || !plausible(in, n, 8) || n > SIZE_MAX / 64) {
		in->why = in->why ? in->why : "damaged (sample count)";
		goto out;
	}
	if (get_first_column(in, part, (size_t)n) != 0)
		goto out;
	GET_COLUMN(in, part, 0, n, double, cycles, v >= 0);
	GET_COLUMN(in, part, 0, n, double, t_ns, v >= 0 && v < 1e300);
	GET_COLUMN(in, part, 0, n, uint32_t, region, v < nr);
	GET_COLUMN(in, part, 0, n, uint32_t, thread, v < (1u << 24));
	GET_COLUMN(in, part, 0, n, uint16_t, cpu_start, 1);
	GET_COLUMN(in, part, 0, n, uint16_t, cpu_stop, 1);
	GET_COLUMN(in, part, 0, n, uint32_t, flags, !(v & ~KEPT_FLAGS));
	GET_COLUMN(in, part, 0, n, uint32_t, site,
		   v == SBT_SITE_NONE || v < ns);
	GET_COLUMN(in, part, 0, n, uint16_t, switches, 1);
	GET_COLUMN(in, part, 0, n, uint16_t, faults, 1);
	GET_COLUMN(in, part, 0, n, uint32_t, skipped, 1);
	if (get_counters(in, part, (size_t)n) != 0 ||
	    (in->version >= 2 && get_speed(in, part) != 0) ||
	    (in->version >= 3 && get_threads(in, src) != 0) ||
	    (in->version >= 4 && get_detours(in, part) != 0) ||
	    (in->version >= 5 && get_detour_places(in, part) != 0) ||
	    (in->version >= 6 && get_recorder(in, src) != 0) ||
	    (in->version >= 8 && get_names(in, src) != 0) ||
	    (in->version >= 9 && get_probes_switched(in, part) != 0) ||
	    (in->version >= 10 && get_memory(in, part) != 0))
		goto out;
	char m[8];
	if (get(in, m, sizeof m) == 0 && memcmp(m, endmark, sizeof m))
		in->why = "damaged (no end mark)";
	if (get_u64(in) != n && !in->why)
		in->why = "damaged (sample count at the end)";
	/* Read past the end: only now has zlib checked the CRC. */
	if (!in->why && (gzread(in->f, m, 1) != 0 || !gzeof(in->f)))
		in->why = "damaged (data after the end, or checksum)";
	if (in->why)
		goto out;
	for (size_t i = 0; i < part->n; i++) {
		struct sbt_sample *s = &part->s[i];
		s->region = rmap[s->region];
		if (s->site != SBT_SITE_NONE)
			s->site = smap[s->site];
	}
	rc = 0;
out:
	free(rmap), free(smap);
	return rc;
}

int sbt_summary_read(const char *path, struct sbt_dataset *ds, char *err,
		     size_t errlen)
{
	struct sbt_dataset part = { 0 };
	struct in in;
	int rc = -1;

	if (open_in(&in, path, err, errlen) != 0) {
		if (in.f)
			gzclose(in.f);
		return -1;
	}
	if (read_part(&in, &part) != 0)
		goto out;
	/* The shares ds's plan holds (thin.h), then those samples alone. */
	for (size_t r = 0; r < part.nregions; r++) {
		struct sbt_region *g = &part.regions[r];
		long i = sbt_ds_region(ds, g->name, strlen(g->name), g->api);
		if (i < 0) {
			in.why = "out of memory";
			goto out;
		}
		g->keep = ds->regions[i].keep;
	}
	if (thin(&part, 0) != 0) {
		in.why = "out of memory";
		goto out;
	}
	for (size_t i = 0; i < part.n; i++)     /* as reader.c counts */
		if (part.s[i].site != SBT_SITE_NONE)
			part.sites[part.s[i].site].count++;
	sbt_ds_sort_probes(&part);       /* as a log's reader leaves them */
	rc = sbt_ds_append(ds, &part) == 0 ? 0 : (in.why = "out of memory",
						     -1);
out:
	if (rc != 0)
		snprintf(err, errlen, "summary %s", in.why ? in.why :
			 "unreadable");
	sbt_ds_free(&part);
	gzclose(in.f);
	return rc;
}
