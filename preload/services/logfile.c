/*
 * logfile.c - create the log safely, hand out chunks, finish it.
 *
 * Naming.  The log is first created as a private temporary file (O_EXCL,
 * O_NOFOLLOW) next to its final name and then linked into place with
 * link(2), which never replaces an existing name.  If the name is taken
 * - by an earlier run's log, a live process's, a fork child's parent's,
 * an exec predecessor's or a file we did not write - we write the
 * numbered sibling NAME.<pid>[.N] instead and say so once: no run's
 * results are ever replaced behind the user's back, and two processes
 * never share one file, whatever the pattern.
 */
#include "logfile.h"
#include "diag.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define FIRST_GROW  (1u << 20)          /* first allocation step        */
#define MAX_GROW    (64u << 20)         /* steps double up to this      */
#define PREP_MIN    (1u << 20)          /* prepared ahead at least ...  */
#define PREP_MAX    (32u << 20)         /* ... and at most              */
#define PREP_PIECE  (1u << 20)          /* populated per step           */

struct sbt_logfile {
	int fd;
	char *base;                     /* mapping of the whole reserve  */
	size_t reserve;
	_Atomic uint64_t next;          /* next free offset              */
	_Atomic uint64_t size;          /* bytes allocated on disk       */
	uint64_t step;                  /* next growth step              */
	/* [.., ready) is allocated and its pages are in the page cache and
	 * mapped writable (sbt_log_prepare, one thread only writes it). */
	_Atomic uint64_t ready;
	_Atomic uint64_t late;          /* chunk bytes populated by their
					   taker (ready was below them)  */
	void (*on_low)(void);           /* ready is running out          */
	_Atomic int finished;           /* set under grow_lock           */
	pthread_mutex_t grow_lock;
	char path[PATH_MAX];
};

static void populate(struct sbt_logfile *lf, uint64_t from, uint64_t to,
		     int taker);

int sbt_log_expand(const char *pattern, char *out, size_t outlen)
{
	size_t o = 0;
	char tmp[256];

	for (const char *p = pattern; *p; p++) {
		const char *add = tmp;

		if (*p != '%' || !p[1]) {
			tmp[0] = *p, tmp[1] = 0;
		} else {
			switch (*++p) {
			case 'p':
				snprintf(tmp, sizeof tmp, "%d", (int)getpid());
				break;
			case 'r': {
				int rank, n;
				const char *r = sbt_env_rank(&rank, &n);
				snprintf(tmp, sizeof tmp, "%s", r ? r : "0");
				break;
			}
			case 'h':
				if (gethostname(tmp, sizeof tmp) != 0)
					strcpy(tmp, "localhost");
				tmp[sizeof tmp - 1] = 0;
				break;
			case '%':
				strcpy(tmp, "%");
				break;
			default:        /* unknown: keep it literally */
				tmp[0] = '%', tmp[1] = *p, tmp[2] = 0;
			}
		}
		size_t n = strlen(add);
		if (o + n >= outlen)
			return -1;
		memcpy(out + o, add, n);
		o += n;
	}
	out[o] = 0;
	return o ? 0 : -1;
}

/* "dir/region.log" -> "dir/region.<pid>.log" (then .<pid>.<n>.log). */
static void alt_name(const char *path, int n, char *out, size_t outlen)
{
	const char *slash = strrchr(path, '/');
	const char *dot = strrchr(path, '.');
	int stem;

	if (!dot || (slash && dot < slash) || dot == path ||
	    (slash && dot == slash + 1))
		dot = path + strlen(path);
	stem = (int)(dot - path);
	if (n == 0)
		snprintf(out, outlen, "%.*s.%d%s", stem, path, (int)getpid(),
			 dot);
	else
		snprintf(out, outlen, "%.*s.%d.%d%s", stem, path,
			 (int)getpid(), n, dot);
}

/* Put the temporary file `tmp` in place at `want` or an alternative. */
static int place(const char *tmp, const char *want, char *got, size_t len)
{
	char alt[PATH_MAX];

	if (link(tmp, want) == 0) {
		snprintf(got, len, "%s", want);
		return 0;
	}
	for (int n = 0; n < 100; n++) {
		alt_name(want, n, alt, sizeof alt);
		if (link(tmp, alt) == 0) {
			snprintf(got, len, "%s", alt);
			sbt_warn("%s exists (an earlier run's log, or "
				 "another process's); this process (pid %d) "
				 "writes %s", want, (int)getpid(), alt);
			return 0;
		}
		if (errno != EEXIST)
			break;
	}
	return -1;
}

/* Grow the allocated part of the file to at least `need` bytes. */
static int grow(struct sbt_logfile *lf, uint64_t need)
{
	int ok;

	pthread_mutex_lock(&lf->grow_lock);
	while (!atomic_load(&lf->finished) && atomic_load(&lf->size) < need) {
		uint64_t sz = atomic_load(&lf->size);
		uint64_t step = lf->step;

		if (sz + step > lf->reserve)
			step = lf->reserve - sz;
		if (step == 0 ||
		    posix_fallocate(lf->fd, (off_t)sz, (off_t)step) != 0)
			break;
		atomic_store_explicit(&lf->size, sz + step,
				      memory_order_release);
		if (lf->step < MAX_GROW)
			lf->step *= 2;
	}
	ok = atomic_load(&lf->size) >= need;
	pthread_mutex_unlock(&lf->grow_lock);
	return ok ? 0 : -1;
}

struct sbt_logfile *sbt_log_create(const char *pattern, size_t reserve)
{
	struct sbt_logfile *lf;
	char want[PATH_MAX], tmp[PATH_MAX + 32];
	int fd, placed;

	if (sbt_log_expand(pattern, want, sizeof want) != 0) {
		sbt_warn("SBT_OUTPUT '%s' is empty or too long", pattern);
		return NULL;
	}
	snprintf(tmp, sizeof tmp, "%s.tmp.%d", want, (int)getpid());
	fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		  0666);
	if (fd < 0) {
		/* name the folder: that is what the user must fix */
		int e = errno;
		const char *slash = strrchr(want, '/');
		sbt_warn("cannot create the log %s in %.*s: %s", want,
			 slash ? (int)(slash - want) + (slash == want) : 1,
			 slash ? want : ".", strerror(e));
		return NULL;
	}
	lf = mmap(NULL, sizeof *lf, PROT_READ | PROT_WRITE,
		  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (lf == MAP_FAILED)
		goto fail_fd;
	memset(lf, 0, sizeof *lf);
	lf->fd = fd;
	lf->step = FIRST_GROW;
	pthread_mutex_init(&lf->grow_lock, NULL);

	/* Reserve address space; shrink the request where the address space
	 * is small (qemu-user, 32-bit-ish limits, ulimit -v). */
	for (lf->reserve = reserve; lf->reserve >= FIRST_GROW;
	     lf->reserve /= 2) {
		lf->base = mmap(NULL, lf->reserve, PROT_READ | PROT_WRITE,
				MAP_SHARED | MAP_NORESERVE, fd, 0);
		if (lf->base != MAP_FAILED)
			break;
	}
	if (lf->base == MAP_FAILED || lf->reserve < FIRST_GROW) {
		sbt_warn("cannot map the log: %s", strerror(errno));
		goto fail_lf;
	}
	atomic_store(&lf->next, SBT_HEADER_SIZE);
	atomic_store(&lf->ready, SBT_HEADER_SIZE);
	if (grow(lf, FIRST_GROW) != 0) {
		sbt_warn("cannot allocate the log: %s", strerror(errno));
		goto fail_map;
	}
	/* The preparer's first lookahead, readied as part of opening: the
	 * first chunks of every thread are taken before it can run. */
	populate(lf, 0, FIRST_GROW, 1);      /* alone: as a taker */
	atomic_store(&lf->ready, FIRST_GROW);
	memcpy(lf->base, SBT_LOG_MAGIC, 8);
	placed = place(tmp, want, lf->path, sizeof lf->path);
	if (placed < 0) {
		sbt_warn("cannot place the log at %s: %s", want,
			     strerror(errno));
		goto fail_map;
	}
	if (placed == 0)
		unlink(tmp);
	return lf;

fail_map:
	munmap(lf->base, lf->reserve);
fail_lf:
	munmap(lf, sizeof *lf);
fail_fd:
	close(fd);
	unlink(tmp);
	return NULL;
}

struct sbt_file_header *sbt_log_header(struct sbt_logfile *lf)
{
	return (struct sbt_file_header *)lf->base;
}

const char *sbt_log_path(struct sbt_logfile *lf)
{
	return lf->path;
}

/* How far ahead of `next` the preparer keeps pages ready: as much as the
 * log holds so far, within [PREP_MIN, PREP_MAX] - a short run prepares
 * little that it never uses, a long one keeps ahead of several threads
 * taking 1 MiB chunks at once. */
static uint64_t prep_ahead(uint64_t next)
{
	uint64_t a = next - SBT_HEADER_SIZE;

	return a < PREP_MIN ? PREP_MIN : a > PREP_MAX ? PREP_MAX : a;
}

/* One byte of the page at p read through the mapping.  Unsanitized: the
 * page may be a taker's already and written meanwhile - a touch of the
 * page whose value is dropped, not a use of its data. */
__attribute__((no_sanitize("thread")))
static void touch(const char *p)
{
	(void)*(volatile const char *)p;
}

/* Ready log bytes [from, to) for writing, in one call rather than one
 * fault per page later inside somebody's timed region: the pages mapped
 * writable (MADV_POPULATE_WRITE), then each read once through the
 * mapping.  The read is not redundant: on a guest whose host keeps its
 * own copy of the page table (shadow paging), the host learns of a page
 * only at the first access through the process's mapping - a trap of
 * ~9 us, a marker's in-window cost where a prefetch cannot help (a
 * prefetch never walks for it).  A taker readies its own chunk, which
 * lies below any finished log's end; the preparer reads each page under
 * grow_lock, not once the log is finished (its end truncated: SIGBUS),
 * and holds the lock a page at a time, so that a taker growing the file
 * never waits long behind a preparer the scheduler put aside.  Beyond a
 * finished log's end the madvise fails harmlessly (EFAULT, no signal)
 * and nothing is read. */
static void populate(struct sbt_logfile *lf, uint64_t from, uint64_t to,
		     int taker)
{
#ifdef MADV_POPULATE_WRITE
	uint64_t a = from & ~(uint64_t)4095;

	if (from >= to ||
	    madvise(lf->base + a, to - a, MADV_POPULATE_WRITE) != 0)
		return;
	for (a = from; a < to; a = (a + 4096) & ~(uint64_t)4095) {
		int gone = 0;
		if (taker) {
			touch(lf->base + a);
			continue;
		}
		pthread_mutex_lock(&lf->grow_lock);
		if (!(gone = atomic_load(&lf->finished)))
			touch(lf->base + a);
		pthread_mutex_unlock(&lf->grow_lock);
		if (gone)
			return;
	}
#else
	(void)lf, (void)from, (void)to, (void)taker;
#endif
}

void sbt_log_on_low(struct sbt_logfile *lf, void (*fn)(void))
{
	lf->on_low = fn;
}

int sbt_log_prepare(struct sbt_logfile *lf)
{
	uint64_t next = atomic_load(&lf->next);
	uint64_t ready = atomic_load(&lf->ready);
	uint64_t want = next + prep_ahead(next), to;

	if (ready < next)               /* takers went past: start there */
		ready = next;
	if (want > lf->reserve)
		want = lf->reserve;
	if (atomic_load(&lf->finished) || ready >= want)
		return 0;
	to = ready + PREP_PIECE < want ? ready + PREP_PIECE : want;
	if (to > atomic_load_explicit(&lf->size, memory_order_acquire) &&
	    grow(lf, to) != 0)
		return 0;               /* disk full or finished: takers
					   find out themselves */
	/* Takers that went past `ready` since: their chunks are theirs. */
	next = atomic_load(&lf->next);
	populate(lf, ready > next ? ready : next, to, 0);
	atomic_store_explicit(&lf->ready, to, memory_order_release);
	return 1;
}

uint64_t sbt_log_late(struct sbt_logfile *lf)
{
	return atomic_load_explicit(&lf->late, memory_order_relaxed);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A taker waited for log memory from w0 on, `bytes` of it populated by
 * itself: into the header, where the user sees it. */
static void waited(struct sbt_logfile *lf, uint64_t w0, uint64_t bytes)
{
	struct sbt_file_header *h = sbt_log_header(lf);

	atomic_fetch_add_explicit(&lf->late, bytes, memory_order_relaxed);
	__atomic_fetch_add(&h->log_wait_ns, now_ns() - w0, __ATOMIC_RELAXED);
	__atomic_fetch_add(&h->log_late_bytes, bytes, __ATOMIC_RELAXED);
}

struct sbt_chunk *sbt_log_chunk(struct sbt_logfile *lf, uint32_t type,
				size_t size, uint32_t thread, int32_t tid)
{
	uint64_t off = atomic_fetch_add(&lf->next, size);
	uint64_t ready, w0 = 0, late = 0;
	struct sbt_chunk *c;

	if (off + size > atomic_load_explicit(&lf->size, memory_order_acquire)) {
		w0 = now_ns();
		if (grow(lf, off + size) != 0) {
			/* The range stays a hole of zeros; readers skip it. */
			return NULL;
		}
	}
	c = (struct sbt_chunk *)(lf->base + off);
	/* What the preparer has not readied, the taker does. */
	ready = atomic_load_explicit(&lf->ready, memory_order_acquire);
	if (ready < off + size) {
		late = off + size - (ready > off ? ready : off);
		if (!w0)
			w0 = now_ns();
		populate(lf, ready > off ? ready : off, off + size, 1);
	}
	if (w0)
		waited(lf, w0, late);
	if (lf->on_low && ready < off + size + prep_ahead(off + size) / 2)
		lf->on_low();
	c->type = type;
	c->size = size;
	c->used = 0;
	c->thread = thread;
	c->tid = tid;
	/* The magic goes last: a reader that sees it sees a valid header. */
	atomic_store_explicit((_Atomic uint32_t *)&c->magic, SBT_CHUNK_MAGIC,
			      memory_order_release);
	atomic_store_explicit((_Atomic uint64_t *)
			      &sbt_log_header(lf)->end_offset,
			      atomic_load(&lf->next), memory_order_relaxed);
	return c;
}

void sbt_log_finish(struct sbt_logfile *lf)
{
	struct sbt_file_header *h = sbt_log_header(lf);
	uint64_t end;

	pthread_mutex_lock(&lf->grow_lock);
	if (!atomic_load(&lf->finished)) {
		atomic_store(&lf->finished, 1);
		/* No chunk can be handed out past `end` any more (grow fails),
		 * and every chunk handed out lies below it, so truncating
		 * cannot pull a page from under a writer. */
		end = atomic_load(&lf->next);
		if (end > atomic_load(&lf->size))
			end = atomic_load(&lf->size);
		atomic_store_explicit((_Atomic uint64_t *)&h->end_offset, end,
				      memory_order_relaxed);
		atomic_fetch_or((_Atomic uint32_t *)&h->flags, SBT_HF_CLOSED);
		if (ftruncate(lf->fd, (off_t)end) == 0)
			atomic_store(&lf->size, end);
	}
	pthread_mutex_unlock(&lf->grow_lock);
}

void sbt_log_abandon(struct sbt_logfile *lf)
{
	munmap(lf->base, lf->reserve);
	close(lf->fd);
	munmap(lf, sizeof *lf);
}
