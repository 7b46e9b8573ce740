/*
 * words.h - what a group's analysis says, in words: the one renderer the
 * text report, the HTML page and the comparison share, made from the
 * findings' data (kind, sizes) and the group's numbers (phases, modes,
 * the samples' flags), never from sentences the analysis wrote.
 *
 * A group is read at three depths: its class (one word from a fixed set)
 * with the one or two numbers that size it, for the one-line table; its
 * findings in time order with what was left out, the precision and the
 * kernel's record, for -v; and the run's context (the processor's
 * shifts, what was left out and why) under the table.
 */
#ifndef SBT_WORDS_H
#define SBT_WORDS_H

#include "report.h"
#include "strbuf.h"

/* What a group's time does, one word each (sbt_class_word).  Decided by
 * its largest finding that is not minor; without one, by what keeps it
 * from saying "steady". */
enum sbt_class {
	SBT_CL_STEADY,          /* nothing of 1 % or more, resolved       */
	SBT_CL_MODES,           /* two or more amounts of work            */
	SBT_CL_STEP,            /* one lasting change of level            */
	SBT_CL_PHASES,          /* several changes, or a dip that returned */
	SBT_CL_SLOW_GROUP,      /* a thread/cpu/rank/host slower (--by)   */
	SBT_CL_FAST_GROUP,      /* ... faster                             */
	SBT_CL_BROAD,           /* spread beyond the timer's, no modes    */
	SBT_CL_PROCESSOR,       /* nothing of its own; many samples in the
				   processor's shifts                     */
	SBT_CL_UNRESOLVED,      /* nothing found, but its samples cannot
				   tell 10 % apart                        */
	SBT_CL_FEW,             /* too few samples to judge               */
	SBT_CL_OS,              /* the OS's part of its time or spread    */
	SBT_CL_OTHER,           /* a finding of a kind this renderer does
				   not know: named by its kind number     */
	SBT_CL__N
};

/* A group with fewer samples is "too few": no verdict either way. */
#define SBT_WORDS_FEW 10
/* A steady group whose population cannot resolve this share of its
 * typical time is "unresolved": steady or not, its data cannot say. */
#define SBT_WORDS_UNRESOLVED 0.10
/* A group with no finding of its own and at least this share of its
 * samples in the processor's shifts is "processor"; the run's context
 * names what was left out from this share of all samples on. */
#define SBT_WORDS_LARGE 0.10

int sbt_group_class(const struct sbt_group *g);
const char *sbt_class_word(int cl);

/* The one or two numbers that size the class: "60 ns 75 % | 240 ns 25
 * %, 4.0x apart", "+8.4 % at 99.9 ms", "resolves 0.17 ns". */
void sbt_words_size(struct sbt_strbuf *o, const struct sbt_group *g, int cl);

/* A group's changes over time, in time order: a step and its return
 * folded into one dip (or bump) with its net change, the transient
 * excursions together, the warm-up.  Steps only: modes and groups have
 * no time. */
enum sbt_change_kind { SBT_CH_STEP, SBT_CH_DIP, SBT_CH_WARMUP,
		       SBT_CH_TRANSIENTS };
struct sbt_change {
	int kind;
	double t_ns, t_end_ns;        /* where (a dip: until it returned);
					 sample numbers when untimed       */
	double from_ns, to_ns;        /* the level before and during       */
	double back_ns;               /* a dip: the level it returned to   */
	double rel;                   /* step: to / from - 1; dip: the
					 excursion; transients: the largest */
	double net_rel;               /* dip: back / from - 1               */
	size_t n;                     /* warm-up, transients: samples      */
	int count;                    /* transients: how many              */
};
#define SBT_CHANGES_MAX (SBT_PHASE_MAX + 2)
int sbt_group_changes(const struct sbt_group *g, struct sbt_change *ch);
/* Net lasting steps and dips among them. */
void sbt_changes_count(const struct sbt_change *ch, int n, int *steps,
		       int *dips);
void sbt_words_change(struct sbt_strbuf *o, const struct sbt_group *g,
		      const struct sbt_change *c);

/* One finding that has no time (modes, a group, a broad spread, a kind
 * not known here), sized; who: the group's name for a group finding. */
void sbt_words_finding(struct sbt_strbuf *o, const struct sbt_group *g,
		       const struct sbt_finding *x, const char *who);

/* What was left out of a group's verdict and why, each sample counted
 * once, under the first reason in this order. */
enum sbt_left { SBT_LEFT_CUT, SBT_LEFT_SPEED, SBT_LEFT_MACHINE,
		SBT_LEFT_PROBE, SBT_LEFT_TRANSIENT, SBT_LEFT__N };
struct sbt_leftout {
	size_t n;                     /* samples of the group              */
	size_t by[SBT_LEFT__N];
	size_t total;                 /* the sum                            */
};
void sbt_group_leftout(const struct sbt_dataset *ds,
		       const struct sbt_result *res, const struct sbt_group *g,
		       struct sbt_leftout *lo);
/* "30.5 % of 40000 samples (12200): the processor off speed 20 %, ...",
 * largest first; brief: each reason in a word (sbt_left_word). */
void sbt_words_leftout(struct sbt_strbuf *o, const struct sbt_leftout *lo,
		       int brief);
const char *sbt_left_word(int why);
/* What to do about what was left out most, "" when nothing needs it. */
const char *sbt_left_advice(int why);
const char *sbt_left_name(int why);

/* Each figure of the precision with what it is. */
void sbt_words_precision(struct sbt_strbuf *o, const struct sbt_group *g);
/* The kernel's record: preempted, faults, switches; "" when none. */
void sbt_words_os(struct sbt_strbuf *o, const struct sbt_group *g);

/* A comparison row's changed distribution: the modes that appeared,
 * vanished or changed share, and the new run's steps (folded as -v
 * says them) or the base run's gone; nothing when none. */
struct sbt_cmp_row;
void sbt_words_cmp_dist(struct sbt_strbuf *o, const struct sbt_cmp_row *r);

/* "1 sample", "2 samples". */
const char *sbt_plural(size_t n, const char *one, const char *many);

#endif
