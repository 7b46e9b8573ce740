/*
 * main.c - sbt-analyze: command line, inputs, pipeline, output.
 */
#include "analyze.h"
#include "csvin.h"
#include "profile.h"
#include "reader.h"
#include "report.h"

#include <errno.h>
#include <getopt.h>
#include <malloc.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef SBT_VERSION
#define SBT_VERSION "0.1.0"
#endif

static const char usage[] =
"usage: sbt-analyze [options] LOG [LOG...]\n"
"\n"
"Summarize sbtmark logs (or CSV samples from any tool) per region, after\n"
"removing the timer's own cost and samples hit by OS noise.\n"
"\n"
"  --by thread|cpu|rank|host  one row per region and thread/cpu/rank/host\n"
"  --format text|csv|json     output format (default: text)\n"
"  --filter none|cost|os|all  which filters to apply (default: all)\n"
"  --os-filter default|paper  OS-noise cut: ours, or the paper's literal\n"
"                             beta search (default: default)\n"
"  --cost NS                  overhead to subtract instead of each log's\n"
"                             t_e,std\n"
"  --seed N                   isolation-forest seed (default: 1)\n"
"  --dump FILE                write every sample as CSV (with score and\n"
"                             kept flag); '-' for stdout\n"
"  --input-format log|csv     force the input format (default: by content)\n"
"  --profile FILE             t_min / t_diff from an sbt-calibrate profile\n"
"  --level l1|l2|l3|mem       which cache level of the profile applies\n"
"                             (default: the most conservative one found;\n"
"                             naming it prefers the profile to the in-situ\n"
"                             estimate)\n"
"  --no-symbols               do not symbolize call sites\n"
"  -h, --help                 this help\n"
"  -V, --version              version\n"
"\n"
"CSV input: a header line naming the columns 'region' and 'ns', and\n"
"optionally 'cycles' and 'thread'; one sample per line.\n"
"\n"
"Examples:\n"
"  sbt-analyze region.log\n"
"  sbt-analyze --by thread --format json region.log\n"
"  sbt-analyze --by rank run-*.log\n"
"  sbt-analyze --input-format csv papi_samples.csv\n"
"  sbt-analyze --filter none --dump samples.csv region.log\n"
"\n"
"Exit status: 0 ok, 1 an input was damaged or cut short (what was valid\n"
"is reported), 2 bad usage or an unreadable input.\n";

static int pick(const char *arg, const char *opt, const char *const *names)
{
	for (int i = 0; names[i]; i++)
		if (!strcmp(arg, names[i]))
			return i;
	fprintf(stderr, "sbt-analyze: bad value '%s' for %s (try --help)\n",
		arg, opt);
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "by", required_argument, 0, 'b' },
		{ "format", required_argument, 0, 'f' },
		{ "filter", required_argument, 0, 'F' },
		{ "os-filter", required_argument, 0, 'O' },
		{ "cost", required_argument, 0, 'c' },
		{ "seed", required_argument, 0, 's' },
		{ "dump", required_argument, 0, 'd' },
		{ "input-format", required_argument, 0, 'i' },
		{ "no-symbols", no_argument, 0, 'n' },
		{ "profile", required_argument, 0, 'p' },
		{ "level", required_argument, 0, 'l' },
		{ "help", no_argument, 0, 'h' },
		{ "version", no_argument, 0, 'V' },
		{ 0, 0, 0, 0 }
	};
	static const char *const bys[] = { "none", "thread", "cpu", "rank",
					   "host", 0 };
	static const char *const fmts[] = { "text", "csv", "json", 0 };
	static const char *const filts[] = { "none", "cost", "os", "all", 0 };
	static const char *const osm[] = { "default", "paper", 0 };
	static const char *const inf[] = { "auto", "log", "csv", 0 };
	static const char *const levels[] = { "l1", "l2", "l3", "mem", 0 };
	const char *profile = NULL, *level = NULL;
	static struct sbt_profile prof;
	static char label[32];
	struct sbt_options o = { .filters = SBT_F_ALL, .seed = 1,
				 .cost_ns = -1, .profile_t_min_ns = NAN,
				 .profile_t_diff_ns = NAN };
	struct sbt_report_opts ro = { .symbols = 1 };
	const char *dump = NULL;
	int input = 0, c, status = 0;
	char *end;

	/* The pipeline allocates and frees per-group scratch of up to a
	 * region's size; keep freed memory for reuse instead of handing it
	 * back to the kernel and faulting it in again for the next group. */
	mallopt(M_MMAP_THRESHOLD, 1 << 30);
	mallopt(M_TRIM_THRESHOLD, 1 << 30);

	while ((c = getopt_long(argc, argv, "hV", longopts, NULL)) != -1) {
		switch (c) {
		case 'b': o.by = ro.by = pick(optarg, "--by", bys); break;
		case 'f': ro.format = pick(optarg, "--format", fmts); break;
		case 'F': o.filters = pick(optarg, "--filter", filts); break;
		case 'O': o.os_method = pick(optarg, "--os-filter", osm); break;
		case 'i': input = pick(optarg, "--input-format", inf); break;
		case 'n': ro.symbols = 0; break;
		case 'p': profile = optarg; break;
		case 'l': level = levels[pick(optarg, "--level", levels)];
			  break;
		case 'd': dump = optarg; break;
		case 'c':
			errno = 0;
			o.cost_ns = strtod(optarg, &end);
			if (errno || *end || o.cost_ns < 0) {
				fprintf(stderr, "sbt-analyze: --cost wants a "
					"non-negative number of ns\n");
				return 2;
			}
			break;
		case 's':
			errno = 0;
			o.seed = strtoull(optarg, &end, 0);
			if (errno || *end) {
				fprintf(stderr, "sbt-analyze: --seed wants an "
					"integer\n");
				return 2;
			}
			break;
		case 'h': fputs(usage, stdout); return 0;
		case 'V': printf("sbt-analyze %s (log format %u)\n",
				 SBT_VERSION, 1u); return 0;
		default:  fputs("try 'sbt-analyze --help'\n", stderr);
			  return 2;
		}
	}
	if (optind >= argc) {
		fputs("sbt-analyze: no input (try --help)\n", stderr);
		return 2;
	}
	ro.filters = o.filters;
	if (level && !profile) {
		fputs("sbt-analyze: --level needs --profile\n", stderr);
		return 2;
	}
	if (profile) {
		char err[256];
		const struct sbt_profile_entry *e = NULL;
		if (sbt_profile_read(profile, &prof, err, sizeof err) != 0) {
			fprintf(stderr, "sbt-analyze: %s\n", err);
			return 2;
		}
		/* Unnamed level: the most conservative the profile has. */
		for (int i = 3; i >= 0 && !e; i--)
			if (!level || !strcmp(level, levels[i]))
				e = sbt_profile_lookup(&prof, levels[i], "wall");
		if (!e) {
			fprintf(stderr, "sbt-analyze: %s has no converged wall-"
				"clock result%s%s\n", profile,
				level ? " for level " : "", level ? level : "");
			return 2;
		}
		snprintf(label, sizeof label, "%s", e->level);
		o.profile_t_min_ns = e->t_min_ns;
		o.profile_t_diff_ns = e->t_diff_ns;
		o.profile_label = label;
		o.prefer_profile = level != NULL;
	}

	struct sbt_dataset ds = { 0 };
	for (int i = optind; i < argc; i++) {
		char err[256] = "";
		int rc, csv = input == 2 ||
			      (input == 0 && !sbt_is_log(argv[i]) &&
			       strlen(argv[i]) > 4 &&
			       !strcmp(argv[i] + strlen(argv[i]) - 4, ".csv"));

		rc = csv ? sbt_csv_read(argv[i], &ds, err, sizeof err)
			 : sbt_read_log(argv[i], &ds, err, sizeof err);
		if (rc < 0) {
			fprintf(stderr, "sbt-analyze: %s: %s\n", argv[i], err);
			sbt_ds_free(&ds);
			return 2;
		}
		if (rc > 0) {
			fprintf(stderr, "sbt-analyze: %s: %s\n", argv[i],
				ds.sources[ds.nsources - 1].warning);
			status = 1;
		}
	}

	struct sbt_result res;
	if (sbt_analyze(&ds, &o, &res) != 0) {
		fputs("sbt-analyze: out of memory\n", stderr);
		sbt_ds_free(&ds);
		return 2;
	}
	sbt_report(stdout, &ds, &res, &ro);
	if (dump) {
		FILE *f = strcmp(dump, "-") ? fopen(dump, "w") : stdout;
		if (!f || sbt_dump(f, &ds) != 0 ||
		    (f != stdout && fclose(f) != 0)) {
			fprintf(stderr, "sbt-analyze: cannot write %s: %s\n",
				dump, strerror(errno));
			status = 2;
		}
	}
	if (fflush(stdout) != 0)
		status = 2;
	sbt_result_free(&res);
	sbt_ds_free(&ds);
	return status;
}
