/*
 * compare_cmd.c - sbt-analyze --compare: read and analyze each side as
 * one input set would be, compare them (score/compare.c), print
 * (report/report_compare.c), and turn the gate into the exit status.
 */
#include "analyze.h"
#include "compare_cmd.h"
#include "inputs.h"
#include "omp_names.h"
#include "report_compare.h"
#include "say.h"
#include "status.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

struct side {
	struct sbt_dataset ds;
	struct sbt_result res;
	int analyzed;
};

/* Read one side's inputs and analyze them as one input set: 0, 1 (an
 * input was damaged; what was valid is kept) or 2. */
static int side_read(struct side *s, int n, char **paths,
		     enum sbt_input input, unsigned long long budget,
		     const struct sbt_options *o, int symbols,
		     const char *what)
{
	int status;

	if (n == 0) {
		fprintf(stderr, "sbt-analyze: --compare: no %s input (usage: "
			"--compare BASE... -- NEW...)\n", what);
		return 2;
	}
	if (sbt_inputs_plan(&s->ds, n, paths, input, budget) != 0)
		return 2;
	status = sbt_inputs_read(&s->ds, n, paths, input, o->jobs);
	if (status == 2)
		return 2;
	if (s->ds.nsources == 0) {
		fprintf(stderr, "sbt-analyze: no %s input could be read\n",
			what);
		return 2;
	}
	/* named as a report of one side names them */
	sbt_status("symbolizing (%s)", what);
	if (sbt_omp_names(&s->ds, symbols) != 0) {
		sbt_status_done();
		fputs("sbt-analyze: out of memory\n", stderr);
		return 2;
	}
	sbt_status("analyzing %zu samples of %zu regions (%s)", s->ds.n,
		   s->ds.nregions, what);
	if (sbt_analyze(&s->ds, o, &s->res) != 0) {
		sbt_status_done();
		fputs("sbt-analyze: out of memory\n", stderr);
		return 2;
	}
	s->analyzed = 1;
	return status;
}

/* The gate's verdict for CI logs, whatever the output format. */
static void gate_note(const struct sbt_cmp *c)
{
	const char *sep = "";

	fprintf(stderr, "sbt-analyze: slower than %g %%:", c->co.fail_pct);
	for (size_t i = 0; i < c->nrows; i++) {
		const struct sbt_cmp_row *r = &c->rows[i];
		const struct sbt_cmp_change *j = c->speed ? &r->norm : &r->raw;
		char lb[100];
		if (!r->tripped)
			continue;
		sbt_say_label(&r->label, lb, sizeof lb);
		fprintf(stderr, "%s %s%s%s (+%.3g %%)", sep, r->name,
			lb[0] ? " " : "", lb, 100 * j->rel);
		sep = ",";
	}
	fputc('\n', stderr);
}

int sbt_compare_cmd(int argc, char **argv, int at,
		    const struct sbt_options *o,
		    const struct sbt_report_opts *ro, const char *html,
		    enum sbt_input input, unsigned long long budget,
		    int symbols, const struct sbt_cmp_opts *co)
{
	struct side sb = { 0 }, sn = { 0 };
	struct sbt_cmp cmp;
	int dd = at + 1, status, s2;

	while (dd < argc && strcmp(argv[dd], "--"))
		dd++;
	if (dd == argc) {
		fputs("sbt-analyze: --compare BASE... -- NEW...: no '--' "
		      "before the new side\n", stderr);
		return 2;
	}
	/* The two sides share the one budget, as in a report of both. */
	if (budget)
		budget = budget / 2 ? budget / 2 : 1;
	status = side_read(&sb, dd - at - 1, argv + at + 1, input, budget, o,
			   symbols, "base");
	if (status != 2) {
		s2 = side_read(&sn, argc - dd - 1, argv + dd + 1, input,
			       budget, o, symbols, "new");
		status = s2 > status ? s2 : status;
	}
	if (status == 2)
		goto out;
	struct sbt_cmp_side b = { &sb.ds, &sb.res, o, (int)sb.ds.nsources };
	struct sbt_cmp_side n = { &sn.ds, &sn.res, o, (int)sn.ds.nsources };
	sbt_status("comparing");
	if (sbt_compare(&b, &n, co, &cmp) != 0) {
		sbt_status_done();
		fputs("sbt-analyze: out of memory\n", stderr);
		status = 2;
		goto out;
	}
	sbt_status_done();
	struct sbt_compare_in ci = { &cmp, &b, &n, ro };
	ro->format->compare(stdout, &ci);
	if (html) {
		FILE *f = fopen(html, "w");
		if (!f || sbt_report_format("html")->compare(f, &ci) != 0 ||
		    fclose(f) != 0) {
			fprintf(stderr, "sbt-analyze: cannot write %s: %s\n",
				html, strerror(errno));
			status = 2;
		}
	}
	if (fflush(stdout) != 0)
		status = 2;
	char miss[256];
	if (sbt_cmp_unmatched(&cmp, miss, sizeof miss)) {
		fprintf(stderr, "sbt-analyze: --regions: no region '%s' on "
			"both sides\n", miss);
		status = 2;
	}
	if (cmp.ntripped)
		gate_note(&cmp);
	if (status == 0 && cmp.ntripped)
		status = SBT_EXIT_SLOWER;
	sbt_compare_free(&cmp);
out:
	sbt_status_done();
	if (sb.analyzed)
		sbt_result_free(&sb.res);
	if (sn.analyzed)
		sbt_result_free(&sn.res);
	sbt_ds_free(&sb.ds), sbt_ds_free(&sn.ds);
	return status;
}

