/*
 * scopes.h - one compile unit's functions indexed by address, built once.
 *
 * libdw finds a unit by address from its own index (aranges), and a line
 * from its line table, but the functions around a pc - the chain of
 * inlined subroutines inside their subprogram - only by walking the
 * unit's DIE tree (dwarf_getscopes), which costs the unit's size for
 * every address.  Here the unit is walked once: each function DIE with
 * code (subprogram, inlined subroutine) becomes a scope with its address
 * ranges and its enclosing scope, each scope's children sorted by
 * address, so a lookup is one binary search per nesting level.  The walk
 * also keeps every function's enclosing named scopes (namespaces,
 * classes, functions), so names are qualified without walking again.
 */
#ifndef SBT_SCOPES_H
#define SBT_SCOPES_H

#ifdef SBT_HAVE_LIBDW
#include <elfutils/libdw.h>
#include <stddef.h>

struct sbt_scopes;

/* Index the unit `cu` (a compile unit's DIE).  NULL when out of memory. */
struct sbt_scopes *sbt_scopes_build(Dwarf_Die *cu);
void sbt_scopes_free(struct sbt_scopes *sc);

/* The function scopes containing pc (unit-relative, bias removed),
 * innermost first, as DIEs in out[0..max): their number. */
int sbt_scopes_at(const struct sbt_scopes *sc, Dwarf_Addr pc, Dwarf_Die *out,
		  int max);

/* The named scopes enclosing the function DIE at offset `off` (namespaces,
 * classes, functions), outermost first, as "a::b::" into buf, "" when
 * none; `name` (the function's own) names a closure type "<lambda>".
 * Returns -1 when the DIE is not one of this unit's: ask libdw. */
int sbt_scopes_prefix(const struct sbt_scopes *sc, Dwarf_Off off,
		      const char *name, char *buf, size_t len);

#endif
#endif
