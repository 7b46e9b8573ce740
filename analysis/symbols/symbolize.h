/*
 * symbolize.h - recorded code addresses to source-level frames, offline.
 *
 * A return address recorded in a log is looked up in the ELF file the
 * log's module map names, at the load bias it had.  One address can
 * stand for several source frames: a call inside a function that was
 * inlined into another gives the inlined function first, then each
 * function it was inlined into (innermost first).  C++ names come out
 * demangled.  A module whose file is missing, stripped, or changed since
 * the run gives what it can: module + offset always, and a note.
 */
#ifndef SBT_SYMBOLIZE_H
#define SBT_SYMBOLIZE_H

#include <stddef.h>
#include <stdint.h>
#include "dataset.h"
#include "modules.h"

#define SBT_SYM_INLINE 8       /* source frames kept per address        */

struct sbt_symframe {
	char function[256];    /* demangled; "" when unknown            */
	char file[256];        /* as the debug info names it, or ""     */
	int  line;             /* 0 when unknown                        */
	int  inlined;          /* 1: inlined into the frame after it    */
};

/* What a module looks like now against what ran (sbt_symaddr.module_state). */
enum sbt_modstate {
	SBT_MOD_OK = 0,
	SBT_MOD_MISSING,       /* the file is gone or unreadable        */
	SBT_MOD_CHANGED,       /* rebuilt since the run: lines unsure   */
	SBT_MOD_NODEBUG,       /* no symbols or lines: module + offset  */
};

struct sbt_symaddr {
	char     module[256];  /* path of the object, "" when unknown   */
	long     module_no;    /* in the source's modules, -1 none      */
	uint64_t offset;       /* address - the module's load bias      */
	int      module_state; /* enum sbt_modstate                     */
	int      nframes;      /* 0: nothing but module + offset        */
	struct sbt_symframe f[SBT_SYM_INLINE];  /* innermost first       */
};

/* A symbolizer of the modules of `src`: their files opened, checked
 * against the run, and their units indexed as addresses need them.  Not
 * to be shared between threads (open one each).  NULL out of memory. */
struct sbt_symsess;
struct sbt_symsess *sbt_symsess_open(const struct sbt_source *src);
void sbt_symsess_close(struct sbt_symsess *ss);

/* Describe return address `addr` recorded in the session's source (the
 * instruction before it, the call, is what is looked up).  Always fills
 * `out`; returns 0 when at least a function name was found, -1
 * otherwise.  Frames of the marker's own inline code (sbtmark.h,
 * sbtmark_hot.h) are
 * left out: frame 0 is the user's call of the marker.  An OpenMP
 * region's outlined body is named after its function, "main [omp]". */
int sbt_symbolize_addr(struct sbt_symsess *ss, uint64_t addr,
		       struct sbt_symaddr *out);

/* Describe `addr` when it is the entry of a function GCC outlined an
 * OpenMP construct's body into ("main._omp_fn.4"), as libgomp's path
 * names a parallel construct (preload/api/api_omp.h): one frame, the
 * function ("main [omp]") at the first line the line table gives its
 * entry, the pragma's.  -1 when addr is not such an entry (a return
 * address: sbt_symbolize_addr) or cannot be read. */
int sbt_symbolize_entry(struct sbt_symsess *ss, uint64_t addr,
			struct sbt_symaddr *out);

/* Why module `module_no` (sbt_symaddr's) may give wrong or no answers
 * ("" when it is fine, or not looked at yet): "was rebuilt after the run
 * (...)", etc. */
const char *sbt_symbolize_note(struct sbt_symsess *ss, long module_no);

/* A frame as "function (file:line)", file without its directory;
 * module+0xoffset when there is no frame. */
void sbt_symaddr_short(const struct sbt_symaddr *a, char *out, size_t len);

#endif
