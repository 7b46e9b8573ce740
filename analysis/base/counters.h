/*
 * counters.h - the events of SBT_EVENTS per sample and per region.
 *
 * A log of format version 4 holds, after each START and STOP of a thread
 * that counted, a reading of its perf group (COUNT events: time enabled,
 * time running, one value per counter; format/sbtlog.h), and META COUNTER
 * entries naming the events and why any named one was not counted.  The
 * reader hands both here; a sample's count of an event is its STOP reading
 * minus its START reading, scaled by enabled / running when the kernel
 * multiplexed the group.
 *
 * Values live beside the samples, not in struct sbt_sample (whose size
 * every log pays for): ds->cnt->v[i * ncol + k] is sample i's count of
 * column k, NAN where it has none; allocated only when some source counts.
 * Columns are event names, shared by the sources that counted them.
 */
#ifndef SBT_COUNTERS_H
#define SBT_COUNTERS_H

#include <stdint.h>
#include <stddef.h>
#include "sbtlog.h"

struct sbt_dataset;

#define SBT_CNT_COLS 8                 /* distinct events in a dataset  */
#define SBT_CNT_OPEN 128               /* open STARTs a thread keeps    */
#define SBT_CNT_NAME 64

/* One source's events: what it counted, and what it could not. */
struct sbt_cnt_src {
	int    col[SBT_COUNT_MAX];     /* COUNT id -> column, -1: none  */
	uint8_t scaled[SBT_COUNT_MAX]; /* SBT_COUNTER_SCALED: in the
					 group ENABLED / RUNNING time   */
	uint8_t user[SBT_COUNT_MAX];   /* a context-switch or migration
					 count in user mode only (the
					 kernel's part refused): 0      */
	uint32_t n;                    /* counters in its group         */
	char   off[512];               /* "cycles (...), foo (unknown)" */
	double empty[SBT_COUNT_MAX];   /* by COUNT id: the least count of
					 an empty pair (the startup
					 calibration's), NAN: none      */
	int    named;                  /* SBT_EVENTS named something    */
};

struct sbt_counters {
	uint32_t ncol;
	char   name[SBT_CNT_COLS][SBT_CNT_NAME];
	double *v;                     /* v[i * ncol + k]               */
	float  *share;                 /* running / enabled, NAN: none  */
	size_t cap;                    /* samples v and share hold      */
	struct sbt_cnt_src *src;       /* by source index               */
	size_t nsrc;
};

/* ---- reading a log (reader.c) ------------------------------------------ */

/* One thread's readings in flight: those of its open STARTs, and where
 * the COUNT events being read belong. */
struct sbt_cnt_reading {
	uint64_t v[SBT_COUNT_MAX + 2]; /* enabled, running, counters    */
	uint32_t mask;                 /* which v[] were read           */
};

struct sbt_cnt_thread {
	struct sbt_cnt_reading *open;  /* per open START (lazily)       */
	struct sbt_cnt_reading start;  /* of the sample being closed    */
	struct sbt_cnt_reading stop;
	int    to;                     /* 0 nowhere, 1 open[slot], 2 the
					 sample `sample`, 3 a calibration
					 pair (sbt_cnt_src.empty)       */
	uint32_t slot;
	size_t sample;
};

/* A META COUNTER entry of source `src`.  -1 when out of memory. */
int sbt_cnt_meta(struct sbt_dataset *ds, uint32_t src, const void *p,
		 uint32_t len);

/* START at open-stack slot `slot` (COUNT events that follow are its). */
void sbt_cnt_start(struct sbt_cnt_thread *t, uint32_t slot);

/* The STOP that closes slot `slot` of a stack `depth` deep (the slots
 * above move down); its sample is `sample`, SIZE_MAX for a calibration
 * pair, SBT_CNT_NOWHERE for a sample not held (thin.h). */
#define SBT_CNT_NOWHERE (SIZE_MAX - 1)
void sbt_cnt_stop(struct sbt_cnt_thread *t, uint32_t slot, uint32_t depth,
		  size_t sample);

/* The oldest open START was dropped (damage: too deep). */
void sbt_cnt_shift(struct sbt_cnt_thread *t, uint32_t depth);

/* A COUNT event (id, value) of source `src` on thread t.  -1: no memory. */
int sbt_cnt_event(struct sbt_dataset *ds, uint32_t src,
		  struct sbt_cnt_thread *t, uint32_t id, uint64_t value);

void sbt_cnt_thread_free(struct sbt_cnt_thread *t);

/* ---- results -------------------------------------------------------------- */

/* Sample i's count of column k, NAN when it has none. */
double sbt_cnt_get(const struct sbt_dataset *ds, size_t i, uint32_t k);

/* Sample i's running share (1: counted all along), NAN when none. */
double sbt_cnt_share(const struct sbt_dataset *ds, size_t i);

void sbt_cnt_free(struct sbt_counters *c);

/* ---- moving samples (dataset.c, summary.c) -------------------------------- */

/* ds->cnt (created when NULL) with a column for each of the `ncol` names
 * (in that order, when new) and room for samples [0, n).  0, or -1. */
int sbt_cnt_prepare(struct sbt_dataset *ds, const char (*names)[SBT_CNT_NAME],
		    uint32_t ncol, size_t n);

/* Source `src` of ds, counting-wise (created with no events). */
struct sbt_cnt_src *sbt_cnt_source(struct sbt_dataset *ds, uint32_t src);

/* Part's counts moved in with its samples, which are now ds's samples
 * [first, ...) and its sources ds's [src0, ...).  0, or -1. */
int sbt_cnt_append(struct sbt_dataset *ds, const struct sbt_dataset *part,
		   size_t first, uint32_t src0);

/* Sample `from`'s counts become sample `to`'s (compacting). */
void sbt_cnt_move(struct sbt_dataset *ds, size_t to, size_t from);

#endif
