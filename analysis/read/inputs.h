/*
 * inputs.h - sbt-analyze's inputs (logs, summaries, CSV files) into one
 * dataset: what each one is, the sample budget's plan, and reading them
 * all, several at once, in the order given.
 */
#ifndef SBT_INPUTS_H
#define SBT_INPUTS_H

#include <stdint.h>

#include "dataset.h"

enum sbt_input { SBT_IN_AUTO, SBT_IN_LOG, SBT_IN_CSV, SBT_IN_SUMMARY };

/* What path is: `forced` unless SBT_IN_AUTO, else by content, else by
 * name (a summary too damaged to tell keeps its name: its error then
 * says what is wrong). */
enum sbt_input sbt_input_kind(const char *path, enum sbt_input forced);

/* Does s end with tail (and have more before it)? */
int sbt_ends_with(const char *s, const char *tail);

/* Read one input of any kind into ds: 0, 1 damaged (what was valid is
 * kept), -1 unreadable (err). */
int sbt_input_read(const char *path, enum sbt_input forced,
		   struct sbt_dataset *ds, char *err, size_t errlen);

/* More samples than `budget`?  Then count every region's samples in all
 * inputs first and plan the share of them to hold (thin.h), and reserve
 * room for it.  0, or -1 (told on stderr). */
int sbt_inputs_plan(struct sbt_dataset *ds, int n, char *const *paths,
		    enum sbt_input forced, uint64_t budget);
/* The same, each log counted by up to `jobs` threads (0: one per core). */
int sbt_inputs_plan_jobs(struct sbt_dataset *ds, int n, char *const *paths,
			 enum sbt_input forced, uint64_t budget, int jobs);

/* Read paths[0..n) into ds in that order, up to `jobs` at once (0: one
 * per core; one log alone is read by `jobs` threads); results do not
 * depend on jobs.  Each input's trouble is
 * told on stderr as it is merged, in order.  Returns the exit status so
 * far: 0, 1 (an input damaged, or a summary left out), or 2 (an input
 * unreadable: ds is then incomplete and not to be reported). */
int sbt_inputs_read(struct sbt_dataset *ds, int n, char *const *paths,
		    enum sbt_input forced, int jobs);

#endif
