/*
 * symbolize.c - call sites through elfutils' libdwfl, offline.
 *
 * The recorder stored each module's load bias, the extent of its loaded
 * segments and its path; we report the same ELF files at the same biases
 * into one Dwfl session per source (and per thread: libdw's objects are
 * not shared between threads).  A return address points after the call,
 * so we look up addr - 1: its unit through libdw's address index, its
 * line through the unit's line table, and the functions around it
 * through the unit's scope index (scopes.h), built once per session:
 * the chain of inlined functions, each one's call site giving the line
 * of the next.  Names are demangled with the C++ runtime's demangler.
 *
 * Whether a file is still the one that ran: the log keeps no build-id, so
 * two checks stand in for it.  The extent of the file's PT_LOAD segments
 * must equal the one recorded (any rebuild that moves code changes it),
 * and the file must not be newer than the log's start.  Either failing
 * is said once per module; the lines may then be wrong.
 *
 * A log that carries its names (read/names.h: resolved by this code when
 * they were embedded) answers first: its addresses never open a binary,
 * and each answer is the one the binaries gave then.
 */
#include "symbolize.h"
#include "names.h"
#include "sbtlog.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void sbt_symaddr_short(const struct sbt_symaddr *a, char *out, size_t len)
{
	const char *m = strrchr(a->module, '/');

	m = m ? m + 1 : a->module;
	if (a->nframes == 0) {
		snprintf(out, len, "%s+0x%llx", m[0] ? m : "?",
			 (unsigned long long)a->offset);
		return;
	}
	const struct sbt_symframe *f = &a->f[0];
	const char *b = strrchr(f->file, '/');
	if (f->file[0])
		snprintf(out, len, "%s (%s:%d)", f->function[0] ? f->function
			 : "??", b ? b + 1 : f->file, f->line);
	else
		snprintf(out, len, "%s (%s+0x%llx)", f->function, m,
			 (unsigned long long)a->offset);
}

#define NODEBUG_NOTE "has no debug info: call sites as module+offset"

/* Address addr as the log's names section has it (names.h): the same
 * answer the binaries gave when it was embedded.  1 when it has it. */
static int from_names(const struct sbt_source *src, uint64_t addr,
		      struct sbt_symaddr *out)
{
	const struct sbt_names *n = src->names;
	const struct sbt_names_addr *a = sbt_names_find(n, addr);

	if (!a)
		return 0;
	const struct sbt_names_mod *m = &n->mod[a->mod];
	const struct sbt_module *sm = &src->modules[m->index];
	snprintf(out->module, sizeof out->module, "%s", sm->path);
	out->module_no = (long)m->index;
	out->offset = addr - sm->base;
	out->module_state = m->state ? SBT_MOD_NODEBUG : SBT_MOD_OK;
	for (uint32_t k = 0; k < a->nframes && k < SBT_SYM_INLINE; k++) {
		const struct sbt_names_frame *f = &n->frame[a->frame0 + k];
		struct sbt_symframe *o = &out->f[out->nframes++];
		snprintf(o->function, sizeof o->function, "%s",
			 n->str + f->function);
		snprintf(o->file, sizeof o->file, "%s", n->str + f->file);
		o->line = f->line;
		o->inlined = (int)f->inlined;
	}
	return 1;
}

/* Address addr as a function's entry, by the log's names section: 1 it
 * is one (*out filled), -1 the section names it otherwise, 0 it has not
 * got it. */
static int entry_from_names(const struct sbt_source *src, uint64_t addr,
			    struct sbt_symaddr *out)
{
	const struct sbt_names_addr *a = src->names ?
		sbt_names_find(src->names, addr) : NULL;

	if (!a)
		return 0;
	if (!(a->flags & SBT_NAMES_ENTRY))
		return -1;
	return from_names(src, addr, out) ? 1 : 0;
}

#ifdef SBT_HAVE_LIBDW
#include "scopes.h"

#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>

/* The C++ runtime's demangler (libstdc++, always there with gcc). */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len,
			    int *status);

struct modinfo {
	int reported;                  /* 1: handed to libdwfl, checked */
	int state;                     /* enum sbt_modstate              */
	char note[160];
};

/* A unit's scope index, by its debug data and offset. */
struct unit { Dwarf *dbg; Dwarf_Off off; struct sbt_scopes *sc; };

struct sbt_symsess {
	Dwfl *dwfl;
	const struct sbt_source *src;
	int names;                     /* the log's names section first */
	struct sbt_modindex mi;
	struct modinfo *mods;          /* parallel to src->modules      */
	uint64_t start_ns;             /* run_start_ns(src)             */
	struct unit *units; size_t nunits, capunits;
};

static const Dwfl_Callbacks callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

/* CLOCK_REALTIME at the log's creation, from its header; 0 unknown. */
static uint64_t run_start_ns(const struct sbt_source *src)
{
	struct sbt_file_header h;
	int fd;
	ssize_t n;

	if (src->is_csv || (fd = open(src->path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	n = pread(fd, &h, sizeof h, 0);
	close(fd);
	if (n != (ssize_t)sizeof h || memcmp(h.magic, SBT_LOG_MAGIC, 8))
		return 0;
	return h.start_unix_ns;
}

/* The first 8 bytes of a build-id in hex, for notes. */
static void hex8(char *out, const unsigned char *id, uint32_t len)
{
	for (uint32_t i = 0; i < len && i < 8; i++)
		sprintf(out + 2 * i, "%02x", id[i]);
	out[2 * (len < 8 ? len : 8)] = 0;
}

/* Is the file behind `mod` the one the run loaded?  Sets mi. */
static void check_module(Dwfl_Module *mod, const struct sbt_module *m,
			 uint64_t start_ns, struct modinfo *mi)
{
	GElf_Addr bias;
	Elf *elf = mod ? dwfl_module_getelf(mod, &bias) : NULL;
	size_t nph = 0;
	uint64_t lo = UINT64_MAX, hi = 0;
	struct stat st;

	if (!elf || elf_getphdrnum(elf, &nph) != 0) {
		mi->state = SBT_MOD_MISSING;
		snprintf(mi->note, sizeof mi->note, "cannot be read now");
		return;
	}
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (ph.p_vaddr < lo) lo = ph.p_vaddr;
		if (ph.p_vaddr + ph.p_memsz > hi) hi = ph.p_vaddr + ph.p_memsz;
	}
	/* The build-id decides when the log has one; size and time are
	 * only guesses for modules without. */
	const unsigned char *bits;
	GElf_Addr idaddr;
	int n = m->build_id_len ? dwfl_module_build_id(mod, &bits, &idaddr) : 0;
	if (m->build_id_len && (n != (int)m->build_id_len ||
				memcmp(bits, m->build_id, (size_t)n) != 0)) {
		char was[2 * 8 + 1], now[2 * 8 + 1] = "none";
		hex8(was, m->build_id, m->build_id_len);
		if (n > 0)
			hex8(now, bits, (uint32_t)n);
		mi->state = SBT_MOD_CHANGED;
		snprintf(mi->note, sizeof mi->note, "was rebuilt after the run "
			 "(build-id %s..., the run's %s...): lines may be wrong",
			 now, was);
		return;
	}
	if (m->build_id_len)
		goto debug;
	if (m->hi > m->lo && (lo != m->lo - m->base || hi != m->hi - m->base)) {
		mi->state = SBT_MOD_CHANGED;
		snprintf(mi->note, sizeof mi->note, "was rebuilt after the run "
			 "(its loaded size is %llu bytes, was %llu): lines "
			 "may be wrong", (unsigned long long)(hi - lo),
			 (unsigned long long)(m->hi - m->lo));
		return;
	}
	if (start_ns && stat(m->path, &st) == 0 &&
	    (uint64_t)st.st_mtim.tv_sec * 1000000000ull +
	    (uint64_t)st.st_mtim.tv_nsec > start_ns) {
		mi->state = SBT_MOD_CHANGED;
		snprintf(mi->note, sizeof mi->note, "was modified after the "
			 "run: lines may be wrong");
		return;
	}
debug:;
	Dwarf_Addr b;
	if (!dwfl_module_getdwarf(mod, &b)) {
		mi->state = SBT_MOD_NODEBUG;
		snprintf(mi->note, sizeof mi->note, NODEBUG_NOTE);
	}
}

struct sbt_symsess *sbt_symsess_open(const struct sbt_source *src)
{
	struct sbt_symsess *ss = calloc(1, sizeof *ss);

	if (!ss || !(ss->mods = calloc(src->nmodules + 1, sizeof *ss->mods)) ||
	    sbt_modindex_build(&ss->mi, src) != 0 ||
	    !(ss->dwfl = dwfl_begin(&callbacks))) {
		sbt_symsess_close(ss);
		return NULL;
	}
	ss->src = src;
	ss->names = src->names != NULL;
	ss->start_ns = run_start_ns(src);
	return ss;
}

/* Module i handed to libdwfl and checked against the run, on its first
 * address: only modules that hold a site are opened, so a log listing
 * thousands (damaged, or a run that loaded them) costs no more than
 * its sites do. */
static void report_module(struct sbt_symsess *ss, size_t i)
{
	const struct sbt_module *m = &ss->src->modules[i];
	struct modinfo *mi = &ss->mods[i];
	Dwfl_Module *mod = NULL;

	mi->reported = 1;
	dwfl_report_begin_add(ss->dwfl);
	if (m->path[0] == '/' || m->path[0] == '.')
		mod = dwfl_report_elf(ss->dwfl, m->path, m->path, -1, m->base,
				      false);
	dwfl_report_end(ss->dwfl, NULL, NULL);
	if (!mod) {
		mi->state = SBT_MOD_MISSING;
		snprintf(mi->note, sizeof mi->note, "cannot be read now");
		return;
	}
	/* checked after reporting: libdwfl opens the ELF files lazily */
	check_module(dwfl_addrmodule(ss->dwfl, m->lo), m, ss->start_ns, mi);
}

/* The scope index of unit cu, built on first use; NULL out of memory. */
static const struct sbt_scopes *unit_scopes(struct sbt_symsess *ss,
					    Dwarf_Die *cu)
{
	Dwarf *dbg = dwarf_cu_getdwarf(cu->cu);
	Dwarf_Off off = dwarf_dieoffset(cu);

	for (size_t i = 0; i < ss->nunits; i++)    /* few units per module */
		if (ss->units[i].dbg == dbg && ss->units[i].off == off)
			return ss->units[i].sc;
	if (ss->nunits == ss->capunits) {
		size_t cap = ss->capunits ? 2 * ss->capunits : 16;
		void *n = realloc(ss->units, cap * sizeof *ss->units);
		if (!n)
			return NULL;
		ss->units = n, ss->capunits = cap;
	}
	struct sbt_scopes *sc = sbt_scopes_build(cu);
	if (sc)
		ss->units[ss->nunits++] = (struct unit){ dbg, off, sc };
	return sc;
}

static void demangle(const char *name, char *out, size_t len)
{
	int status = -1;
	char *d = NULL;

	if (name[0] == '_' && name[1] == 'Z')
		d = __cxa_demangle(name, NULL, NULL, &status);
	snprintf(out, len, "%s", status == 0 && d ? d : name);
	free(d);
}

/* The DIE that defines die: through abstract origins (inlined and
 * out-of-line copies) and specifications (declarations in a class). */
static void definition(Dwarf_Die *die, Dwarf_Die *out)
{
	Dwarf_Attribute a;
	Dwarf_Die next;

	*out = *die;
	for (int k = 0; k < 8; k++) {
		if (!(dwarf_attr(out, DW_AT_abstract_origin, &a) ||
		      dwarf_attr(out, DW_AT_specification, &a)) ||
		    !dwarf_formref_die(&a, &next))
			return;
		*out = next;
	}
}

/* An OpenMP region's body, outlined by the compiler into a function of
 * its own, is named after the function it was written in: GCC's
 * "main._omp_fn.1" and Clang's "main.omp_outlined" read "main [omp]"
 * (the line tells the regions of one function apart).  Clang's bare
 * ".omp_outlined." names no parent: "[omp]". */
static void omp_name(char *name, size_t len)
{
	char *p = strstr(name, "._omp_fn.");

	if (!p)
		p = strstr(name, ".omp_outlined");
	if (!p || (size_t)(p - name) + sizeof " [omp]" > len)
		return;
	snprintf(p, len - (size_t)(p - name), "%s[omp]", p == name ? "" : " ");
}

/* The name of a function DIE: its linkage name demangled when it has
 * one (C++: scope, template and argument types), else its plain name
 * qualified by the scopes that define it, so that a lambda, which GCC
 * gives no linkage name, reads "main::<lambda()>::operator()". */
static void die_name(const struct sbt_scopes *sc, Dwarf_Die *die, char *out,
		     size_t len)
{
	Dwarf_Attribute a;
	Dwarf_Die def, *par = NULL;
	const char *s = NULL;
	size_t used = 0;

	out[0] = 0;
	if (dwarf_attr_integrate(die, DW_AT_linkage_name, &a) ||
	    dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &a))
		s = dwarf_formstring(&a);
	if (s) {
		demangle(s, out, len);
		return;
	}
	if (!dwarf_attr_integrate(die, DW_AT_name, &a) ||
	    !(s = dwarf_formstring(&a)))
		return;
	definition(die, &def);
	if (strstr(s, "._omp_fn.") || strstr(s, ".omp_outlined")) {
		/* GCC nests it in its function's DIE: not a scope of it */
		snprintf(out, len, "%s", s);
		omp_name(out, len);
		return;
	}
	if (sc && sbt_scopes_prefix(sc, dwarf_dieoffset(&def), s, out,
				    len) == 0) {
		used = strlen(out);
		if (used < len)
			snprintf(out + used, len - used, "%s", s);
		omp_name(out, len);
		return;
	}
	/* a definition in another unit: its scopes the slow way */
	int n = dwarf_getscopes_die(&def, &par);
	for (int i = n - 1; i >= 1 && used < len; i--) {
		int tag = dwarf_tag(&par[i]);
		const char *pn = dwarf_diename(&par[i]);
		int type = tag == DW_TAG_class_type ||
			   tag == DW_TAG_structure_type ||
			   tag == DW_TAG_union_type;
		if (!pn && type)        /* a closure type has no name */
			pn = strcmp(s, "operator()") ? "<anonymous>"
						     : "<lambda>";
		if (pn && (tag == DW_TAG_namespace || tag == DW_TAG_subprogram ||
			   type)) {
			int w = snprintf(out + used, len - used, "%s::", pn);
			used += w > 0 ? (size_t)w : 0;
		}
	}
	free(par);
	if (used < len)
		snprintf(out + used, len - used, "%s", s);
	omp_name(out, len);
}

/* One source frame for function DIE fn, located at file:line. */
static void put_frame(const struct sbt_scopes *sc, struct sbt_symaddr *out,
		      Dwarf_Die *fn, const char *file, int line)
{
	struct sbt_symframe *f = &out->f[out->nframes++];

	die_name(sc, fn, f->function, sizeof f->function);
	snprintf(f->file, sizeof f->file, "%s", file ? file : "");
	f->line = line;
	f->inlined = dwarf_tag(fn) == DW_TAG_inlined_subroutine;
}

/* The CU holding pc, found by walking every unit: libdw (up to 0.190)
 * finds a CU by .debug_aranges only, which clang does not emit. */
static Dwarf_Die *cu_scan(Dwfl_Module *mod, Dwarf_Addr pc, Dwarf_Addr *bias,
			  Dwarf_Die *mem)
{
	Dwarf *dw = dwfl_module_getdwarf(mod, bias);
	Dwarf_CU *unit = NULL;

	if (!dw)
		return NULL;
	while (dwarf_get_units(dw, unit, &unit, NULL, NULL, mem, NULL) == 0)
		if (dwarf_haspc(mem, pc - *bias) > 0)
			return mem;
	return NULL;
}

/* Fill out->f with the source frames at pc, innermost first: the
 * function scopes around pc from the unit's index, each inlined one's
 * call site the line of the next. */
static void frames_at(struct sbt_symsess *ss, Dwfl_Module *mod, Dwarf_Addr pc,
		      struct sbt_symaddr *out)
{
	Dwarf_Addr bias = 0;
	Dwarf_Die *cu = dwfl_module_addrdie(mod, pc, &bias), cumem;
	Dwarf_Die chain[SBT_SYM_INLINE];
	const struct sbt_scopes *sc = NULL;
	Dwarf_Files *files = NULL;
	size_t nfiles = 0;
	const char *file = NULL;
	int line = 0, m = 0;
	Dwfl_Line *l = dwfl_module_getsrc(mod, pc);

	if (l)
		file = dwfl_lineinfo(l, NULL, &line, NULL, NULL, NULL);
	if (!cu && (cu = cu_scan(mod, pc, &bias, &cumem)) != NULL) {
		Dwarf_Line *dl = dwarf_getsrc_die(cu, pc - bias);
		if (dl && (file = dwarf_linesrc(dl, NULL, NULL)) != NULL)
			(void)dwarf_lineno(dl, &line);
	}
	if (cu && (sc = unit_scopes(ss, cu))) {
		m = sbt_scopes_at(sc, pc - bias, chain, SBT_SYM_INLINE);
		if (dwarf_getsrcfiles(cu, &files, &nfiles) != 0)
			files = NULL;
	}
	for (int k = 0; k < m && out->nframes < SBT_SYM_INLINE; k++) {
		int tag = dwarf_tag(&chain[k]);
		put_frame(sc, out, &chain[k], file, line);
		if (tag == DW_TAG_subprogram)
			break;
		/* Inlined: the next frame is where it was inlined. */
		Dwarf_Attribute a;
		Dwarf_Word v;
		file = NULL, line = 0;
		if (files && dwarf_formudata(dwarf_attr(&chain[k],
				DW_AT_call_file, &a), &v) == 0)
			file = dwarf_filesrc(files, v, NULL, NULL);
		if (dwarf_formudata(dwarf_attr(&chain[k], DW_AT_call_line,
					       &a), &v) == 0)
			line = (int)v;
	}
	if (out->nframes == 0) {
		/* No DWARF scope: the symbol table, maybe with lines. */
		const char *fn = dwfl_module_addrname(mod, pc);
		if (fn) {
			struct sbt_symframe *f = &out->f[out->nframes++];
			demangle(fn, f->function, sizeof f->function);
			omp_name(f->function, sizeof f->function);
			snprintf(f->file, sizeof f->file, "%s", file ? file : "");
			f->line = file ? line : 0;
		}
	}
}

/* Whether `file` is one of the public headers the markers are inlined
 * from: sbtmark.h (the user's API; the whole fast path in binaries built
 * before the split) or sbtmark_hot.h (the inline fast path). */
static int marker_header(const char *file)
{
	const char *b = strrchr(file, '/');

	b = b ? b + 1 : file;
	return !strcmp(b, "sbtmark.h") || !strcmp(b, "sbtmark_hot.h");
}

/* The marker's fast path is inlined from the public headers into the
 * caller: its own frames come first in the chain and are ours, not the
 * user's; the frame they were inlined into holds the marker's line. */
static void drop_marker_frames(struct sbt_symaddr *a)
{
	int k = 0;

	while (k < a->nframes - 1 && a->f[k].inlined &&
	       marker_header(a->f[k].file))
		k++;
	if (k) {
		memmove(a->f, a->f + k, (size_t)(a->nframes - k) * sizeof *a->f);
		a->nframes -= k;
	}
}

int sbt_symbolize_addr(struct sbt_symsess *ss, uint64_t addr,
		       struct sbt_symaddr *out)
{
	const struct sbt_source *src = ss->src;
	Dwfl_Module *mod;

	memset(out, 0, sizeof *out);
	out->module_no = -1;
	if (!addr)
		return -1;
	long i = sbt_modindex_find(&ss->mi, addr - 1);
	if (i < 0)
		return -1;      /* in no module of the run: nothing to read */
	if (ss->names && from_names(src, addr, out)) {
		/* the module's binary is not opened for it */
		if (!ss->mods[i].reported && out->module_no == i) {
			ss->mods[i].state = out->module_state;
			snprintf(ss->mods[i].note, sizeof ss->mods[i].note,
				 "%s", out->module_state ? NODEBUG_NOTE : "");
		}
		return out->nframes ? 0 : -1;
	}
	const struct sbt_module *m = &src->modules[i];
	if (!ss->mods[i].reported)
		report_module(ss, (size_t)i);
	snprintf(out->module, sizeof out->module, "%s", m->path);
	out->module_no = i;
	out->offset = addr - m->base;
	out->module_state = ss->mods[i].state;
	if (out->module_state == SBT_MOD_MISSING ||
	    !(mod = dwfl_addrmodule(ss->dwfl, addr - 1)))
		return -1;
	frames_at(ss, mod, addr - 1, out);
	drop_marker_frames(out);
	return out->nframes ? 0 : -1;
}

const char *sbt_symbolize_note(struct sbt_symsess *ss, long module_no)
{
	return module_no >= 0 && (size_t)module_no < ss->src->nmodules ?
	       ss->mods[module_no].note : "";
}

/* The first row of unit cu's line table at pc (the line the compiler
 * gave the address first; later rows at the same address are the code
 * that follows).  0, or -1 when no row is at pc. */
static int first_row(Dwarf_Die *cu, Dwarf_Addr pc, const char **file,
		     int *line)
{
	Dwarf_Lines *lines;
	size_t n;

	if (dwarf_getsrclines(cu, &lines, &n) != 0)
		return -1;
	for (size_t k = 0; k < n; k++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, k);
		Dwarf_Addr a;
		bool end;
		if (!l || dwarf_lineaddr(l, &a) != 0 || a != pc ||
		    dwarf_lineendsequence(l, &end) != 0 || end)
			continue;
		if (!(*file = dwarf_linesrc(l, NULL, NULL)) ||
		    dwarf_lineno(l, line) != 0)
			return -1;
		return 0;
	}
	return -1;
}

int sbt_symbolize_entry(struct sbt_symsess *ss, uint64_t addr,
			struct sbt_symaddr *out)
{
	const struct sbt_source *src = ss->src;
	Dwfl_Module *mod;
	GElf_Off off;
	GElf_Sym sym;
	Dwarf_Addr bias = 0;
	Dwarf_Die *cu, cumem;
	const char *name, *file = NULL;
	int line = 0;

	memset(out, 0, sizeof *out);
	out->module_no = -1;
	int named = ss->names ? entry_from_names(src, addr, out) : 0;
	if (named)
		return named > 0 ? 0 : -1;
	long i = addr ? sbt_modindex_find(&ss->mi, addr) : -1;
	if (i < 0)
		return -1;
	if (!ss->mods[i].reported)
		report_module(ss, (size_t)i);
	if (ss->mods[i].state == SBT_MOD_MISSING ||
	    !(mod = dwfl_addrmodule(ss->dwfl, addr)))
		return -1;
	name = dwfl_module_addrinfo(mod, addr, &off, &sym, NULL, NULL, NULL);
	if (!name || off != 0 || !strstr(name, "._omp_fn."))
		return -1;
	snprintf(out->module, sizeof out->module, "%s", src->modules[i].path);
	out->module_no = i;
	out->offset = addr - src->modules[i].base;
	out->module_state = ss->mods[i].state;
	frames_at(ss, mod, addr, out);
	if (out->nframes < 1)
		return -1;
	/* the function itself, not what may be inlined at its entry */
	if (out->nframes > 1)
		out->f[0] = out->f[out->nframes - 1];
	out->nframes = 1;
	out->f[0].inlined = 0;
	if (!(cu = dwfl_module_addrdie(mod, addr, &bias)))
		cu = cu_scan(mod, addr, &bias, &cumem);
	if (cu && first_row(cu, addr - bias, &file, &line) == 0) {
		snprintf(out->f[0].file, sizeof out->f[0].file, "%s", file);
		out->f[0].line = line;
	}
	return 0;
}

void sbt_symsess_close(struct sbt_symsess *ss)
{
	if (!ss)
		return;
	if (ss->dwfl)
		dwfl_end(ss->dwfl);
	for (size_t i = 0; i < ss->nunits; i++)
		sbt_scopes_free(ss->units[i].sc);
	free(ss->units);
	sbt_modindex_free(&ss->mi);
	free(ss->mods);
	free(ss);
}

#else

struct sbt_symsess {
	const struct sbt_source *src;
	struct sbt_modindex mi;
	int names;                     /* the log's names section first */
	uint8_t *named;                /* per module: its state + 1 as the
					  section gave it, 0 not named   */
};

struct sbt_symsess *sbt_symsess_open(const struct sbt_source *src)
{
	struct sbt_symsess *ss = malloc(sizeof *ss);

	if (ss && !(ss->named = calloc(src->nmodules + 1, 1))) {
		free(ss);
		return NULL;
	}
	if (ss && sbt_modindex_build(&ss->mi, src) != 0) {
		free(ss->named), free(ss);
		return NULL;
	}
	if (ss)
		ss->src = src, ss->names = src->names != NULL;
	return ss;
}

int sbt_symbolize_addr(struct sbt_symsess *ss, uint64_t addr,
		       struct sbt_symaddr *out)
{
	long i = addr ? sbt_modindex_find(&ss->mi, addr - 1) : -1;

	memset(out, 0, sizeof *out);
	out->module_no = i;
	if (i >= 0 && ss->names && from_names(ss->src, addr, out)) {
		if (out->module_no == i) {
			ss->named[i] = (uint8_t)(out->module_state + 1);
			return out->nframes ? 0 : -1;
		}
		memset(out, 0, sizeof *out);    /* not the module it is in */
		out->module_no = i;
	}
	if (i >= 0) {
		const struct sbt_module *m = &ss->src->modules[i];
		snprintf(out->module, sizeof out->module, "%s", m->path);
		out->offset = addr - m->base;
	}
	out->module_state = SBT_MOD_NODEBUG;
	return -1;
}

int sbt_symbolize_entry(struct sbt_symsess *ss, uint64_t addr,
			struct sbt_symaddr *out)
{
	memset(out, 0, sizeof *out);
	out->module_no = -1;
	return ss->names && entry_from_names(ss->src, addr, out) > 0 ? 0 : -1;
}

const char *sbt_symbolize_note(struct sbt_symsess *ss, long module_no)
{
	if (module_no >= 0 && (size_t)module_no < ss->src->nmodules &&
	    ss->named[module_no])
		return ss->named[module_no] == SBT_MOD_NODEBUG + 1 ?
		       NODEBUG_NOTE : "";
	return "built without libdw: call sites as module+offset";
}

void sbt_symsess_close(struct sbt_symsess *ss)
{
	if (ss)
		sbt_modindex_free(&ss->mi), free(ss->named);
	free(ss);
}

#endif
