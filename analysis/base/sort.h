/*
 * sort.h - linear-time sorts for the analyzer's big arrays.
 *
 * A region can hold tens of millions of samples; comparison sorts through
 * qsort's callback dominate the analysis at that size.  These are LSD
 * radix sorts on the IEEE-754 bit pattern (made order-preserving), 11
 * bits a pass, skipping passes where every key has the same digit; keys
 * already in order cost one pass, and keys of at most a few thousand
 * distinct values (timings on a clock of a few ticks) are counted into
 * place in two.  Every way gives the same result: a stable sort.
 */
#ifndef SBT_SORT_H
#define SBT_SORT_H

#include <stddef.h>
#include <stdint.h>

/* Ascending; NaNs last.  0, or -1 on allocation failure (v unsorted). */
int sbt_sort_doubles(double *v, size_t n);

/* Stable by key, ascending: key[i] travels with val[i]. */
int sbt_sort_keyed(double *key, uint32_t *val, size_t n);

/* qsort's comparator for doubles, ascending, for the small arrays that
 * do not warrant a radix sort. */
int sbt_cmp_double(const void *a, const void *b);

#endif
