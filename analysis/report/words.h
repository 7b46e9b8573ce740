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

#include "changes.h"
#include "report.h"
#include "strbuf.h"

/* A class's word (enum sbt_class, g->cls): "steady", "modes", ... */
const char *sbt_class_word(int cl);

/* The one or two numbers that size the class: "60 ns 75 % | 240 ns 25
 * %, 4.0x apart", "+8.4 % at 99.9 ms", "resolves 0.17 ns". */
void sbt_words_size(struct sbt_strbuf *o, const struct sbt_group *g, int cl);

/* One of g's changes over time (changes.h), sized. */
void sbt_words_change(struct sbt_strbuf *o, const struct sbt_group *g,
		      const struct sbt_change *c);

/* One finding, sized: sbt_say_finding (clause.h), SBT_LONG. */

/* What was left out of a group's verdict and why (enum sbt_left). */
struct sbt_leftout {
	size_t n;                     /* samples of the group              */
	size_t by[SBT_LEFT__N];
	size_t total;                 /* the sum                            */
};
void sbt_group_leftout(const struct sbt_group *g, struct sbt_leftout *lo);
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
