/*
 * run.h - one group through the analysis's steps (run.c), in scratch of
 * the group's size.
 */
#ifndef SBT_RUN_H
#define SBT_RUN_H

#include "result.h"
#include "score.h"

/* Scratch for one group, each of at least the largest group's size. */
struct scratch {
	double *v, *y, *t;
	uint8_t *keep;
	float *score;
	uint32_t *ix;                   /* a value's sample               */
	size_t cap;
};

/* Room for a group of n samples.  0, or -1 when out of memory. */
int sbt_scratch_fit(struct scratch *w, size_t n);
void sbt_scratch_free(struct scratch *w);

/* One group on its way through the steps of sbt_run_group: what
 * each step leaves for the next.  The dataset is only read; what the
 * analysis says of a sample goes to mark[] (and score[]), each group
 * writing only its own samples' bytes. */
struct run {
	const struct sbt_dataset *ds;
	const struct sbt_options *o;
	uint8_t *mark;                /* res->mark                        */
	float *score;                 /* res->score, or NULL              */
	struct sbt_group *g;
	const uint32_t *idx;          /* its samples, g->n                */
	struct scratch *w;
	struct sbt_score_in *in;
	int inner;                    /* threads the group may use        */
	int leave_pre;                /* its region's SBT_PRE_*           */
	/* gather: */
	size_t n;                     /* samples (not probes): v, y, ix   */
	int cycles;                   /* every log has a cycle clock      */
	double floor_ns;              /* highest kernel entry of its logs */
	/* drop, keep: */
	double median;                /* of all n, for the OS filter      */
	size_t k;                     /* kept values in v                */
	/* probes: */
	size_t np;                    /* in-situ probes in y              */
};

/* Filter and summarize one group, find its phases: sets up g->score's
 * metrics, and in r->in what the rescoring needs.  0, or -1 when out of
 * memory. */
int sbt_run_group(struct run *r);

/* After the machine's events and the speed probes' witness: the group's
 * phases found again where a dropped processor shift gave samples back
 * or the machine made its phases, then the group scored on its steady
 * samples.  0, or -1 when out of memory. */
int sbt_run_rescore(const struct run *r);

#endif
