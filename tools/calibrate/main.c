/*
 * main.c - sbt-calibrate: measure t_min and t_diff (paper §5.4.3-5.4.4)
 * for each cache level and timing method on this machine, print them
 * side by side, check the noise model, and write a calibration profile
 * for sbt-analyze.
 *
 * The run: pin to one cpu; learn the clock (preload/services/clock.c) and cache
 * sizes; build the ADD chain; measure ns per ADD; set up the methods;
 * then per level and method: the empty-pair noise (model check),
 * Algorithm 1, Algorithm 2.
 */
#include "cache.h"
#include "escape.h"
#include "clock.h"
#include "jit.h"
#include "methods.h"
#include "profile.h"
#include "progress.h"
#include "search.h"
#include "stat.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct row {
	int ran;
	struct sbt_result tmin, tdiff;
	struct sbt_model model;
	double te_std_ns;
	size_t flush_bytes;
};

struct opts {
	struct sbt_search_cfg cfg;
	const char *preset;
	int levels[SBT_NLEVELS];
	int methods[SBT_NMETHODS];
	size_t cache_override[3];
	enum sbt_mem_mode mem_mode;
	const char *lib, *out;
	int json, cpu;
};

#ifndef SBT_VERSION
#define SBT_VERSION "0.1.0"
#endif

static const char usage[] =
"usage: sbt-calibrate [options]\n"
"\n"
"Measure how short a region each timing method can time to 1 % (t_min)\n"
"and how small a difference it can tell apart (t_diff), per cache level,\n"
"with the paper's Algorithms 1 and 2, and check the noise model.\n"
"\n"
"Presets (N samples per batch, p confirmations, q pairs):\n"
"  --quick            N 200, p 2, q 3: all levels in under a minute\n"
"  (default)          N 1000, p 5, q 10: all levels in about 2 minutes\n"
"  --paper            the paper's N 10000, p 30, q 80 (hours)\n"
"\n"
"Options:\n"
"  -l, --levels LIST  cache levels, of l1,l2,l3,mem          (all)\n"
"  -m, --methods LIST methods, of sbtmark,bare,clock_gettime,papi,likwid\n"
"                                                             (all)\n"
"  -N, --samples N    samples per batch\n"
"  -p, --confirm P    extra batches that must pass at t_min\n"
"  -q, --pairs Q      pairs that must separate at t_diff\n"
"      --eps E        CV threshold for t_min                  (0.01)\n"
"      --alpha A      overlap threshold for t_diff            (0.05)\n"
"      --cap C        candidates per decade before a search is\n"
"                     reported as not converged               (20)\n"
"      --l1d SIZE, --l2 SIZE, --l3 SIZE\n"
"                     cache sizes (e.g. 48K, 1M), when the machine's\n"
"                     are unknown or wrong\n"
"      --mem-mode M   clflush: evict every resident line of the process\n"
"                     (default; fast); stream: read+write 4 x L3\n"
"      --lib PATH     libsbtmark.so for the sbtmark method\n"
"      --cpu N        pin to cpu N (-1: do not pin; default: current)\n"
"      --seed S       isolation-forest seed                   (1)\n"
"  -o, --output FILE  write a calibration profile for sbt-analyze\n"
"      --json         print JSON instead of the table\n"
"  -v, --verbose      print every batch's CV / overlap on stderr\n"
"  -h, --help         this text\n"
"  -V, --version      the version\n"
"\n"
"Examples:\n"
"  sbt-calibrate --quick                   # a first look, < 1 minute\n"
"  nice sbt-calibrate -o machine.profile   # the profile sbt-analyze uses\n"
"  sbt-calibrate -l l1,l2 -m sbtmark,bare --json > cal.json\n"
"  sbt-calibrate --paper -l l1 -m sbtmark,papi   # the paper's figure 9\n"
"\n"
"Figures are in ns of wall time (t_min: the median measured time at\n"
"t_min ADDs; t_diff: ADDs x ns per ADD).  'n/c' marks a search that did\n"
"not converge; the footnotes say why.  With an unfixed core clock the\n"
"workload itself varies by 0.3-2 %, so CV < 1 % can pass or fail by\n"
"chance at L3 and memory.\n";

static void die(const char *fmt, const char *arg)
{
	fprintf(stderr, "sbt-calibrate: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n(try sbt-calibrate --help)\n");
	exit(2);
}

static unsigned parse_uint(const char *s, const char *opt, unsigned lo)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || end == s || *s == '-' || v < lo || v > 1u << 30)
		die("bad value for %s", opt);
	return (unsigned)v;
}

static double parse_frac(const char *s, const char *opt)
{
	char *end;
	double v = strtod(s, &end);

	if (*end || end == s || !(v > 0 && v < 1))
		die("%s wants a number between 0 and 1", opt);
	return v;
}

/* "a,b,c" against names[]: sets on[i]. */
static void parse_list(const char *s, const char *const *names, int n,
		       int *on, const char *what)
{
	char buf[256], *tok, *save;

	if (strlen(s) >= sizeof buf)
		die("%s list too long", what);
	strcpy(buf, s);
	memset(on, 0, n * sizeof *on);
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		int i;
		for (i = 0; i < n && strcmp(tok, names[i]); i++)
			;
		if (i == n)
			die("unknown name '%s' in list", tok);
		on[i] = 1;
	}
}

static void parse_opts(int argc, char **argv, struct opts *o)
{
	enum { O_EPS = 256, O_ALPHA, O_CAP, O_L1D, O_L2, O_L3, O_MEM, O_LIB,
	       O_CPU, O_SEED, O_JSON, O_QUICK, O_PAPER };
	static const struct option lo[] = {
		{ "levels", 1, 0, 'l' }, { "methods", 1, 0, 'm' },
		{ "samples", 1, 0, 'N' }, { "confirm", 1, 0, 'p' },
		{ "pairs", 1, 0, 'q' }, { "eps", 1, 0, O_EPS },
		{ "alpha", 1, 0, O_ALPHA }, { "cap", 1, 0, O_CAP },
		{ "l1d", 1, 0, O_L1D }, { "l2", 1, 0, O_L2 },
		{ "l3", 1, 0, O_L3 }, { "mem-mode", 1, 0, O_MEM },
		{ "lib", 1, 0, O_LIB }, { "cpu", 1, 0, O_CPU },
		{ "seed", 1, 0, O_SEED }, { "output", 1, 0, 'o' },
		{ "json", 0, 0, O_JSON }, { "quick", 0, 0, O_QUICK },
		{ "paper", 0, 0, O_PAPER }, { "help", 0, 0, 'h' },
		{ "version", 0, 0, 'V' },
		{ "verbose", 0, 0, 'v' },
		{ 0, 0, 0, 0 } };
	unsigned n = 0, p = ~0u, q = 0;
	int c;

	memset(o, 0, sizeof *o);
	o->preset = "default";
	o->cfg = (struct sbt_search_cfg){ .eps = 0.01, .alpha = 0.05,
		.n = 1000, .p = 5, .q = 10, .cap = 20, .seed = 1 };
	o->cpu = -2;
	for (int i = 0; i < SBT_NLEVELS; i++)
		o->levels[i] = 1;
	for (int i = 0; i < SBT_NMETHODS; i++)
		o->methods[i] = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":l:m:N:p:q:o:hvV", lo, NULL)) !=
	       -1) {
		switch (c) {
		case 'l':
			parse_list(optarg, sbt_level_name, SBT_NLEVELS,
				   o->levels, "level");
			break;
		case 'm':
			parse_list(optarg, sbt_method_name, SBT_NMETHODS,
				   o->methods, "method");
			break;
		case 'N': n = parse_uint(optarg, "-N", 10); break;
		case 'p': p = parse_uint(optarg, "-p", 0); break;
		case 'q': q = parse_uint(optarg, "-q", 1); break;
		case O_EPS: o->cfg.eps = parse_frac(optarg, "--eps"); break;
		case O_ALPHA:
			o->cfg.alpha = parse_frac(optarg, "--alpha");
			break;
		case O_CAP: o->cfg.cap = parse_uint(optarg, "--cap", 1); break;
		case O_L1D: case O_L2: case O_L3:
			if (!(o->cache_override[c - O_L1D] =
			      sbt_parse_size(optarg)))
				die("bad cache size '%s' (e.g. 48K, 1M)",
				    optarg);
			break;
		case O_MEM:
			if (!strcmp(optarg, "clflush"))
				o->mem_mode = SBT_MEM_CLFLUSH;
			else if (!strcmp(optarg, "stream"))
				o->mem_mode = SBT_MEM_STREAM;
			else
				die("--mem-mode is clflush or stream, not "
				    "'%s'", optarg);
			break;
		case O_LIB: o->lib = optarg; break;
		case O_CPU:
			o->cpu = strcmp(optarg, "-1") ? (int)parse_uint(optarg,
							"--cpu", 0) : -1;
			break;
		case O_SEED: o->cfg.seed = parse_uint(optarg, "--seed", 0);
			break;
		case 'o': o->out = optarg; break;
		case 'v': o->cfg.verbose = 1; break;
		case O_JSON: o->json = 1; break;
		case O_QUICK:
			o->preset = "quick";
			o->cfg.n = 200, o->cfg.p = 2, o->cfg.q = 3;
			break;
		case O_PAPER:
			o->preset = "paper";
			o->cfg.n = 10000, o->cfg.p = 30, o->cfg.q = 80;
			break;
		case 'V':
			printf("sbt-calibrate %s\n", SBT_VERSION);
			exit(0);
		case 'h':
			fputs(usage, stdout);
			exit(0);
		case ':':
			die("option %s needs a value", argv[optind - 1]);
			break;
		default:
			die("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		die("unexpected argument '%s'", argv[optind]);
	if (n || p != ~0u || q)
		o->preset = !strcmp(o->preset, "default") ? "custom" :
			    !strcmp(o->preset, "quick") ? "quick+custom" :
			    "paper+custom";
	if (n)
		o->cfg.n = n;
	if (p != ~0u)
		o->cfg.p = p;
	if (q)
		o->cfg.q = q;
}

/* ---- machine facts ------------------------------------------------------ */

static void host_word(char *out, size_t len)
{
	if (gethostname(out, len) != 0)
		snprintf(out, len, "unknown");
	out[len - 1] = '\0';
	for (char *s = out; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '-' || *s == '.'))
			*s = '_';
	if (!out[0])
		snprintf(out, len, "unknown");
}

/* ns per dependent ADD: median time at K = 20000 minus at K = 0, hot,
 * bare clock. */
static double measure_ns_per_add(const struct sbt_chain *ch,
				 struct sbt_method *bare)
{
	enum { R = 301, K = 20000 };
	static double a[R], b[R];

	for (int i = 0; i < R; i++) {
		a[i] = bare->sample(bare, sbt_chain_entry(ch, 0));
		b[i] = bare->sample(bare, sbt_chain_entry(ch, K));
	}
	sbt_sort(a, R);
	sbt_sort(b, R);
	return (sbt_median_sorted(b, R) - sbt_median_sorted(a, R)) / K;
}

static int pin_cpu(int cpu)
{
	cpu_set_t set;

	if (cpu == -1)
		return -1;
	if (cpu == -2)
		cpu = sched_getcpu();
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof set, &set) != 0) {
		fprintf(stderr, "sbt-calibrate: cannot pin to cpu %d: %s\n",
			cpu, strerror(errno));
		exit(2);
	}
	return cpu;
}

/* ---- output ---------------------------------------------------------------- */

static void fmt_ns(char *b, size_t n, double v)
{
	if (isnan(v))
		snprintf(b, n, "-");
	else if (v >= 100)
		snprintf(b, n, "%.0f", v);
	else
		snprintf(b, n, "%.1f", v);
}

static void fmt_ratio(char *b, size_t n, double v, double ref)
{
	if (isnan(v) || isnan(ref) || ref <= 0)
		snprintf(b, n, "-");
	else
		snprintf(b, n, "%.2fx", v / ref);
}

static double tdiff_ns(const struct row *r, double nsadd)
{
	return r->tdiff.ok ? (double)r->tdiff.adds * nsadd : NAN;
}

static double tmin_ns(const struct row *r)
{
	return r->tmin.ok ? r->tmin.median_ns : NAN;
}

/* The reference for the ratio columns: sbtmark, else bare. */
static const struct row *ref_row(struct row rows[][SBT_NMETHODS], int l)
{
	if (rows[l][SBT_M_SBTMARK].ran)
		return &rows[l][SBT_M_SBTMARK];
	return rows[l][SBT_M_BARE].ran ? &rows[l][SBT_M_BARE] : NULL;
}

static void print_table(struct row rows[][SBT_NMETHODS],
			struct sbt_method *ms, const struct opts *o,
			double nsadd)
{
	int note = 0;
	char notes[64][200];
	const char *refname = "sbtmark";

	printf("\n%-5s %-13s %7s %8s %6s %7s %8s %8s  %8s %8s %7s\n",
	       "level", "method", "t_min", "t_min", "t_diff", "t_diff",
	       "t_min", "t_diff", "model", "model", "t_e,std");
	printf("%-5s %-13s %7s %8s %6s %7s %8s %8s  %8s %8s %7s\n", "", "",
	       "ADDs", "ns", "ADDs", "ns", "ratio", "ratio", "t_min ns",
	       "t_diff ns", "ns");
	for (int l = 0; l < SBT_NLEVELS; l++) {
		const struct row *ref = ref_row(rows, l);
		if (!o->levels[l])
			continue;
		if (ref && ref == &rows[l][SBT_M_BARE])
			refname = "bare";
		for (int i = 0; i < SBT_NMETHODS; i++) {
			const struct row *r = &rows[l][i];
			char a[5][24], b[4][24];
			if (!r->ran)
				continue;
			if (r->tmin.ok)
				snprintf(a[0], 24, "%llu",
					 (unsigned long long)r->tmin.adds);
			else
				snprintf(a[0], 24, "n/c[%d]", ++note);
			if (!r->tmin.ok && note <= 64)
				snprintf(notes[note - 1], 200, "%s %s t_min: "
					 "%s", sbt_level_name[l], ms[i].name,
					 r->tmin.why);
			fmt_ns(a[1], 24, tmin_ns(r));
			if (r->tdiff.ok)
				snprintf(a[2], 24, "%llu",
					 (unsigned long long)r->tdiff.adds);
			else if (r->tmin.ok) {
				snprintf(a[2], 24, "n/c[%d]", ++note);
				if (note <= 64)
					snprintf(notes[note - 1], 200,
						 "%s %s t_diff: %s",
						 sbt_level_name[l], ms[i].name,
						 r->tdiff.why);
			} else
				snprintf(a[2], 24, "-");
			fmt_ns(a[3], 24, tdiff_ns(r, nsadd));
			fmt_ratio(b[0], 24, tmin_ns(r),
				  ref ? tmin_ns(ref) : NAN);
			fmt_ratio(b[1], 24, tdiff_ns(r, nsadd),
				  ref ? tdiff_ns(ref, nsadd) : NAN);
			fmt_ns(b[2], 24, r->model.t_min_ns);
			fmt_ns(b[3], 24, r->model.t_diff_ns);
			fmt_ns(a[4], 24, r->te_std_ns);
			printf("%-5s %-13s %7s %8s %6s %7s %8s %8s  %8s %8s "
			       "%7s\n", sbt_level_name[l], ms[i].name, a[0],
			       a[1], a[2], a[3], b[0], b[1], b[2], b[3], a[4]);
		}
	}
	printf("\nratio = method / %s (higher: less precise / sensitive)."
	       "\nt_min ns = median measured time at t_min ADDs; t_diff ns = "
	       "ADDs x %.4f ns/ADD;\nmodel = std(tau_e)/eps - mean(tau_e) "
	       "and max(tau_e) - Q_alpha(tau_e) from N empty pairs\n"
	       "(tau_e = empty-pair time - t_e,std, OS noise filtered) at "
	       "the same level; compare with\nt_min ADDs x ns/ADD and "
	       "t_diff ns.\n", refname, nsadd);
	for (int i = 0; i < note && i < 64; i++)
		printf("[%d] %s\n", i + 1, notes[i]);
	for (int i = 0; i < SBT_NMETHODS; i++)
		if (o->methods[i] && !ms[i].available)
			printf("%s: not run: %s\n", ms[i].name, ms[i].why);
}

static void json_num(double v)
{
	if (isnan(v))
		printf("null");
	else
		printf("%.6g", v);
}

static void print_json(struct row rows[][SBT_NMETHODS],
		       struct sbt_method *ms, const struct opts *o,
		       const struct sbt_profile *pf, double secs)
{
	int first = 1;

	printf("{\n  \"machine\": {\"host\": ");
	sbt_json_str(stdout, pf->host);
	printf(", \"cpu\": ");
	sbt_json_str(stdout, pf->cpu);
	printf(", \"arch\": ");
	sbt_json_str(stdout, pf->arch);
	printf(", \"tick_hz\": %llu, \"tick_quantum\": %u, \"tick_source\": ",
	       (unsigned long long)pf->tick_hz, pf->tick_quantum);
	sbt_json_str(stdout, pf->tick_source);
	printf(", \"cycles\": ");
	sbt_json_str(stdout, pf->cycles);
	printf(", \"ns_per_add\": ");
	json_num(pf->ns_per_add);
	printf("},\n  \"params\": {\"preset\": \"%s\", \"eps\": %g, \"n\": %u,"
	       " \"p\": %u, \"alpha\": %g, \"q\": %u, \"cap\": %u, "
	       "\"mem_mode\": \"%s\"},\n", o->preset, o->cfg.eps, o->cfg.n,
	       o->cfg.p, o->cfg.alpha, o->cfg.q, o->cfg.cap, pf->mem_mode);
	printf("  \"methods\": [");
	for (int i = 0; i < SBT_NMETHODS; i++) {
		if (!o->methods[i])
			continue;
		printf("%s\n    {\"name\": \"%s\", \"available\": %s, ",
		       first ? "" : ",", ms[i].name,
		       ms[i].available ? "true" : "false");
		first = 0;
		printf("\"why\": ");
		sbt_json_str(stdout, ms[i].why);
		printf(", \"te_std_ns\": ");
		json_num(ms[i].available ? ms[i].te_std_ns : NAN);
		printf(", \"quantum_ns\": ");
		json_num(ms[i].available ? ms[i].quantum_ns : NAN);
		printf("}");
	}
	printf("\n  ],\n  \"results\": [");
	first = 1;
	for (int l = 0; l < SBT_NLEVELS; l++) {
		const struct row *ref = ref_row(rows, l);
		for (int i = 0; i < SBT_NMETHODS; i++) {
			const struct row *r = &rows[l][i];
			if (!r->ran)
				continue;
			printf("%s\n    {\"level\": \"%s\", \"clock\": \"wall\","
			       " \"method\": \"%s\", ", first ? "" : ",",
			       sbt_level_name[l], ms[i].name);
			first = 0;
			printf("\"t_min_converged\": %s, \"t_min_adds\": ",
			       r->tmin.ok ? "true" : "false");
			json_num(r->tmin.ok ? (double)r->tmin.adds : NAN);
			printf(", \"t_min_ns\": ");
			json_num(tmin_ns(r));
			printf(", \"t_min_why\": ");
			sbt_json_str(stdout, r->tmin.why);
			printf(", \"t_diff_converged\": %s, \"t_diff_adds\": ",
			       r->tdiff.ok ? "true" : "false");
			json_num(r->tdiff.ok ? (double)r->tdiff.adds : NAN);
			printf(", \"t_diff_ns\": ");
			json_num(tdiff_ns(r, pf->ns_per_add));
			printf(", \"t_diff_why\": ");
			sbt_json_str(stdout, r->tdiff.why);
			printf(", \"ratio_t_min\": ");
			json_num(ref ? tmin_ns(r) / tmin_ns(ref) : NAN);
			printf(", \"ratio_t_diff\": ");
			json_num(ref ? tdiff_ns(r, pf->ns_per_add) /
				       tdiff_ns(ref, pf->ns_per_add) : NAN);
			printf(", \"model_t_min_ns\": ");
			json_num(r->model.t_min_ns);
			printf(", \"model_t_diff_ns\": ");
			json_num(r->model.t_diff_ns);
			printf(", \"te_std_ns\": ");
			json_num(r->te_std_ns);
			printf(", \"flush_bytes\": %zu}", r->flush_bytes);
		}
	}
	printf("\n  ],\n  \"wall_seconds\": %.1f\n}\n", secs);
}

static void fill_profile(struct sbt_profile *pf,
			 struct row rows[][SBT_NMETHODS],
			 struct sbt_method *ms, const struct opts *o)
{
	for (int l = 0; l < SBT_NLEVELS; l++)
		for (int i = 0; i < SBT_NMETHODS; i++) {
			const struct row *r = &rows[l][i];
			struct sbt_profile_entry *e;
			if (!r->ran || pf->nentries == SBT_PROFILE_MAX)
				continue;
			e = &pf->e[pf->nentries++];
			memset(e, 0, sizeof *e);
			strcpy(e->level, sbt_level_name[l]);
			strcpy(e->clock, "wall");
			snprintf(e->method, sizeof e->method, "%s",
				 ms[i].name);
			strcpy(e->status, r->tmin.ok && r->tdiff.ok ? "ok"
								    : "nc");
			e->t_min_adds = r->tmin.ok ? r->tmin.adds : 0;
			e->t_min_ns = tmin_ns(r);
			e->t_diff_adds = r->tdiff.ok ? r->tdiff.adds : 0;
			e->t_diff_ns = tdiff_ns(r, pf->ns_per_add);
			e->te_std_ns = r->te_std_ns;
			e->model_t_min_ns = r->model.t_min_ns;
			e->model_t_diff_ns = r->model.t_diff_ns;
			e->flush_bytes = r->flush_bytes;
			if (!r->tmin.ok)
				snprintf(e->note, sizeof e->note,
					 "t_min: %.150s", r->tmin.why);
			else if (!r->tdiff.ok)
				snprintf(e->note, sizeof e->note,
					 "t_diff: %.150s", r->tdiff.why);
		}
	(void)o;
}

/* ---- the run ----------------------------------------------------------------- */

static void run_level(int l, struct row *rows, struct sbt_method *ms,
		      const struct opts *o, const struct sbt_cache_sizes *cs,
		      const struct sbt_chain *ch, struct sbt_progress *pg,
		      unsigned *task)
{
	struct sbt_flush fl;
	char err[256];

	if (sbt_flush_init(&fl, l, cs, o->mem_mode, err, sizeof err)) {
		fprintf(stderr, "sbt-calibrate: level %s skipped: %s\n",
			sbt_level_name[l], err);
		*task += 3 * SBT_NMETHODS;
		return;
	}
	for (int i = 0; i < SBT_NMETHODS; i++) {
		struct sbt_bench b;
		struct row *r = &rows[i];

		if (!o->methods[i] || !ms[i].available)
			continue;
		if (sbt_bench_init(&b, &ms[i], &fl, ch, &o->cfg)) {
			fprintf(stderr, "sbt-calibrate: out of memory\n");
			exit(1);
		}
		b.progress = sbt_progress_cb;
		b.arg = pg;
		r->ran = 1;
		r->te_std_ns = ms[i].te_std_ns;
		sbt_progress_task(pg, (*task)++, sbt_level_name[l],
				  ms[i].name);
		sbt_model_check(&b, &r->model);
		sbt_progress_task(pg, (*task)++, sbt_level_name[l],
				  ms[i].name);
		sbt_search_tmin(&b, &r->tmin);
		sbt_progress_task(pg, (*task)++, sbt_level_name[l],
				  ms[i].name);
		if (r->tmin.ok)
			sbt_search_tdiff(&b, r->tmin.adds, &r->tdiff);
		else
			snprintf(r->tdiff.why, sizeof r->tdiff.why,
				 "needs t_min");
		r->flush_bytes = sbt_flush_bytes(&fl);
		sbt_bench_free(&b);
	}
	sbt_flush_free(&fl);
}

int main(int argc, char **argv)
{
	static struct row rows[SBT_NLEVELS][SBT_NMETHODS];
	static struct sbt_method ms[SBT_NMETHODS];
	static struct sbt_profile pf;
	struct opts o;
	struct sbt_clockinfo ci;
	struct sbt_cache_sizes cs;
	struct sbt_chain ch;
	struct sbt_progress pg;
	struct sbt_method_env env;
	double t0 = sbt_now_s();
	unsigned ntasks = 0, task = 0;
	FILE *info;
	int cpu;

	parse_opts(argc, argv, &o);
	env = (struct sbt_method_env){ 0, 0, o.lib, argv[0] };
	if (o.methods[SBT_M_SBTMARK] &&
	    sbt_method_preload(&env, argv, ms[SBT_M_SBTMARK].why,
			       sizeof ms[SBT_M_SBTMARK].why) != 0)
		o.methods[SBT_M_SBTMARK] = 2;   /* wanted, cannot run */
	info = o.json ? stderr : stdout;
	cpu = pin_cpu(o.cpu);

	sbt_clock_setup(&ci, 1, 0);
	if (!ci.tick_hz) {
		fprintf(stderr, "sbt-calibrate: cannot tell the wall clock's "
			"frequency\n");
		return 1;
	}
	sbt_cache_detect(&cs, o.cache_override);
	uint64_t max_k = 10000ull * (o.cfg.cap + 1) +
			 100ull * (o.cfg.cap + 1) * o.cfg.q;
	if (max_k > (1u << 22))
		max_k = 1u << 22;
	if (sbt_chain_build(&ch, max_k) != 0) {
		fprintf(stderr, "sbt-calibrate: cannot build the ADD chain: "
			"%s\n", strerror(errno));
		return 1;
	}

	env = (struct sbt_method_env){ ci.tick_hz, ci.quantum, o.lib,
				       argv[0] };
	for (int i = 0; i < SBT_NMETHODS; i++) {
		/* bare is needed for ns per ADD even when not compared */
		if (o.methods[i] == 1 || i == SBT_M_BARE)
			sbt_method_init(&ms[i], i, &env);
		else
			ms[i].name = sbt_method_name[i];
	}
	double nsadd = measure_ns_per_add(&ch, &ms[SBT_M_BARE]);

	host_word(pf.host, sizeof pf.host);
	snprintf(pf.cpu, sizeof pf.cpu, "unknown");
	sbt_cpu_model(pf.cpu, sizeof pf.cpu);
#if defined(__x86_64__)
	strcpy(pf.arch, "x86_64");
#else
	strcpy(pf.arch, "aarch64");
#endif
	pf.version = SBT_PROFILE_VERSION;
	pf.created = (int64_t)time(NULL);
	/* a rate calibrated at the start, now over the whole run */
	pf.tick_hz = sbt_clock_refined(&ci);
	pf.tick_quantum = ci.quantum;
	snprintf(pf.tick_source, sizeof pf.tick_source, "%s",
		 pf.tick_hz != ci.tick_hz ? "run" : ci.source);
	snprintf(pf.cycles, sizeof pf.cycles, "%s: %s",
		 ci.cycles ? "yes" : "none", ci.cycles_note);
	pf.ns_per_add = nsadd;
	pf.eps = o.cfg.eps;
	pf.alpha = o.cfg.alpha;
	pf.n = o.cfg.n;
	pf.p = o.cfg.p;
	pf.q = o.cfg.q;
	strcpy(pf.mem_mode, o.mem_mode == SBT_MEM_CLFLUSH ? "clflush"
							   : "stream");

	fprintf(info, "sbt-calibrate: %s, %s, cpu %d%s\n", pf.host, pf.cpu,
		cpu, cpu < 0 ? " (not pinned)" : "");
	fprintf(info, "wall clock: %.6f GHz (%s), step %u ticks = %.1f ns; "
		"%.4f ns per ADD (~%.2f GHz core)\n", ci.tick_hz / 1e9,
		ci.source, ci.quantum, ci.quantum * 1e9 / ci.tick_hz, nsadd,
		1 / nsadd);
	fprintf(info, "cycle clock: %s (%s)%s\n", ci.cycles ? "usable" :
		"none", ci.cycles_note, ci.cycles ?
		"; this version calibrates the wall clock only" :
		"; calibrating the wall clock only");
	for (int l = 0; l < 3; l++)
		fprintf(info, "L%d%s: %zu KiB (%s)\n", l + 1, l ? "" : "d",
			cs.size[l] >> 10, cs.src[l]);
	fprintf(info, "levels: l1 no flush, l2 4xL1d, l3 4xL2, mem %s\n",
		o.mem_mode == SBT_MEM_CLFLUSH ?
		"clflush of every resident line of the process" :
		"4xL3 streamed");
	double load = 0;
	FILE *la = fopen("/proc/loadavg", "re");
	if (la) {
		if (fscanf(la, "%lf", &load) != 1)
			load = 0;
		fclose(la);
	}
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	if (ncpu > 0 && load > 0.5 * (double)ncpu)
		fprintf(info, "warning: load average %.2f on %ld cpus: other "
			"work shares this machine; expect noisier figures "
			"and searches that do not converge\n", load, ncpu);
	fprintf(info, "preset %s: eps %g, N %u, p %u, alpha %g, q %u, "
		"cap %u per decade\n", o.preset, o.cfg.eps, o.cfg.n, o.cfg.p,
		o.cfg.alpha, o.cfg.q, o.cfg.cap);
	for (int i = 0; i < SBT_NMETHODS; i++)
		if (o.methods[i] && ms[i].available)
			fprintf(info, "method %-13s t_e,std %6.1f ns, clock "
				"step %.1f ns\n", ms[i].name, ms[i].te_std_ns,
				ms[i].quantum_ns);
	fflush(info);

	for (int l = 0; l < SBT_NLEVELS; l++)
		for (int i = 0; i < SBT_NMETHODS; i++)
			ntasks += 3 * (o.levels[l] && o.methods[i] &&
				       ms[i].available);
	sbt_progress_init(&pg, ntasks);
	for (int l = 0; l < SBT_NLEVELS; l++)
		if (o.levels[l])
			run_level(l, rows[l], ms, &o, &cs, &ch, &pg, &task);
	sbt_progress_done(&pg);

	fill_profile(&pf, rows, ms, &o);
	double secs = sbt_now_s() - t0;
	if (o.json) {
		print_json(rows, ms, &o, &pf, secs);
	} else {
		print_table(rows, ms, &o, nsadd);
		printf("wall time %.1f s\n", secs);
	}
	int rc = 0;
	if (o.out) {
		char err[512];
		if (sbt_profile_write(o.out, &pf, err, sizeof err) != 0) {
			fprintf(stderr, "sbt-calibrate: %s\n", err);
			rc = 1;
		} else {
			fprintf(info, "profile written to %s\n", o.out);
		}
	}
	for (int i = 0; i < SBT_NMETHODS; i++)
		if (ms[i].available)
			sbt_method_fini(&ms[i]);
	sbt_chain_free(&ch);
	return rc;
}
