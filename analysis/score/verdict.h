/*
 * verdict.h - one group's verdict as a person reads it (verdict.c).
 */
#ifndef SBT_VERDICT_H
#define SBT_VERDICT_H

#include "result.h"

/* Compose g->verdict from its score, phases and flag (verdict.c): the
 * findings in g->find ranked by size, major before minor. */
void sbt_verdict(struct sbt_group *g, enum sbt_by by);

#endif
