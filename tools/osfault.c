/* osfault.c - system time per fresh-page fault while the kernel records
 * each fault for this thread, in the recorder's way and in leaner ones.
 *   cc -O2 -o osfault tools/osfault.c && taskset -c 1 ./osfault WAY [PAGES]
 * WAY   the page-fault event                      its ring
 * none     not opened
 * recorder sampled (period 1): ID|TID|TIME|CPU,   shared with a context-
 *          CLOCK_MONOTONIC, sample_id_all         switch and a migration
 *                                                 event (preload/osevents.c)
 * counted  counted, not sampled                   the same
 * idtime   IDENTIFIER|TIME, CLOCK_MONOTONIC,      the same
 *          sample_id_all
 * noclock  as recorder, perf's own clock          the same
 * time     TIME only, perf's own clock            the same
 * lean     TIME only, perf's own clock            its own, alone         */
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static int open_ev(unsigned long long config, int sampled,
		   unsigned long long fields, int monotonic)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof a);
	a.size = sizeof a;
	a.type = PERF_TYPE_SOFTWARE;
	a.config = config;
	a.sample_type = fields;
	a.sample_id_all = fields != PERF_SAMPLE_TIME;
	a.use_clockid = monotonic;
	a.clockid = monotonic ? CLOCK_MONOTONIC : 0;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	if (config == PERF_COUNT_SW_DUMMY)
		a.context_switch = 1, a.watermark = 1, a.wakeup_watermark = 16384;
	else if (sampled)
		a.sample_period = 1;
	return (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
}

int main(int argc, char **argv)
{
	const char *way = argc > 1 ? argv[1] : "recorder";
	long n = argc > 2 ? atol(argv[2]) : 300000, pg = sysconf(_SC_PAGESIZE);
	int lean = !strcmp(way, "lean"), counted = !strcmp(way, "counted");
	int idtime = !strcmp(way, "idtime");
	int mono = !strcmp(way, "recorder") || counted || idtime;
	unsigned long long fields = lean || !strcmp(way, "time") ?
		PERF_SAMPLE_TIME : idtime ?
		PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TIME :
		PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
		PERF_SAMPLE_CPU;
	struct perf_event_mmap_page *ring = NULL;
	struct rusage r0, r1;

	if (strcmp(way, "none")) {
		int f0 = lean ? open_ev(PERF_COUNT_SW_PAGE_FAULTS, 1, fields, 0)
			      : open_ev(PERF_COUNT_SW_DUMMY, 0, fields, mono);
		/* the others may write into f0's ring once it is mapped */
		ring = mmap(NULL, 17 * pg, PROT_READ | PROT_WRITE, MAP_SHARED,
			    f0, 0);
		if (f0 < 0 || ring == MAP_FAILED)
			return perror("osfault: the ring"), 1;
		if (!lean) {
			int f1 = open_ev(PERF_COUNT_SW_PAGE_FAULTS, !counted,
					 fields, mono);
			int f2 = open_ev(PERF_COUNT_SW_CPU_MIGRATIONS, 1,
					 fields, mono);
			if (f1 < 0 || f2 < 0 ||
			    ioctl(f2, PERF_EVENT_IOC_SET_OUTPUT, f0) ||
			    (!counted && ioctl(f1, PERF_EVENT_IOC_SET_OUTPUT, f0)))
				return perror("osfault: the events"), 1;
		}
	}
	getrusage(RUSAGE_SELF, &r0);
	for (long done = 0; done < n; done += 256) {
		char *p = mmap(NULL, 256 * pg, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		for (long i = 0; i < 256; i++)
			p[i * pg] = 1;
		munmap(p, 256 * pg);
		if (ring)       /* consumed at once: the ring never fills */
			__atomic_store_n(&ring->data_tail, __atomic_load_n(
				&ring->data_head, __ATOMIC_ACQUIRE),
				__ATOMIC_RELEASE);
	}
	getrusage(RUSAGE_SELF, &r1);
	double us = (r1.ru_stime.tv_sec - r0.ru_stime.tv_sec) * 1e6 +
		    (r1.ru_stime.tv_usec - r0.ru_stime.tv_usec);
	long faults = r1.ru_minflt - r0.ru_minflt;
	printf("%-8s %.3f us of system time a fault (%ld faults)\n", way,
	       us / (double)faults, faults);
	return 0;
}
