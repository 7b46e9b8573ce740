/*
 * test_profile.c - calibration profiles: write -> read is exact, lookup
 * prefers sbtmark then bare, and damaged files are refused with a
 * message naming the line.
 *
 * usage: test_profile TMPDIR        (round trip and malformed files)
 *        test_profile --check FILE  (FILE must parse and hold an l1/wall
 *                                    result; prints it; used after the
 *                                    tiny sbt-calibrate run)
 */
#include "profile.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../common/harness.h"


static void sample(struct sbt_profile *p)
{
	memset(p, 0, sizeof *p);
	p->version = 1;
	strcpy(p->host, "vm-1");
	strcpy(p->cpu, "AMD EPYC 9B45 128-Core Processor");
	strcpy(p->arch, "x86_64");
	p->created = 1763784000;
	p->tick_hz = 2595996000ull;
	p->tick_quantum = 26;
	strcpy(p->tick_source, "perf");
	strcpy(p->cycles, "none: no usable PMU (perf_event_open: ENOENT)");
	p->ns_per_add = 0.26953125 + 1e-13;    /* not a short decimal */
	p->eps = 0.01;
	p->alpha = 0.05;
	p->n = 2000; p->p = 5; p->q = 10;
	strcpy(p->mem_mode, "clflush");
	const char *lv[] = { "l1", "l2", "l3", "mem" };
	const char *me[] = { "sbtmark", "bare", "papi" };
	for (int l = 0; l < 4; l++)
		for (int m = 0; m < 3; m++) {
			struct sbt_profile_entry *e = &p->e[p->nentries++];
			strcpy(e->level, lv[l]);
			strcpy(e->clock, "wall");
			strcpy(e->method, me[m]);
			int nc = l >= 2 && m == 0;
			strcpy(e->status, nc ? "nc" : "ok");
			e->t_min_adds = nc ? 0 : 2000 + 17 * l + m;
			e->t_min_ns = nc ? NAN : 541.0 / 3 + l;
			e->t_diff_adds = nc ? 0 : 37 + m;
			e->t_diff_ns = nc ? NAN : (37 + m) * p->ns_per_add;
			e->te_std_ns = 20.00000001;
			e->model_t_min_ns = 366.25;
			e->model_t_diff_ns = -0.0;
			e->flush_bytes = (uint64_t)l << 20;
			if (nc)
				strcpy(e->note, "t_min: no pass within 20 "
				       "steps of 10000 ADDs (up to 200000)");
		}
}

static int same_double(double a, double b)
{
	return (isnan(a) && isnan(b)) || memcmp(&a, &b, sizeof a) == 0 ||
	       a == b;
}

static void compare(const struct sbt_profile *a, const struct sbt_profile *b)
{
	CHECK(!strcmp(a->host, b->host), "host");
	CHECK(!strcmp(a->cpu, b->cpu), "cpu '%s'", b->cpu);
	CHECK(!strcmp(a->arch, b->arch), "arch");
	CHECK(a->created == b->created, "created");
	CHECK(a->tick_hz == b->tick_hz, "tick_hz");
	CHECK(a->tick_quantum == b->tick_quantum, "tick_quantum");
	CHECK(!strcmp(a->tick_source, b->tick_source), "tick_source");
	CHECK(!strcmp(a->cycles, b->cycles), "cycles");
	CHECK(a->ns_per_add == b->ns_per_add, "ns_per_add %.17g %.17g",
	      a->ns_per_add, b->ns_per_add);
	CHECK(a->eps == b->eps && a->alpha == b->alpha && a->n == b->n &&
	      a->p == b->p && a->q == b->q, "params");
	CHECK(!strcmp(a->mem_mode, b->mem_mode), "mem_mode");
	CHECK(a->nentries == b->nentries, "nentries %zu %zu", a->nentries,
	      b->nentries);
	for (size_t i = 0; i < a->nentries && i < b->nentries; i++) {
		const struct sbt_profile_entry *x = &a->e[i], *y = &b->e[i];
		CHECK(!strcmp(x->level, y->level) &&
		      !strcmp(x->clock, y->clock) &&
		      !strcmp(x->method, y->method) &&
		      !strcmp(x->status, y->status), "entry %zu keys", i);
		CHECK(x->t_min_adds == y->t_min_adds &&
		      x->t_diff_adds == y->t_diff_adds &&
		      x->flush_bytes == y->flush_bytes, "entry %zu counts", i);
		CHECK(same_double(x->t_min_ns, y->t_min_ns) &&
		      same_double(x->t_diff_ns, y->t_diff_ns) &&
		      same_double(x->te_std_ns, y->te_std_ns) &&
		      same_double(x->model_t_min_ns, y->model_t_min_ns) &&
		      same_double(x->model_t_diff_ns, y->model_t_diff_ns),
		      "entry %zu values", i);
		CHECK(!strcmp(x->note, y->note), "entry %zu note", i);
	}
}

/* Write text to dir/name, parse it, expect failure mentioning `want`. */
static void rejects(const char *dir, const char *text, const char *want)
{
	char path[512], err[256] = "";
	struct sbt_profile *p = malloc(sizeof *p);
	FILE *f;

	snprintf(path, sizeof path, "%s/bad.profile", dir);
	f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
	int r = sbt_profile_read(path, p, err, sizeof err);
	CHECK(r == -1, "accepted a bad profile (want '%s')", want);
	CHECK(strstr(err, want) != NULL, "message '%s' lacks '%s'", err,
	      want);
	CHECK(strncmp(err, path, strlen(path)) == 0, "message '%s' does not "
	      "name the file", err);
	free(p);
}

static const char good_head[] =
	"sbtmark-profile 1\nhost h\ncpu c\narch x86_64\ncreated 1\n"
	"tick_hz 1000\ntick_quantum 1\ntick_source perf\ncycles none: x\n"
	"ns_per_add 0.25\nparams eps=0.01 n=10 p=1 alpha=0.05 q=2 "
	"mem=clflush\n";
static const char good_result[] =
	"result level=l1 clock=wall method=bare status=ok t_min_adds=10 "
	"t_min_ns=5 t_diff_adds=2 t_diff_ns=0.5 te_std_ns=20 "
	"model_t_min_ns=4 model_t_diff_ns=1 flush=0\n";

static void malformed(const char *dir)
{
	char buf[2048];

	/* The good file parses (else the rejections below prove nothing). */
	snprintf(buf, sizeof buf, "%s%send\n", good_head, good_result);
	{
		char path[512], err[256];
		struct sbt_profile *p = malloc(sizeof *p);
		snprintf(path, sizeof path, "%s/good.profile", dir);
		FILE *f = fopen(path, "w");
		fputs(buf, f);
		fclose(f);
		CHECK(sbt_profile_read(path, p, err, sizeof err) == 0,
		      "good file refused: %s", err);
		CHECK(p->nentries == 1 &&
		      sbt_profile_lookup(p, "l1", "wall") == &p->e[0],
		      "lookup falls back to bare");
		free(p);
	}
	rejects(dir, "", "empty file");
	rejects(dir, "hello\n", "not an sbtmark profile");
	rejects(dir, "sbtmark-profile 2\nend\n", "unsupported profile version");
	snprintf(buf, sizeof buf, "%s%s", good_head, good_result);
	rejects(dir, buf, "truncated");
	snprintf(buf, sizeof buf, "%send\nhost x\n", good_head);
	rejects(dir, buf, "after 'end'");
	snprintf(buf, sizeof buf, "%shost again\nend\n", good_head);
	rejects(dir, buf, ":12: duplicate 'host'");
	rejects(dir, "sbtmark-profile 1\nhost h\nend\n", "missing 'cpu'");
	snprintf(buf, sizeof buf, "%sresult level=l4 clock=wall\nend\n",
		 good_head);
	rejects(dir, buf, "unknown level 'l4'");
	snprintf(buf, sizeof buf, "%sresult level=l1 clock=wall method=bare "
		 "status=ok t_min_adds=ten\nend\n", good_head);
	rejects(dir, buf, "bad t_min_adds 'ten'");
	snprintf(buf, sizeof buf, "%sresult level=l1 clock=wall method=bare "
		 "status=ok t_min_adds=10 t_min_ns=inf\nend\n", good_head);
	rejects(dir, buf, "bad t_min_ns 'inf'");
	snprintf(buf, sizeof buf, "%sresult level=l1 clock=wall method=bare "
		 "status=ok t_min_adds=10\nend\n", good_head);
	rejects(dir, buf, "expected t_min_ns=");
	snprintf(buf, sizeof buf, "%s%s%send\n", good_head, good_result,
		 good_result);
	rejects(dir, buf, "duplicate result for l1/wall/bare");
	snprintf(buf, sizeof buf, "%s", good_head);
	strcpy(strstr(buf, "tick_hz 1000"), "tick_hz 0\ntick_quantum 1\n"
	       "tick_source perf\ncycles none: x\nns_per_add 0.25\nparams "
	       "eps=0.01 n=10 p=1 alpha=0.05 q=2 mem=clflush\nend\n");
	rejects(dir, buf, "bad tick_hz");
	snprintf(buf, sizeof buf, "%s", good_head);
	strcpy(strstr(buf, "params"), "params eps=2 n=10\nend\n");
	rejects(dir, buf, "params: bad or missing eps");
	snprintf(buf, sizeof buf, "%sresult\tlevel=l1\nend\n", good_head);
	rejects(dir, buf, "control character");
	char longl[1400];
	memset(longl, 'x', sizeof longl - 2);
	longl[sizeof longl - 2] = '\n';
	longl[sizeof longl - 1] = '\0';
	snprintf(buf, sizeof buf, "%s# %s", good_head, longl);
	rejects(dir, buf, "longer than");
}

static int check_file(const char *path)
{
	struct sbt_profile *p = malloc(sizeof *p), *q = malloc(sizeof *q);
	char err[512], tmp[600];

	if (sbt_profile_read(path, p, err, sizeof err) != 0) {
		printf("FAIL: %s\n", err);
		return 1;
	}
	const struct sbt_profile_entry *e = sbt_profile_find(p, "l1", "wall",
							     "bare");
	CHECK(e != NULL, "no l1/wall/bare result in %s", path);
	if (e)
		printf("l1 bare: status %s t_min %llu ADDs %.1f ns, t_diff "
		       "%llu ADDs %.1f ns\n", e->status,
		       (unsigned long long)e->t_min_adds, e->t_min_ns,
		       (unsigned long long)e->t_diff_adds, e->t_diff_ns);
	/* and it survives another round trip unchanged */
	snprintf(tmp, sizeof tmp, "%s.again", path);
	CHECK(sbt_profile_write(tmp, p, err, sizeof err) == 0, "%s", err);
	CHECK(sbt_profile_read(tmp, q, err, sizeof err) == 0, "%s", err);
	compare(p, q);
	remove(tmp);
	free(p);
	free(q);
	return h_fail != 0;
}

int main(int argc, char **argv)
{
	struct sbt_profile *a = malloc(sizeof *a), *b = malloc(sizeof *b);
	char path[512], err[512];

	if (argc == 3 && !strcmp(argv[1], "--check")) {
		free(a), free(b);
		return check_file(argv[2]);
	}
	if (argc != 2) {
		fprintf(stderr, "usage: test_profile TMPDIR | --check FILE\n");
		free(a), free(b);
		return 2;
	}
	sample(a);
	snprintf(path, sizeof path, "%s/rt.profile", argv[1]);
	CHECK(sbt_profile_write(path, a, err, sizeof err) == 0, "write: %s",
	      err);
	CHECK(sbt_profile_read(path, b, err, sizeof err) == 0, "read: %s",
	      err);
	compare(a, b);
	const struct sbt_profile_entry *e = sbt_profile_lookup(b, "l3",
							       "wall");
	CHECK(e && !strcmp(e->method, "bare"), "l3 lookup must skip the "
	      "non-converged sbtmark entry");
	e = sbt_profile_lookup(b, "l1", "wall");
	CHECK(e && !strcmp(e->method, "sbtmark"), "l1 lookup is sbtmark");
	CHECK(sbt_profile_lookup(b, "l1", "cycles") == NULL, "no cycles");
	strcpy(a->host, "two words");
	CHECK(sbt_profile_write(path, a, err, sizeof err) == -1,
	      "a host with a space must not be written");
	malformed(argv[1]);
	free(a);
	free(b);
	return h_done();
}
