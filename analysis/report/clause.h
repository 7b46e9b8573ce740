/*
 * clause.h - one finding in words, in the form a report wants (clause.c:
 * a function a kind, named by SBT_FINDINGS in result.h).
 */
#ifndef SBT_CLAUSE_H
#define SBT_CLAUSE_H

#include "result.h"
#include "strbuf.h"

/* The two depths a finding is said at. */
enum sbt_form {
	SBT_SHORT,      /* the verdict's clause, JSON's and CSV's text:
			   "step at 1.20 s: 310 ns -> 420 ns (+35.5 %)";
			   nothing for a finding that has none
			   (SBT_FX_UNSAID)                            */
	SBT_LONG,       /* the -v list's and the HTML page's item, with
			   its share of the time: "a change of level by
			   110 ns [35.5 % of its time]"               */
};

/* Finding x of g in the given form (enum sbt_form).  who names g in a
 * group finding ("OpenMP thread 3", "this group"); NULL: as g->said.by
 * says. */
void sbt_say_finding(struct sbt_strbuf *o, const struct sbt_group *g,
		     const struct sbt_finding *x, int form, const char *who);

#endif
