/*
 * test_join.c - the analyzer's side of OS events on a synthetic log whose
 * every event is known: the join by thread and time, losses, and the
 * verdict with preempted samples left out.
 *
 * Clock 1 GHz (1 tick = 1 ns).  Region "steady" on thread 0: N samples of
 * 5000 ns + jitter, every 10th one 300 ns longer (a second mode) and
 * preempted by the kernel's record.  Region "edges" on thread 1: events
 * just inside and just outside the samples' bounds, one LOST, and a
 * sample past the thread's last drain.
 * Region "waits" on thread 2: every sample preempted (a yielding loop).
 * Region "bare" on thread 3, which has no record at all.
 * probes.log: speed probes of 1000 ns on a thread whose record has a
 * switch-out inside every third one, and one just past another's end:
 * the probes with one are the OS's (`switched`), the others not.
 * team.log: a thread's samples during another's preempted stretches are
 * SBT_SF_TEAM_PREEMPTED, and only those.
 */
#include "../common/gen.h"
#include "../common/harness.h"
#include "../common/logbuild.h"
#include "analyze.h"
#include "reader.h"
#include "sbtlog.h"

#include <math.h>

#define CHUNK  (256u * 1024)
#define N      2000

static struct lb b;

static void region(struct sbt_chunk *c, uint32_t id, const char *name)
{
	uint64_t ra = 0x401000 + id;

	lb_region(c, id, SBT_API_SBTMARK, ra, name);
	lb_site(c, id, id, &ra, 1);
}

/* One thread's samples: events from a caller-filled array. */
struct span { uint64_t t0, t1; };

static void samples(uint32_t thread, uint32_t site, const struct span *sp,
		    size_t n)
{
	for (size_t i = 0; i < n; i++)
		lb_pair(&b, thread, 0, site, sp[i].t0, sp[i].t1, 0);
}

static struct sbt_os_event *os_run(struct sbt_chunk *c, uint32_t thread,
				   uint32_t n, uint64_t until)
{
	struct sbt_meta_os *h = lb_meta_room(c, SBT_META_OS, (uint32_t)
		(sizeof *h + n * sizeof(struct sbt_os_event)));

	*h = (struct sbt_meta_os){ .thread = thread, .n = n,
				   .until = until };
	return (struct sbt_os_event *)(h + 1);
}

static void ev(struct sbt_os_event *e, uint64_t t, uint16_t kind)
{
	*e = (struct sbt_os_event){ t, kind, 0, 1 };
}

static const struct sbt_group *find(const struct sbt_dataset *ds,
				    const struct sbt_result *r,
				    const char *name)
{
	for (size_t i = 0; i < r->ngroups; i++)
		if (!strcmp(ds->regions[r->g[i].region].name, name))
			return &r->g[i];
	return NULL;
}

static void write_log(const char *path, uint32_t os_state)
{
	static struct span st[N], ed[4], wt[200];
	struct gen g = { 7 };
	struct sbt_file_header *h;

	lb_begin(&b, SBT_HEADER_SIZE + 8 * CHUNK, CHUNK);
	h = lb_hdr(&b);
	h->start_ticks = 1000000;
	h->pid = 42;
	h->os_events = os_state;

	struct sbt_chunk *m = lb_chunk(&b, SBT_CHUNK_META, 0);
	region(m, 1, "steady");
	region(m, 2, "edges");
	region(m, 3, "waits");
	region(m, 4, "bare");

	/* steady: one sample every 10 us; every 10th preempted */
	struct sbt_os_event *e = os_run(m, 0, 2 * (N / 10),
					h->start_ticks + 10000 * (N + 1));
	for (size_t i = 0; i < N; i++) {
		uint64_t t0 = h->start_ticks + 10000 * (i + 1);
		double d = gen_jitter(&g, 5000, 2) + (i % 10 == 3 ? 300 : 0);
		st[i] = (struct span){ t0, t0 + (uint64_t)d };
		if (i % 10 == 3) {
			ev(e++, t0 + 10, SBT_OS_PREEMPTED);
			ev(e++, t0 + 40, SBT_OS_SWITCH_IN);
		}
	}
	samples(0, 1, st, N);

	/* edges: [a, a+100] each; events at the bounds and past them */
	uint64_t a = h->start_ticks + 100000000;
	for (int i = 0; i < 4; i++)
		ed[i] = (struct span){ a + 1000 * (uint64_t)i,
				       a + 1000 * (uint64_t)i + 100 };
	e = os_run(m, 1, 7, a + 2500);         /* sample 3 past it */
	ev(e++, a - 1, SBT_OS_FAULT);           /* before sample 0   */
	ev(e++, a + 1, SBT_OS_FAULT);           /* in sample 0       */
	ev(e++, a + 99, SBT_OS_SWITCH_OUT);     /* in sample 0       */
	ev(e++, a + 101, SBT_OS_FAULT);         /* after sample 0    */
	ev(e++, a + 1050, SBT_OS_FAULT);        /* in sample 1       */
	ev(e++, a + 1200, SBT_OS_FAULT);        /* between 1 and 2   */
	/* lost after the event at a+1200: covers sample 2's start only */
	ev(e++, a + 2050, SBT_OS_LOST);
	samples(1, 2, ed, 4);

	/* waits: every sample switched out while runnable */
	uint64_t w = h->start_ticks + 200000000;
	e = os_run(m, 2, 200, w + 10000 * 200);
	for (int i = 0; i < 200; i++) {
		wt[i] = (struct span){ w + 10000 * (uint64_t)i,
				       w + 10000 * (uint64_t)i + 5000 };
		ev(e++, wt[i].t0 + 100, SBT_OS_PREEMPTED);
	}
	samples(2, 3, wt, 200);

	/* bare: thread 3 has no record at all (its events not opened) */
	static struct span br[3];
	for (int i = 0; i < 3; i++)
		br[i] = (struct span){ w + 5000000 + 1000 * (uint64_t)i,
				       w + 5000000 + 1000 * (uint64_t)i + 500 };
	samples(3, 4, br, 3);

	if (lb_save(&b, path) != 0)
		exit(99);
	lb_free(&b);
}

#define NPROBES 30

/* Probes every 10 us of 1000 ticks on thread 0; a switch-out (and its
 * switch-in) inside every third, a fault inside probe 1, a switch-out
 * just past probe 2's end. */
static void write_probes(const char *path)
{
	struct sbt_file_header *h;

	lb_begin(&b, SBT_HEADER_SIZE + 4 * CHUNK, CHUNK);
	h = lb_hdr(&b);
	h->start_ticks = 1000000;
	h->pid = 43;
	h->os_events = SBT_OS_ON;
	struct sbt_chunk *m = lb_chunk(&b, SBT_CHUNK_META, 0);
	region(m, 1, "work");
	uint64_t t = h->start_ticks + 10000;
	struct sbt_os_event *e = os_run(m, 0, 2 * (NPROBES / 3) + 2,
					t + 10000 * (NPROBES + 2));
	for (uint64_t i = 0; i < NPROBES; i++) {
		uint64_t p0 = t + 10000 * i;
		if (i % 3 == 0) {
			ev(e++, p0 + 500, SBT_OS_SWITCH_OUT);
			ev(e++, p0 + 900, SBT_OS_SWITCH_IN);
		}
		if (i == 1)
			ev(e++, p0 + 500, SBT_OS_FAULT);
		if (i == 2)
			ev(e++, p0 + 1001, SBT_OS_SWITCH_OUT);
		lb_event(&b, 0, SBT_EV_SPEED, 0, 1000, p0, 0);
		lb_pair(&b, 0, 0, 1, p0 + 2000, p0 + 7000, 0);
	}
	if (lb_save(&b, path) != 0)
		exit(99);
	lb_free(&b);
}

static void check_probes(void)
{
	struct sbt_dataset ds = { 0 };
	char err[256];
	size_t n = 0, bad = 0;

	write_probes("probes.log");
	int rc = sbt_read_log("probes.log", &ds, err, sizeof err);
	CHECK(rc == 0, "reading probes.log: rc %d %s", rc, err);
	if (rc < 0)
		return;
	for (size_t i = 0; i < ds.nprobes; i++) {
		const struct sbt_probe *p = &ds.probes[i];
		size_t k = (size_t)llround((p->t_ns - 10000) / 10000);
		n++;
		bad += p->switched != (k % 3 == 0);
	}
	CHECK(n == NPROBES && bad == 0, "probes: %zu of %d read, %zu with "
	      "the wrong switch-out mark", n, NPROBES, bad);
	sbt_ds_free(&ds);
}

/* The samples of region `name` in log order. */
static const struct sbt_sample *nth(const struct sbt_dataset *ds,
				    const char *name, size_t k)
{
	for (size_t i = 0; i < ds->n; i++)
		if (!strcmp(ds->regions[ds->s[i].region].name, name) && !k--)
			return &ds->s[i];
	return NULL;
}

/* team.log: thread 0 preempted 20 times for 300 ns (a switch back in
 * each time, but the last, whose record ends at its LOST); thread 1's
 * samples each overlap one of those stretches, lie wholly after it, or
 * wholly before it. */
#define NTEAM 20

static void write_team(const char *path)
{
	struct sbt_file_header *h;

	lb_begin(&b, SBT_HEADER_SIZE + 4 * CHUNK, CHUNK);
	h = lb_hdr(&b);
	h->start_ticks = 1000000;
	h->pid = 44;
	h->os_events = SBT_OS_ON;
	struct sbt_chunk *m = lb_chunk(&b, SBT_CHUNK_META, 0);
	region(m, 1, "work");
	region(m, 2, "wait");
	uint64_t t = h->start_ticks + 10000, end = t + 10000 * (NTEAM + 1);
	struct sbt_os_event *e = os_run(m, 0, 2 * NTEAM, end);
	for (uint64_t i = 0; i < NTEAM; i++) {
		uint64_t p0 = t + 10000 * i;
		ev(e++, p0 + 1000, SBT_OS_PREEMPTED);
		ev(e++, p0 + 1300, i + 1 < NTEAM ? SBT_OS_SWITCH_IN :
						   SBT_OS_LOST);
		lb_pair(&b, 0, 0, 1, p0 + 500, p0 + 2000, 0);
	}
	/* the waiter: across the stretch's end, after it, before it (a
	 * thread's events in one chunk: after thread 0's) */
	for (uint64_t i = 0; i < NTEAM; i++) {
		uint64_t p0 = t + 10000 * i;
		uint64_t w0 = i % 3 == 0 ? p0 + 1200 : i % 3 == 1 ? p0 + 1400 :
			      p0 + 100;
		lb_pair(&b, 1, 0, 2, w0, w0 + 250, 0);
	}
	(void)os_run(m, 1, 0, end);
	if (lb_save(&b, path) != 0)
		exit(99);
	lb_free(&b);
}

static void check_team(void)
{
	struct sbt_dataset ds = { 0 };
	char err[256];
	size_t k = 0, bad = 0, own = 0;

	write_team("team.log");
	int rc = sbt_read_log("team.log", &ds, err, sizeof err);
	CHECK(rc == 0, "reading team.log: rc %d %s", rc, err);
	if (rc < 0)
		return;
	for (size_t i = 0; i < ds.n; i++) {
		const struct sbt_sample *s = &ds.s[i];
		int team = !!(s->flags & SBT_SF_TEAM_PREEMPTED);
		if (s->thread == 0) {
			own += !!(s->flags & SBT_SF_PREEMPTED);
			bad += team;       /* its own stretch is not another's */
		} else {
			/* the last stretch ends at its LOST record: 0 long */
			int want = k % 3 == 0 && k + 1 < NTEAM;
			bad += team != want;
			k++;
		}
	}
	CHECK(k == NTEAM && own == NTEAM && bad == 0, "team: %zu waits, %zu "
	      "own preempted of %d, %zu with the wrong mark", k, own, NTEAM,
	      bad);
	sbt_ds_free(&ds);
}

/* storm.log: 40 calls of 1000 ticks, back to back from `t`; a fault
 * recorded whole in call 0, then a storm: every 8th fault recorded, at
 * calls 8, 16, 24 and 32 - each standing for the 8 calls up to it.
 * With `preempt`, call 12 is preempted for 50,000 ticks (the calls after
 * it later by as much): the faults came while the thread ran, so its
 * stretch's 8 are still one a call, not most of them call 12's. */
#define OFF 50000u

static void write_storm(const char *path, int preempt)
{
	struct sbt_file_header *h;

	lb_begin(&b, SBT_HEADER_SIZE + 4 * CHUNK, CHUNK);
	h = lb_hdr(&b);
	h->start_ticks = 1000000;
	h->pid = 45;
	h->os_events = SBT_OS_ON;
	h->fault_record_ns = 800;
	h->fault_rate_max = 12500;
	struct sbt_chunk *m = lb_chunk(&b, SBT_CHUNK_META, 0);
	region(m, 1, "touch");
	uint64_t t = h->start_ticks + 10000;
	uint64_t late = preempt ? OFF : 0;     /* calls after 12 */
	struct sbt_os_event *e = os_run(m, 0, preempt ? 7 : 5,
					t + 40 * 1000 + late);
	ev(e++, t + 900, SBT_OS_FAULT);
	ev(e, t + 8000 + 900, SBT_OS_FAULT);
	e++->count = 8;
	if (preempt) {
		ev(e++, t + 12000 + 500, SBT_OS_PREEMPTED);
		ev(e++, t + 12000 + 500 + OFF, SBT_OS_SWITCH_IN);
	}
	for (uint64_t c = 16; c <= 32; c += 8) {
		ev(e, t + 1000 * c + 900 + late, SBT_OS_FAULT);
		e++->count = 8;
	}
	for (uint64_t c = 0; c < 40; c++) {
		uint64_t a = t + 1000 * c + (c > 12 ? late : 0);
		lb_pair(&b, 0, 0, 1, a, a + 1000 + (c == 12 ? late : 0), 0);
	}
	if (lb_save(&b, path) != 0)
		exit(99);
	lb_free(&b);
}

static void check_storm(int preempt)
{
	struct sbt_dataset ds = { 0 };
	char err[256];
	size_t bad = 0, sum = 0;
	const char *log = preempt ? "storm-preempted.log" : "storm.log";

	write_storm(log, preempt);
	int rc = sbt_read_log(log, &ds, err, sizeof err);
	CHECK(rc == 0, "reading %s: rc %d %s", log, rc, err);
	if (rc < 0)
		return;
	const struct sbt_source *src = &ds.sources[0];
	CHECK(src->os_fault_k == 8 && src->os_faults_sampled == 32 &&
	      src->fault_record_ns == 800 && src->fault_rate_max == 12500,
	      "storm source: K %u, %llu sampled, record %u ns, rate %u",
	      src->os_fault_k, (unsigned long long)src->os_faults_sampled,
	      src->fault_record_ns, src->fault_rate_max);
	/* calls 0-32 each hold one fault (call 0 its own record; 1-32 an
	 * eighth of a stretch of 8 calls, call 1 from call 0's fault at
	 * 900 on: 8/8 of its part); 33-39 none */
	for (size_t c = 0; c < 40; c++) {
		const struct sbt_sample *s = nth(&ds, "touch", c);
		unsigned want = c <= 32;
		if (!s)
			break;
		sum += s->faults;
		bad += s->faults != want;
	}
	CHECK(bad == 0 && sum == 33, "%s: %zu calls with the wrong count, "
	      "%zu faults in all (33)", log, bad, sum);
	sbt_ds_free(&ds);
}

int main(void)
{
	struct sbt_options o = { .filters = SBT_F_ALL, .seed = 1,
				 .cost_ns = 0, .profile_t_min_ns = NAN,
				 .profile_t_diff_ns = NAN, .jobs = 1 };
	struct sbt_dataset ds = { 0 };
	struct sbt_result r;
	char err[256];

	h_tmpdir();
	write_log("os.log", SBT_OS_ON);
	int rc = sbt_read_log("os.log", &ds, err, sizeof err);
	CHECK(rc == 0, "reading os.log: rc %d %s", rc, err);
	if (rc < 0)
		return h_done();
	CHECK(ds.sources[0].os_state == SBT_OS_ON, "state %u",
	      ds.sources[0].os_state);
	CHECK(ds.sources[0].os_lost == 1, "lost %llu",
	      (unsigned long long)ds.sources[0].os_lost);

	/* The join, sample by sample. */
	const struct sbt_sample *s0 = nth(&ds, "edges", 0),
		*s1 = nth(&ds, "edges", 1), *s2 = nth(&ds, "edges", 2),
		*s3 = nth(&ds, "edges", 3);
	if (s0 && s1 && s2 && s3) {
		CHECK(s0->faults == 1 && s0->switches == 1 &&
		      !(s0->flags & SBT_SF_PREEMPTED), "edge 0: %u faults, "
		      "%u switches", s0->faults, s0->switches);
		CHECK(s1->faults == 1 && s1->switches == 0, "edge 1: %u "
		      "faults, %u switches", s1->faults, s1->switches);
		CHECK(s2->faults == 0 && (s2->flags & SBT_SF_OS_LOST),
		      "edge 2: %u faults, flags %#x", s2->faults, s2->flags);
		CHECK(!(s0->flags & SBT_SF_OS_LOST) &&
		      !(s1->flags & SBT_SF_OS_LOST), "lost marked too wide");
		CHECK(s3->faults == 0 && s3->switches == 0 &&
		      (s3->flags & SBT_SF_OS_LOST), "edge 3, past the last "
		      "drain: %u, %u, flags %#x", s3->faults, s3->switches,
		      s3->flags);
	} else {
		CHECK(0, "edges: samples missing");
	}
	size_t pre = 0;
	for (size_t i = 0; i < N; i++) {
		const struct sbt_sample *s = nth(&ds, "steady", i);
		int want = i % 10 == 3;
		pre += want;
		if (!s || !!(s->flags & SBT_SF_PREEMPTED) != want ||
		    s->switches != want) {
			CHECK(0, "steady sample %zu: preempted %d, switches "
			      "%u", i, s ? !!(s->flags & SBT_SF_PREEMPTED) :
			      -1, s ? s->switches : 0);
			break;
		}
	}

	for (size_t i = 0; i < 3; i++) {
		const struct sbt_sample *s = nth(&ds, "bare", i);
		CHECK(s && (s->flags & SBT_SF_OS_LOST), "bare %zu: a thread "
		      "without a record taken for a quiet one", i);
	}

	/* Analysis: the preempted tenth is left out, and said so. */
	rc = sbt_analyze(&ds, &o, &r);
	CHECK(rc == 0, "analyze failed");
	if (rc != 0)
		return h_done();
	const struct sbt_group *st = find(&ds, &r, "steady"),
		*wt = find(&ds, &r, "waits");
	if (st) {
		CHECK(st->os.covered == N && st->os.preempted == pre &&
		      st->os.interrupted == pre && st->os.switches == pre,
		      "steady os: %zu covered, %zu preempted, %zu switches",
		      st->os.covered, st->os.preempted, st->os.switches);
		CHECK(st->os.left_out == pre, "left out %zu of %zu",
		      st->os.left_out, pre);
		CHECK(st->nfindings == 0, "steady: %d findings (first %s)",
		      st->nfindings, st->nfind ?
		      sbt_finding_kind_name(st->find[0].kind) : "none");
		CHECK(st->os.cut_interrupted <= st->os.cut &&
		      st->os.interrupted_kept + st->os.cut_interrupted ==
		      st->os.interrupted, "agreement: cut %zu (%zu "
		      "interrupted), kept %zu interrupted", st->os.cut,
		      st->os.cut_interrupted, st->os.interrupted_kept);
	} else {
		CHECK(0, "no group steady");
	}
	if (wt)
		CHECK(wt->os.preempted == 200 && wt->os.left_out == 0 &&
		      wt->os.preempted_own && wt->kept > 100,
		      "waits: %zu preempted, %zu left out, %zu kept",
		      wt->os.preempted, wt->os.left_out, wt->kept);
	sbt_result_free(&r);

	/* Without the OS filter nothing is left out: the tenth that took
	 * 300 ns longer is the OS's part of the spread (its switches), not
	 * a second mode of the code's own. */
	o.filters = SBT_F_COST;
	rc = sbt_analyze(&ds, &o, &r);
	st = rc == 0 ? find(&ds, &r, "steady") : NULL;
	int os_part = 0, modes = 0;
	for (int k = 0; st && k < st->nfind; k++) {
		os_part |= st->find[k].kind == SBT_FIND_OS_SPREAD &&
			   st->find[k].var_share >= 0.9;
		modes |= st->find[k].kind == SBT_FIND_MODES;
	}
	CHECK(st && st->os.left_out == 0 && st->kept == N && os_part &&
	      !modes, "steady, kernel's record unused: %zu left out, %zu "
	      "kept, os part %d, modes %d", st ? st->os.left_out : 0,
	      st ? st->kept : 0, os_part, modes);
	if (rc == 0)
		sbt_result_free(&r);
	sbt_ds_free(&ds);

	/* A log whose header says unavailable: no counts, no join. */
	memset(&ds, 0, sizeof ds);
	write_log("off.log", SBT_OS_UNAVAILABLE);
	rc = sbt_read_log("off.log", &ds, err, sizeof err);
	CHECK(rc == 0, "reading off.log: %s", err);
	o.filters = SBT_F_ALL;
	if (rc == 0 && sbt_analyze(&ds, &o, &r) == 0) {
		st = find(&ds, &r, "steady");
		CHECK(st && st->os.covered == 0 && st->os.left_out == 0,
		      "unavailable, yet %zu covered",
		      st ? st->os.covered : 0);
		sbt_result_free(&r);
	}
	sbt_ds_free(&ds);
	check_probes();
	check_team();
	check_storm(0);
	check_storm(1);
	return h_done();
}
