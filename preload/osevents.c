/*
 * osevents.c - the kernel's context switches, page faults and migrations
 * of each recording thread, into the log.
 *
 * Per thread, three software events share one ring: a dummy event with
 * context_switch = 1 (PERF_RECORD_SWITCH, MISC_SWITCH_OUT_PREEMPT tells a
 * preemption from a voluntary switch), page faults and cpu migrations
 * (one PERF_RECORD_SAMPLE each, sample_period = 1).  All are stamped in
 * CLOCK_MONOTONIC, a clock user space can read beside the wall clock.
 *
 * Time: the kernel stamps CLOCK_MONOTONIC ns, samples are in wall ticks.
 * Each drain reads both clocks side by side (an anchor); the events of a
 * drain lie between the previous anchor and this one, and are mapped by
 * the straight line through the two.  That needs neither tick_hz to be
 * exact nor the two clocks to keep one rate over the whole run.
 *
 * Invariants:
 *   - an open struct sbt_os has all three fds and its ring mapped;
 *   - o->tail is what the recorder has consumed; the kernel's data_tail
 *     is set to it after each drain, so the kernel never overwrites an
 *     unread record (it counts them lost instead).
 */
#include "config.h"
#include "osevents.h"
#include "sbtmark.h"

#include <linux/perf_event.h>
#include <errno.h>
#include <stddef.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define OS_CHUNK_MIN  4096u            /* a short thread's few events  */
#define OS_CHUNK_MAX  (256u << 10)
#define FULL_MARGIN   128u             /* free bytes below which the ring
					  may have refused a record      */

enum { EV_SWITCH, EV_FAULT, EV_MIGRATE, EV__N };

struct anchor { uint64_t ns, ticks; };

struct sbt_os {
	int fd[EV__N];
	uint64_t id[EV__N];            /* PERF_EVENT_IOC_ID of each     */
	struct perf_event_mmap_page *page;
	char *data;                    /* the ring's data pages         */
	uint64_t size;                 /* data bytes, a power of two    */
	uint64_t tail;
	struct anchor last;            /* clocks at the previous drain  */
	struct sbt_chunk *chunk;       /* current META chunk            */
	uint32_t chunk_size;           /* next chunk's size             */
	uint32_t seq;                  /* runs written                  */
};

/* The process's state: decided once, by the first thread that tries. */
static struct {
	_Atomic int state;             /* enum sbt_os_state, 0: not yet;
					  -1 while note is written      */
	_Atomic uint32_t pages;        /* ring data pages (same for all) */
	char note[64];                 /* set once, before state > 0    */
} os;

/* PERF_SAMPLE_IDENTIFIER | TID | TIME | CPU, as a SAMPLE lays it out. */
struct os_sample {
	uint64_t id;
	uint32_t pid, tid;
	uint64_t time;
	uint32_t cpu, res;
};

/* ... and as sample_id_all appends it to SWITCH and LOST records. */
struct os_sample_id {
	uint32_t pid, tid;
	uint64_t time;
	uint32_t cpu, res;
	uint64_t id;
};

static int os_perf_open(uint64_t config)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof a);
	a.size = sizeof a;
	a.type = PERF_TYPE_SOFTWARE;
	a.config = config;
	a.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID |
			PERF_SAMPLE_TIME | PERF_SAMPLE_CPU;
	a.sample_id_all = 1;
	a.use_clockid = 1;
	a.clockid = CLOCK_MONOTONIC;
	a.exclude_kernel = 1;          /* unprivileged: paranoid 2 */
	a.exclude_hv = 1;
	if (config == PERF_COUNT_SW_DUMMY)
		a.context_switch = 1;
	else
		a.sample_period = 1;   /* one record per fault / move */
	return (int)syscall(SYS_perf_event_open, &a, 0, -1, -1,
			    PERF_FLAG_FD_CLOEXEC);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Both clocks at one moment: the tick read between two ns reads. */
static struct anchor anchor_now(void)
{
	int cpu;
	uint64_t a = now_ns();
	uint64_t t = sbt_clock_stop(&cpu);
	uint64_t b = now_ns();

	return (struct anchor){ a + (b - a) / 2, t };
}

/* The first thread's outcome is the process's: `what` and errno `err`
 * (0: none) become the header's note. */
static void os_decide(int state, const char *what, int err)
{
	int none = 0;

	if (atomic_compare_exchange_strong(&os.state, &none, -1)) {
		snprintf(os.note, sizeof os.note, "%s%s%s", what,
			 err ? ": " : "", err ? strerror(err) : "");
		atomic_store(&os.state, state);
	}
}

static void os_free(struct sbt_os *o)
{
	for (int i = 0; i < EV__N; i++)
		if (o->fd[i] >= 0)
			close(o->fd[i]);
	if (o->page)
		munmap(o->page, (size_t)o->size + (size_t)sysconf(_SC_PAGESIZE));
	free(o);
}

struct sbt_os *sbt_os_open(void)
{
	static const uint64_t config[EV__N] = {
		PERF_COUNT_SW_DUMMY, PERF_COUNT_SW_PAGE_FAULTS,
		PERF_COUNT_SW_CPU_MIGRATIONS };
	long pg = sysconf(_SC_PAGESIZE);
	struct sbt_os *o;
	void *p;

	if (atomic_load(&os.state) == 0 &&
	    !sbt_cfg(SBT_CFG_OS_EVENTS)) {
		os_decide(SBT_OS_OFF, "off (SBT_OS_EVENTS=0)", 0);
		return NULL;
	}
	if (atomic_load(&os.state) == SBT_OS_OFF ||
	    atomic_load(&os.state) == SBT_OS_UNAVAILABLE)
		return NULL;
	if (!atomic_load(&os.pages)) {
		long n = sbt_cfg(SBT_CFG_OS_PAGES);
		while (n & (n - 1))
			n &= n - 1;    /* the kernel wants a power of two */
		atomic_store(&os.pages, (uint32_t)n);
	}
	if (!(o = calloc(1, sizeof *o)))
		return NULL;
	for (int i = 0; i < EV__N; i++)
		o->fd[i] = -1;
	o->size = (uint64_t)atomic_load(&os.pages) * (uint64_t)pg;
	o->chunk_size = OS_CHUNK_MIN;
	/* The ring belongs to the switch event; the others write into it,
	 * which the kernel allows only once it is mapped. */
	for (int i = 0; i < EV__N; i++) {
		o->fd[i] = os_perf_open(config[i]);
		if (o->fd[i] < 0) {
			int e = errno;
			/* Refused outright (policy, not resources): the
			 * whole process goes without. */
			if (e != EMFILE && e != ENFILE && e != ENOMEM)
				os_decide(SBT_OS_UNAVAILABLE,
					  "perf_event_open", e);
			goto fail;
		}
		if (i == 0) {
			/* Writable: data_tail tells the kernel what we
			 * consumed.  Fails past the locked-memory limit. */
			p = mmap(NULL, (size_t)o->size + (size_t)pg,
				 PROT_READ | PROT_WRITE, MAP_SHARED,
				 o->fd[0], 0);
			if (p == MAP_FAILED)
				goto fail;
			o->page = p;
		}
		if (ioctl(o->fd[i], PERF_EVENT_IOC_ID, &o->id[i]) != 0 ||
		    (i && ioctl(o->fd[i], PERF_EVENT_IOC_SET_OUTPUT,
				o->fd[0]) != 0)) {
			os_decide(SBT_OS_UNAVAILABLE, "perf ioctl", errno);
			goto fail;
		}
	}
	o->data = (char *)o->page + pg;
	o->last = anchor_now();
	os_decide(SBT_OS_ON, "", 0);
	return o;
fail:
	/* Refused for all: the header says so.  Else this thread alone. */
	if (atomic_load(&os.state) != SBT_OS_UNAVAILABLE)
		sbt_count(SBT_CNT_OS_MISSED);
	os_free(o);
	return NULL;
}

void sbt_os_close(struct sbt_os *o)
{
	if (o)
		os_free(o);
}

void sbt_os_header(struct sbt_file_header *h)
{
	int st = atomic_load(&os.state);

	h->os_events = st > 0 ? (uint32_t)st : SBT_OS_NONE;
	h->os_pages = atomic_load(&os.pages);
	snprintf(h->os_note, sizeof h->os_note, "%s", st > 0 ? os.note : "");
}

/* ---- draining ------------------------------------------------------------- */

/* Where a drain writes: a run (one META entry) in the thread's chunk. */
struct run {
	struct sbt_logfile *lf;
	struct sbt_meta *m;            /* NULL: no run open              */
	struct sbt_meta_os *hd;
	struct sbt_os_event *ev, *end;
	uint64_t until;                /* what the runs so far cover     */
	uint32_t thread;
	int32_t tid;
};

/* Commit the open run: its length, then the chunk's `used` past it. */
static void run_close(struct sbt_os *o, struct run *r)
{
	uint32_t n;
	size_t need;

	if (!r->m)
		return;
	n = (uint32_t)(r->ev - (struct sbt_os_event *)(r->hd + 1));
	r->hd->n = n;
	r->m->len = (uint32_t)(sizeof *r->hd + n * sizeof *r->ev);
	need = sizeof *r->m + r->m->len;   /* both multiples of 8 */
	atomic_store_explicit((_Atomic uint64_t *)&o->chunk->used,
			      o->chunk->used + need, memory_order_release);
	o->seq++;
	r->m = NULL;
}

/* A new run with room for one event at least (in a new chunk when this
 * one is full).  0 when the log has no space. */
static int run_open(struct sbt_os *o, struct run *r)
{
	size_t min = sizeof(struct sbt_meta) + sizeof *r->hd + sizeof *r->ev;

	if (!o->chunk || o->chunk->used + min >
			 o->chunk->size - sizeof *o->chunk) {
		o->chunk = sbt_log_chunk(r->lf, SBT_CHUNK_META, o->chunk_size,
					 r->thread, r->tid);
		if (!o->chunk)
			return 0;
		if (o->chunk_size < OS_CHUNK_MAX)
			o->chunk_size *= 2;
	}
	r->m = (struct sbt_meta *)((char *)(o->chunk + 1) + o->chunk->used);
	r->m->type = SBT_META_OS;
	r->m->reserved = 0;
	r->hd = (struct sbt_meta_os *)(r->m + 1);
	*r->hd = (struct sbt_meta_os){ .thread = r->thread, .tid = r->tid,
				       .seq = o->seq, .until = r->until };
	r->ev = (struct sbt_os_event *)(r->hd + 1);
	/* whole events only: the run need not end on a 16-byte boundary */
	r->end = r->ev + ((char *)o->chunk + o->chunk->size -
			  (char *)r->ev) / (ptrdiff_t)sizeof *r->ev;
	return 1;
}

/* Room for one more event: in the open run, or in a new one. */
static int run_room(struct sbt_os *o, struct run *r)
{
	if (r->m && r->ev < r->end)
		return 1;
	run_close(o, r);
	return run_open(o, r);
}

/* CLOCK_MONOTONIC ns -> wall ticks on the line through two anchors. */
static uint64_t to_ticks(struct anchor a, struct anchor b, uint64_t ns)
{
	double slope = b.ns > a.ns ? (double)(b.ticks - a.ticks) /
				     (double)(b.ns - a.ns) : 0;
	double d = ((double)ns - (double)a.ns) * slope;

	return d < 0 && -d > (double)a.ticks ? 0 :
	       (uint64_t)((double)a.ticks + d);
}

static void put(struct sbt_os *o, struct run *r, uint16_t kind,
		uint64_t ticks, uint32_t cpu, uint32_t count)
{
	if (!run_room(o, r))
		return;
	*r->ev++ = (struct sbt_os_event){ ticks, kind, (uint16_t)cpu, count };
}

void sbt_os_drain(struct sbt_os *o, struct sbt_logfile *lf, uint32_t thread,
		  int32_t tid)
{
	struct run r = { .lf = lf, .until = o ? o->last.ticks : 0,
			 .thread = thread, .tid = tid };
	uint64_t head, tail;
	struct anchor now;
	int full;

	if (!o || !lf)
		return;
	head = __atomic_load_n(&o->page->data_head, __ATOMIC_ACQUIRE);
	now = anchor_now();            /* after head: every record is older */
	/* A full ring drops what comes next, and says so only with the
	 * next record it takes: none may come (thread exit).  Say it here,
	 * count unknown (0), at the end of this drain's events. */
	full = o->size - (head - o->tail) < FULL_MARGIN;
	for (tail = o->tail; tail + sizeof(struct perf_event_header) <= head;) {
		union {
			struct perf_event_header h;
			char b[256];
		} rec;
		uint64_t at = tail & (o->size - 1), n;

		memcpy(&rec.h, o->data + at, sizeof rec.h);
		if (rec.h.size < sizeof rec.h || tail + rec.h.size > head)
			break;         /* torn: the kernel never does this */
		n = rec.h.size < sizeof rec ? rec.h.size : sizeof rec;
		/* A record may wrap around the ring's end. */
		if (at + n <= o->size) {
			memcpy(rec.b, o->data + at, n);
		} else {
			memcpy(rec.b, o->data + at, o->size - at);
			memcpy(rec.b + (o->size - at), o->data,
			       n - (o->size - at));
		}
		tail += rec.h.size;
		if (rec.h.type == PERF_RECORD_SAMPLE &&
		    n >= sizeof rec.h + sizeof(struct os_sample)) {
			struct os_sample s;
			memcpy(&s, rec.b + sizeof rec.h, sizeof s);
			put(o, &r, s.id == o->id[EV_MIGRATE] ? SBT_OS_MIGRATE :
				   SBT_OS_FAULT,
			    to_ticks(o->last, now, s.time), s.cpu, 1);
		} else if (rec.h.type == PERF_RECORD_SWITCH &&
			   n >= sizeof rec.h + sizeof(struct os_sample_id)) {
			struct os_sample_id s;
			uint16_t k = SBT_OS_SWITCH_IN;
			memcpy(&s, rec.b + sizeof rec.h, sizeof s);
			if (rec.h.misc & PERF_RECORD_MISC_SWITCH_OUT)
				k = rec.h.misc &
				    PERF_RECORD_MISC_SWITCH_OUT_PREEMPT ?
				    SBT_OS_PREEMPTED : SBT_OS_SWITCH_OUT;
			put(o, &r, k, to_ticks(o->last, now, s.time), s.cpu, 1);
		} else if (rec.h.type == PERF_RECORD_LOST &&
			   n >= sizeof rec.h + 16 + sizeof(struct os_sample_id)) {
			uint64_t lost;
			struct os_sample_id s;
			memcpy(&lost, rec.b + sizeof rec.h + 8, sizeof lost);
			memcpy(&s, rec.b + sizeof rec.h + 16, sizeof s);
			put(o, &r, SBT_OS_LOST, to_ticks(o->last, now, s.time),
			    s.cpu, lost > UINT32_MAX ? UINT32_MAX :
			    (uint32_t)lost);
		}
	}
	if (full)
		put(o, &r, SBT_OS_LOST, now.ticks, SBT_CPU_UNKNOWN, 0);
	/* The last run says the thread's record is whole up to now; it is
	 * written even without events, for the reader to know. */
	if (r.m || run_open(o, &r))
		r.hd->until = now.ticks;
	run_close(o, &r);
	o->tail = tail;
	__atomic_store_n(&o->page->data_tail, tail, __ATOMIC_RELEASE);
	o->last = now;
}
