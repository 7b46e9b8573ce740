/*
 * gen_machines.c - corpus logs of machines no longer at hand, as far as
 * synthetic logs (tests/common/logbuild.h) can reproduce what was
 * measured on them (doc: SPEC section 8), with their manifests.
 *
 *   gen_machines DIR      writes DIR/<machine>/manifest.json and logs
 *
 * Deterministic (fixed seeds): run at test time by corpus_test.py, which
 * judges these logs like the recorded ones.  The cases follow acc_app
 * (tools/accuracy/acc_app.c): a 300 ns region "acc" and after each call
 * a "ref" of the same constant work; one speed probe (200 dependent ops,
 * ~60 ns) every 100 calls.
 *
 * amd-f26-kvm-20261127 (synthetic): TSC 2.096 GHz read in 21-tick
 * (10 ns) steps; TSC_AUX holds the host's cpu numbers (72, 116, 259:
 * the host moved the vCPU twice); a first touch of a page costs 11-15 us.
 *   hostcpu-control   constant work while TSC_AUX moves 72 -> 116 -> 259
 *                     (a recorder that trusted TSC_AUX; where the format
 *                     has the header's ncpus, it says 2)
 *   two-4-0.5         two levels 4 quanta apart, 50/50
 *   faults            2 us of work plus 0-3 page faults a call at
 *                     11-15 us each, the kernel's record of every fault
 *   loop-step-28      a loop of dependent adds, alone in its thread, 28 %
 *                     slower from mid-run while the probes (a straight-line
 *                     chain) hold their speed: the region's own step
 * amd-2596-kvm-20261124 (synthetic): TSC 2.596 GHz, 26-tick (10 ns)
 * steps; its host slows it by 50-95 % for 0.1-10 ms at a time, about a
 * fifth of the time: regions and probes alike.
 *   turbulent-control  constant work amid the slowdowns
 *   turbulent-step     +29 % at mid-run amid the slowdowns
 */
#include "logbuild.h"
#include "gen.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#define CALLS     20000
#define PERIOD_NS 1000.0
#define BASE_NS   300.0
#define PROBE_NS  60.0
#define PROBE_OPS 200

struct machine {
	const char *name, *model, *note;
	double hz;
	uint32_t quantum;              /* ticks */
	const char *flags;             /* the manifest's flags object */
	double fault_us;
};

/* What slows the machine at time t (ns): 1 = not at all. */
struct turb {
	int n;
	double t0[64], t1[64], f[64];
};

static double turb_at(const struct turb *w, double t)
{
	for (int i = 0; i < w->n; i++)
		if (t >= w->t0[i] && t < w->t1[i])
			return w->f[i];
	return 1;
}

/* Windows of 0.1-10 ms slowed 50-95 %, about a fifth of span_ns. */
static void turb_make(struct turb *w, struct gen *g, double span_ns)
{
	double t = 0;

	w->n = 0;
	while (w->n < 64) {
		t += gen_exp(g, 8e6);
		double len = 1e5 * pow(100, gen_unif(g));   /* 0.1-10 ms */
		if (t + len > span_ns)
			break;
		w->t0[w->n] = t, w->t1[w->n] = t + len;
		w->f[w->n] = 1.5 + 0.45 * gen_unif(g);
		w->n++;
		t += len;
	}
}

struct plan {
	const char *name;
	double gap_ns, share;          /* two levels, or a step at share  */
	int step;
	int hostcpu;                   /* TSC_AUX moves 72 -> 116 -> 259  */
	int faults;                    /* 2 us + 0-3 faults a call        */
	int turbulent;
	int alone;                     /* no "ref": only the probes witness */
	uint64_t seed;
};

static unsigned aux_at(const struct plan *p, long i)
{
	if (!p->hostcpu)
		return 1;
	return i < CALLS / 3 ? 72 : i < 2 * CALLS / 3 ? 116 : 259;
}

/* ticks of ns */
static uint64_t tk(const struct machine *m, double ns)
{
	return (uint64_t)(ns * m->hz / 1e9 + 0.5);
}

/* A clock read of a true duration d ns: quantized ticks. */
static uint64_t rd(const struct machine *m, struct gen *g, double d)
{
	double q = (double)m->quantum;

	return (uint64_t)gen_read(g, d * m->hz / 1e9, q);
}

/* Writes the log; returns the faults planted, and in *slowed the share
 * of calls the machine slowed. */
static long gen_log(const struct machine *m, const struct plan *p,
		    const char *path, double *slowed)
{
	long nslow = 0;
	struct synlog L;
	struct gen g = { p->seed };
	struct turb w = { 0 };
	static struct sbt_os_event ev[4 * CALLS];
	long nev = 0, faults = 0;
	/* a call every 1 us; 100 us with faults (up to 3 x 15 us a call),
	 * 5 us amid turbulence (a span of 100 ms: many 0.1-10 ms windows) */
	double period = p->faults ? 100000.0 : p->turbulent ? 5000.0 :
			PERIOD_NS;

	syn_begin(&L, m->hz);
	L.h.tick_quantum = m->quantum;
	L.h.te_min_ticks = L.h.te_p50_ticks = tk(m, 20);
	L.h.te_p999_ticks = tk(m, 30);
	L.h.te_samples = 1000;
	snprintf(L.h.cpu_model, sizeof L.h.cpu_model, "%s", m->model);
	snprintf(L.h.exe, sizeof L.h.exe, "synthetic/%s", p->name);
#ifdef SBT_AUX_UNKNOWN
	/* A format that says the machine's cpus says it: the guest has 2,
	 * whatever numbers TSC_AUX held (the recorder that trusted it). */
	L.h.ncpus = 2;
#endif
	if (p->faults) {
		L.h.os_events = SBT_OS_ON;
		L.h.os_pages = 16;
	}
	syn_region(&L, 1, "acc");
	if (!p->alone)
		syn_region(&L, 2, "ref");
	syn_speed_meta(&L, PROBE_OPS, 100);
	if (p->turbulent)
		turb_make(&w, &g, CALLS * period);
	for (long i = 0; i < CALLS; i++) {
		double t = period * (double)i;
		double f = turb_at(&w, t);
		nslow += f > 1;
		unsigned cpu = aux_at(p, i);
		double work = p->faults ? 2000.0 : BASE_NS;

		if (p->step ? i >= (long)(p->share * CALLS) :
		    gen_unif(&g) < p->share)
			work += p->gap_ns;
		double d = work * f + gen_exp(&g, 1.5);
		if (p->faults) {
			int k = (int)(gen_unif(&g) * 4);     /* 0-3 faults */
			for (int j = 0; j < k; j++) {
				double c = 1e3 * (m->fault_us + 4 * gen_unif(&g));
				ev[nev++] = (struct sbt_os_event){
					L.h.start_ticks + tk(m, t + 100 + d),
					SBT_OS_FAULT, 0, 1 };
				d += c;
			}
			faults += k;
		}
		uint64_t a = tk(m, t);
		syn_pair(&L, 0, 1, a, a + rd(m, &g, d), cpu);
		uint64_t b = tk(m, t + period * 0.6);
		if (!p->alone)
			syn_pair(&L, 0, 2, b, b + rd(m, &g, BASE_NS * f +
							gen_exp(&g, 1.5)), cpu);
		if (i % 100 == 50)
			syn_speed(&L, 0, tk(m, t + period * 0.8),
				  rd(m, &g, PROBE_NS * f + gen_exp(&g, 1)),
				  cpu, 0);
	}
	if (p->faults) {
		struct sbt_meta_os mo = { .thread = 0, .tid = 1000, .seq = 0,
			.n = (uint32_t)nev,
			.until = L.h.start_ticks + tk(m, CALLS * period) };
		lb_meta(L.meta, SBT_META_OS, &mo, sizeof mo, ev,
			(uint32_t)(nev * sizeof *ev));
	}
	syn_write(&L, path);
	*slowed = (double)nslow / CALLS;
	return faults;
}

static void mkdir_p(const char *d)
{
	if (mkdir(d, 0755) != 0 && errno != EEXIST) {
		perror(d);
		exit(99);
	}
}

static void gen_machine(const char *dir, const struct machine *m,
			const struct plan *plans, int n)
{
	char path[4096];

	snprintf(path, sizeof path, "%s/%s", dir, m->name);
	mkdir_p(path);
	snprintf(path, sizeof path, "%s/%s/manifest.json", dir, m->name);
	FILE *f = fopen(path, "w");
	if (!f)
		exit(99);
	double q_ns = m->quantum * 1e9 / m->hz;
	fprintf(f, "{\"machine\": {\"model\": \"%s\", \"synthetic\": true, "
		"\"cpus\": 2, \"tsc_ghz\": %.3f, \"quantum_ns\": %.3f, "
		"\"flags\": %s, \"page_fault_us\": \"%.0f-%.0f\", "
		"\"hypervisor\": \"KVM\", \"note\": \"%s\", "
		"\"generator\": \"tests/corpus/gen_machines.c\"},\n"
		" \"logs\": [\n", m->model, m->hz / 1e9, q_ns, m->flags,
		m->fault_us, m->fault_us + 4, m->note);
	for (int i = 0; i < n; i++) {
		const struct plan *p = &plans[i];
		char log[4096];
		snprintf(log, sizeof log, "%s/%s/%s.log", dir, m->name,
			 p->name);
		double slowed;
		long faults = gen_log(m, p, log, &slowed);
		const char *kind, *expect;
		char exp[256];
		if (p->faults) {
			kind = "control";
			expect = "[\"os-faults-named\", \"no-finding\"]";
		} else if (p->hostcpu) {
			kind = "control";
			expect = "[\"no-finding\", \"cpus-exist\"]";
		} else if (p->step) {
			kind = p->alone ? "lonestep" : "step";
			expect = "[\"step-placed\"]";
		} else if (p->gap_ns > 0) {
			kind = "two";
			expect = "[\"found\"]";
		} else {
			kind = "control";
			expect = "[\"no-finding\"]";
		}
		/* ref, the constant work beside acc, keeps no finding of
		 * its own whatever acc and the machine do */
		if (!p->alone)
			snprintf(exp, sizeof exp, "%.*s, \"ref-steady\"]",
				 (int)strlen(expect) - 1, expect);
		else
			snprintf(exp, sizeof exp, "%s", expect);
		if (p->turbulent)        /* what the machine slowed, left out */
			snprintf(exp + strlen(exp) - 1, sizeof exp -
				 strlen(exp) + 1, ", \"machine-share\"]");
		fprintf(f, "  {\"log\": \"%s.log\", \"case\": \"acc\", "
			"\"region\": \"acc\", \"kind\": \"%s\", "
			"\"gap_units\": %.4f, \"unit_ns\": %.4f, "
			"\"share\": %g, \"planted\": {\"gap_ns\": %.3f, "
			"\"faults\": %ld, \"slowed\": %.4f, \"seed\": %lu}, "
			"\"expect\": %s}%s\n",
			p->name, kind, p->gap_ns / q_ns, q_ns, p->share,
			p->gap_ns, faults, slowed, (unsigned long)p->seed, exp,
			i + 1 < n ? "," : "");
	}
	fprintf(f, " ]}\n");
	if (fclose(f) != 0)
		exit(99);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: gen_machines DIR\n");
		return 2;
	}
	static const struct machine f26 = {
		"amd-f26-kvm-20261127-synthetic", "AMD EPYC (family 26)",
		"synthetic: SPEC section 8, the 2026-11-27 guest",
		2.096e9, 21,
		"{\"rdtscp\": false, \"constant_tsc\": true, "
		"\"hypervisor\": true}", 11 };
	static const struct plan f26p[] = {
		{ "hostcpu-control", 0, 0, 0, 1, 0, 0, 0, 11 },
		{ "two-4-0.5", 40, 0.5, 0, 0, 0, 0, 0, 12 },
		{ "faults", 0, 0, 0, 0, 1, 0, 0, 13 },
		{ "loop-step-28", 84, 0.5, 1, 0, 0, 0, 1, 14 },
	};
	static const struct machine turb = {
		"amd-2596-kvm-20261124-synthetic", "AMD EPYC",
		"synthetic: SPEC section 8, the 2026-11-24 guest whose host "
		"slows it 50-95 % for 0.1-10 ms at a time",
		2.596e9, 26,
		"{\"rdtscp\": true, \"constant_tsc\": true, "
		"\"hypervisor\": true}", 1 };
	static const struct plan turbp[] = {
		{ "turbulent-control", 0, 0, 0, 0, 0, 1, 0, 21 },
		{ "turbulent-step", 87, 0.5, 1, 0, 0, 1, 0, 22 },
	};
	mkdir_p(argv[1]);
	gen_machine(argv[1], &f26, f26p, 4);
	gen_machine(argv[1], &turb, turbp, 2);
	return 0;
}
