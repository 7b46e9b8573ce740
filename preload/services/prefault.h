/*
 * prefault.h - the recorder's own code and data mapped before the first
 * timed window, so that no window holds their first touch.
 */
#ifndef SBT_PREFAULT_H
#define SBT_PREFAULT_H

#include "diag.h"

/* Every page of this library's loaded segments made present (writable
 * ones for writing), whatever their contents.  Once per log opening:
 * a fork child's page table holds none of them again. */
SBT_HIDDEN void sbt_prefault_self(void);

#endif
