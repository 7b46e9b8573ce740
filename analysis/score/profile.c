/*
 * profile.c - read and write calibration profiles (format in profile.h).
 *
 * The parser is strict on purpose: a profile decides whether a region is
 * called "resolvable", so a damaged file must be refused loudly, never
 * half-read.  Doubles are written in the shortest form that reads back
 * to the same value, so write -> read is exact.
 */
#include "profile.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define LINE_MAX_LEN 1024

struct ctx {
	const char *name;
	unsigned line;
	char *err;
	size_t errlen;
};

static int fail(struct ctx *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int fail(struct ctx *c, const char *fmt, ...)
{
	va_list ap;
	int n = 0;

	if (c->errlen == 0)
		return -1;
	if (c->line)
		n = snprintf(c->err, c->errlen, "%s:%u: ", c->name, c->line);
	else
		n = snprintf(c->err, c->errlen, "%s: ", c->name);
	if (n < 0 || (size_t)n >= c->errlen)
		return -1;
	va_start(ap, fmt);
	vsnprintf(c->err + n, c->errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}

/* ---- value parsers: each consumes the whole string or fails ------------ */

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	if (strcmp(s, "-") == 0) {
		*v = 0;
		return 0;
	}
	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	unsigned long long x = strtoull(s, &end, 10);
	if (errno || *end)
		return -1;
	*v = x;
	return 0;
}

static int parse_f64(const char *s, double *v)
{
	char *end;

	if (strcmp(s, "-") == 0) {
		*v = NAN;
		return 0;
	}
	errno = 0;
	*v = strtod(s, &end);
	if (errno || *end || end == s || !isfinite(*v))
		return -1;
	return 0;
}

/* A word: 1+ characters from [A-Za-z0-9_.:+-], fits in cap bytes. */
static int is_word(const char *s, size_t cap)
{
	size_t n = strlen(s);

	if (n == 0 || n >= cap)
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || strchr("_.:+-", *s)))
			return 0;
	return 1;
}

static int copy_word(struct ctx *c, char *dst, size_t cap, const char *s,
		     const char *what)
{
	if (!is_word(s, cap))
		return fail(c, "bad %s '%s'", what, s);
	strcpy(dst, s);
	return 0;
}

static int copy_rest(struct ctx *c, char *dst, size_t cap, const char *s,
		     const char *what)
{
	if (strlen(s) >= cap)
		return fail(c, "%s too long", what);
	strcpy(dst, s);
	return 0;
}

static int one_of(const char *s, const char *const *set)
{
	for (; *set; set++)
		if (strcmp(s, *set) == 0)
			return 1;
	return 0;
}

static const char *const levels[] = { "l1", "l2", "l3", "mem", NULL };
static const char *const clocks[] = { "wall", "cycles", NULL };
static const char *const states[] = { "ok", "nc", "skip", NULL };

/* ---- result lines --------------------------------------------------- */

/* Take the next "key=" token from *s; returns its value (NUL-terminated
 * in place) or NULL when the next token is not `key`. */
static char *take(char **s, const char *key)
{
	size_t k = strlen(key);
	char *v, *sp;

	if (strncmp(*s, key, k) != 0 || (*s)[k] != '=')
		return NULL;
	v = *s + k + 1;
	if (strcmp(key, "note") == 0) {       /* the rest of the line */
		*s = v + strlen(v);
		return v;
	}
	sp = strchr(v, ' ');
	if (sp) {
		*sp = '\0';
		*s = sp + 1;
	} else {
		*s = v + strlen(v);
	}
	return v;
}

static int parse_result(struct ctx *c, char *s, struct sbt_profile *p)
{
	struct sbt_profile_entry *e;
	char *v;

	if (p->nentries == SBT_PROFILE_MAX)
		return fail(c, "more than %d results", SBT_PROFILE_MAX);
	e = &p->e[p->nentries];
	memset(e, 0, sizeof *e);

#define FIELD(key) \
	if (!(v = take(&s, key))) \
		return fail(c, "result: expected %s= at '%.20s'", key, s)
#define U64(key, dst) FIELD(key); \
	if (parse_u64(v, &(dst))) \
		return fail(c, "result: bad %s '%s'", key, v)
#define F64(key, dst) FIELD(key); \
	if (parse_f64(v, &(dst))) \
		return fail(c, "result: bad %s '%s'", key, v)

	FIELD("level");
	if (!one_of(v, levels))
		return fail(c, "result: unknown level '%s'", v);
	strcpy(e->level, v);
	FIELD("clock");
	if (!one_of(v, clocks))
		return fail(c, "result: unknown clock '%s'", v);
	strcpy(e->clock, v);
	FIELD("method");
	if (copy_word(c, e->method, sizeof e->method, v, "method"))
		return -1;
	FIELD("status");
	if (!one_of(v, states))
		return fail(c, "result: unknown status '%s'", v);
	strcpy(e->status, v);
	U64("t_min_adds", e->t_min_adds);
	F64("t_min_ns", e->t_min_ns);
	U64("t_diff_adds", e->t_diff_adds);
	F64("t_diff_ns", e->t_diff_ns);
	F64("te_std_ns", e->te_std_ns);
	F64("model_t_min_ns", e->model_t_min_ns);
	F64("model_t_diff_ns", e->model_t_diff_ns);
	U64("flush", e->flush_bytes);
#undef FIELD
#undef U64
#undef F64
	if (*s) {
		if (!(v = take(&s, "note")))
			return fail(c, "result: unexpected '%.20s'", s);
		if (copy_rest(c, e->note, sizeof e->note, v, "note"))
			return -1;
	}
	if (sbt_profile_find(p, e->level, e->clock, e->method))
		return fail(c, "duplicate result for %s/%s/%s", e->level,
			    e->clock, e->method);
	p->nentries++;
	return 0;
}

/* ---- metadata ------------------------------------------------------- */

static int parse_params(struct ctx *c, char *s, struct sbt_profile *p)
{
	uint64_t n, pp, q;
	char *v;

	if (!(v = take(&s, "eps")) || parse_f64(v, &p->eps) ||
	    !(p->eps > 0 && p->eps < 1))
		return fail(c, "params: bad or missing eps");
	if (!(v = take(&s, "n")) || parse_u64(v, &n) || !n || n > 1u << 30)
		return fail(c, "params: bad or missing n");
	if (!(v = take(&s, "p")) || parse_u64(v, &pp) || pp > 1u << 30)
		return fail(c, "params: bad or missing p");
	if (!(v = take(&s, "alpha")) || parse_f64(v, &p->alpha) ||
	    !(p->alpha >= 0 && p->alpha < 1))
		return fail(c, "params: bad or missing alpha");
	if (!(v = take(&s, "q")) || parse_u64(v, &q) || !q || q > 1u << 30)
		return fail(c, "params: bad or missing q");
	if (!(v = take(&s, "mem")) || !is_word(v, sizeof p->mem_mode) || *s)
		return fail(c, "params: bad or missing mem");
	strcpy(p->mem_mode, v);
	p->n = (unsigned)n;
	p->p = (unsigned)pp;
	p->q = (unsigned)q;
	return 0;
}

enum { M_HOST, M_CPU, M_ARCH, M_CREATED, M_HZ, M_QUANTUM, M_SOURCE,
       M_CYCLES, M_NSADD, M_PARAMS, M__N };
static const char *const meta_keys[M__N] = {
	"host", "cpu", "arch", "created", "tick_hz", "tick_quantum",
	"tick_source", "cycles", "ns_per_add", "params" };

static int parse_meta(struct ctx *c, int k, char *v, struct sbt_profile *p)
{
	uint64_t u;

	switch (k) {
	case M_HOST:
		return copy_word(c, p->host, sizeof p->host, v, "host");
	case M_CPU:
		return copy_rest(c, p->cpu, sizeof p->cpu, v, "cpu");
	case M_ARCH:
		if (strcmp(v, "x86_64") && strcmp(v, "aarch64"))
			return fail(c, "unknown arch '%s'", v);
		strcpy(p->arch, v);
		return 0;
	case M_CREATED:
		if (parse_u64(v, &u) || u > INT64_MAX)
			return fail(c, "bad created '%s'", v);
		p->created = (int64_t)u;
		return 0;
	case M_HZ:
		if (parse_u64(v, &p->tick_hz) || !p->tick_hz)
			return fail(c, "bad tick_hz '%s'", v);
		return 0;
	case M_QUANTUM:
		if (parse_u64(v, &u) || u > UINT32_MAX)
			return fail(c, "bad tick_quantum '%s'", v);
		p->tick_quantum = (uint32_t)u;
		return 0;
	case M_SOURCE:
		return copy_word(c, p->tick_source, sizeof p->tick_source, v,
				 "tick_source");
	case M_CYCLES:
		return copy_rest(c, p->cycles, sizeof p->cycles, v, "cycles");
	case M_NSADD:
		if (parse_f64(v, &p->ns_per_add) || !(p->ns_per_add > 0))
			return fail(c, "bad ns_per_add '%s'", v);
		return 0;
	default:
		return parse_params(c, v, p);
	}
}

int sbt_profile_parse(FILE *f, const char *name, struct sbt_profile *p,
		      char *err, size_t errlen)
{
	struct ctx c = { name, 0, err, errlen };
	char buf[LINE_MAX_LEN + 2];
	int seen[M__N] = { 0 }, ended = 0;

	memset(p, 0, sizeof *p);
	while (fgets(buf, sizeof buf, f)) {
		size_t n = strlen(buf);
		char *key = buf, *val;

		c.line++;
		if (n && buf[n - 1] == '\n')
			buf[--n] = '\0';
		else if (!feof(f))
			return fail(&c, "line longer than %d bytes or "
				    "holding a NUL byte", LINE_MAX_LEN);
		if (strchr(buf, '\r') || strchr(buf, '\t'))
			return fail(&c, "control character in line");
		if (c.line == 1) {
			if (strncmp(buf, "sbtmark-profile ", 16) != 0)
				return fail(&c, "not an sbtmark profile "
					    "(first line must be "
					    "'sbtmark-profile %d')",
					    SBT_PROFILE_VERSION);
			if (strcmp(buf + 16, "1") != 0)
				return fail(&c, "unsupported profile version "
					    "'%s' (this build reads %d)",
					    buf + 16, SBT_PROFILE_VERSION);
			p->version = SBT_PROFILE_VERSION;
			continue;
		}
		if (buf[0] == '#' || n == 0)
			continue;
		if (ended)
			return fail(&c, "text after 'end'");
		if (strcmp(buf, "end") == 0) {
			ended = 1;
			continue;
		}
		val = strchr(buf, ' ');
		if (val)
			*val++ = '\0';
		else
			val = buf + n;
		if (strcmp(key, "result") == 0) {
			if (parse_result(&c, val, p))
				return -1;
			continue;
		}
		for (int k = 0; k < M__N; k++) {
			if (strcmp(key, meta_keys[k]) != 0)
				continue;
			if (seen[k]++)
				return fail(&c, "duplicate '%s'", key);
			if (parse_meta(&c, k, val, p))
				return -1;
		}
	}
	if (ferror(f))
		return fail(&c, "read error");
	c.line = 0;
	if (p->version == 0)
		return fail(&c, "empty file, not an sbtmark profile");
	for (int k = 0; k < M__N; k++)
		if (!seen[k])
			return fail(&c, "missing '%s' line", meta_keys[k]);
	if (!ended)
		return fail(&c, "no 'end' line: file truncated?");
	return 0;
}

int sbt_profile_read(const char *path, struct sbt_profile *p, char *err,
		     size_t errlen)
{
	FILE *f = fopen(path, "re");
	int r;

	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	r = sbt_profile_parse(f, path, p, err, errlen);
	fclose(f);
	return r;
}

/* ---- writing ---------------------------------------------------------- */

/* Shortest %.Ng that reads back to exactly v; "-" for NAN. */
static const char *fmt_f64(char *buf, size_t cap, double v)
{
	if (isnan(v))
		return "-";
	for (int prec = 6; prec <= 17; prec++) {
		snprintf(buf, cap, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	return buf;
}

static int valid(const struct sbt_profile *p, char *err, size_t errlen)
{
	const char *bad = NULL;

	if (!is_word(p->host, sizeof p->host))
		bad = "host";
	else if (!is_word(p->arch, sizeof p->arch))
		bad = "arch";
	else if (!is_word(p->tick_source, sizeof p->tick_source))
		bad = "tick_source";
	else if (!is_word(p->mem_mode, sizeof p->mem_mode))
		bad = "mem_mode";
	else if (strchr(p->cpu, '\n') || strchr(p->cycles, '\n'))
		bad = "cpu/cycles";
	for (size_t i = 0; !bad && i < p->nentries; i++)
		if (!is_word(p->e[i].method, sizeof p->e[i].method) ||
		    !one_of(p->e[i].level, levels) ||
		    !one_of(p->e[i].clock, clocks) ||
		    !one_of(p->e[i].status, states) ||
		    strchr(p->e[i].note, '\n'))
			bad = "result";
	if (bad)
		snprintf(err, errlen, "profile field '%s' cannot be written",
			 bad);
	return bad == NULL;
}

int sbt_profile_print(FILE *f, const struct sbt_profile *p)
{
	char b[7][32];

	fprintf(f, "sbtmark-profile %d\n", SBT_PROFILE_VERSION);
	fprintf(f, "# written by sbt-calibrate; format: analysis/score/profile.h\n");
	fprintf(f, "host %s\ncpu %s\narch %s\ncreated %lld\n", p->host,
		p->cpu, p->arch, (long long)p->created);
	fprintf(f, "tick_hz %llu\ntick_quantum %u\ntick_source %s\n",
		(unsigned long long)p->tick_hz, p->tick_quantum,
		p->tick_source);
	fprintf(f, "cycles %s\nns_per_add %s\n", p->cycles,
		fmt_f64(b[0], sizeof b[0], p->ns_per_add));
	fprintf(f, "params eps=%s n=%u p=%u alpha=%s q=%u mem=%s\n",
		fmt_f64(b[0], sizeof b[0], p->eps), p->n, p->p,
		fmt_f64(b[1], sizeof b[1], p->alpha), p->q, p->mem_mode);
	for (size_t i = 0; i < p->nentries; i++) {
		const struct sbt_profile_entry *e = &p->e[i];

		fprintf(f, "result level=%s clock=%s method=%s status=%s "
			"t_min_adds=%llu t_min_ns=%s t_diff_adds=%llu "
			"t_diff_ns=%s te_std_ns=%s model_t_min_ns=%s "
			"model_t_diff_ns=%s flush=%llu",
			e->level, e->clock, e->method, e->status,
			(unsigned long long)e->t_min_adds,
			fmt_f64(b[0], sizeof b[0], e->t_min_ns),
			(unsigned long long)e->t_diff_adds,
			fmt_f64(b[1], sizeof b[1], e->t_diff_ns),
			fmt_f64(b[2], sizeof b[2], e->te_std_ns),
			fmt_f64(b[3], sizeof b[3], e->model_t_min_ns),
			fmt_f64(b[4], sizeof b[4], e->model_t_diff_ns),
			(unsigned long long)e->flush_bytes);
		if (e->note[0])
			fprintf(f, " note=%s", e->note);
		fputc('\n', f);
	}
	fprintf(f, "end\n");
	return ferror(f) ? -1 : 0;
}

int sbt_profile_write(const char *path, const struct sbt_profile *p,
		      char *err, size_t errlen)
{
	char tmp[4096];
	FILE *f;

	if (!valid(p, err, errlen))
		return -1;
	if ((size_t)snprintf(tmp, sizeof tmp, "%s.tmp", path) >= sizeof tmp) {
		snprintf(err, errlen, "%s: path too long", path);
		return -1;
	}
	if (!(f = fopen(tmp, "we"))) {
		snprintf(err, errlen, "%s: %s", tmp, strerror(errno));
		return -1;
	}
	if (sbt_profile_print(f, p) != 0 || fclose(f) != 0) {
		snprintf(err, errlen, "%s: write failed", tmp);
		remove(tmp);
		return -1;
	}
	if (rename(tmp, path) != 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		remove(tmp);
		return -1;
	}
	return 0;
}

/* ---- lookup ------------------------------------------------------------ */

const struct sbt_profile_entry *
sbt_profile_find(const struct sbt_profile *p, const char *level,
		 const char *clock, const char *method)
{
	for (size_t i = 0; i < p->nentries; i++)
		if (!strcmp(p->e[i].level, level) &&
		    !strcmp(p->e[i].clock, clock) &&
		    !strcmp(p->e[i].method, method))
			return &p->e[i];
	return NULL;
}

const struct sbt_profile_entry *
sbt_profile_lookup(const struct sbt_profile *p, const char *level,
		   const char *clock)
{
	static const char *const pref[] = { "sbtmark", "bare" };

	for (size_t i = 0; i < 2; i++) {
		const struct sbt_profile_entry *e =
			sbt_profile_find(p, level, clock, pref[i]);
		if (e && !strcmp(e->status, "ok"))
			return e;
	}
	return NULL;
}
