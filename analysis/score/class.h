/*
 * class.h - what a group's time does, one class from a fixed set
 * (class.c): decided by its largest finding that is not minor; without
 * one, by what keeps it from being steady.  The score stage decides it
 * (g->cls); report/words.c gives each class its word and size.
 */
#ifndef SBT_CLASS_H
#define SBT_CLASS_H

#include "result.h"

/* g's class (enum sbt_class). */
int sbt_group_class(const struct sbt_group *g);

/* The largest finding of g that is not minor, or NULL. */
const struct sbt_finding *sbt_finding_major(const struct sbt_group *g);

/* g's first finding of a kind, NULL when it has none. */
const struct sbt_finding *sbt_finding_of(const struct sbt_group *g, int kind);

#endif
