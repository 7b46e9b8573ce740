/*
 * report_notes.c - what each log warns of: the recorder's misuse and loss
 * counters, lost or unavailable OS events, SBT_MAX_MB's thinning, the
 * counters (SBT_EVENTS) left out, damage.
 */
#include "report_notes.h"
#include "report_counters.h"
#include "report_util.h"
#include "sbtlog.h"

#include <math.h>

/* Lost kernel events: where, what it means, and what to set. */
static void os_lost_note(FILE *f, const struct sbt_source *s, const char *pre)
{
	unsigned pages = s->os_pages ? s->os_pages : 16, want = 4 * pages;

	if (want > 1024)
		want = 1024;
	fprintf(f, "%sOS events: at least %llu lost (ring full) in a stretch "
		"with no marker call; the samples there are marked and their "
		"counts may be low", pre, (unsigned long long)s->os_lost);
	if (want > pages)
		fprintf(f, "; set SBT_OS_PAGES=%u (was %u) or mark the long "
			"region in parts", want, pages);
	fputc('\n', f);
}

void sbt_source_notes(FILE *f, const struct sbt_dataset *ds, size_t i,
		      const char *pre)
{
	const struct sbt_source *s = &ds->sources[i];

	for (int c = 0; c < SBT_CNT__N; c++)
		if (s->counters[c] && c != SBT_CNT_THREADS &&
		    sbt_counter_names[c])
			fprintf(f, "%swarning: %s: %llu%s\n", pre,
				sbt_counter_names[c],
				(unsigned long long)s->counters[c],
				/* not the OS filter's cut: never recorded */
				c == SBT_CNT_DROPPED ? " (samples lost by the "
				"recorder: no space left for the log)" : "");
	if (s->os_state == SBT_OS_UNAVAILABLE)
		fprintf(f, "%sOS events: unavailable (%s)\n", pre, s->os_note);
	else if (s->os_state == SBT_OS_ON && s->os_lost)
		os_lost_note(f, s, pre);
	if (s->max_mb && s->thin_level)
		fprintf(f, "%sSBT_MAX_MB %u: thinned from %.3f s on, 1 call in "
			"%.0f held at the end (level %u)\n", pre, s->max_mb,
			s->thin_at_ns[1] * 1e-9, ldexp(1, (int)s->thin_level),
			s->thin_level);
	else if (s->max_mb)
		fprintf(f, "%sSBT_MAX_MB %u: not reached, nothing thinned\n",
			pre, s->max_mb);
	sbt_cnt_text_source(f, ds, i, pre);
	if (s->warning[0])
		fprintf(f, "%swarning: %s\n", pre, s->warning);
}
