/*
 * verdict.h - the analysis in words (verdict.c): a group's verdict and
 * its findings, the score's and the phases' sentences, durations.  The
 * one place that writes them.
 */
#ifndef SBT_VERDICT_H
#define SBT_VERDICT_H

#include "result.h"
#include "strbuf.h"

/* Compose g->verdict from its score, phases, flag and decomposition
 * (verdict.c): the findings in g->find, their data and alarms (o's
 * shares; o NULL: the defaults), ranked by size, alarms first. */
void sbt_verdict(struct sbt_group *g, const struct sbt_options *o);

/* The clause of a group that differs from the others of its region:
 * "WHO is 5.2 % slower than the others' median (SIZE; resolution RES)",
 * SIZE and RES (|delta_ns| and its resolution) as the caller writes
 * durations. */
void sbt_say_group(struct sbt_strbuf *o, const char *who, double delta_rel,
		   double delta_ns, const char *size, const char *resolution);

/* What the score alone says, distribution only: "no samples", "no
 * t_min/t_diff (...)", "too short to time to 1 %: ...", "variation
 * detected: 2 modes, ...", "no variation beyond the timer's ...".  A
 * group's verdict is this when there is nothing else to judge by. */
void sbt_score_verdict(const struct sbt_score *s, char *buf, size_t len);

/* Where phase k begins (end = 0) or ends (end = 1), for people: "1.20 s",
 * "35.00 ms", or "sample 2000" without a time base. */
void sbt_phase_when(const struct sbt_phases *p, int k, int end, char *buf,
		    size_t len);

/* Machine event i of res in words, for every report: "at 20.9 ms, all 4
 * regions on cpu 1 slowed 3 % (a, b, c, d): the machine, not the code;
 * the speed probes agree".  Region names from ds. */
void sbt_say_machine_event(struct sbt_strbuf *o, const struct sbt_dataset *ds,
			   const struct sbt_result *res, size_t i);

struct sbt_cmp;
struct sbt_cmp_row;

/* A comparison row in words (compare.c calls it for each row): r->dist,
 * "a mode appeared at 450 ns (12 %); a step in the new run (...)", and
 * r->verdict, "2.1 % slower (+21 ns; resolves 0.3 %); normalized by the
 * processor's speed, no change beyond 0.4 % (population); ...". */
void sbt_cmp_verdict(const struct sbt_cmp *c, struct sbt_cmp_row *r);

/* What bounds a comparison: "population", "run-to-run spread",
 * "smallest finding" (enum sbt_cmp_bound). */
const char *sbt_cmp_bound_name(int bound);

/* "level", "warm-up", "transient", "machine". */
const char *sbt_phase_kind_name(int kind);

/* One line of a classified p: "step at 1.20 s: 310 ns -> 420 ns (+35.5
 * %)" for each step, then the warm-up and the transient excursions, or
 * "no shift over time". */
void sbt_phase_line(const struct sbt_phases *p, char *buf, size_t len);

/* "112 ns", "3.4 ns", "12.5 us", "1.5 ms": a duration in a sentence. */
void sbt_fmt_ns(char *buf, size_t len, double ns);

#endif
