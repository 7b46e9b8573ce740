/*
 * symbolize.c - call sites through elfutils' libdwfl, offline.
 *
 * The recorder stored each module's load bias and path; we report the
 * same ELF files at the same biases into one Dwfl session per source and
 * ask for the function and the source line.  A return address points
 * after the call, so we look up addr - 1.
 */
#include "symbolize.h"

#include <stdio.h>
#include <string.h>

#ifdef SBT_HAVE_LIBDW
#include <elfutils/libdwfl.h>

static Dwfl *dwfl;
static const struct sbt_source *dwfl_src;

static const Dwfl_Callbacks callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

static Dwfl_Module *module_for(const struct sbt_source *src, uint64_t addr)
{
	if (dwfl_src != src) {
		sbt_symbolize_end();
		if (!(dwfl = dwfl_begin(&callbacks)))
			return NULL;
		dwfl_src = src;
		dwfl_report_begin(dwfl);
		for (size_t i = 0; i < src->nmodules; i++) {
			const struct sbt_module *m = &src->modules[i];
			if (m->path[0] == '/' || m->path[0] == '.')
				dwfl_report_elf(dwfl, m->path, m->path, -1,
						m->base, false);
		}
		dwfl_report_end(dwfl, NULL, NULL);
	}
	return dwfl_addrmodule(dwfl, addr);
}

int sbt_symbolize(const struct sbt_source *src, uint64_t addr, char *out,
		  size_t outlen)
{
	Dwfl_Module *mod;
	const char *fn, *file = NULL;
	int line = 0;

	out[0] = 0;
	if (!addr || !(mod = module_for(src, addr - 1)))
		return -1;
	fn = dwfl_module_addrname(mod, addr - 1);
	Dwfl_Line *l = dwfl_module_getsrc(mod, addr - 1);
	if (l)
		file = dwfl_lineinfo(l, NULL, &line, NULL, NULL, NULL);
	if (file) {
		const char *b = strrchr(file, '/');
		snprintf(out, outlen, "%s (%s:%d)", fn ? fn : "??",
			 b ? b + 1 : file, line);
	} else if (fn) {
		snprintf(out, outlen, "%s", fn);
	}
	return out[0] ? 0 : -1;
}

void sbt_symbolize_end(void)
{
	if (dwfl)
		dwfl_end(dwfl);
	dwfl = NULL;
	dwfl_src = NULL;
}

#else

int sbt_symbolize(const struct sbt_source *src, uint64_t addr, char *out,
		  size_t outlen)
{
	(void)src, (void)addr;
	if (outlen)
		out[0] = 0;
	return -1;
}

void sbt_symbolize_end(void) { }

#endif
