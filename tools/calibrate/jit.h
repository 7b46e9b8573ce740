/*
 * jit.h - the calibration workload: a straight-line chain of dependent
 * 1-cycle integer ADDs generated at run time.
 *
 * One executable buffer holds SBT_JIT adds followed by an epilogue:
 *
 *   x86-64   add rdi, rsi  (48 01 f7) x max_k;  mov rax, rdi;  ret
 *   Armv8    add x0, x0, x1 (8b010000) x max_k; ret
 *
 * Calling into the chain at  end - K * insn_size  executes exactly K adds,
 * with no branch, then returns x + K * inc.  Every K shares the same code
 * (one buffer, cache-friendly) and the same constant call / epilogue / ret,
 * which belongs to t_a,std and cancels in every difference.
 */
#ifndef SBT_CAL_JIT_H
#define SBT_CAL_JIT_H

#include <stddef.h>
#include <stdint.h>

typedef uint64_t (*sbt_chain_fn)(uint64_t x, uint64_t inc);

struct sbt_chain {
	unsigned char *code;     /* mmap'd buffer                          */
	size_t   map_size;
	size_t   insn_size;      /* bytes per ADD                          */
	uint64_t max_k;          /* adds available                         */
	unsigned char *end;      /* first byte after the last ADD          */
};

/* Build a chain of max_k adds.  Returns 0, or -1 with errno set. */
int sbt_chain_build(struct sbt_chain *c, uint64_t max_k);
void sbt_chain_free(struct sbt_chain *c);

/* Entry point that executes exactly k adds (k <= max_k). */
static inline sbt_chain_fn sbt_chain_entry(const struct sbt_chain *c,
					   uint64_t k)
{
	return (sbt_chain_fn)(void *)(c->end - k * c->insn_size);
}

/* Bytes of code a call with k adds executes (for cache eviction). */
static inline size_t sbt_chain_bytes(const struct sbt_chain *c, uint64_t k)
{
	return (size_t)(k * c->insn_size) + 16;
}

#endif
