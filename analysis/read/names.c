/*
 * names.c - read a log's names section back (names.h).
 *
 * The section is the analyzer's own output, but the file is not to be
 * trusted: every count, index and string offset is checked against the
 * table's size before use, the inflated bytes against their CRC, and
 * each module against the log's own MODULE entries.  Any failure leaves
 * the whole section out: the binaries are asked instead.
 */
#include "names.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* The table's parts laid out from its head; -1 when the sizes disagree. */
static int layout(struct sbt_names *n, const unsigned char *raw, size_t len)
{
	const struct sbt_names_head *h = (const void *)raw;
	uint64_t need = sizeof *h;

	if (len < sizeof *h)
		return -1;
	n->h = *h;
	need += (uint64_t)h->nmod * sizeof *n->mod +
		(uint64_t)h->naddr * sizeof *n->addr +
		(uint64_t)h->nframe * sizeof *n->frame + h->nstr;
	if (need != len || h->nstr == 0)
		return -1;
	n->mod = (const void *)(raw + sizeof *h);
	n->addr = (const void *)(n->mod + h->nmod);
	n->frame = (const void *)(n->addr + h->naddr);
	n->str = (const char *)(n->frame + h->nframe);
	return n->str[h->nstr - 1] == 0 ? 0 : -1;
}

/* Every index in range, addresses ascending, modules the log's own. */
static const char *check(const struct sbt_names *n,
			 const struct sbt_source *src)
{
	for (uint32_t i = 0; i < n->h.nmod; i++) {
		const struct sbt_names_mod *m = &n->mod[i];
		if (m->index >= src->nmodules ||
		    src->modules[m->index].lo != m->lo)
			return "a module the log does not list";
		if (m->state != 0 && m->state != 3)
			return "a module state it does not know";
	}
	for (uint32_t i = 0; i < n->h.naddr; i++) {
		const struct sbt_names_addr *a = &n->addr[i];
		if (i && a->addr <= n->addr[i - 1].addr)
			return "addresses out of order";
		if (a->mod >= n->h.nmod || a->nframes > SBT_NAMES_FRAMES ||
		    a->frame0 > n->h.nframe ||
		    a->nframes > n->h.nframe - a->frame0)
			return "an address's module or frames out of range";
	}
	for (uint32_t i = 0; i < n->h.nframe; i++) {
		const struct sbt_names_frame *f = &n->frame[i];
		if (f->function >= n->h.nstr || f->file >= n->h.nstr ||
		    f->inlined > 1)
			return "a frame out of range";
	}
	return NULL;
}

size_t sbt_names_raw(const struct sbt_names *n, const void **raw)
{
	*raw = n + 1;
	return sizeof n->h + n->h.nmod * sizeof *n->mod +
	       n->h.naddr * sizeof *n->addr + n->h.nframe * sizeof *n->frame +
	       n->h.nstr;
}

int sbt_names_from_raw(const struct sbt_source *src, const void *raw,
		       size_t len, struct sbt_names **out, char *why,
		       size_t whylen)
{
	struct sbt_names *n;
	const char *bad;

	*out = NULL;
	if (len > SBT_NAMES_RAWMAX || !(n = malloc(sizeof *n + len))) {
		snprintf(why, whylen, len > SBT_NAMES_RAWMAX ? "too big" :
			 "out of memory");
		return -1;
	}
	memcpy(n + 1, raw, len);
	bad = layout(n, (const unsigned char *)(n + 1), len) != 0 ?
	      "sizes that disagree" : check(n, src);
	if (bad) {
		snprintf(why, whylen, "damaged (%s)", bad);
		free(n);
		return -1;
	}
	*out = n;
	return 0;
}

int sbt_names_parse(const struct sbt_source *src, const void *p, size_t len,
		    struct sbt_names **out, char *why, size_t whylen)
{
	struct sbt_meta_names m;
	struct sbt_names *n;
	const char *bad;

	*out = NULL;
	if (len < sizeof m) {
		snprintf(why, whylen, "too short");
		return -1;
	}
	memcpy(&m, p, sizeof m);
	if (m.version != SBT_NAMES_VERSION) {
		snprintf(why, whylen, "of version %u (this sbt-analyze reads "
			 "version %u)", m.version, SBT_NAMES_VERSION);
		return -1;
	}
	if (m.zlen > len - sizeof m || m.zlen > SBT_NAMES_ZMAX ||
	    m.raw_len > SBT_NAMES_RAWMAX || m.raw_len < sizeof(struct
							    sbt_names_head)) {
		snprintf(why, whylen, "cut short or damaged (sizes)");
		return -1;
	}
	if (!(n = malloc(sizeof *n + m.raw_len))) {
		snprintf(why, whylen, "out of memory");
		return -1;
	}
	unsigned char *raw = (unsigned char *)(n + 1);
	uLongf got = m.raw_len;
	if (uncompress(raw, &got, (const Bytef *)p + sizeof m, m.zlen) != Z_OK ||
	    got != m.raw_len ||
	    crc32(0L, raw, (uInt)got) != m.crc) {
		snprintf(why, whylen, "damaged (its bytes do not inflate to "
			 "their checksum)");
		free(n);
		return -1;
	}
	bad = layout(n, raw, got) != 0 ? "sizes that disagree" :
	      check(n, src);
	if (bad) {
		snprintf(why, whylen, "damaged (%s)", bad);
		free(n);
		return -1;
	}
	*out = n;
	return 0;
}

const struct sbt_names_addr *sbt_names_find(const struct sbt_names *n,
					    uint64_t addr)
{
	size_t lo = 0, hi = n ? n->h.naddr : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (n->addr[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return n && lo < n->h.naddr && n->addr[lo].addr == addr ?
	       &n->addr[lo] : NULL;
}
