/*
 * pool.h - the groups through run.h's stages on -j threads (pool.c).
 */
#ifndef SBT_POOL_H
#define SBT_POOL_H

#include "run.h"

#include <pthread.h>
#include <stdatomic.h>

/* Groups are independent until machine events compare them: each worker
 * takes the next group (largest first, for balance) and writes only that
 * group and the marks of its own samples. */
enum stage { STAGE_GROUP, STAGE_RESCORE };

struct pool {
	const struct sbt_dataset *ds;
	const struct sbt_options *o;
	struct sbt_result *res;
	struct sbt_score_in *in;      /* per group, from sbt_run_group    */
	const uint8_t *leave_pre;     /* per region: SBT_PRE_*            */
	uint32_t *todo;               /* group indexes, largest first     */
	struct scratch *w;            /* nw of them, lent (borrow)        */
	uint8_t *lent;                /* per scratch, under mu            */
	pthread_mutex_t mu;
	int mu_made, nw;
	int jobs;                     /* -j, resolved                     */
	int inner;                    /* threads a group may use: -j / nw */
	enum stage stage;
	atomic_int failed;
};

/* The pool for p->res's groups (p->ds, o, res, in, leave_pre set) on -j
 * `jobs` threads.  0, or -1 when out of memory (sbt_pool_end still). */
int sbt_pool_start(struct pool *p, int jobs);

/* Run one stage over every group.  0, or -1 when a group failed. */
int sbt_pool_run(struct pool *p, enum stage stage);

/* The groups' scratch given back; the pool stays usable. */
void sbt_pool_drop(struct pool *p);
void sbt_pool_end(struct pool *p);

#endif
