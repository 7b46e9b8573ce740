/*
 * test_say.c - the words come from the data alone (report/say.c): groups
 * made by hand, no analysis, each finding's form set by its data (the
 * SBT_FX_ flags, the step's index, g->said), rendered to the sentence the
 * verdict says.  A renderer that ignored a flag, or judged on its own
 * (alarm or minor, what is said), would say another sentence here.
 */
#include "clause.h"
#include "say.h"
#include "words.h"
#include "../common/harness.h"

#include <math.h>
#include <string.h>

static struct sbt_finding find(int kind, double size_ns)
{
	return (struct sbt_finding){ .kind = kind, .size_ns = size_ns,
		.rel = NAN, .minor = 1, .time_share = NAN, .run_share = NAN,
		.var_share = NAN, .t_ns = NAN, .key = SBT_FIND_NOKEY,
		.per_event_ns = NAN, .events = NAN, .per_switch_ns = NAN,
		.switches = NAN, .resolution_ns = NAN, .ref = -1 };
}

static const char *clause(const struct sbt_group *g,
			  const struct sbt_finding *x)
{
	static char b[SBT_SAY_FINDING_LEN];
	struct sbt_strbuf o = { b, sizeof b, 0 };

	b[0] = 0;
	sbt_say_finding(&o, g, x, SBT_SHORT, NULL);
	return b;
}

static const char *verdict(const struct sbt_group *g)
{
	static char b[SBT_SAY_VERDICT_LEN];
	struct sbt_strbuf o = { b, sizeof b, 0 };

	b[0] = 0;
	sbt_say_verdict(&o, g);
	return b;
}

#define SAYS(got, want) CHECK(!strcmp((got), (want)), "said \"%s\", want " \
			      "\"%s\"", (got), (want))

/* One group, timed, with a step at 2 ms from 100 to 120 ns. */
static void base(struct sbt_group *g)
{
	memset(g, 0, sizeof *g);
	g->score.n = 1000;
	g->score.resolvable = 1;
	g->score.t_diff_ns = 10;
	g->score.t_min_ns = 500;
	g->score.shift_resolution_ns = NAN;
	g->score.metric_source = SBT_SRC_INSITU;
	g->phases.nphases = 2;
	g->phases.ph[0] = (struct sbt_phase){ .t_begin_ns = 0,
		.t_end_ns = 2e6, .level_ns = 100, .n = 500 };
	g->phases.ph[1] = (struct sbt_phase){ .t_begin_ns = 2e6,
		.t_end_ns = 4e6, .level_ns = 120, .first = 500, .n = 500 };
	g->phases.nsteps = 1;
	g->phases.step[0] = 1;
	g->phases.step_from_ns[0] = 100;
	g->said.min_share = 0.01;
	g->said.min_run_share = 0.005;
	g->said.by = SBT_BY_NONE;
	g->omp_thread = -1;
	g->others_wait_ns = NAN;
}

int main(void)
{
	static struct sbt_group g;
	struct sbt_finding x;

	/* a step: its phase by its index, not by its time */
	base(&g);
	x = find(SBT_FIND_STEP, 20);
	x.ref = 0;
	SAYS(clause(&g, &x), "step at 2.00 ms: 100 ns -> 120 ns (+20.0 %)");

	/* the processor's: which way its data says */
	x = find(SBT_FIND_PROCESSOR, 30);
	x.count = 7, x.var_share = 0.5;
	SAYS(clause(&g, &x), "the processor's: 7 calls 30 ns slower while its "
	     "speed was off, 50 % of the spread");
	x.flags = SBT_FX_FASTER;
	SAYS(clause(&g, &x), "the processor's: 7 calls 30 ns faster while its "
	     "speed was off, 50 % of the spread");

	/* a barrier's waits: from the threads' levels ("up to"), or the
	 * barrier's own */
	x = find(SBT_FIND_WAIT, 40);
	x.key = 3;
	SAYS(clause(&g, &x), "thread 3 is the slow one: it waits least here, "
	     "the others wait 40 ns more for it");
	x.flags = SBT_FX_UPTO;
	SAYS(clause(&g, &x), "thread 3 waits least: the slow one; the others "
	     "wait up to 40 ns more for it");
	x.rel = 0.04;          /* of the parallel region's time */
	SAYS(clause(&g, &x), "thread 3 waits least: the slow one; the others "
	     "wait up to 40 ns more for it, 4.0 % of the parallel region's "
	     "time");

	/* the OS's part of the time: where its fault cost comes from */
	x = find(SBT_FIND_OS_TIME, 6.6e6);
	x.events = 600, x.per_event_ns = 11000, x.time_share = 0.4;
	SAYS(clause(&g, &x), "the OS's: 600 faults a call (11 us each) = "
	     "6.6 ms, 40 % of its time");
	x.flags = SBT_FX_RUN_COST;
	SAYS(clause(&g, &x), "the OS's: 600 faults a call (11 us each, the "
	     "run's) = 6.6 ms, 40 % of its time");
	x.flags = SBT_FX_REC_COST;
	SAYS(clause(&g, &x), "the OS's: 600 faults a call (11 us each, "
	     "measured at start) = 6.6 ms, 40 % of its time");

	/* the modes: the decomposition's where it says so */
	g.score.nmodes = 2;
	g.score.modes[0] = (struct sbt_mode){ .center_ns = 100, .share = .75 };
	g.score.modes[1] = (struct sbt_mode){ .center_ns = 200, .share = .25 };
	g.decomp.nmodes = 2;
	g.decomp.modes[0] = (struct sbt_mode){ .center_ns = 100, .share = .5 };
	g.decomp.modes[1] = (struct sbt_mode){ .center_ns = 150, .share = .5 };
	x = find(SBT_FIND_MODES, 100);
	SAYS(clause(&g, &x), "2 modes 100 ns apart (100 ns 75 %, 200 ns 25 %)");
	x.flags = SBT_FX_DECOMP;
	SAYS(clause(&g, &x), "2 modes 50 ns apart (100 ns 50 %, 150 ns 50 %)");

	/* a group: whom it names by how the result was grouped, and the
	 * others' wait where the data says to */
	g.delta_ns = 5, g.delta_rel = 0.05, g.delta_resolution_ns = 1;
	g.others_wait_ns = 30, g.others_wait_rel = 0.2;
	g.said.by = SBT_BY_RANK;
	x = find(SBT_FIND_GROUP, 5);
	SAYS(clause(&g, &x), "this rank is 5.0 % slower than the others' "
	     "median (5 ns; resolution 1 ns)");
	g.said.by = SBT_BY_THREAD, g.omp_thread = 2;
	x.flags = SBT_FX_WAITS;
	SAYS(clause(&g, &x), "OpenMP thread 2 is 5.0 % slower than the "
	     "others' median (5 ns; resolution 1 ns); the others wait 30 "
	     "ns at each barrier (20.0 % of the region)");

	/* no clause where the data says none */
	x = find(SBT_FIND_FEW, NAN);
	x.count = 4;
	SAYS(clause(&g, &x), "too few samples to judge (4)");
	x.flags = SBT_FX_UNSAID;
	SAYS(clause(&g, &x), "");

	/* the verdict: alarms, then the minor ones under their heading (the
	 * run's share named where a finding is small for the run only), the
	 * processor's said with what was left out, then the precision */
	base(&g);
	g.nfind = 3;
	g.find[0] = find(SBT_FIND_STEP, 20);
	g.find[0].ref = 0, g.find[0].alarm = 1, g.find[0].minor = 0;
	g.find[1] = find(SBT_FIND_WAIT, 40);
	g.find[1].key = 1, g.find[1].flags = SBT_FX_RUN_SMALL;
	g.find[2] = find(SBT_FIND_PROCESSOR, 30);
	g.find[2].flags = SBT_FX_DESCRIBES;
	g.nfindings = 1;
	g.count = 1000, g.speed_n = 9, g.said.slowed = 1;
	SAYS(verdict(&g), "step at 2.00 ms: 100 ns -> 120 ns (+20.0 %); minor "
	     "(under 1 % of its time or 0.5 % of the run's): thread 1 is the "
	     "slow one: it waits least here, the others wait 40 ns more for "
	     "it; the processor's, not the code: 9 samples while its speed "
	     "was off (speed probes), left out. single samples resolve 10 ns; "
	     "timed to 1 % (t_min 500 ns)");
	/* the same without the run's flag or the step's alarm */
	g.find[0].alarm = 0, g.find[0].minor = 1;
	g.find[1].flags = 0;
	g.nfindings = 0, g.said.slowed = 0;
	SAYS(verdict(&g), "no variation of 1 % or more; minor (under 1 % of "
	     "its time): step at 2.00 ms: 100 ns -> 120 ns (+20.0 %), thread "
	     "1 is the slow one: it waits least here, the others wait 40 ns "
	     "more for it. single samples resolve 10 ns; "
	     "timed to 1 % (t_min 500 ns)");
	/* the score alone */
	g.said.score_only = 1;
	g.score.n = 0;
	SAYS(verdict(&g), "no samples");
	/* the kernel's record: preempted samples kept by the region's
	 * rule, said as that rule (the verdict's words and -v's agree) */
	{
		static char b[512];
		struct sbt_strbuf o = { b, sizeof b, 0 };
		base(&g);
		g.os.covered = 100, g.os.preempted = 88;
		g.os.switches = 104, g.os.preempted_own = 1;
		g.os.keep_pre = SBT_PRE_HALF;
		sbt_words_os(&o, &g);
		CHECK(strstr(b, "preempted in half its calls or more: kept") &&
		      !strstr(b, "yields"), "half the calls preempted: %s", b);
		o.used = 0, b[0] = 0;
		g.os.keep_pre = SBT_PRE_OWN;
		sbt_words_os(&o, &g);
		CHECK(strstr(b, "more often than the OS preempts: kept as its "
			     "own (yields, waits)") != NULL, "yields: %s", b);
	}
	return h_done();
}
