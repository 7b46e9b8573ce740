/*
 * progress.h - one status line on stderr while calibrating: level,
 * method, search, decade, candidate, ETA.  Silent unless stderr is a TTY.
 */
#ifndef SBT_CAL_PROGRESS_H
#define SBT_CAL_PROGRESS_H

#include "search.h"

struct sbt_progress {
	int    tty;
	double t0, last;           /* start, last redraw (s)            */
	unsigned task, ntasks;     /* (level, method, search) done/all  */
	const char *level, *method;
};

void sbt_progress_init(struct sbt_progress *p, unsigned ntasks);
/* Now working on task number `task` (from 0). */
void sbt_progress_task(struct sbt_progress *p, unsigned task,
		       const char *level, const char *method);
/* The search callback (struct sbt_bench.progress). */
void sbt_progress_cb(void *arg, const struct sbt_progress_info *pi);
/* Erase the line. */
void sbt_progress_done(struct sbt_progress *p);

double sbt_now_s(void);

#endif
