/*
 * dataset.h - the analyzer's in-memory view of one or many logs.
 *
 * Every input (a binary log via reader.c, a CSV file via csvin.c) becomes
 * one struct sbt_dataset: a flat array of samples plus tables of regions
 * and sources.  Filters, statistics and reports read only this.
 */
#ifndef SBT_DATASET_H
#define SBT_DATASET_H

#include <stddef.h>
#include <stdint.h>

#include "sbtlog.h"            /* SBT_CNT__N */

/* What the log says of a sample, above the log's SBT_RF_* bits.  What
 * the analysis concludes of it is not here: that is its result's
 * (score/mark.h), so that analyzing never changes the dataset. */
enum sbt_sflag {
	SBT_SF_PROBE    = 1u << 0,   /* in-situ noise probe (== SBT_RF_PROBE) */
	SBT_SF_CALIB    = 1u << 1,   /* startup calibration (== SBT_RF_CALIB) */
	SBT_SF_RESET    = 1u << 2,   /* reset event, not a sample            */
	SBT_SF_CROSSED  = 1u << 3,
	SBT_SF_MIGRATED = 1u << 8,   /* cpu_start != cpu_stop                */
	SBT_SF_BEFORE_RESET = 1u << 10, /* discarded by a later RESET        */
	/* The kernel's record of the thread (osevents.c), in logs whose
	 * source has os_state SBT_OS_ON: */
	SBT_SF_PREEMPTED = 1u << 13, /* preempted at least once               */
	SBT_SF_OS_LOST  = 1u << 14,  /* events lost nearby: counts may be low */
	SBT_SF_TEAM_PREEMPTED = 1u << 15, /* another thread of its process
	                                preempted during it                   */
	SBT_SF_DETOUR   = 1u << 16,  /* a recorder detour (a speed probe, a
	                                drain) inside it was taken out of its
	                                time (SPEED flagged SPAN)             */
	/* The reader's own, never in a dataset it returns: a wait that ends
	 * at another thread's RELEASE (format version 6, JOIN), its end not
	 * found yet; meanwhile `site` holds the instance and `switches`,
	 * `faults` the master's thread number, low half first. */
	SBT_SF_JOINED   = 1u << 18,
};

/* One speed probe (SBT_SPEED_US): the processor's own speed at t_ns. */
struct sbt_probe {
	double   t_ns;               /* ns since its source's start           */
	double   ns;                 /* the fixed workload's duration         */
	uint32_t thread, source;
	uint16_t cpu;                /* 0xffff when unknown                   */
	uint16_t switched;           /* the kernel's record shows its thread
	                                switched out inside it: the OS's time,
	                                not the processor's (osevents.c)      */
};

/* One timed region instance. */
struct sbt_sample {
	double   ns;                 /* duration (ns); filter_cost subtracts  */
	double   cycles;             /* duration (cycles); 0 when no clock    */
	double   t_ns;               /* start, ns since its source's start    */
	uint32_t region;             /* index into dataset.regions            */
	uint32_t thread;             /* thread index within its source        */
	uint32_t source;             /* index into dataset.sources            */
	uint16_t cpu_start, cpu_stop;/* 0xffff when unknown                   */
	uint32_t flags;              /* enum sbt_sflag                        */
	uint32_t site;               /* index into dataset.sites, or
	                                SBT_SITE_NONE                         */
	uint16_t switches;           /* times it left its cpu (os_state ON)   */
	uint16_t faults;             /* page faults in it (os_state ON)       */
	uint32_t skipped;            /* sparse recording: calls of its site
	                                on its thread not recorded after it,
	                                before the next one recorded; so a
	                                group made 1 + skipped calls per
	                                sample                                */
	float    detour_ns;          /* recorder detours taken out of ns (SPEED
	                                spans; 0 in summaries): its wall
	                                interval ends at t_ns + ns + this   */
};

#define SBT_SITE_NONE UINT32_MAX

/* One call site of one region in one source: the calling context captured
 * once when the site was first seen (frames[0] is the marker's call site,
 * the caller's return address; frames[1..] its callers).  Samples point
 * here through sample.site; `count` is the number of samples that do. */
struct sbt_site {
	uint32_t region;             /* index into dataset.regions            */
	uint32_t source;             /* whose module map symbolizes frames    */
	uint64_t count;              /* samples recorded at this site         */
	uint32_t depth;              /* frames held                           */
	uint64_t *frames;            /* owned, depth entries                  */
};

struct sbt_region {
	char    *name;               /* owned, NUL-terminated                 */
	uint32_t api;                /* enum sbt_api (format/sbtlog.h)        */
	uint64_t site;               /* first call site, 0 if unknown         */
	uint32_t source;             /* source the site belongs to            */
	uint64_t total;              /* its samples in the inputs, probes too,
	                                before thinning (thin.c)              */
	double   keep;               /* the share of them held: 1, or less
	                                beyond the sample budget              */
};

/* Who a thread of a source was (META THREAD, read/threads.c): one per
 * thread with an entry, found by its sbtmark thread number through the
 * source's index (sbt_threads_find).  A thread's later entries overwrite
 * the earlier; OMP_VARIES says its OpenMP number was not always the
 * same. */
struct sbt_thread_info {
	uint32_t thread;             /* sbtmark thread number                 */
	int32_t  tid;                /* kernel tid, never 0                   */
	int32_t  omp_thread;         /* OpenMP thread number, -1: unknown     */
	uint32_t omp_level;          /* OpenMP nesting level, 0: none         */
	uint32_t flags;              /* SBT_TI_*                              */
	char     name[16];           /* comm (15 bytes at most), NUL-ended   */
};

#define SBT_TI_OMP_VARIES 1u         /* two different OpenMP numbers seen */

/* One input file: a log of one process, or a CSV file. */
struct sbt_source {
	char    *path;
	int      is_csv;
	int      truncated;          /* log not closed cleanly / cut short    */
	int      has_cycles;
	int32_t  pid, rank;
	uint64_t start_unix_ns;      /* CLOCK_REALTIME at t_ns 0; 0: unknown
	                                (CSV, summaries)                      */
	char     host[64];
	char     exe[512];
	char     cpu_model[64];
	double   tick_ns;            /* ns per wall tick                      */
	double   quantum_ns;         /* clock resolution floor (0 = unknown)  */
	double   te_ns;              /* t_e,std in ns (wall)                  */
	double   te_cycles;          /* t_e,std in cycles (0 = unknown)       */
	double   te_p50_ns, te_p999_ns;
	double   kernel_entry_ns;    /* floor for OS-noise jumps (0 = none)   */
	uint32_t probe_period;
	uint32_t nthreads;
	uint64_t counters[SBT_CNT__N]; /* enum sbt_counter                    */
	char     warning[256];       /* first problem met while reading       */
	uint32_t os_state;           /* enum sbt_os_state (format/sbtlog.h)   */
	char     os_note[64];        /* why unavailable or off                */
	uint64_t os_lost;            /* events the kernel lost, at least      */
	/* Off-cpu time from the kernel's switch records (osevents.c), summed
	 * over the threads, each within its samples' span (os_span_ns, also
	 * summed): preempted (from a preemption to the switch back in) and
	 * of the thread's own accord (sleeps, blocking waits).  The thread
	 * preempted longest, and for how long.  All 0 without records. */
	double   os_span_ns, os_preempt_ns, os_sleep_ns;
	double   os_preempt_max_ns;
	uint32_t os_preempt_max_thread;
	uint32_t os_pages;           /* ring pages per thread at the start    */
	uint32_t speed_ops;          /* probe workload (META SPEED), 0: none  */
	uint32_t speed_cadence_us;
	/* SBT_MAX_MB: the cap (0: none) and the final thinning level K;
	 * level k was in force from thin_at_ns[k] (ns since the log's start,
	 * thin_at_ns[0] = 0) on.  Samples are held equalized to level K. */
	uint32_t max_mb, thin_level;
	double   thin_at_ns[SBT_THIN_MAX + 1];
	/* How the recorder read the machine (format/sbtlog.h; 0: a log
	 * that predates them): where cpu numbers came from (enum
	 * sbt_cpu_from bits), the clock's instruction (enum
	 * sbt_clock_read), the machine's cpus; what marking threads paid
	 * for the log's memory themselves. */
	uint32_t cpu_from, clock_read, ncpus;
	uint64_t log_wait_ns, log_late_bytes;
	double   fault_ns;           /* a page fault's cost measured at start;
	                                0: not measured                      */
	/* Fault storms (format/sbtlog.h): the kernel's cost of a fault's
	 * record and the rate a thread records whole (0: older logs); the
	 * largest K a FAULT event stood for (0: none sampled) and the
	 * faults those sampled events stood for. */
	uint32_t fault_record_ns, fault_rate_max, os_fault_k;
	uint64_t os_faults_sampled;
	/* module map, for symbolizing call sites */
	struct sbt_module {
		uint64_t base, lo, hi;
		char *path;
		uint32_t build_id_len;       /* 0: none recorded          */
		uint8_t build_id[SBT_BUILDID_MAX];
	} *modules;
	size_t   nmodules;
	struct sbt_thread_info *thr; /* META THREAD, in arrival order; owned */
	uint32_t nthr, capthr;       /* entries of thr, and its room          */
	uint32_t *thr_ix, ixcap;     /* open addressing: thr index + 1, 0 free;
				      * ixcap a power of 2, or 0; owned     */
	struct sbt_names *names;     /* the log's names section (checked), or
				      * NULL; one allocation, owned        */
	char names_note[160];        /* why a names section was left out   */
};

/* A log's names section as read (format/sbtlog.h, SBT_META_NAMES): the
 * table's parts, checked against the log's modules; the table itself
 * follows this struct in the same allocation. */
struct sbt_names {
	struct sbt_names_head h;
	const struct sbt_names_mod *mod;
	const struct sbt_names_addr *addr;
	const struct sbt_names_frame *frame;
	const char *str;
};

struct sbt_counters;           /* counters.h */

struct sbt_dataset {
	struct sbt_sample *s;   size_t n, cap;
	struct sbt_counters *cnt; /* SBT_EVENTS per sample, or NULL      */
	struct sbt_region *regions; size_t nregions, cap_regions;
	uint32_t *rindex; size_t rindex_cap;  /* name -> region, dataset.c */
	struct sbt_source *sources; size_t nsources, cap_sources;
	struct sbt_site *sites; size_t nsites, cap_sites;
	struct sbt_probe *probes; size_t nprobes, cap_probes; /* by source,
	                                thread, then time (sbt_probe_cmp):
	                                the readers sort them, sbt_ds_append
	                                keeps the order; the analysis reads
	                                them so (sbt_ds_probes_sorted)        */
	struct sbt_probe *mprobes; size_t nmprobes, cap_mprobes; /* the
	                                memory-latency probes (META MEMLAT;
	                                ns: the chase's time), in the same
	                                order as probes                      */
	struct sbt_probe *detours; size_t ndetours, cap_detours; /* where
	                           the recorder took a thread aside (SPAN
	                           events; ns: for how long), any order  */
	uint64_t hold_budget;   /* nonzero: the one log to be read next is
	                           over this sample budget, not yet counted:
	                           its reader counts and thins it as it reads
	                           (read/hold.c), and clears this         */
};

/* Region index for `name` (len bytes), creating it if new.  -1 on OOM. */
long sbt_ds_region(struct sbt_dataset *ds, const char *name, size_t len,
		   uint32_t api);
/* The region of (name, api), or -1. */
long sbt_ds_find(const struct sbt_dataset *ds, const char *name,
		 uint32_t api);
/* Give region r the name `name` (same api).  0; 1 when another region
 * of its api has that name (nothing changed); -1 when out of memory. */
int sbt_ds_rename(struct sbt_dataset *ds, size_t r, const char *name);
/* Append one sample; returns it (zeroed but for region/source), or NULL. */
struct sbt_sample *sbt_ds_push(struct sbt_dataset *ds);
/* A new zeroed source; NULL on OOM. */
struct sbt_source *sbt_ds_source(struct sbt_dataset *ds, const char *path);
/* A new site of `source` with a copy of its frames (region unset, count
 * 0); its index, or -1 on OOM. */
long sbt_ds_site(struct sbt_dataset *ds, uint32_t source,
		 const uint64_t *frames, uint32_t depth);
/* Append *p to the growing array *a of *n, room for *cap; -1 on OOM. */
int sbt_probe_push(struct sbt_probe **a, size_t *n, size_t *cap,
		   const struct sbt_probe *p);
/* Append one speed probe; -1 on OOM. */
int sbt_ds_probe(struct sbt_dataset *ds, const struct sbt_probe *p);
/* Append one memory-latency probe; -1 on OOM. */
int sbt_ds_mprobe(struct sbt_dataset *ds, const struct sbt_probe *p);
/* Append one recorder detour; -1 on OOM. */
int sbt_ds_detour(struct sbt_dataset *ds, const struct sbt_probe *p);

/* qsort order of probes: by log, thread, then time (each thread's
 * probes in time order, as the speed timelines and the calls after a
 * probe read them). */
int sbt_probe_cmp(const void *a, const void *b);
/* Whether ds->probes are in sbt_probe_cmp order; sbt_ds_sort_probes
 * puts them so, and ds->mprobes (a reader's last step). */
int sbt_ds_probes_sorted(const struct sbt_dataset *ds);
void sbt_ds_sort_probes(struct sbt_dataset *ds);
/* Make room for `more` samples at once (avoids repeated growth). */
int sbt_ds_reserve(struct sbt_dataset *ds, size_t more);
/* Room for exactly `cap` samples in all (nothing when there is), for a
 * count known in advance; -1 out of memory. */
int sbt_ds_room(struct sbt_dataset *ds, size_t cap);
/* Move everything of `part` to the end of ds (regions merged by name,
 * its sources, sites and samples renumbered) and free part, whatever
 * the outcome.  0, or -1 when out of memory. */
int sbt_ds_append(struct sbt_dataset *ds, struct sbt_dataset *part);
void sbt_ds_free(struct sbt_dataset *ds);

#endif
