/*
 * main.c - sbt-analyze: command line, inputs, pipeline, output.
 */
#include "analyze.h"
#include "bysite.h"
#include "compare_cmd.h"
#include "drop.h"
#include "summary_cmd.h"
#include "callsites.h"
#include "embed.h"
#include "omp_names.h"
#include "figures.h"
#include "inputs.h"
#include "profile.h"
#include "report.h"
#include "report_trace.h"
#include "status.h"
#include "summary.h"
#include "thin.h"

#include <errno.h>
#include <getopt.h>
#include <locale.h>
#include <malloc.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef SBT_VERSION
#define SBT_VERSION "0.1.0"
#endif

/* The help; %s: the formats' names, %F: the drop filters' lines. */
static const char usage[] =
"usage: sbt-analyze [options] LOG|SUMMARY [LOG|SUMMARY...]\n"
"       sbt-analyze --summary OUT [options] LOG [LOG...]\n"
"       sbt-analyze [options] --compare BASE... -- NEW...\n"
"\n"
"Summarize sbtmark logs (or CSV samples from any tool) per region, after\n"
"removing the timer's own cost and samples hit by OS noise.\n"
"\n"
"  -v, --verbose              text: per region the findings in time order,\n"
"                             what was left out and why, the precision\n"
"                             and the kernel's record; the full table,\n"
"                             machine events and call sites\n"
"  --explain REGION           text: that evidence for REGION alone\n"
"  --width N                  text: lines of N columns (default: COLUMNS,\n"
"                             else 100); long names are shortened in\n"
"                             the middle\n"
"  --by thread|cpu|rank|host|site\n"
"                             one row per region and thread/cpu/rank/host\n"
"                             or call site\n"
"  --format NAME              the report on stdout: %s\n"
"                             (default: text)\n"
"  --html FILE                write a self-contained HTML report with\n"
"                             plots (histogram, CDF, samples over time,\n"
"                             groups compared, call sites); stdout gets\n"
"                             a report only when --format asks for one\n"
"  --spark                    text: a sparkline of each distribution\n"
"  --sort total|name|median|calls|count\n"
"                             order of the text table and the HTML\n"
"                             summary, largest first (default: total,\n"
"                             the time of all calls; CSV and JSON: name)\n"
"  --trace FILE               write the samples on a timeline (Chrome\n"
"                             Trace Event JSON: open it in ui.perfetto.dev\n"
"                             or chrome://tracing); as --html for stdout\n"
"  --trace-max N              at most N samples on it (default 1000000),\n"
"                             taken evenly over time; 0: all\n"
"  --filter LIST              the filters to apply, comma-separated, or\n"
"                             all (the default) or none:\n"
"                               cost: subtract the timer's own t_e,std\n"
"%F"
"  --os-filter default|paper  OS-noise cut: ours, or the paper's literal\n"
"                             beta search (default: default)\n"
"  --cost NS                  overhead to subtract instead of each log's\n"
"                             t_e,std\n"
"  --seed N                   isolation-forest seed (default: 1)\n"
"  --min-share PCT[,RUN]      a finding flags a region only when it is at\n"
"                             least PCT % of the region's time and RUN %\n"
"                             of the run's (default: 1,0.5)\n"
"  --dump FILE                write every sample as CSV (with score and\n"
"                             kept flag); '-' for stdout\n"
"  --input-format log|csv|summary\n"
"                             force the input format (default: by content)\n"
"  --profile FILE             t_min / t_diff from an sbt-calibrate profile\n"
"  --level l1|l2|l3|mem       which cache level of the profile applies\n"
"                             (default: the most conservative one found;\n"
"                             naming it prefers the profile to the in-situ\n"
"                             estimate)\n"
"  --no-symbols               call sites as module+offset only (no debug\n"
"                             info is read)\n"
"  --embed-names              instead of a report, resolve each LOG's call\n"
"                             sites, OpenMP regions and modules from its\n"
"                             binaries (here, as they are now) and append\n"
"                             them to the LOG: it is then analyzed alike\n"
"                             where the binaries are gone (sbt-run does it\n"
"                             after the run)\n"
"  -j, --jobs N               read N inputs (one log: N parts of it),\n"
"                             symbolize N call-site addresses and\n"
"                             analyze N regions at once\n"
"                             (default: one per core); results do not\n"
"                             depend on it\n"
"  --max-samples N            hold at most about N samples (default 4000000,\n"
"                             about 0.6 GB); beyond, each large region keeps\n"
"                             a random share, its call counts exact; 0: all\n"
"  --summary OUT              write a small summary of each log instead of\n"
"                             a report: OUT is a file (one log) or a\n"
"                             directory (LOG.sbts for each).  Under mpirun\n"
"                             or srun the ranks share the logs out.\n"
"                             'sbt-analyze *.sbts' reports as the logs would\n"
"                             (at most --max-samples, default 1000000, each)\n"
"  --compare BASE... -- NEW...\n"
"                             did a change help: the new runs against the\n"
"                             base runs, region by region (or by thread,\n"
"                             rank, host): change, resolution, verdict;\n"
"                             options go before --compare\n"
"  --fail-if-slower PCT       with --compare: exit 3 when a region is\n"
"                             slower by more than PCT % and beyond its\n"
"                             resolution (normalized by the processor's\n"
"                             speed where both sides have speed probes)\n"
"  --regions A,B              with --fail-if-slower: only these regions\n"
"  -q, --quiet                no progress line on stderr\n"
"  -h, --help                 this help\n"
"  -V, --version              version\n"
"\n"
"Inputs: logs, summaries (.sbts, by content) and CSV files (.csv).\n"
"CSV input: a header line naming the columns 'region' and 'ns', and\n"
"optionally 'cycles', 'thread', 't_ns' (start time) and 'cpu'; one sample\n"
"per line.\n"
"\n"
"Examples:\n"
"  sbt-analyze region.log\n"
"  sbt-analyze -v region.log\n"
"  sbt-analyze --explain solve region.log\n"
"  sbt-analyze --by thread --format json region.log\n"
"  sbt-analyze --html report.html --format text region.log\n"
"  sbt-analyze --by site region.log\n"
"  sbt-analyze --by rank run-*.log\n"
"  mpirun -np 64 sbt-analyze --summary sums/ run-*.log\n"
"  sbt-analyze --by rank sums/*.sbts\n"
"  sbt-analyze --input-format csv papi_samples.csv\n"
"  sbt-analyze --filter none --dump samples.csv region.log\n"
"  sbt-analyze --compare before*.log -- after*.log\n"
"  sbt-analyze --fail-if-slower 2 --compare base.sbts -- new.log\n"
"\n"
"Exit status: 0 ok, 1 an input was damaged or cut short (what was valid\n"
"is reported) or a damaged summary was left out, 2 bad usage or an\n"
"unreadable input, 3 (--fail-if-slower) a region was slower.\n";

static int pick(const char *arg, const char *opt, const char *const *names)
{
	for (int i = 0; names[i]; i++)
		if (!strcmp(arg, names[i]))
			return i;
	fprintf(stderr, "sbt-analyze: bad value '%s' for %s (try --help)\n",
		arg, opt);
	exit(2);
}

static const struct sbt_callsites *sites;   /* for --by site */

static int analyze(const struct sbt_dataset *ds, const struct sbt_options *o,
		   int by_site, struct sbt_result *res)
{
	int rc;

	sbt_status("analyzing %zu samples of %zu regions%s", ds->n,
		   ds->nregions, by_site ? " by call site" : "");
	rc = by_site ? sbt_analyze_by_site(ds, o, sites, res)
		     : sbt_analyze(ds, o, res);
	if (rc != 0)
		fputs(rc == -2 ? "sbt-analyze: --by site: too many call "
		      "sites\n" : "sbt-analyze: out of memory\n", stderr);
	return rc;
}

/* What a per_region format (the HTML page) compares groups by: what the
 * user asked for, else ranks when there are several processes, else
 * threads. */
static void box_grouping(const struct sbt_dataset *ds, enum sbt_by by,
			 int by_site, struct sbt_options *o,
			 struct sbt_report_opts *ro)
{
	ro->by_site = by_site;
	o->by = ro->by = by;
	if (by != SBT_BY_NONE || by_site)
		return;
	o->by = ro->by = ds->nsources > 1 ? SBT_BY_RANK : SBT_BY_THREAD;
}

/* One report: a format, and where it goes ("-": stdout). */
struct output {
	const struct sbt_report_format *fmt;
	const char *path;
};

/* Write o from in: 0, or -1 told. */
static int write_output(const struct output *o, const struct sbt_report_in *in)
{
	int out = strcmp(o->path, "-") != 0;
	FILE *f = out ? fopen(o->path, "w") : stdout;
	int rc;

	if (out)
		sbt_status("writing %s", o->path);
	if (!f) {
		sbt_status_done();
		fprintf(stderr, "sbt-analyze: cannot write %s: %s\n", o->path,
			strerror(errno));
		return -1;
	}
	errno = 0;
	rc = o->fmt->write(f, in);
	if ((out ? fclose(f) : fflush(f)) != 0 || rc != 0) {
		sbt_status_done();
		fprintf(stderr, "sbt-analyze: cannot write %s%s%s\n", o->path,
			errno ? ": " : "", errno ? strerror(errno) : "");
		return -1;
	}
	return 0;
}

/* The command line, parsed. */
struct cli {
	struct sbt_options o;
	struct sbt_report_opts ro;
	struct sbt_cmp_opts co;
	enum sbt_input input;
	const char *profile, *level, *html, *dump, *summary, *trace;
	unsigned long long budget, trace_max;
	int budget_set, symbols, quiet, by_site, embed;
	int format_set;                 /* --format given                 */
	int at;                         /* argv[at] is --compare, 0: none */
	int first;                      /* argv[first]: the first input   */
};

static const struct option longopts[] = {
	{ "by", required_argument, 0, 'b' },
	{ "format", required_argument, 0, 'f' },
	{ "filter", required_argument, 0, 'F' },
	{ "os-filter", required_argument, 0, 'O' },
	{ "cost", required_argument, 0, 'c' },
	{ "seed", required_argument, 0, 's' },
	{ "min-share", required_argument, 0, 'm' },
	{ "dump", required_argument, 0, 'd' },
	{ "input-format", required_argument, 0, 'i' },
	{ "no-symbols", no_argument, 0, 'n' },
	{ "embed-names", no_argument, 0, 'N' },
	{ "profile", required_argument, 0, 'p' },
	{ "level", required_argument, 0, 'l' },
	{ "html", required_argument, 0, 'H' },
	{ "spark", no_argument, 0, 'S' },
	{ "sort", required_argument, 0, 'o' },
	{ "quiet", no_argument, 0, 'q' },
	{ "jobs", required_argument, 0, 'j' },
	{ "max-samples", required_argument, 0, 'M' },
	{ "summary", required_argument, 0, 'U' },
	{ "fail-if-slower", required_argument, 0, 'G' },
	{ "regions", required_argument, 0, 'R' },
	{ "trace", required_argument, 0, 'T' },
	{ "trace-max", required_argument, 0, 'X' },
	{ "verbose", no_argument, 0, 'v' },
	{ "explain", required_argument, 0, 'E' },
	{ "width", required_argument, 0, 'W' },
	{ "help", no_argument, 0, 'h' },
	{ "version", no_argument, 0, 'V' },
	{ 0, 0, 0, 0 }
};
static const char *const bys[] = { "none", "thread", "cpu", "rank", "host",
				   "site", 0 };

/* --help: the usage with the formats' names where it says %s, and a
 * line for each drop filter where it says %F. */
static void help(void)
{
	for (const char *p = usage; *p; p++) {
		if (p[0] != '%' || (p[1] != 's' && p[1] != 'F')) {
			putchar(*p);
			continue;
		}
		if (*++p == 's')
			for (size_t i = 0; sbt_report_formats[i]; i++)
				printf("%s%s", i ? "|" : "",
				       sbt_report_formats[i]->name);
		else
			for (int i = 0; i < SBT_NDROP; i++)
				printf("%31s%s: %s\n", "",
				       sbt_drop_filters[i]->name,
				       sbt_drop_filters[i]->help);
	}
}

/* The format named by --format's value, or a usage error (exit 2). */
static const struct sbt_report_format *format(const char *name)
{
	const struct sbt_report_format *f = sbt_report_format(name);

	if (!f) {
		fprintf(stderr, "sbt-analyze: bad value '%s' for --format "
			"(try --help)\n", name);
		exit(2);
	}
	return f;
}
/* --filter's value as bits, or a usage error (exit 2). */
static int filters(const char *list)
{
	char bad[64];
	int f = sbt_drop_parse(list, bad, sizeof bad);

	if (f < 0) {
		fprintf(stderr, "sbt-analyze: no filter '%s' in --filter %s "
			"(try --help)\n", bad, list);
		exit(2);
	}
	return f;
}

static const char *const sorts[] = { "total", "name", "median", "calls",
				     "count", 0 };
static const char *const osm[] = { "default", "paper", 0 };
static const char *const inf[] = { "auto", "log", "csv", "summary", 0 };
static const char *const levels[] = { "l1", "l2", "l3", "mem", 0 };

/* optarg as a number in [lo, hi] (strtod's syntax; integral when `whole`),
 * or a usage error naming `what` (exit 2). */
static double number(const char *opt, const char *what, double lo,
		     double hi, int whole)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(optarg, &end);
	if (errno || *end || end == optarg || !(v >= lo && v <= hi) ||
	    (whole && v != floor(v))) {
		fprintf(stderr, "sbt-analyze: %s wants %s\n", opt, what);
		exit(2);
	}
	return v;
}

/* Parse argv into c; exits 0 (--help, --version) or 2 (bad usage). */
static void parse(int argc, char **argv, struct cli *c)
{
	int k;

	*c = (struct cli){
		.o = { .filters = SBT_F_ALL, .seed = 1, .cost_ns = -1,
		       .profile_t_min_ns = NAN, .profile_t_diff_ns = NAN },
		.ro = { .format = format("text"), .cost_ns = -1 },
		.co = { .fail_pct = NAN },
		.input = SBT_IN_AUTO, .budget = SBT_MAX_SAMPLES_DEFAULT,
		.trace_max = SBT_TRACE_MAX_DEFAULT, .symbols = 1 };
	/* --compare splits the command: options before it, then the two
	 * sides around '--' (which getopt would eat). */
	for (int i = 1; i < argc && !c->at; i++)
		if (!strcmp(argv[i], "--compare"))
			c->at = i;
		else if (!strcmp(argv[i], "--"))
			break;
	while ((k = getopt_long(c->at ? c->at : argc, argv, "hVqvj:", longopts,
				NULL)) != -1) {
		switch (k) {
		case 'b': {
			int b = pick(optarg, "--by", bys);
			c->by_site = b == 5;
			c->o.by = c->ro.by = c->by_site ? SBT_BY_NONE :
					     (enum sbt_by)b;
			c->ro.by_site = c->by_site;
			break;
		}
		case 'f': c->ro.format = format(optarg);
			  c->format_set = 1;
			  break;
		case 'v': c->ro.verbose = 1; break;
		case 'E': c->ro.explain = optarg; break;
		case 'W': c->ro.width = (int)number("--width", "a number of "
				"columns from 60 to 1000", 60, 1000, 1);
			  break;
		case 'F': c->o.filters = filters(optarg); break;
		case 'O': c->o.os_method = pick(optarg, "--os-filter", osm);
			  break;
		case 'i': c->input = (enum sbt_input)pick(optarg,
				     "--input-format", inf); break;
		case 'n': c->symbols = 0; break;
		case 'N': c->embed = 1; break;
		case 'p': c->profile = optarg; break;
		case 'l': c->level = levels[pick(optarg, "--level", levels)];
			  break;
		case 'd': c->dump = optarg; break;
		case 'H': c->html = optarg; break;
		case 'S': c->ro.spark = 1; break;
		case 'o': c->ro.sort = (enum sbt_sort)pick(optarg, "--sort",
							   sorts); break;
		case 'q': c->quiet = 1; break;
		case 'j': c->o.jobs = (int)number("--jobs", "a number of "
				"threads from 1 to 64", 1, SBT_JOBS_MAX, 1);
			  break;
		case 'M': c->budget = (unsigned long long)number(
				"--max-samples", "a number of samples (0: all)",
				0, 1e18, 1);
			  c->budget_set = 1;
			  break;
		case 'U': c->summary = optarg; break;
		case 'G': c->co.fail_pct = number("--fail-if-slower",
				"a non-negative percentage", 0, INFINITY, 0);
			  break;
		case 'R': c->co.regions = optarg; break;
		case 'T': c->trace = optarg; break;
		case 'X': c->trace_max = (unsigned long long)number(
				"--trace-max", "a number of events (0: all)",
				0, 1e18, 1);
			  break;
		case 'c': c->o.cost_ns = number("--cost",
				"a non-negative number of ns", 0, INFINITY, 0);
			  break;
		case 'm': {
			char *end;
			errno = 0;
			double a = strtod(optarg, &end), b = NAN;
			if (*end == ',')
				b = strtod(end + 1, &end);
			if (errno || *end || !(a > 0 && a <= 100) ||
			    (!isnan(b) && !(b > 0 && b <= 100))) {
				fputs("sbt-analyze: --min-share wants PCT or "
				      "PCT,RUN (percentages above 0)\n", stderr);
				exit(2);
			}
			c->o.min_share = a / 100;
			if (!isnan(b))
				c->o.min_run_share = b / 100;
			break;
		}
		case 's': {
			char *end;
			errno = 0;
			c->o.seed = strtoull(optarg, &end, 0);
			if (errno || *end) {
				fputs("sbt-analyze: --seed wants an integer\n",
				      stderr);
				exit(2);
			}
			break;
		}
		case 'h': help(); exit(0);
		case 'V': printf("sbt-analyze %s (log format %u, summary "
				 "format %u)\n", SBT_VERSION, SBT_LOG_VERSION,
				 SBT_SUMMARY_VERSION); exit(0);
		default:  fputs("try 'sbt-analyze --help'\n", stderr);
			  exit(2);
		}
	}
	c->first = optind;
	c->ro.filters = c->o.filters;
	c->ro.cost_ns = c->o.cost_ns;
	const char *bad =
		!c->at && (isfinite(c->co.fail_pct) || c->co.regions) ?
		"--fail-if-slower and --regions go with --compare" :
		c->co.regions && !isfinite(c->co.fail_pct) ?
		"--regions limits --fail-if-slower" :
		c->at && optind < c->at ?
		"--compare: inputs go after --compare (BASE... -- NEW...)" :
		c->at && c->summary ? "--compare: not with --summary" :
		c->embed && (c->at || c->summary) ? "--embed-names: not with "
		"--compare or --summary" :
		c->at && c->dump ? "--compare: not with --dump" :
		c->at && c->trace ? "--compare: not with --trace" :
		c->at && !c->ro.format->compare ? "--compare: that format "
		"has no comparison" :
		c->at && c->by_site ? "--compare: call sites differ between "
		"builds: --by thread, cpu, rank or host" :
		!c->at && optind >= argc ? "no input (try --help)" :
		c->level && !c->profile ? "--level needs --profile" : NULL;
	if (bad) {
		fprintf(stderr, "sbt-analyze: %s\n", bad);
		exit(2);
	}
}

/* --profile (and --level): t_min and t_diff into c->o; 0, or -1 told. */
static int load_profile(struct cli *c)
{
	static struct sbt_profile prof;
	static char label[32];
	const struct sbt_profile_entry *e = NULL;
	char err[256];

	if (!c->profile)
		return 0;
	if (sbt_profile_read(c->profile, &prof, err, sizeof err) != 0) {
		fprintf(stderr, "sbt-analyze: %s\n", err);
		return -1;
	}
	/* Unnamed level: the most conservative the profile has. */
	for (int i = 3; i >= 0 && !e; i--)
		if (!c->level || !strcmp(c->level, levels[i]))
			e = sbt_profile_lookup(&prof, levels[i], "wall");
	if (!e) {
		fprintf(stderr, "sbt-analyze: %s has no converged wall-clock "
			"result%s%s\n", c->profile, c->level ? " for level " :
			"", c->level ? c->level : "");
		return -1;
	}
	snprintf(label, sizeof label, "%s", e->level);
	c->o.profile_t_min_ns = e->t_min_ns;
	c->o.profile_t_diff_ns = e->t_diff_ns;
	c->o.profile_label = label;
	c->o.prefer_profile = c->level != NULL;
	return 0;
}

/* Read, symbolize, analyze and report the inputs argv[c->first ...]:
 * the exit status. */
static int run(struct cli *c, int argc, char **argv)
{
	int n = argc - c->first, status, rc = 0;
	char **in = argv + c->first;
	struct sbt_callsites cs = { 0 };
	struct sbt_dataset ds = { 0 };

	if (sbt_inputs_plan_jobs(&ds, n, in, c->input, c->budget,
				 c->o.jobs) != 0) {
		sbt_ds_free(&ds);
		return 2;
	}
	status = sbt_inputs_read(&ds, n, in, c->input, c->o.jobs);
	if (status == 2 || ds.nsources == 0) {
		if (status != 2)
			fputs("sbt-analyze: no input could be read\n", stderr);
		sbt_ds_free(&ds);
		return 2;
	}
	sbt_status("symbolizing %zu call sites", ds.nsites);
	if (sbt_omp_names(&ds, c->symbols) != 0 ||
	    sbt_callsites_build(&ds, c->symbols, c->o.jobs, &cs) != 0) {
		sbt_status_done();
		fputs("sbt-analyze: out of memory\n", stderr);
		sbt_ds_free(&ds);
		return 2;
	}
	c->ro.cs = sites = &cs;

	/* The reports asked for: stdout's, then the files'.  The analysis
	 * only reads the dataset, so each analysis they need is made once
	 * and they are written in any order: the one asked for (c->o: the
	 * table, JSON, CSV, the trace and the dump); and for a per_region
	 * format (the HTML page) its regions ungrouped and its groups
	 * compared (box_grouping): when the user grouped, the first is
	 * made apart and the second is the asked one; else the other way
	 * round. */
	/* --html and --trace write their files alone, unless --format
	 * asks for stdout's report too. */
	int to_stdout = c->format_set || !(c->html || c->trace);
	struct output out[] = {
		{ to_stdout ? c->ro.format : NULL, "-" },
		{ c->html ? format("html") : NULL, c->html },
		{ c->trace ? format("trace") : NULL, c->trace },
		{ c->dump ? format("dump") : NULL, c->dump },
	};
	size_t nout = sizeof out / sizeof *out;
	struct sbt_result res = { 0 }, other = { 0 };
	struct sbt_boxes boxes = { 0 };
	struct sbt_report_opts gro = c->ro;
	struct sbt_options go = c->o;
	int grouped = c->o.by != SBT_BY_NONE || c->by_site, per = 0;

	for (size_t i = 0; i < nout; i++)
		per |= out[i].fmt && out[i].fmt->per_region;
	c->o.scores = c->dump != NULL;
	rc = analyze(&ds, &c->o, c->by_site, &res);
	if (rc == 0 && per) {
		box_grouping(&ds, c->o.by, c->by_site, &go, &gro);
		if (grouped)
			go.by = SBT_BY_NONE;    /* the page's regions */
		rc = analyze(&ds, &go, grouped ? 0 : gro.by_site, &other);
		sbt_status("capturing the groups compared");
		if (rc == 0 && (rc = sbt_boxes_capture(&ds, grouped ? &res :
				&other, &gro, &boxes)) != 0)
			fputs("sbt-analyze: out of memory\n", stderr);
	}
	sbt_status_done();
	for (size_t i = 0; rc == 0 && i < nout; i++) {
		if (!out[i].fmt)
			continue;
		int pr = out[i].fmt->per_region;
		struct sbt_report_in rin = {
			.ds = &ds, .res = pr && grouped ? &other : &res,
			.o = pr ? &gro : &c->ro, .boxes = pr ? &boxes : NULL,
			.argc = argc, .argv = argv,
			.trace_max = c->trace_max };
		if (write_output(&out[i], &rin) != 0)
			status = 2;
	}
	sbt_boxes_free(&boxes);
	sbt_result_free(&other);
	if (rc != 0) {
		sbt_result_free(&res);
		sbt_callsites_free(&cs);
		sbt_ds_free(&ds);
		return 2;
	}
	if (fflush(stdout) != 0)
		status = 2;
	sbt_result_free(&res);
	sbt_callsites_free(&cs);
	sbt_ds_free(&ds);
	return status;
}

/* --embed-names: each log's names into it; said per log unless quiet.
 * 0 all done or nothing to add, 1 some refused or failed. */
static int embed(int n, char **logs, int quiet)
{
	int status = 0;

	for (int i = 0; i < n; i++) {
		char msg[600];
		int rc = sbt_embed_names(logs[i], msg, sizeof msg);
		if (rc < 0)
			status = 1;
		if (!quiet || rc < 0)
			fprintf(stderr, "sbt-analyze: %s: %s\n", logs[i], msg);
	}
	return status;
}

int main(int argc, char **argv)
{
	struct cli c;

	/* The pipeline allocates and frees per-group scratch of up to a
	 * region's size (bigmem.h: all from this heap); keep freed memory
	 * for reuse by the next stage or group instead of handing it back
	 * to the kernel and faulting it in, zeroed, again. */
	mallopt(M_MMAP_THRESHOLD, 1 << 30);
	mallopt(M_TRIM_THRESHOLD, 1 << 30);
	/* One arena for all threads: what the readers of one log's
	 * segments freed stayed in their threads' arenas (25 MB more at
	 * the peak with -j 2, 10^8 samples); they and
	 * the scoring workers allocate a few times a segment or group. */
	mallopt(M_ARENA_MAX, 1);
	setlocale(LC_CTYPE, "");        /* sparklines: is the terminal UTF-8 */
	parse(argc, argv, &c);
	if (load_profile(&c) != 0)
		return 2;
	sbt_status_init(c.quiet);
	if (c.at) {
		c.co.by = c.o.by;
		return sbt_compare_cmd(argc, argv, c.at, &c.o, &c.ro, c.html,
				       c.input, c.budget, c.symbols, &c.co);
	}
	if (c.embed)
		return embed(argc - c.first, argv + c.first, c.quiet);
	if (c.summary)
		return sbt_summary_cmd(argc - c.first, argv + c.first,
				       c.summary, c.input, c.budget_set ?
				       c.budget : SBT_SUMMARY_SAMPLES_DEFAULT,
				       c.o.jobs);
	return run(&c, argc, argv);
}
