/*
 * work.h - planted work whose time is known: a chain of dependent adds,
 * as a loop (chain) or as straight-line code (line, x86-64), shared by
 * the apps that plant variation (acc_app.c, tests/corpus/corpus_app.c).
 * Set use_line (ACC_WORK=line) before calling work().
 */
#ifndef SBT_ACC_WORK_H
#define SBT_ACC_WORK_H

#include <stdint.h>

static uint64_t chain(uint64_t x, long n)
{
	for (long i = 0; i < n; i++) {
		x += (uint64_t)i;
		__asm__ __volatile__("" : "+r"(x));
	}
	return x;
}

#define LINE_MAX 16384            /* adds in the straight-line block  */

/* The same dependent adds as straight-line code, no branch but one
 * indirect jump into the block, LINE_MAX - n adds before its end: the
 * jump's target is the same every call of a call site, so the branch
 * predictor has nothing to learn or forget (ACC_WORK=line; x86-64).
 * Each `addq $1, reg` is 4 bytes. */
static uint64_t line(uint64_t x, long n)
{
#if defined(__x86_64__)
	long off = 4 * (n < 0 ? 0 : n > LINE_MAX ? LINE_MAX : n);
	__asm__ __volatile__("lea 1f(%%rip), %%rax\n\t"
			     "sub %[off], %%rax\n\t"
			     "jmp *%%rax\n\t"
			     ".rept " "16384" "\n\t"
			     "addq $1, %[x]\n\t"
			     ".endr\n"
			     "1:\n\t"
			     : [x] "+r"(x) : [off] "r"(off) : "rax", "cc");
	return x;
#else
	return chain(x, n);
#endif
}

static int use_line;                 /* ACC_WORK=line */

static uint64_t work(uint64_t x, long n)
{
	return use_line ? line(x, n) : chain(x, n);
}

#endif
