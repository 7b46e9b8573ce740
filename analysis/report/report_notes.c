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

/* Faults sampled in a storm: what stood for how many, and why. */
static void storm_note(FILE *f, const struct sbt_source *s, const char *pre)
{
	fprintf(f, "%spage faults: a storm, 1 in up to %u recorded (%llu "
		"faults stood for by samples", pre, s->os_fault_k,
		(unsigned long long)s->os_faults_sampled);
	if (s->fault_rate_max)
		fprintf(f, "; a thread records %u a second whole",
			s->fault_rate_max);
	if (s->fault_record_ns)
		fprintf(f, ", each record costing it %u ns",
			s->fault_record_ns);
	fprintf(f, "): the OS's share of the regions there is scaled "
		"from the samples; calls whose faults were not sampled are "
		"kept as the code's\n");
}

/* The source's span: its first sample's start to its last one's end. */
static double source_span_ns(const struct sbt_dataset *ds, size_t i)
{
	double lo = INFINITY, hi = 0;

	for (size_t k = 0; k < ds->n; k++)
		if (ds->s[k].source == i) {
			const struct sbt_sample *x = &ds->s[k];
			lo = x->t_ns < lo ? x->t_ns : lo;
			double end = x->t_ns + x->ns + x->detour_ns;
			hi = end > hi ? end : hi;
		}
	return hi > lo ? hi - lo : 0;
}

/* How the recorder read this machine, where it is not the usual way:
 * cpu numbers not from TSC_AUX, a clock without rdtscp; and log memory
 * the marking threads readied themselves when that cost them 1 % of
 * their time or more (outside any window, but the app's time: JSON
 * always has it). */
static void recorder_notes(FILE *f, const struct sbt_dataset *ds, size_t i,
			   const char *pre)
{
	const struct sbt_source *s = &ds->sources[i];
	uint32_t c = s->cpu_from;

	if (c & (SBT_CPU_FROM_RSEQ | SBT_CPU_FROM_NONE))
		fprintf(f, "%scpus: %s (TSC_AUX did not name the cpu on %s)\n",
			pre, c & SBT_CPU_FROM_NONE ? c & SBT_CPU_FROM_RSEQ ?
			"from the kernel's rseq area, unknown on some threads" :
			"unknown" : "from the kernel's rseq area",
			c & SBT_CPU_FROM_AUX ? "some threads" : "this machine");
	if (s->clock_read == SBT_READ_RDTSC)
		fprintf(f, "%sclock: lfence; rdtsc (CPUID lists no RDTSCP)\n",
			pre);
	if (s->log_wait_ns && (double)s->log_wait_ns >= 0.01 *
	    source_span_ns(ds, i) * (s->nthreads ? s->nthreads : 1))
		fprintf(f, "%slog memory: marking threads readied %.1f MiB "
			"themselves, %.3f ms (the preparer was behind)\n", pre,
			(double)s->log_late_bytes / (1 << 20),
			(double)s->log_wait_ns * 1e-6);
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
	if (s->os_fault_k > 1)
		storm_note(f, s, pre);
	if (s->max_mb && s->thin_level)
		fprintf(f, "%sSBT_MAX_MB %u: thinned from %.3f s on, 1 call in "
			"%.0f held at the end (level %u)\n", pre, s->max_mb,
			s->thin_at_ns[1] * 1e-9, ldexp(1, (int)s->thin_level),
			s->thin_level);
	else if (s->max_mb)
		fprintf(f, "%sSBT_MAX_MB %u: not reached, nothing thinned\n",
			pre, s->max_mb);
	recorder_notes(f, ds, i, pre);
	sbt_cnt_text_source(f, ds, i, pre);
	if (s->warning[0])
		fprintf(f, "%swarning: %s\n", pre, s->warning);
}
