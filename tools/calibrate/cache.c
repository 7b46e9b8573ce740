/*
 * cache.c - cache sizes and the per-sample flush (see cache.h).
 */
#include "cache.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#if defined(__x86_64__)
#include <cpuid.h>
#endif

const char *const sbt_level_name[SBT_NLEVELS] = { "l1", "l2", "l3", "mem" };

/* ---- sizes ------------------------------------------------------------ */

size_t sbt_parse_size(const char *s)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || !(v > 0))
		return 0;
	switch (*end) {
	case 'k': case 'K': v *= 1024; end++; break;
	case 'm': case 'M': v *= 1024 * 1024; end++; break;
	case 'g': case 'G': v *= 1024.0 * 1024 * 1024; end++; break;
	default: break;
	}
	if (*end == 'i' && end[-1] != *s)    /* KiB, MiB */
		end++;
	if (*end == 'B')
		end++;
	if (*end || v > 1e15)
		return 0;
	return (size_t)v;
}

/* sysfs: cache/indexN/{level,type,size}; level 1 wants the data cache. */
static size_t from_sysfs(int level)
{
	for (int i = 0; i < 8; i++) {
		char path[96], type[32] = "", size[32] = "";
		int lvl = 0;
		FILE *f;

		snprintf(path, sizeof path,
			 "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
		if (!(f = fopen(path, "re")))
			return 0;
		if (fscanf(f, "%d", &lvl) != 1)
			lvl = 0;
		fclose(f);
		snprintf(path, sizeof path,
			 "/sys/devices/system/cpu/cpu0/cache/index%d/type", i);
		if ((f = fopen(path, "re"))) {
			if (fscanf(f, "%31s", type) != 1)
				type[0] = '\0';
			fclose(f);
		}
		if (lvl != level || strcmp(type, "Instruction") == 0)
			continue;
		snprintf(path, sizeof path,
			 "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
		if ((f = fopen(path, "re"))) {
			if (fscanf(f, "%31s", size) != 1)
				size[0] = '\0';
			fclose(f);
		}
		return sbt_parse_size(size);
	}
	return 0;
}

static size_t from_sysconf(int level)
{
	static const int name[3] = { _SC_LEVEL1_DCACHE_SIZE,
				     _SC_LEVEL2_CACHE_SIZE,
				     _SC_LEVEL3_CACHE_SIZE };
	long v = sysconf(name[level - 1]);

	return v > 0 ? (size_t)v : 0;
}

#if defined(__x86_64__)
/* Deterministic cache parameters: Intel leaf 4, AMD 0x8000001D (same
 * layout); then AMD's legacy 0x80000005/6. */
static size_t from_cpuid(int level, const char **leaf)
{
	unsigned a, b, c, d, max, emax;
	char vendor[13];

	__cpuid(0, max, b, c, d);
	memcpy(vendor, &b, 4);
	memcpy(vendor + 4, &d, 4);
	memcpy(vendor + 8, &c, 4);
	vendor[12] = '\0';
	emax = __get_cpuid_max(0x80000000, NULL);
	int amd = !strcmp(vendor, "AuthenticAMD") || !strcmp(vendor,
							    "HygonGenuine");
	unsigned det = 0;
	if (!amd && max >= 4)
		det = 4;
	if (amd && emax >= 0x8000001D) {
		__cpuid(0x80000001, a, b, c, d);
		if (c & (1u << 22))             /* TopologyExtensions */
			det = 0x8000001D;
	}
	for (unsigned i = 0; det && i < 16; i++) {
		__cpuid_count(det, i, a, b, c, d);
		unsigned type = a & 31;
		if (type == 0)
			break;
		if ((int)((a >> 5) & 7) != level || type == 2)
			continue;
		*leaf = det == 4 ? "cpuid leaf 4" : "cpuid 0x8000001D";
		return (size_t)((b >> 22) + 1) * (((b >> 12) & 0x3ff) + 1) *
		       ((b & 0xfff) + 1) * (c + 1);
	}
	if (amd && level == 1 && emax >= 0x80000005) {
		__cpuid(0x80000005, a, b, c, d);
		*leaf = "cpuid 0x80000005";
		return (size_t)(c >> 24) << 10;
	}
	if (amd && level >= 2 && emax >= 0x80000006) {
		__cpuid(0x80000006, a, b, c, d);
		*leaf = "cpuid 0x80000006";
		return level == 2 ? (size_t)(c >> 16) << 10
				  : (size_t)(d >> 18) << 19;
	}
	return 0;
}
#endif

void sbt_cache_detect(struct sbt_cache_sizes *cs, const size_t override[3])
{
	memset(cs, 0, sizeof *cs);
	for (int l = 1; l <= 3; l++) {
		size_t *sz = &cs->size[l - 1];
		char *src = cs->src[l - 1];

		if (override && override[l - 1]) {
			*sz = override[l - 1];
			strcpy(src, "option");
		} else if ((*sz = from_sysfs(l))) {
			strcpy(src, "sysfs");
		} else if ((*sz = from_sysconf(l))) {
			strcpy(src, "sysconf");
		} else {
#if defined(__x86_64__)
			const char *leaf = "cpuid";
			if ((*sz = from_cpuid(l, &leaf)))
				snprintf(src, sizeof cs->src[0], "%s", leaf);
			else
#endif
				strcpy(src, "unknown");
		}
	}
}

/* ---- flush ------------------------------------------------------------ */

static void barrier(void)
{
#if defined(__x86_64__)
	__asm__ __volatile__("mfence" ::: "memory");
#else
	__asm__ __volatile__("dsb ish\n\tisb" ::: "memory");
#endif
}

static void evict_line(uintptr_t a)
{
#if defined(__x86_64__)
	__asm__ __volatile__("clflush (%0)" :: "r"(a) : "memory");
#else
	/* Data to the point of coherency, and the i-cache too: the line may
	 * hold code. */
	__asm__ __volatile__("dc civac, %0\n\tic ivau, %0" :: "r"(a)
			     : "memory");
#endif
}

int sbt_flush_init(struct sbt_flush *f, enum sbt_level level,
		   const struct sbt_cache_sizes *cs, enum sbt_mem_mode mode,
		   char *err, size_t errlen)
{
	memset(f, 0, sizeof *f);
	f->level = level;
	f->mem_mode = mode;
	if (level == SBT_L1 || (level == SBT_MEM && mode == SBT_MEM_CLFLUSH))
		return 0;
	size_t base = cs->size[level - 1];
	if (base == 0) {
		snprintf(err, errlen, "size of the L%d cache is unknown; give "
			 "it with --%s SIZE", level,
			 level == SBT_L2 ? "l1d" : level == SBT_L3 ? "l2"
							 : "l3");
		return -1;
	}
	f->bytes = 4 * base;
	f->buf = mmap(NULL, f->bytes, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (f->buf == MAP_FAILED) {
		f->buf = NULL;
		snprintf(err, errlen, "cannot map a %zu-byte flush buffer: %s",
			 f->bytes, strerror(errno));
		return -1;
	}
	f->buf_size = f->bytes;
	memset(f->buf, 1, f->bytes);           /* fault every page in now */
	return 0;
}

void sbt_flush_free(struct sbt_flush *f)
{
	if (f->buf)
		munmap(f->buf, f->buf_size);
	free(f->range);
	memset(f, 0, sizeof *f);
}

static void add_range(struct sbt_flush *f, uintptr_t lo, uintptr_t hi)
{
	if (f->nrange && f->range[f->nrange - 1].hi == lo) {
		f->range[f->nrange - 1].hi = hi;      /* merge neighbours */
	} else {
		if (f->nrange == f->range_cap) {
			size_t cap = f->range_cap ? 2 * f->range_cap : 256;
			void *p = realloc(f->range, cap * sizeof *f->range);
			if (!p)
				return;               /* flush less, not crash */
			f->range = p;
			f->range_cap = cap;
		}
		f->range[f->nrange].lo = lo;
		f->range[f->nrange].hi = hi;
		f->nrange++;
	}
	f->footprint += hi - lo;
}

/* Keep only resident pages: clflush of a page that is not mapped in
 * would fault it in (and the recorder's sparse log would balloon). */
static void add_resident(struct sbt_flush *f, uintptr_t lo, uintptr_t hi)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	size_t npages = (hi - lo) / pg;
	unsigned char vec[512];

	for (size_t i = 0; i < npages; i += sizeof vec) {
		size_t n = npages - i < sizeof vec ? npages - i : sizeof vec;
		if (mincore((void *)(lo + i * pg), n * pg, vec) != 0)
			return;
		for (size_t j = 0; j < n; j++)
			if (vec[j] & 1)
				add_range(f, lo + (i + j) * pg,
					  lo + (i + j + 1) * pg);
	}
}

void sbt_flush_refresh(struct sbt_flush *f)
{
	char line[512];
	FILE *m;

	if (f->level != SBT_MEM || f->mem_mode != SBT_MEM_CLFLUSH)
		return;
	f->nrange = 0;
	f->footprint = 0;
	if (!(m = fopen("/proc/self/maps", "re")))
		return;
	while (fgets(line, sizeof line, m)) {
		unsigned long lo, hi;
		char perm[8] = "";

		if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perm) != 3)
			continue;
		if (perm[0] != 'r' || hi - lo > SBT_FOOTPRINT_MAX ||
		    strstr(line, "[vvar") || strstr(line, "[vsyscall]"))
			continue;
		add_resident(f, lo, hi);
	}
	fclose(m);
}

void sbt_flush_run(struct sbt_flush *f)
{
	if (f->buf) {
		/* Read and write every line: dirty lines must be written
		 * back too, as they would be after real work. */
		volatile unsigned char *b = f->buf;
		for (size_t i = 0; i < f->bytes; i += 64)
			b[i] = (unsigned char)(b[i] + 1);
	} else if (f->nrange) {
		for (size_t r = 0; r < f->nrange; r++)
			for (uintptr_t a = f->range[r].lo; a < f->range[r].hi;
			     a += 64)
				evict_line(a);
	} else {
		return;
	}
	barrier();
}

size_t sbt_flush_bytes(const struct sbt_flush *f)
{
	return f->buf ? f->bytes : f->footprint;
}
