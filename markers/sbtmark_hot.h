/*
 * sbtmark_hot.h - the inline markers' fast path: the state a thread shares
 * with libsbtmark.so (struct sbt_hot), its version (SBT_HOT_ABI), and the
 * code that appends a pair with no call.  Part of sbtmark.h, which
 * includes it for the inline markers (SBT_MARKER without SBT_MARKER_CALL);
 * the recorder includes it after sbtmark.h's clock (its own, tsc.h).
 *
 * An ABI: a binary built against one version runs with a recorder of a
 * later one.  Fields are appended, never moved; each call that may hand a
 * thread's struct sbt_hot out says the version it was built against
 * (sbt_marker_start_hot), and the recorder gives an older binary only
 * what it knows (a binary older than sbt_marker_start_hot calls
 * sbt_marker_start_at, version 1, and takes the function path where the
 * clock needs a field it lacks).
 */
#ifndef SBTMARK_HOT_H
#define SBTMARK_HOT_H

#ifndef SBTMARK_H
#error "include sbtmark.h (sbtmark_hot.h is part of it)"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the inline fast path (ABI shared with libsbtmark.so) -------------- */
/*
 * Per thread, the recorder hands the marker code a pointer to a struct
 * sbt_hot: the first marker of a thread calls the recorder, which stores
 * the pointer into the caller's thread-local sbt__tls (each object
 * that includes this header has one; the recorder remembers where, to
 * clear it when the thread exits).  A call site keeps a struct sbt_csite
 * that the recorder fills once with the event word of (region, site).  A
 * marker takes the fast path when both are known and the thread is not
 * busy; anything else - first use, misuse, a signal handler interrupting
 * a marker, a full chunk, a due probe, cycle counting, CLOSE - goes to
 * the recorder's functions, which write the same events.  The event
 * layout is format/sbtlog.h's struct sbt_event; the recorder checks that
 * the two agree.
 */
#define SBT_HOT_DEPTH 64               /* open regions per thread         */

struct sbt__ev { uint64_t t; uint32_t word, aux; };   /* sbt_event      */

/* A call site's names: up to SBT_CSITE_WAYS (name, region) pairs, each
 * written once by the recorder, `tag` last (release), never changed. */
#define SBT_CSITE_WAYS 2

struct sbt_csite {
	struct {
		const char *tag;       /* the read-only name it answers for */
		uint32_t word;         /* START event word: kind|flags|site */
		uint32_t region;
	} way[SBT_CSITE_WAYS];
};

struct sbt__open {
	const char *tag;               /* START's name if read-only, else 0 */
	struct sbt__ev *ev;            /* its START event, 0 if dropped     */
	uint32_t word;                 /* its START event word              */
	uint32_t region;
};

/* Sparse recording of one site on a thread: `left` more calls are left
 * out, each counted in *count (a SKIP event's `t`, in the log).  Written
 * by the recorder when it records a call of a sampled site. */
#define SBT_HOT_SKIPS 32

struct sbt__skip {
	uint32_t site;                 /* site id, 0: empty slot            */
	uint32_t left;
	uint64_t *count;
};

struct sbt_hot {
	struct sbt__ev *cur;           /* the next event slot               */
	struct sbt__ev *end;           /* where the fast path stops: the
					  chunk's end, earlier when an
					  in-situ probe is due, NULL when
					  the recorder must see every marker
					  (cycle clock, CLOSE)              */
	uint32_t busy;                 /* the gate: SBT__OPEN, SBT__SHUT
					  while a marker runs on the
					  thread, SBT__SKIPPING while its
					  innermost open region is a call
					  not recorded (sparse recording);
					  whole-word stores only: the next
					  check loads it at once           */
	uint32_t depth;                /* open regions                      */
	struct sbt__open stack[SBT_HOT_DEPTH];
	/* Sparse recording (appended: older inline markers never see it).
	 * While skipped calls are open, end is NULL - only the skip paths
	 * below run inline - and end_saved holds what it is otherwise. */
	uint32_t nskip;                /* skipped calls on the stack        */
	uint32_t reserved;
	struct sbt__ev *end_saved;
	struct sbt__skip skip[SBT_HOT_SKIPS];
	/* The thread's clock (SBT_HOT_ABI 2; older markers never see it,
	 * and the recorder gives them the fast path only where TSC_AUX is
	 * true).  0: rdtscp, its TSC_AUX the cpu.  Else TSC_AUX is not the
	 * cpu, and this is the address of the thread's cpu word - the rseq
	 * area's cpu_id, or a word that says "unknown" - loaded outside the
	 * window, the clock read with lfence; rdtsc; lfence.  One word: one
	 * load and one test a marker, either way.  Bit 0 is never set: the
	 * version 2 header read it as "rdtscp, with the cpu word", a second
	 * test on every marker for machines that list RDTSCP and leave
	 * TSC_AUX stale, where the fenced read serves as well (version 3
	 * markers do not test it). */
	uintptr_t clock;
};

/* The version of the contract above that an object's inline markers were
 * built against, told to the recorder with each call that may hand out
 * the thread's struct sbt_hot (sbt_marker_start_hot).  Binaries of an
 * older header call sbt_marker_start_at: version 1, no `cpu`. */
#define SBT_HOT_ABI 3

#define SBT__START_WORD (1u << 28)     /* SBT_EV_START << 28              */
#define SBT__STOP_DELTA (1u << 28)     /* STOP word = START word + delta  */
/* The gate's states (the recorder's gate.h names them SBT_GATE_*). */
#define SBT__OPEN       0u             /* busy: no marker runs            */
#define SBT__SHUT       1u             /* busy: a marker runs             */
#define SBT__SKIPPING   2u             /* busy: no marker runs, and STOP
					  reads no clock (a skipped call
					  is innermost)                   */
#define SBT__SKIP_WORD  (5u << 28)     /* SBT_EV_SKIP << 28: a call site's
					  word from here on: sampled     */
#define SBT__AGAIN      1              /* sbt_marker_start_at: the gap is
					  drawn, run the skip path again */
#define SBT__FENCE() __atomic_signal_fence(__ATOMIC_SEQ_CST)

/* A marker runs between these: a marker that finds the thread busy is a
 * signal handler interrupting one, and leaves the work to the recorder. */
static inline __attribute__((always_inline)) int sbt__enter(struct sbt_hot *t)
{
	if (__builtin_expect(__atomic_load_n(&t->busy, __ATOMIC_RELAXED) !=
			     SBT__OPEN, 0))
		return 0;
	__atomic_store_n(&t->busy, SBT__SHUT, __ATOMIC_RELAXED);
	SBT__FENCE();
	return 1;
}

static inline __attribute__((always_inline)) void sbt__leave(struct sbt_hot *t)
{
	SBT__FENCE();
	__atomic_store_n(&t->busy, SBT__OPEN, __ATOMIC_RELAXED);
}

/* The fast path's end: CLOSE clears it from another thread (relaxed
 * atomics are plain moves; the recorder's CLOSE pays for the ordering). */
#define SBT__END(t) __atomic_load_n(&(t)->end, __ATOMIC_RELAXED)
#define SBT__BUSY(t) __atomic_load_n(&(t)->busy, __ATOMIC_RELAXED)

/* Commit event e: t and aux, then the word that makes it an event (a
 * reader, or a crash, never sees half of one).  Every writer of a
 * finished event ends so, the recorder's too. */
static inline __attribute__((always_inline)) void
sbt__commit(struct sbt__ev *e, uint64_t t, uint32_t aux, uint32_t word)
{
	e->t = t;
	e->aux = aux;
	SBT__FENCE();
	e->word = word;
}

#ifdef SBT_HAVE_CLOCK
/* The inline markers' clock reads, the thread's way (struct sbt_hot's
 * cpu).  START stores the cpu word into its event before its read, STOP
 * loads it after its read: neither inside the window.  The recorder's
 * entry points read their clock by the same code, from the same word. */
#if defined(__x86_64__)
/* The cpu word at clock c's address. */
#define SBT__CLOCK_CPU(c) (*(const volatile uint32_t *)(c))

/* Clock 0: rdtscp, its TSC_AUX the cpu.  In the recorder's own build
 * (its entry points run this code too) a thread's clock is 0 only where
 * its way is that (tsc.c's sbt_tsc_hot), so the bare instruction; an
 * app's header reads it as sbtmark.h's. */
#ifdef SBT_CLOCK_HOOK
#define SBT__AUX_START sbt_tscp_start
#define SBT__AUX_STOP  sbt_tscp_stop
#else
#define SBT__AUX_START sbt_read_start
#define SBT__AUX_STOP  sbt_read_stop
#endif

static inline __attribute__((always_inline)) uint64_t
sbt__start_clock(const struct sbt_hot *t, struct sbt__ev *e)
{
	uintptr_t c = t->clock;
	uint32_t aux;
	uint64_t t0;

	if (c) {
		e->aux = SBT__CLOCK_CPU(c);
		return sbt__tsc_fenced();
	}
	t0 = SBT__AUX_START(&aux);
	e->aux = aux;
	return t0;
}

static inline __attribute__((always_inline)) uint64_t
sbt__stop_clock(const struct sbt_hot *t, uint32_t *aux)
{
	uintptr_t c = t->clock;
	uint64_t t1;

	if (!c)
		return SBT__AUX_STOP(aux);
	t1 = sbt__tsc_fenced();
	*aux = SBT__CLOCK_CPU(c);
	return t1;
}
#else
static inline __attribute__((always_inline)) uint64_t
sbt__start_clock(const struct sbt_hot *t, struct sbt__ev *e)
{
	uint32_t aux;
	uint64_t t0 = sbt_read_start(&aux);

	(void)t;
	e->aux = aux;
	return t0;
}

static inline __attribute__((always_inline)) uint64_t
sbt__stop_clock(const struct sbt_hot *t, uint32_t *aux)
{
	(void)t;
	return sbt_read_stop(aux);
}
#endif

/* Push (tag, ev, word, region) at depth d, thread t's top.  Word and
 * region go as one store where they are one little-endian word, as
 * sbt__way loads them. */
static inline __attribute__((always_inline)) void
sbt__push(struct sbt_hot *t, uint32_t d, const char *tag, struct sbt__ev *ev,
	  uint32_t word, uint32_t region)
{
	t->stack[d].tag = tag;
	t->stack[d].ev = ev;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint64_t v = (uint64_t)region << 32 | word;
	__builtin_memcpy(&t->stack[d].word, &v, sizeof v);
#else
	t->stack[d].word = word;
	t->stack[d].region = region;
#endif
	t->depth = d + 1;
}

/* Open region (word, region) named `tag` (0: compare no name at STOP) on
 * thread t: its event claimed and pushed, its time still to be written
 * (sbt__start_fast: the clock read, last).  Returns the event, or 0,
 * having changed nothing, when the recorder must do it.  The event slot
 * is claimed before the thread stops being busy, so a signal handler
 * that marks in between appends behind it. */
static inline __attribute__((always_inline)) struct sbt__ev *
sbt__start_claim(struct sbt_hot *t, uint32_t word, uint32_t region,
		 const char *tag)
{
	uint32_t d;
	struct sbt__ev *e;

	if (!sbt__enter(t))
		return 0;
	d = t->depth;
	e = t->cur;
	if (__builtin_expect(e >= SBT__END(t), 0))
		goto refuse;
	/* Two pushes: an outermost START tests nothing more and writes its
	 * stack entry at fixed offsets. */
	if (d == 0) {
		sbt__push(t, 0, tag, e, word, region);
	} else {
		if (__builtin_expect(d >= SBT_HOT_DEPTH, 0))
			goto refuse;
		for (uint32_t i = 0; i < d; i++)
			if (__builtin_expect(t->stack[i].region == region, 0))
				goto refuse;
		sbt__push(t, d, tag, e, word, region);
	}
	t->cur = e + 1;
	e->word = word;
	sbt__leave(t);
	SBT__FENCE();
	return e;
refuse:
	sbt__leave(t);
	return 0;
}

static inline __attribute__((always_inline)) int
sbt__start_fast(struct sbt_hot *t, uint32_t word, uint32_t region,
		const char *tag)
{
	struct sbt__ev *e = sbt__start_claim(t, word, region, tag);

	if (!e)
		return 0;
	e->t = sbt__start_clock(t, e);
	return 1;
}

/* START of a sampled site (word: its SKIP word).  A call to be left out
 * is counted, and opened on the stack with no event and no clock read
 * (returns 2); the call that ends the gap is recorded as any (1).  0,
 * having changed nothing: the recorder must do it (draw the next gap, or
 * the thread is busy, or the slot holds another site). */
static inline __attribute__((always_inline)) int
sbt__skip_fast(struct sbt_hot *t, uint32_t word, uint32_t region,
	       const char *tag)
{
	uint32_t d, site = word & 0xffffffu;
	struct sbt__skip *k = &t->skip[site % SBT_HOT_SKIPS];

	if (!sbt__enter(t))
		return 0;
	d = t->depth;
	/* end_saved is NULL after CLOSE: the log is gone. */
	if (__builtin_expect(k->site != site || k->left == 0 ||
			     d >= SBT_HOT_DEPTH || !t->end_saved, 0))
		goto refuse;
	if (k->left == 1) {            /* this call is recorded             */
		sbt__leave(t);
		k->left = 0;
		if (sbt__start_fast(t, (word & 0xffffffu) | SBT__START_WORD,
				    region, tag))
			return 1;
		k->left = 1;
		return 0;
	}
	for (uint32_t i = 0; i < d; i++)
		if (__builtin_expect(t->stack[i].region == region, 0))
			goto refuse;
	k->left--;
	++*k->count;                   /* in the log: a crash keeps it      */
	sbt__push(t, d, tag, 0, word, region);
	if (t->nskip++ == 0)
		/* other markers: the recorder's */
		__atomic_store_n(&t->end, 0, __ATOMIC_RELAXED);
	SBT__FENCE();
	__atomic_store_n(&t->busy, SBT__SKIPPING, __ATOMIC_RELAXED);
	return 2;
refuse:
	sbt__leave(t);
	return 0;
}

/* STOP of the innermost region when it is a skipped call opened under
 * the same read-only `tag` or, `tag` NULL, of region `region` (the
 * recorder's STOP by id): no clock read, no event.  0: the recorder
 * must do it. */
static inline __attribute__((always_inline)) int
sbt__unskip_at(struct sbt_hot *t, const char *tag, uint32_t region)
{
	uint32_t d;

	if (SBT__BUSY(t) != SBT__SKIPPING)
		return 0;
	__atomic_store_n(&t->busy, SBT__SHUT, __ATOMIC_RELAXED);
	SBT__FENCE();
	d = t->depth;
	if (__builtin_expect(d == 0 || (tag ? t->stack[d - 1].tag != tag :
					t->stack[d - 1].region != region), 0)) {
		SBT__FENCE();
		__atomic_store_n(&t->busy, SBT__SKIPPING, __ATOMIC_RELAXED);
		return 0;
	}
	t->depth = --d;
	if (--t->nskip == 0)
		__atomic_store_n(&t->end, t->end_saved, __ATOMIC_RELAXED);
	SBT__FENCE();
	__atomic_store_n(&t->busy, d && t->stack[d - 1].word >=
			 SBT__SKIP_WORD ? SBT__SKIPPING : SBT__OPEN,
			 __ATOMIC_RELAXED);
	return 1;
}

/* The inline STOP's: by read-only name only. */
static inline __attribute__((always_inline)) int
sbt__unskip_fast(struct sbt_hot *t, const char *tag)
{
	return tag && sbt__unskip_at(t, tag, 0);
}

/* How far ahead of the STOP's event the log's line is asked for: 16
 * pairs, 8 lines.  A line of the log is new memory; a thread that marks
 * back to back would otherwise wait for each one (a miss to memory) at
 * its first store. */
#define SBT__AHEAD 32

/* Append the STOP of the innermost open region (depth d, the next event
 * e: both checked by the caller, gate held) and release the gate.  Every
 * STOP's fast path ends here: the inline one and the recorder's by id.
 * The prefetch comes after the clock read, outside any window. */
static inline __attribute__((always_inline)) void
sbt__stop_commit(struct sbt_hot *t, uint32_t d, struct sbt__ev *e,
		 uint64_t t1, uint32_t aux)
{
	sbt__commit(e, t1, aux, t->stack[d - 1].word + SBT__STOP_DELTA);
	__builtin_prefetch(e + SBT__AHEAD, 1);
	t->cur = e + 1;
	t->depth = d - 1;
	sbt__leave(t);
}

/* Close the innermost region if it was opened under the same read-only
 * `tag`, the clock already read.  0, having changed nothing: the recorder
 * must do it. */
static inline __attribute__((always_inline)) int
sbt__stop_fast(struct sbt_hot *t, const char *tag, uint64_t t1, uint32_t aux)
{
	uint32_t d;
	struct sbt__ev *e;

	if (!sbt__enter(t))
		return 0;
	d = t->depth;
	e = t->cur;
	if (__builtin_expect(d == 0 || e >= SBT__END(t) || !tag ||
			     t->stack[d - 1].tag != tag, 0)) {
		sbt__leave(t);
		return 0;
	}
	sbt__stop_commit(t, d, e, t1, aux);
	return 1;
}
#endif

/* The recorder's side of the inline markers: the same work as the fast
 * path, for whatever it refused.  START also hands out the thread's
 * struct sbt_hot through *hot (the first of the caller's struct
 * sbt__tls), and gives the call site its way: a sampled region's is its
 * SKIP word.  SBT__AGAIN: the recorder drew a sampled site's next gap,
 * skip or record inline. */
int sbt_marker_start_hot(const char *tag, struct sbt_csite *cs,
			 struct sbt_hot **hot, unsigned abi)
	__attribute__((weak));
int sbt_marker_start_at(const char *tag, struct sbt_csite *cs,
			struct sbt_hot **hot) __attribute__((weak));
int sbt_marker_stop_at(const char *tag, uint64_t t1, uint32_t aux)
	__attribute__((weak));


#if defined(SBT_MARKER) && !defined(SBT_MARKER_CALL)
#ifndef SBT_HAVE_CLOCK
#error "inline sbtmark markers need x86-64 or Armv8; define SBT_MARKER_CALL"
#endif

/* Per object and thread: the recorder's state for the inline markers.
 * While the innermost open region is a call this object's markers
 * skipped, `hot` is NULL - so STOP's one test before its clock read sends
 * it to the skip path - and `skip` holds the state.  The recorder clears
 * both when the thread exits. */
struct sbt__tls { struct sbt_hot *hot, *skip; };
__thread struct sbt__tls sbt__tls
	__attribute__((weak, tls_model("initial-exec")));

/* Call a sampled site's START (word: its SKIP word) on thread t;
 * nonzero when done here. */
static inline __attribute__((always_inline)) int
sbt__sampled(struct sbt_hot *t, uint32_t word, uint32_t region,
	     const char *tag)
{
	int r = sbt__skip_fast(t, word, region, tag);

	if (r == 2) {                  /* skipped: STOP goes off the clock  */
		sbt__tls.skip = t;
		sbt__tls.hot = 0;
	}
	return r;
}

/* After the recorder drew a sampled site's next gap (cold): skip or
 * record inline, as the recorder made sure we can.  The fallback - a
 * signal handler's markers changed the thread meanwhile - is the plain
 * entry point: a call of the region all the same (the site is told by
 * the return address, and a second call here would be another one). */
static __attribute__((noinline, unused)) void
sbt__again(const char *tag, struct sbt_csite *cs)
{
	struct sbt_hot *t = sbt__tls.hot;
	int w = __atomic_load_n(&cs->way[0].tag, __ATOMIC_ACQUIRE) == tag ? 0 :
		__atomic_load_n(&cs->way[1].tag, __ATOMIC_ACQUIRE) == tag ? 1 :
		-1;

	if ((w < 0 || !t || cs->way[w].word < SBT__SKIP_WORD ||
	     !sbt__sampled(t, cs->way[w].word, cs->way[w].region, tag)) &&
	    sbt_marker_start)
		(void)sbt_marker_start(tag);
}

/* Way i's word and region, its tag already matched: one load where the
 * two are one little-endian word (the compiler would otherwise move them
 * through a vector register, four instructions for two loads). */
static inline __attribute__((always_inline)) void
sbt__way(const struct sbt_csite *cs, int i, uint32_t *word, uint32_t *region)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint64_t v;

	__builtin_memcpy(&v, &cs->way[i].word, sizeof v);
	*word = (uint32_t)v;
	*region = (uint32_t)(v >> 32);
#else
	*word = cs->way[i].word;
	*region = cs->way[i].region;
#endif
}

static inline __attribute__((always_inline)) void
sbt__start(const char *tag, struct sbt_csite *cs)
{
	struct sbt_hot *t = sbt__tls.hot;

	/* Branches, not an index: the way's word and region are loaded
	 * without waiting for the tag compares.  A sampled site's word is
	 * a SKIP word; its path loads the region again, so that the usual
	 * START computes it only where it is compared (a nested START). */
	if (__builtin_expect(t != 0 && tag != 0, 1)) {
		uint32_t w, r;
		if (__builtin_expect(__atomic_load_n(&cs->way[0].tag,
				     __ATOMIC_ACQUIRE) == tag, 1)) {
			sbt__way(cs, 0, &w, &r);
			if (__builtin_expect(w < SBT__SKIP_WORD, 1) ?
			    sbt__start_fast(t, w, r, tag) :
			    sbt__sampled(t, w, cs->way[0].region, tag))
				return;
		} else if (__atomic_load_n(&cs->way[1].tag,
					   __ATOMIC_ACQUIRE) == tag) {
			sbt__way(cs, 1, &w, &r);
			if (w < SBT__SKIP_WORD ? sbt__start_fast(t, w, r, tag) :
			    sbt__sampled(t, w, cs->way[1].region, tag))
				return;
		}
	}
	/* The recorder drew the next gap: skip or record here.  A recorder
	 * older than this header has its function path only. */
	if (sbt_marker_start_hot) {
		if (sbt_marker_start_hot(tag, cs, &sbt__tls.hot,
					 SBT_HOT_ABI) == SBT__AGAIN)
			sbt__again(tag, cs);
	} else if (sbt_marker_start) {
		(void)sbt_marker_start(tag);
	}
}

static inline __attribute__((always_inline)) void sbt__stop(const char *tag)
{
	struct sbt_hot *t = sbt__tls.hot;

	if (__builtin_expect(t != 0, 1)) {
		uint32_t aux;
		uint64_t t1 = sbt__stop_clock(t, &aux);
		if (!sbt__stop_fast(t, tag, t1, aux))
			(void)sbt_marker_stop_at(tag, t1, aux);
	} else if ((t = sbt__tls.skip) != 0 && sbt__unskip_fast(t, tag)) {
		/* back on the clock unless a skipped call is innermost */
		if (SBT__BUSY(t) != SBT__SKIPPING) {
			sbt__tls.hot = t;
			sbt__tls.skip = 0;
		}
	} else if (sbt_marker_stop) {
		(void)sbt_marker_stop(tag);
	}
}

#define SBT__START(tag) do {                                               \
		static struct sbt_csite sbt__cs;                           \
		sbt__start((tag), &sbt__cs);                               \
	} while (0)
#define SBT__STOP(tag) sbt__stop(tag)
#endif

#ifdef __cplusplus
}
#endif
#endif /* SBTMARK_HOT_H */
