/*
 * logread.h - what reader.c (the file, its meta data, the whole) and
 * segment.c (its events, a stretch of chunks at a time) share.  Private
 * to analysis/read.
 *
 * One log's events are read in segments: runs of EVENTS chunks in file
 * order.  A segment is parsed on its own (segment.c: sbt_seg_parse, on
 * any thread) against what it cannot know - the regions its threads had
 * open when it began, the last held sample of each call site before it -
 * and leaves what depends on those as a list of operations in stream
 * order.  The segments are then taken in file order on one thread
 * (sbt_seg_merge): each one's operations are replayed against the state
 * the segments before it left, in the order the serial reading would
 * have met them, and its samples appended.  So the dataset, its warning
 * and every count are those of reading the log in one piece, for any
 * number of segments.  Segment 0 begins with nothing open and needs
 * none of this (`first`): one segment is the serial reading itself.
 * A log counted as it is read (`live`, hold.c) is read in segments even
 * by one thread: between them its held samples are compacted.
 */
#ifndef SBT_LOGREAD_H
#define SBT_LOGREAD_H

#include "counters.h"
#include "dataset.h"
#include "sbtlog.h"
#include "thin.h"

#include <stddef.h>
#include <stdint.h>

#define OPEN_MAX 128                   /* the recorder keeps at most 64 */
#define NO_SLOT  SIZE_MAX

/* An open START. */
struct open_ev {
	uint64_t t0, c0;
	uint64_t out;                  /* ticks of recorder detours inside
					  it (SPEED spans): not its time  */
	uint32_t site, flags;
	uint16_t cpu;
	int      has_c;
	int      joined;               /* a JOIN followed it: its sample
					  ends at the RELEASE `link` names */
	uint64_t link;                 /* SBT_JOIN_T                      */
};

/* What a CYCLES event would belong to. */
enum last_kind { LAST_NONE, LAST_START, LAST_SLOT, LAST_POP, LAST_INHERIT };

/* site -> the last held sample of it on a thread (a SKIP's count and a
 * thinned sample go there).  Open addressing, site 0 empty. */
struct last {
	uint32_t site;
	uint32_t state;                /* segment.c: DEF, PEND, PEND_SURE */
	size_t   v;                    /* the sample, or the open credit op */
};

/* A thread as the segments merged so far left it. */
struct tstate {
	uint32_t thread;
	uint32_t n;
	struct last *last_of;          /* v: a dataset index (merged), or
					  a slot of the segment merging */
	size_t nlast, cap_last;
	struct open_ev open[OPEN_MAX];
	int lastk;                     /* LAST_NONE, _START or _SLOT      */
	size_t lastv;                  /* the sample (dataset index)      */
};

struct reset { uint32_t id, thread; double t_ns; };

/* What a call site id means to the event pass, fixed before it. */
struct site_info {
	uint64_t key;                  /* sbt_thin_key_base of its region */
	double   keep;                 /* its region's share              */
	uint32_t raw;                  /* its region id in the log        */
	int      named;                /* 0: region_of makes a placeholder */
};

/* Operations a segment leaves for the merge, in stream order. */
enum op_kind {
	OP_WARN,          /* the segment's first warning of its own      */
	OP_REGION,        /* region_of(raw): a placeholder's first use   */
	OP_DEPTH,         /* a START took the thread's stack to depth a  */
	OP_SPAN,          /* a detour of `a` ticks at t: open regions    */
	OP_CYCLES,        /* CYCLES t, the thread's first event          */
	OP_CREDIT,        /* a calls to the last held sample of site     */
	OP_HELD,          /* slot: thinned out unless no sample before   */
	OP_POP,           /* a STOP of a START of an earlier segment     */
	OP_JOIN,          /* a JOIN (link t) of an earlier segment's
			     innermost open START of site               */
};

/* A team's release (a RELEASE event): the master's sbtmark thread, its
 * instance (24 bits), when. */
struct release { uint32_t thread, inst; uint64_t t; };

struct op {
	uint8_t  kind;
	uint8_t  sure;         /* CREDIT: a sample before surely exists  */
	uint8_t  has_cyc;      /* POP: a CYCLES event followed it        */
	uint32_t thread, site, flags;
	uint16_t cpu;
	uint64_t t, a;         /* POP: a = the CYCLES event's value      */
	size_t   slot;         /* HELD, POP: its sample (NO_SLOT: none)  */
	size_t   prev;         /* POP: the thread's last held sample of
				  site in the segment, or NO_SLOT       */
};

#define SITE_MEMO 8                    /* sites info_of gave, by site  */

/* A thread as a segment saw it. */
struct lthread {
	uint32_t thread;
	uint32_t n, maxd;
	struct open_ev open[OPEN_MAX];
	struct last *tab;
	size_t ntab, cap_tab;
	int lastk;
	size_t lastv;                  /* slot, or op (LAST_POP)          */
	/* k: the site's site_info; mix: sbt_thin_mix(its key ^ thread),
	 * the part of each sample's hash the site and thread fix; bound:
	 * sbt_thin_bound(share), the share last tested; quiet: its region
	 * needs no OP_REGION (named, or made in this segment); last: its
	 * entry in tab, or NULL: not looked up (tab grown since) */
	struct site_memo { uint32_t site; int quiet; size_t k; uint64_t mix;
			   double share; uint64_t bound;
			   struct last *last; } memo[SITE_MEMO];
	struct sbt_cnt_thread cnt;     /* COUNT readings (one segment)    */
};

struct seg {
	size_t c0, c1;                 /* chunks [c0, c1) of the log      */
	const double *share;           /* live: per site_info, the shares
					  it holds at (>= the final)      */
	int first;                     /* segment 0: nothing before it    */
	int direct;                    /* samples go straight into the
					  dataset (one segment, serial)   */
	struct sbt_sample *s;          /* its samples (slots)             */
	size_t n, cap;
	uint8_t *dead;                 /* per slot: not a sample after all */
	struct op *ops; size_t nops, cap_ops;
	char warning[256];
	struct sbt_probe *probes; size_t nprobes, cap_probes;
	struct sbt_probe *detours; size_t ndetours, cap_detours;
	struct reset *resets; size_t nresets, cap_resets;
	struct release *rel; size_t nrel, cap_rel;
	uint64_t *counts;              /* counting: per site_info         */
	uint8_t *seen;                 /* per site_info: OP_REGION told   */
	struct lthread **th; size_t nth, cap_th;
	int oom, done;
};

struct chunk_at { uint64_t off, used; uint32_t thread; };

/* Region ids of one log -> dataset region indexes. */
struct idmap { int64_t *ds; uint32_t n; };

struct ctx {
	int fd;
	uint64_t fsize;
	struct sbt_dataset *ds;
	struct sbt_source *src;
	uint32_t srci;
	struct sbt_file_header h;
	struct idmap map;
	struct idmap sitemap;     /* site id -> dataset site        */
	struct idmap siteregion;  /* site id -> raw region id       */
	struct tstate **threads; size_t nthreads, cap_threads;
	struct reset *resets; size_t nresets, cap_resets;
	struct release *rel; size_t nrel, cap_rel;  /* RELEASE events   */
	size_t nunreleased;       /* JOINed waits no RELEASE ended      */
	struct sbt_os_rec *os; size_t nos, cap_os;  /* the kernel's events */
	struct sbt_os_cover *cov; size_t ncov, cap_cov;  /* their reach  */
	size_t first;          /* first sample of this source in ds */
	int damaged;
	int oom;                        /* out of memory inside an event */
	int counting;                   /* count samples per region only */
	uint64_t live;                  /* a single log over the sample
					   budget: counted and thinned as
					   it is read (hold.c), to this   */
	size_t hold_max;                /* live: compacted past this many */
	int guessed;                    /* live: a plan made from a 32nd
					   of the log or more             */
	double *share;                  /* live: per site_info, the share
					   held now (>= the final one)    */
	double **shares; size_t nshares;  /* live: every one published  */
	double *min_share;              /* live: the least of them, per
					   site_info                      */
	uint64_t bytes_total, bytes_done;  /* live: events in the log, in
					   the segments merged            */
	int thin;                       /* a region is held in part      */
	int cnt_on;                     /* the log names counters: COUNT
					   events read (in one segment)   */
	uint64_t holes, bad_chunks;
	int cut;                        /* a chunk (not the names') runs
					   past the file's end            */
	uint64_t end;                   /* where the last chunk ends      */
	char *buf;
	uint64_t bufsz;
	uint64_t max_id;
	int64_t stray;
	/* The event pass's view, fixed before it (read by every segment). */
	struct chunk_at *chunks; size_t nchunks, cap_chunks;
	struct site_info *info;   /* by dataset site - site0; last: none */
	size_t ninfo, site0;
	uint64_t *counts;         /* counting: per site_info             */
	double tick_ns;
	uint64_t start_ticks;
	size_t seg_bytes;         /* 0: the default                      */
};

/* What reader.c, segment.c and hold.c share (logread.c). */

/* Warn (the source's first problem). */
void sbt_log_warn(struct ctx *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* n bytes of file fd at off, whole.  -1: an error or the file's end. */
int sbt_log_read_at(int fd, uint64_t off, void *p, size_t n);
/* m[id] = idx, m grown as needed.  -1: no memory. */
int sbt_log_map_set(struct idmap *m, uint32_t id, int64_t idx);
/* The dataset region of raw region id `id`.  -1: no memory. */
int64_t sbt_log_region(struct ctx *c, uint32_t id);
/* Counting: each site's samples to its region's total. */
int sbt_log_totals(struct ctx *c);
/* Room in c->ds for `more` samples. */
int sbt_log_reserve(struct ctx *c, size_t more);

/* Parse segment g's chunks (any thread; reads only what the ctx fixed
 * before the event pass, and the file - but for a `direct` segment,
 * parsed by the merging thread, which writes c->ds).  0, or -1 out of memory. */
int sbt_seg_parse(struct ctx *c, struct seg *g);
/* Replay g against the state of the segments before it and append its
 * samples to c->ds (the merging thread).  0, or -1 out of memory. */
int sbt_seg_merge(struct ctx *c, struct seg *g);
/* After the last merge: the waits JOIN events marked end at their
 * RELEASE (format version 6), on `jobs` threads.  0, or -1 out of
 * memory. */
int sbt_seg_joins(struct ctx *c, int jobs);
void sbt_seg_free(struct seg *g);
/* The site_info of a site id, and its index in *k - segment.c. */
const struct site_info *sbt_seg_info(const struct ctx *c, uint32_t site,
				     size_t *k);
/* A thread's carried state, made if new (NULL: out of memory) -
 * segment.c. */
struct tstate *sbt_seg_thread(struct ctx *c, uint32_t thread);
/* The last held sample of site on a carried thread, or NULL; setting
 * it (0, or -1 out of memory) - segment.c. */
struct last *sbt_seg_last(struct tstate *ts, uint32_t site);
int sbt_seg_set_last(struct tstate *ts, uint32_t site, size_t v);
/* Held at share `keep` and the recorder's levels (thin.h)?  Per sample
 * parsed: inline. */
static inline int sbt_seg_held(const struct ctx *c,
			       const struct site_info *in, double keep,
			       uint32_t thread, double t_ns)
{
	double share = keep * (c->src->thin_level ?
			       sbt_thin_level_share(c->src, t_ns) : 1);

	return share >= 1 ||
	       sbt_thin_keep(sbt_thin_key_at(in->key, thread, t_ns), share);
}

/* The same for a segment's thread: the site and thread's part of the
 * hash and the share's bound in its memo m (segment.c), updated to
 * share `keep` when it changed. */
static inline int sbt_seg_held_memo(const struct ctx *c,
				    struct site_memo *m, double keep,
				    double t_ns)
{
	uint64_t t;

	__builtin_memcpy(&t, &t_ns, sizeof t);
	if (c->src->thin_level) {
		double share = keep * sbt_thin_level_share(c->src, t_ns);
		return share >= 1 ||
		       sbt_thin_keep(sbt_thin_mix(m->mix ^ t), share);
	}
	if (keep >= 1)
		return 1;
	if (keep != m->share)
		m->share = keep, m->bound = sbt_thin_bound(keep);
	return sbt_thin_mix(m->mix ^ t) >> 11 < m->bound;
}

/* Live thinning (hold.c).  The shares the running counts give, one per
 * site_info (malloc'd; NULL: out of memory): a bound on the final
 * shares, or (final) the final ones, the regions' totals and shares set
 * as counting the log first would have. */
double *sbt_hold_plan(struct ctx *c, int final);
/* Was a share published below the final one (after the final plan)?
 * Then the log is to be read again, planned first. */
int sbt_hold_missed(const struct ctx *c);
/* Drop the held samples of this log beyond c->share (a thread's first
 * of a site stays), each left-out call folded into the last one held
 * before it of its site and thread, as thinning at c->share from the
 * start would have; the threads' carried last samples follow.  The
 * samples' hashes are tested on `jobs` threads. */
void sbt_hold_compact(struct ctx *c, int jobs);
/* Free the carried threads' state. */
void sbt_seg_threads_free(struct ctx *c);

#endif
