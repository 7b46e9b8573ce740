/*
 * verdict.h - a group's findings, as data (verdict.c): what report/say.c
 * and report/words.c put in words.
 */
#ifndef SBT_VERDICT_H
#define SBT_VERDICT_H

#include "result.h"

/* Make g's findings from its score, phases, flag and decomposition: the
 * findings in g->find, their data and alarms (o's shares; o NULL: the
 * defaults), ranked by size, alarms first; what the verdict says beside
 * them in g->said. */
void sbt_verdict(struct sbt_group *g, const struct sbt_options *o);

#endif
