/*
 * evname.c - event names to perf_event_attr: perf's generic names from
 * a table, the rest from libpfm4 (loaded with dlopen, where installed).
 */
#include "evname.h"

#include <ctype.h>
#include <dlfcn.h>
#include <pthread.h>
#include <string.h>

#ifdef SBT_HAVE_PFM
#include <perfmon/pfmlib_perf_event.h>
#endif

/* perf list's generic names (tools/perf/util/parse-events.c). */
static const struct generic {
	const char *name;
	unsigned type;
	unsigned long long config;
} generic[] = {
	{ "cycles",                  PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_CPU_CYCLES },
	{ "cpu-cycles",              PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions",            PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_INSTRUCTIONS },
	{ "cache-references",        PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_CACHE_REFERENCES },
	{ "cache-misses",            PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_CACHE_MISSES },
	{ "branches",                PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-instructions",     PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-misses",           PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_BRANCH_MISSES },
	{ "bus-cycles",              PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_BUS_CYCLES },
	{ "stalled-cycles-frontend", PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "stalled-cycles-backend",  PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "ref-cycles",              PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_REF_CPU_CYCLES },
	{ "cpu-clock",               PERF_TYPE_SOFTWARE,
	  PERF_COUNT_SW_CPU_CLOCK },
	{ "task-clock",              PERF_TYPE_SOFTWARE,
	  PERF_COUNT_SW_TASK_CLOCK },
	{ "page-faults",             PERF_TYPE_SOFTWARE,
	  PERF_COUNT_SW_PAGE_FAULTS },
	{ "faults",                  PERF_TYPE_SOFTWARE,
	  PERF_COUNT_SW_PAGE_FAULTS },
	{ "minor-faults",            PERF_TYPE_SOFTWARE,
	  PERF_COUNT_SW_PAGE_FAULTS_MIN },
	{ "major-faults",            PERF_TYPE_SOFTWARE,
	  PERF_COUNT_SW_PAGE_FAULTS_MAJ },
	{ "context-switches",        PERF_TYPE_SOFTWARE,
	  PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cs",                      PERF_TYPE_SOFTWARE,
	  PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu-migrations",          PERF_TYPE_SOFTWARE,
	  PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "migrations",              PERF_TYPE_SOFTWARE,
	  PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "alignment-faults",        PERF_TYPE_SOFTWARE,
	  PERF_COUNT_SW_ALIGNMENT_FAULTS },
	{ "emulation-faults",        PERF_TYPE_SOFTWARE,
	  PERF_COUNT_SW_EMULATION_FAULTS },
};

#define NGENERIC (sizeof generic / sizeof generic[0])

int sbt_evname_class(const struct perf_event_attr *a)
{
	if (a->type != PERF_TYPE_SOFTWARE)
		return 0;
	return a->config == PERF_COUNT_SW_TASK_CLOCK ? 2 :
	       a->config == PERF_COUNT_SW_CPU_CLOCK ? 3 : 1;
}

/* ---- libpfm4, loaded on first need --------------------------------------- */

#ifdef SBT_HAVE_PFM
static struct {
	pthread_once_t once;
	int ok;
	pfm_err_t (*init)(void);
	pfm_err_t (*encode)(const char *, int, pfm_os_t, void *);
	pfm_err_t (*pmu_info)(pfm_pmu_t, pfm_pmu_info_t *);
	int (*next)(int);
	pfm_err_t (*ev_info)(int, pfm_os_t, pfm_event_info_t *);
} pfm = { .once = PTHREAD_ONCE_INIT };

static void pfm_load(void)
{
	void *h = dlopen("libpfm.so.4", RTLD_NOW | RTLD_LOCAL);

	if (!h)
		return;
	*(void **)&pfm.init = dlsym(h, "pfm_initialize");
	*(void **)&pfm.encode = dlsym(h, "pfm_get_os_event_encoding");
	*(void **)&pfm.pmu_info = dlsym(h, "pfm_get_pmu_info");
	*(void **)&pfm.next = dlsym(h, "pfm_get_event_next");
	*(void **)&pfm.ev_info = dlsym(h, "pfm_get_event_info");
	pfm.ok = pfm.init && pfm.encode && pfm.pmu_info && pfm.next &&
		 pfm.ev_info && pfm.init() == PFM_SUCCESS;
}

static int pfm_ready(void)
{
	pthread_once(&pfm.once, pfm_load);
	return pfm.ok;
}

static int pfm_resolve(const char *name, struct perf_event_attr *a)
{
	struct perf_event_attr x;
	pfm_perf_encode_arg_t arg;

	if (!pfm_ready())
		return -1;
	memset(&x, 0, sizeof x);
	memset(&arg, 0, sizeof arg);
	arg.attr = &x;
	arg.size = sizeof arg;
	/* user level only: what perf_event_paranoid 2 allows */
	if (pfm.encode(name, PFM_PLM3, PFM_OS_PERF_EVENT, &arg) != PFM_SUCCESS)
		return -1;
	a->type = x.type;
	a->config = x.config;
	a->config1 = x.config1;
	a->config2 = x.config2;
	return 0;
}

static void pfm_list(FILE *f)
{
	if (!pfm_ready())
		return;
	for (int p = PFM_PMU_NONE; p < PFM_PMU_MAX; p++) {
		pfm_pmu_info_t pi;
		memset(&pi, 0, sizeof pi);
		pi.size = sizeof pi;
		if (pfm.pmu_info((pfm_pmu_t)p, &pi) != PFM_SUCCESS ||
		    !pi.is_present)
			continue;
		for (int i = pi.first_event; i != -1; i = pfm.next(i)) {
			pfm_event_info_t ei;
			memset(&ei, 0, sizeof ei);
			ei.size = sizeof ei;
			if (pfm.ev_info(i, PFM_OS_PERF_EVENT, &ei) ==
			    PFM_SUCCESS)
				fprintf(f, "%s::%s\n", pi.name, ei.name);
		}
	}
}
#else
static int pfm_resolve(const char *name, struct perf_event_attr *a)
{
	(void)name, (void)a;
	return -1;
}

static void pfm_list(FILE *f) { (void)f; }
#endif

/* ---- names -------------------------------------------------------------- */

int sbt_evname_resolve(const char *name, struct perf_event_attr *a)
{
	if (!name || !*name || strlen(name) > SBT_EVNAME_MAX)
		return -1;
	for (size_t i = 0; i < NGENERIC; i++)
		if (!strcmp(name, generic[i].name)) {
			a->type = generic[i].type;
			a->config = generic[i].config;
			a->config1 = a->config2 = 0;
			return 0;
		}
	return pfm_resolve(name, a);
}

void sbt_evname_list(FILE *f)
{
	for (size_t i = 0; i < NGENERIC; i++)
		fprintf(f, "%s\n", generic[i].name);
	pfm_list(f);
}

int sbt_evname_split(const char *list,
		     void (*fn)(const char *name, void *arg), void *arg)
{
	char name[SBT_EVNAME_MAX + 2];
	int n = 0;

	while (list && *list) {
		size_t len = strcspn(list, ","), a = 0, b = len, k;
		while (a < b && isspace((unsigned char)list[a]))
			a++;
		while (b > a && isspace((unsigned char)list[b - 1]))
			b--;
		if (b > a) {
			/* one byte more than accepted: too long is unknown */
			k = b - a < sizeof name - 1 ? b - a : sizeof name - 1;
			memcpy(name, list + a, k);
			name[k] = 0;
			fn(name, arg);
			n++;
		}
		list += len + (list[len] == ',');
	}
	return n;
}
