/*
 * report_dump.c - every sample as CSV (--dump), with what the analysis
 * made of it: the OS filter's score and verdict, the kernel's record,
 * its state (processor, machine, transient, dropped, probe, own), the
 * calls it stands for (1 + the calls of its site left out after it:
 * sampled, capped or thinned) and its SBT_EVENTS counts.  A region's
 * total is its samples' (ns less t_e,std) x calls, summed.
 */
#include "report_counters.h"
#include "report_speed.h"
#include "report_util.h"
#include "sbtlog.h"

static int write_dump(FILE *f, const struct sbt_report_in *in)
{
	const struct sbt_dataset *ds = in->ds;
	const struct sbt_result *res = in->res;

	fputs("source,pid,rank,thread,region,t_ns,ns,cycles,cpu_start,"
	      "cpu_stop,probe,migrated,score,kept,site,switches,preempted,"
	      "faults,state,detour,calls", f);
	sbt_cnt_dump_header(f, ds);
	fputc('\n', f);
	for (size_t i = 0; i < ds->n; i++) {
		const struct sbt_sample *s = &ds->s[i];
		unsigned mk = res->mark[i];
		const struct sbt_source *src = &ds->sources[s->source];
		fprintf(f, "%u,%d,%d,%u,", s->source, src->pid, src->rank,
			s->thread);
		sbt_csv_str(f, ds->regions[s->region].name);
		fprintf(f, ",%.1f,%.3f,%.0f,%d,%d,%d,%d,%.4f,%d,%ld,", s->t_ns,
			s->ns, s->cycles,
			s->cpu_start == 0xffff ? -1 : s->cpu_start,
			s->cpu_stop == 0xffff ? -1 : s->cpu_stop,
			!!(s->flags & SBT_SF_PROBE),
			!!(s->flags & SBT_SF_MIGRATED),
			res->score ? res->score[i] : 0.0f,
			!(s->flags & (SBT_SF_BEFORE_RESET | SBT_SF_PROBE)) &&
			!(mk & SBT_MK_DROPPED),
			s->site == SBT_SITE_NONE ? -1L : (long)s->site);
		/* -1: the kernel did not watch this sample's thread */
		if (src->os_state == SBT_OS_ON)
			fprintf(f, "%u,%d,%u", s->switches,
				!!(s->flags & SBT_SF_PREEMPTED), s->faults);
		else
			fputs("-1,-1,-1", f);
		fprintf(f, ",%s,%.1f,%llu", sbt_speed_state(s, mk),
			(double)s->detour_ns,
			1ull + (unsigned long long)s->skipped);
		sbt_cnt_dump_sample(f, ds, i);
		fputc('\n', f);
	}
	return ferror(f) ? -1 : 0;
}

const struct sbt_report_format sbt_format_dump = {
	.name = "dump", .write = write_dump,
};
