/*
 * say.h - the analysis's long sentences (say.c), made from the score
 * stage's data for every report that prints them: a group's verdict and
 * its findings' clauses (JSON, CSV), a comparison row's verdict (every
 * --compare format), the score alone, the phases, the machine's shifts
 * and durations.
 */
#ifndef SBT_SAY_H
#define SBT_SAY_H

#include "result.h"
#include "strbuf.h"

/* The buffers the sentences are made in: a clause longer than its
 * buffer is cut there, the same in every report. */
#define SBT_SAY_VERDICT_LEN 2048      /* a group's verdict: its first
					 SBT_VERDICT_FINDINGS clauses and
					 the rest fit                     */
#define SBT_SAY_FINDING_LEN 200       /* one finding's clause            */
#define SBT_SAY_CMP_LEN     640       /* a comparison row's verdict      */
#define SBT_SAY_DIST_LEN    400       /* ... its distribution's changes  */

/* g's verdict: its findings (g->find, in their order), then what g->said
 * names, then the precision: "step at 15.32 ms: 420 ns -> 432 ns (+3.0
 * %); ... . single samples resolve 20 ns, ...". */
void sbt_say_verdict(struct sbt_strbuf *o, const struct sbt_group *g);

/* One finding's clause: clause.h (sbt_say_finding). */

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

/* Where s's t_min / t_diff came from, as the data formats name it:
 * "in-situ", "profile:l2", "quantum", "none"; buf holds it. */
const char *sbt_metric_source_name(const struct sbt_score *s, char *buf,
				   size_t len);

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

/* Whom a comparison row names beside its region: "thread 3", "cpu
 * unknown", "rank 1", "pid 4242", "host a"; "" without --by.  buf
 * holds it. */
struct sbt_cmp_label;
const char *sbt_say_label(const struct sbt_cmp_label *l, char *buf,
			  size_t len);

/* A comparison row in words: "2.1 % slower (+21 ns; resolves 0.3 %);
 * normalized by the processor's speed, no change beyond 0.4 %
 * (population); ..." with its distribution's changes (the next). */
void sbt_say_cmp(struct sbt_strbuf *o, const struct sbt_cmp *c,
		 const struct sbt_cmp_row *r);

/* A row's distribution changes: "a mode appeared at 450 ns (12 %); a
 * step in the new run (...)"; nothing when none. */
void sbt_say_cmp_dist(struct sbt_strbuf *o, const struct sbt_cmp_row *r);
/* The modes that changed between the two sides; the separator for what
 * follows ("; ", or "" when nothing was said). */
const char *sbt_say_cmp_modes(struct sbt_strbuf *o,
			      const struct sbt_cmp_row *r);

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

/* "0.35", "12", "1.2k", "3.4M": a count or amount, never in scientific
 * notation. */
void sbt_fmt_num(char *buf, size_t len, double x);

/* A percentage (already x 100): "0.047", "4.9", "218", ">999". */
void sbt_fmt_pct(char *buf, size_t len, double pct);

/* A spread against the typical time: "31 %", "218x". */
void sbt_fmt_spread(char *buf, size_t len, double rel);

/* "9.37", "812", "11300": milliseconds of a point in the run. */
void sbt_fmt_ms(char *buf, size_t len, double ms);

/* " [4.2 % of its time]" where r is a share of a whole (0..1), else
 * what it is: " [3.2x its typical time]".  whose: "its", "the parallel
 * region's"; tail: ", minor" or "". */
struct sbt_strbuf;
void sbt_say_share(struct sbt_strbuf *o, double r, const char *whose,
		   const char *tail);

#endif
